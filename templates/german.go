package templates

// german is the web app's German catalogue: English text (as passed to T,
// Tf or Message) to German in the site's wording. Entries with verbs
// (%s, %d, %q) also translate finished messages through Message; their
// German must use the verbs in the same order or name them (%[2]s).
var german = map[string]string{}

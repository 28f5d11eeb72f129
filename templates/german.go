package templates

// german is the web app's German catalogue: English text (as passed to T,
// Tf or Message) to German in the site's wording (du; "Lerneinheit" for a
// study, "Lernstand" for mastery). Entries with verbs (%s, %d, %q) also
// translate finished messages through Message; their German uses the
// verbs in the same order or names them (%[2]s). TestGermanCatalogue
// fails for any text of the app without an entry.
var german = map[string]string{
	// Studies, questions and practice.
	"Practise":           "Üben",
	"Practice":           "Üben",
	"Delete this study?": "Diese Lerneinheit löschen?",
	"Questions":          "Fragen",
	"Edit question":      "Frage bearbeiten",

	// Layout and header.
	"Skip to content":          "Zum Inhalt springen",
	"Main":                     "Hauptnavigation",
	"Your studies":             "Deine Lerneinheiten",
	"Account menu for":         "Kontomenü für",
	"Account":                  "Konto",
	"Connected assistants":     "Verbundene Assistenten",
	"Sign out":                 "Abmelden",
	"Not found":                "Nicht gefunden",
	"Not Found":                "Nicht gefunden",
	"Bad Request":              "Ungültige Anfrage",
	"Unprocessable Entity":     "Eingabe nicht verwendbar",
	"Request Entity Too Large": "Zu groß",
	"Conflict":                 "Konflikt",
	"Internal Server Error":    "Interner Fehler",
	"Too Many Requests":        "Zu viele Anfragen",

	// Account page.
	"Signed in as":         "Angemeldet als",
	"Change your password": "Passwort ändern",
	"Changing it signs you out on every other device and disconnects every assistant.": "Danach bist du auf allen anderen Geräten abgemeldet, und alle Assistenten sind getrennt.",
	"Current password":                    "Aktuelles Passwort",
	"New password":                        "Neues Passwort",
	"Change password":                     "Passwort ändern",
	"At least %d characters.":             "Mindestens %d Zeichen.",
	"No assistant is connected.":          "Kein Assistent ist verbunden.",
	"1 assistant can use your studies.":   "1 Assistent kann deine Lerneinheiten nutzen.",
	"%d assistants can use your studies.": "%d Assistenten können deine Lerneinheiten nutzen.",
	"See and revoke them":                 "Ansehen und trennen",
	"Delete your account":                 "Konto löschen",
	"This deletes your account and everything in it at once: every study with its questions, answers and files, and every connection to an assistant. It cannot be undone.": "Damit löschst du dein Konto und alles darin sofort: jede Lerneinheit mit ihren Fragen, Antworten und Dateien und jede Verbindung zu einem Assistenten. Das lässt sich nicht rückgängig machen.",
	"Your password, to confirm":              "Dein Passwort zur Bestätigung",
	"Delete my account and everything in it": "Mein Konto und alles darin löschen",
	"Account deleted":                        "Konto gelöscht",
	"Your account and everything in it are deleted, and you are signed out.":                       "Dein Konto und alles darin sind gelöscht, und du bist abgemeldet.",
	"Back to the Studyloop home page":                                                              "Zurück zur Startseite von Studyloop",
	"Your password is changed. Every other device is signed out and every assistant disconnected.": "Dein Passwort ist geändert. Alle anderen Geräte sind abgemeldet und alle Assistenten getrennt.",
	"That is not your current password.":                                                           "Das ist nicht dein aktuelles Passwort.",
	"Choose a password of at least %d characters.":                                                 "Wähle ein Passwort mit mindestens %d Zeichen.",
	"Choose a password of at most %d characters.":                                                  "Wähle ein Passwort mit höchstens %d Zeichen.",
	"Too many failed sign-ins. Try again in %d seconds.":                                           "Zu viele fehlgeschlagene Anmeldungen. Versuch es in %d Sekunden wieder.",
	"The form has expired. Go back, reload the page and try again.":                                "Das Formular ist abgelaufen. Geh zurück, lade die Seite neu und versuch es noch einmal.",

	// Practice.
	"Practise: %s": "Üben: %s",
	"Practise: ":   "Üben: ",

	// Connected assistants.
	"Assistants you have allowed to use your studies. Revoking one ends its access at once; to use it again, connect it and approve it again.": "Assistenten, denen du erlaubt hast, deine Lerneinheiten zu nutzen. Wenn du einen trennst, endet sein Zugriff sofort; um ihn wieder zu nutzen, verbinde ihn neu und bestätige ihn.",
	"Assistant":         "Assistent",
	"Returns to":        "Kehrt zurück zu",
	"Connected":         "Verbunden",
	"Last renewed":      "Zuletzt erneuert",
	"Revoke":            "Trennen",
	"Revoke %s":         "%s trennen",
	"Unnamed assistant": "Unbenannter Assistent",
}

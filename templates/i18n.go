package templates

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/studyloop/studyloop/server/studyloop"
)

// The web app speaks English at /app/… and German at /de/app/…. Handlers
// never choose words: pages say everything in English through T and Tf,
// and a German request context (WithLocale) turns each text into its entry
// in the German catalogue (german.go), in the site's wording (du, "Lerneinheit"
// for a study). Messages made elsewhere (errors of the domain, with numbers
// and names in them) go through Message, which also knows the catalogue's
// entries with verbs (%s, %d, %q) as patterns. Questions and answers are
// the student's material and are never translated.

// Locales of the web app.
const (
	English = "en"
	German  = "de"
)

type localeKey struct{}

// WithLocale returns ctx for pages in locale (English or German).
func WithLocale(ctx context.Context, locale string) context.Context {
	return context.WithValue(ctx, localeKey{}, locale)
}

// Locale returns the locale of ctx, English unless WithLocale said German.
func Locale(ctx context.Context) string {
	if l, _ := ctx.Value(localeKey{}).(string); l == German {
		return German
	}
	return English
}

// AppPath returns a path of the app ("/app/…", "/signout") as the locale
// of ctx addresses it: "/de/app/…" in German. Paths outside the app stay.
func AppPath(ctx context.Context, path string) string {
	if Locale(ctx) == German && (path == "/app" || strings.HasPrefix(path, "/app/") || strings.HasPrefix(path, "/app?")) {
		return "/de" + path
	}
	return path
}

// T returns text in the locale of ctx: the catalogue's German for it, or
// text itself.
func T(ctx context.Context, text string) string {
	if Locale(ctx) == German {
		if de, ok := german[text]; ok {
			return de
		}
	}
	return text
}

// Tf formats the catalogue entry of format (see T) with args.
func Tf(ctx context.Context, format string, args ...any) string {
	return fmt.Sprintf(T(ctx, format), args...)
}

// Message returns a finished message (an error's text, say) in the locale
// of ctx: its catalogue entry, or the entry of the first format that
// matches it, filled with the values the message holds; otherwise msg.
func Message(ctx context.Context, msg string) string {
	if Locale(ctx) != German {
		return msg
	}
	if de, ok := german[msg]; ok {
		return de
	}
	for _, p := range germanPatterns {
		if m := p.re.FindStringSubmatch(msg); m != nil {
			args := make([]any, len(m)-1)
			for i, v := range m[1:] {
				// A value may be a number written the English way, or a
				// message of its own ("Could not be processed: " and the
				// reason).
				if groupedNumber.MatchString(v) {
					args[i] = strings.ReplaceAll(v, ",", ".")
				} else {
					args[i] = Message(ctx, v)
				}
			}
			return fmt.Sprintf(p.german, args...)
		}
	}
	return msg
}

// messagePattern is a catalogue entry with verbs, as a pattern matching
// the English message and the German to fill with what the verbs matched.
type messagePattern struct {
	re     *regexp.Regexp
	german string
}

// Number writes n with thousands separators in the locale of ctx:
// "400,000" in English, "400.000" in German.
func Number(ctx context.Context, n int) string {
	s := studyloop.Commas(n)
	if Locale(ctx) == German {
		return strings.ReplaceAll(s, ",", ".")
	}
	return s
}

var (
	groupedNumber  = regexp.MustCompile(`^\d{1,3}(,\d{3})+$`)
	germanPatterns = compilePatterns(german)
	formatVerb     = regexp.MustCompile(`%(\[\d+\])?[sdqv]`)
)

// compilePatterns turns the entries with verbs into patterns; every verb
// of the German becomes %s (or %[n]s), since the values arrive as text.
func compilePatterns(catalogue map[string]string) []messagePattern {
	var ps []messagePattern
	for en, de := range catalogue {
		if !formatVerb.MatchString(en) {
			continue
		}
		// %d matches a number only ("12", "1,200", "1.5"), so that
		// entries such as "%dd" leave words ending in d alone; other
		// verbs match any text.
		var pattern strings.Builder
		pattern.WriteString("^")
		rest := en
		for _, loc := range formatVerb.FindAllStringIndex(en, -1) {
			pattern.WriteString(regexp.QuoteMeta(rest[:loc[0]-(len(en)-len(rest))]))
			if en[loc[1]-1] == 'd' {
				pattern.WriteString(`(\d[\d,.]*)`)
			} else {
				pattern.WriteString("(.+?)")
			}
			rest = en[loc[1]:]
		}
		pattern.WriteString(regexp.QuoteMeta(rest) + "$")
		re := regexp.MustCompile(pattern.String())
		ps = append(ps, messagePattern{re: re, german: formatVerb.ReplaceAllString(de, "%${1}s")})
	}
	// The longest formats first: the most specific pattern wins.
	slices.SortFunc(ps, func(a, b messagePattern) int {
		return cmp.Or(len(b.re.String())-len(a.re.String()), strings.Compare(a.re.String(), b.re.String()))
	})
	return ps
}

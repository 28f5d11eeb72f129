package templates

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// appTexts finds the English texts the app shows: literals passed to T
// and Tf in the templates and the web app, and the titles and flashes the
// web app's handlers set.
var appTexts = regexp.MustCompile(`\b(?:T|Tf)\(ctx, ("(?:[^"\\]|\\.)*")|\b(?:Title|Flash): ("(?:[^"\\]|\\.)*")`)

// TestGermanCatalogue: every text of the web app has a German entry, and
// the entries keep their verbs.
func TestGermanCatalogue(t *testing.T) {
	var files []string
	for _, glob := range []string{"*.templ", "*.go", "../server/webapp/*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	checked := 0
	for _, f := range files {
		if filepath.Ext(f) == ".go" && (regexp.MustCompile(`_templ\.go$|_test\.go$`).MatchString(f)) {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range appTexts.FindAllStringSubmatch(string(src), -1) {
			lit := m[1] + m[2]
			text, err := strconv.Unquote(lit)
			if err != nil {
				t.Fatalf("%s: %s: %v", f, lit, err)
			}
			checked++
			if _, ok := german[text]; !ok {
				t.Errorf("%s: no German for %q", f, text)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("found only %d texts; the pattern no longer matches the sources", checked)
	}
	verbs := regexp.MustCompile(`%(\[\d+\])?[sdqv]`)
	for en, de := range german {
		if a, b := len(verbs.FindAllString(en, -1)), len(verbs.FindAllString(de, -1)); a != b {
			t.Errorf("%q has %d verbs, its German %q %d", en, a, de, b)
		}
	}
}

func TestMessage(t *testing.T) {
	de := WithLocale(context.Background(), German)
	tests := []struct {
		ctx       context.Context
		msg, want string
	}{
		{de, "No assistant is connected.", "Kein Assistent ist verbunden."},
		{de, "Choose a password of at least 10 characters.", "Wähle ein Passwort mit mindestens 10 Zeichen."},
		{de, "Revoke Claude Desktop", "Claude Desktop trennen"},
		{de, "Study text is 400,001 characters long; the limit is 400,000 characters.", "Der Text hat 400.001 Zeichen; erlaubt sind 400.000 Zeichen."},
		{de, "Could not be processed: The PDF is damaged and could not be read.", "Konnte nicht verarbeitet werden: Das PDF ist beschädigt und konnte nicht gelesen werden."},
		{de, "in 3 days", "in 3 Tagen"},
		{de, "12d", "12 T."},
		{de, "Photosynthesis and the atom", "Photosynthesis and the atom"},
		{de, "Biology", "Biology"},
		{de, "Something no one translated.", "Something no one translated."},
		{context.Background(), "No assistant is connected.", "No assistant is connected."},
	}
	for _, tt := range tests {
		if got := Message(tt.ctx, tt.msg); got != tt.want {
			t.Errorf("Message(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
	if got := AppPath(de, "/app/studies/st_1?x=1"); got != "/de/app/studies/st_1?x=1" {
		t.Errorf("AppPath in German = %q", got)
	}
	for _, path := range []string{"/signout", "/application", "/de/app"} {
		if got := AppPath(de, path); got != path {
			t.Errorf("AppPath(%q) in German = %q, want it unchanged", path, got)
		}
	}
}

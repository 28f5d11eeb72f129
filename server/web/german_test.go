package web_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/store/storetest"
)

// TestGermanApp: /de/app/… is the app in German: the page's language, its
// texts, links, forms and redirects stay German, the language switch leads
// to the same page in English, and a signed-out visit returns to the
// German page after sign-in.
func TestGermanApp(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	s := startAuthServer(t, db, nil)
	b := newBrowser(t, s)
	if p := b.get(t, "/de/app/account"); p.status != http.StatusSeeOther || p.location != s.base+"/signin?next=%2Fde%2Fapp%2Faccount" {
		t.Fatalf("signed out: %d %q", p.status, p.location)
	}
	if loc := b.signUp(t, "/de/app/account", "ann@example.com", "ann's password"); loc != s.base+"/de/app/account" {
		t.Fatalf("after sign-up: %q", loc)
	}
	tests := []struct {
		path string
		want []string
	}{
		{"/de/app/account", []string{`<html lang="de">`, "<h1>Konto</h1>", "Passwort ändern", `action="/de/app/account/password"`, `href="/de/app/assistants"`, `id="switch-language" href="/app/account" hreflang="en"`}},
		{"/de/app/assistants", []string{"<h1>Verbundene Assistenten</h1>", "Kein Assistent ist verbunden."}},
		{"/de/app", []string{`<html lang="de">`, "Deine Lerneinheiten", `href="/de/app/account"`}},
		{"/app/account", []string{`<html lang="en">`, "<h1>Account</h1>", `id="switch-language" href="/de/app/account" hreflang="de"`}},
	}
	for _, tt := range tests {
		p := b.get(t, tt.path)
		if p.status != http.StatusOK {
			t.Fatalf("GET %s: %d", tt.path, p.status)
		}
		for _, want := range tt.want {
			if !strings.Contains(p.body, want) {
				t.Errorf("GET %s lacks %q", tt.path, want)
			}
		}
	}
	csrf := b.get(t, "/de/app/account").csrf(t)
	if p := b.post(t, "/de/app/account/password", url.Values{"csrf_token": {csrf}, "current": {"wrong password"}, "new": {"a new password!"}}); p.status != http.StatusUnauthorized || !strings.Contains(p.body, "Das ist nicht dein aktuelles Passwort.") {
		t.Fatalf("German refusal: %d %.400s", p.status, p.body)
	}
	if p := b.post(t, "/de/app/account/password", url.Values{"csrf_token": {csrf}, "current": {"ann's password"}, "new": {"a new password!"}}); p.status != http.StatusSeeOther || p.location != s.base+"/de/app/account" {
		t.Fatalf("German change: %d %q", p.status, p.location)
	}
	if p := b.get(t, "/de/app/account"); !strings.Contains(p.body, "Dein Passwort ist geändert.") {
		t.Fatal("the confirmation is not in German")
	}

	// An upload refused in German: the multipart body passes through the
	// German routes, and the refusal stands in the PDF form (beside the
	// file field; at the form's top on a server without poppler).
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf_token", b.get(t, "/de/app").csrf(t)) //nolint:errcheck // in memory
	fw, _ := mw.CreateFormFile("pdf", "notes.pdf")
	fw.Write([]byte("not a PDF at all")) //nolint:errcheck // in memory
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, s.base+"/de/app/studies/pdf", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if p := b.do(t, req); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `role="alert" id="pdf-`) || !strings.Contains(p.body, `<html lang="de">`) {
		t.Fatalf("German upload refusal: %d %.300s", p.status, p.body)
	}

	// Another student's study is as missing in German as in English.
	bob := storetest.User(t, db)
	st, err := db.CreateStudy(context.Background(), bob, "Bob's notes", "Bob's notes on cells.")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/de/app/studies/" + st.ID, "/de/app/studies/" + st.ID + "/practice", "/app/studies/" + st.ID} {
		if p := b.get(t, path); p.status != http.StatusNotFound || strings.Contains(p.body, "Bob's notes") {
			t.Errorf("GET %s of another student's study: %d", path, p.status)
		}
	}
}

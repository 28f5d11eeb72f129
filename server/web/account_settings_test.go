package web_test

import (
	"bytes"
	"context"
	"io"
	"mime/quotedprintable"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/mail/mailtest"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

func mustUserID(t *testing.T, db *store.DB, email string) int64 {
	t.Helper()
	u, err := db.UserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// signedIn reports whether the browser's session still opens the app.
func (b *browser) signedIn(t *testing.T) bool {
	t.Helper()
	p := b.get(t, "/app")
	return p.status == http.StatusOK
}

// TestPasswordChange: on /app/account a wrong current password or a short
// new one is refused beside its field; the right one changes the password,
// keeps this browser signed in, signs every other browser out and ends the
// agent's grant.
func TestPasswordChange(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, nil)
		laptop, phone := newBrowser(t, s), newBrowser(t, s)
		laptop.signUp(t, "", "ann@example.com", "the old password")
		phone.signIn(t, "", "ann@example.com", "the old password")
		_, rt := storetest.Grant(t, db, mustUserID(t, db, "ann@example.com"), storetest.SomeAgent, "https://study.example/mcp")

		page := laptop.get(t, "/app/account")
		if page.status != http.StatusOK || !strings.Contains(page.body, `id="email">ann@example.com<`) || !strings.Contains(page.body, "1 assistant can use your studies.") {
			t.Fatalf("GET /app/account: %d %.500s", page.status, page.body)
		}
		checkSensitiveHeaders(t, "/app/account", page.header)
		csrf := page.csrf(t)
		tests := []struct {
			name, csrf, current, next string
			status                    int
			errorID, message          string
		}{
			{"no CSRF token", "", "the old password", "a brand new password", http.StatusForbidden, "", "expired"},
			{"wrong current password", csrf, "not my password", "a brand new password", http.StatusUnauthorized, "current-password-error", "That is not your current password."},
			{"short new password", csrf, "the old password", "short", http.StatusUnprocessableEntity, "new-password-error", "at least 10 characters"},
		}
		for _, tt := range tests {
			p := laptop.post(t, "/app/account/password", url.Values{"csrf_token": {tt.csrf}, "current": {tt.current}, "new": {tt.next}})
			if p.status != tt.status || !strings.Contains(p.body, tt.message) || tt.errorID != "" && !strings.Contains(p.body, `id="`+tt.errorID) {
				t.Errorf("%s: %d, want %d with %q in #%s: %.300s", tt.name, p.status, tt.status, tt.message, tt.errorID, p.body)
			}
		}
		if !phone.signedIn(t) {
			t.Fatal("a refused change signed the phone out")
		}
		p := laptop.post(t, "/app/account/password", url.Values{"csrf_token": {csrf}, "current": {"the old password"}, "new": {"a brand new password"}})
		if p.status != http.StatusSeeOther || p.location != s.base+"/app/account" {
			t.Fatalf("change: %d %q %.300s", p.status, p.location, p.body)
		}
		if page := laptop.get(t, "/app/account"); page.status != http.StatusOK || !strings.Contains(page.body, "Your password is changed.") {
			t.Fatalf("after the change the laptop sees %d %.300s", page.status, page.body)
		}
		if phone.signedIn(t) {
			t.Fatal("the phone is still signed in after the password change")
		}
		if tok, err := db.OAuthToken(context.Background(), rt); err != nil || tok.RevokedAt.IsZero() {
			t.Fatalf("the agent's grant after the change: %+v %v", tok, err)
		}
		if p := phone.trySignIn(t, "", "ann@example.com", "the old password"); p.status != http.StatusUnauthorized {
			t.Fatalf("old password: %d", p.status)
		}
		phone.signIn(t, "", "ann@example.com", "a brand new password")
	})
}

// TestDeleteAccountPage: deleting needs the password; then the account is
// gone, every browser of it is signed out and the other student's account
// stays.
func TestDeleteAccountPage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, nil)
		ann, annPhone, bob := newBrowser(t, s), newBrowser(t, s), newBrowser(t, s)
		ann.signUp(t, "", "ann@example.com", "ann's password")
		annPhone.signIn(t, "", "ann@example.com", "ann's password")
		bob.signUp(t, "", "bob@example.com", "bob's password")
		csrf := ann.get(t, "/app/account").csrf(t)
		if p := ann.post(t, "/app/account/delete", url.Values{"csrf_token": {csrf}, "password": {"bob's password"}}); p.status != http.StatusUnauthorized || !strings.Contains(p.body, `id="delete-password-error"`) {
			t.Fatalf("delete with a wrong password: %d %.300s", p.status, p.body)
		}
		if p := ann.post(t, "/app/account/delete", url.Values{"password": {"ann's password"}}); p.status != http.StatusForbidden {
			t.Fatalf("delete without the CSRF token: %d", p.status)
		}
		p := ann.post(t, "/app/account/delete", url.Values{"csrf_token": {csrf}, "password": {"ann's password"}})
		if p.status != http.StatusOK || !strings.Contains(p.body, "Your account and everything in it are deleted") {
			t.Fatalf("delete: %d %.300s", p.status, p.body)
		}
		if _, err := db.UserByEmail(context.Background(), "ann@example.com"); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Fatalf("the account after deletion: %v", err)
		}
		if ann.signedIn(t) || annPhone.signedIn(t) {
			t.Fatal("a browser is still signed in to the deleted account")
		}
		if !bob.signedIn(t) {
			t.Fatal("the other student was signed out")
		}
	})
}

var resetLink = regexp.MustCompile(`http://[^\s]+/reset\?token=[A-Za-z0-9_=%-]+`)

// TestPasswordResetByEmail: with SMTP_URL set, the sign-in page offers a
// reset; asking for one answers alike for every address and mails a link
// (through a real SMTP server on loopback) only to an account's; the link
// sets a new password once, signs the browser in and every other one out.
// Without SMTP_URL nothing is offered.
func TestPasswordResetByEmail(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	smtp := mailtest.Start(t)
	s := startAuthServer(t, db, map[string]string{"SMTP_URL": smtp.URL, "MAIL_FROM": "Studyloop <noreply@studyloop.example>"})
	laptop := newBrowser(t, s)
	laptop.signUp(t, "", "ann@example.com", "forgotten password")
	_, rt := storetest.Grant(t, db, mustUserID(t, db, "ann@example.com"), storetest.SomeAgent, "https://study.example/mcp")

	stranger := newBrowser(t, s)
	if p := stranger.get(t, "/signin"); !strings.Contains(p.body, `href="/signin/forgot"`) {
		t.Fatal("the sign-in page offers no reset though SMTP_URL is set")
	}
	form := stranger.get(t, "/signin/forgot")
	ask := func(email string) page {
		return stranger.post(t, "/signin/forgot", url.Values{"csrf_token": {form.csrf(t)}, "email": {email}})
	}
	unknown, known := ask("nobody@example.com"), ask("Ann@Example.com")
	for _, p := range []page{unknown, known} {
		if p.status != http.StatusOK || !strings.Contains(p.body, `id="reset-sent"`) {
			t.Fatalf("asking for a reset: %d %.300s", p.status, p.body)
		}
	}
	if p := ask("not an address"); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="email-error"`) {
		t.Fatalf("a malformed address: %d", p.status)
	}
	m := smtp.Wait(t, 1, 10*time.Second)[0]
	if len(m.To) != 1 || m.To[0] != "ann@example.com" || m.From != "noreply@studyloop.example" {
		t.Fatalf("mail from %q to %v", m.From, m.To)
	}
	body, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(m.Body)))
	if err != nil {
		t.Fatal(err)
	}
	link := resetLink.FindString(string(body))
	if link == "" {
		t.Fatalf("no reset link in %q", body)
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(smtp.Messages()); n != 1 {
		t.Fatalf("%d mails sent, want 1 (none for the unknown address)", n)
	}

	resetPage := stranger.get(t, link)
	if resetPage.status != http.StatusOK || !strings.Contains(resetPage.body, `id="reset-email">ann@example.com<`) {
		t.Fatalf("GET the link: %d %.300s", resetPage.status, resetPage.body)
	}
	token := strings.TrimPrefix(link, s.base+"/reset?token=")
	if p := stranger.post(t, "/reset", url.Values{"csrf_token": {resetPage.csrf(t)}, "token": {token}, "password": {"short"}}); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="password-error"`) {
		t.Fatalf("a short password: %d", p.status)
	}
	p := stranger.post(t, "/reset", url.Values{"csrf_token": {resetPage.csrf(t)}, "token": {token}, "password": {"remembered password"}})
	if p.status != http.StatusSeeOther || p.location != s.base+"/app" {
		t.Fatalf("setting the new password: %d %q %.300s", p.status, p.location, p.body)
	}
	if !stranger.signedIn(t) || laptop.signedIn(t) {
		t.Fatal("after the reset the resetting browser must be signed in and every other one out")
	}
	if tok, _ := db.OAuthToken(context.Background(), rt); tok.RevokedAt.IsZero() {
		t.Fatal("the agent's grant outlived the reset")
	}
	if p := stranger.get(t, link); p.status != http.StatusGone {
		t.Fatalf("the link used again: %d", p.status)
	}
	laptop.signIn(t, "", "ann@example.com", "remembered password")

	// Without SMTP_URL the sign-in page offers nothing and there is no form.
	plain := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	b := newBrowser(t, plain)
	if p := b.get(t, "/signin"); strings.Contains(p.body, "/signin/forgot") {
		t.Fatal("the sign-in page offers a reset without SMTP_URL")
	}
	if p := b.get(t, "/signin/forgot"); p.status != http.StatusNotFound {
		t.Fatalf("GET /signin/forgot without SMTP_URL: %d, want 404", p.status)
	}
}

// TestResetRequestsLimitedOverHTTP: a fourth request for one address
// within the hour is answered 429 with Retry-After, whether or not the
// address has an account.
func TestResetRequestsLimitedOverHTTP(t *testing.T) {
	smtp := mailtest.Start(t)
	s := startAuthServer(t, storetest.Open(t, "sqlite"), map[string]string{"SMTP_URL": smtp.URL})
	b := newBrowser(t, s)
	csrf := b.get(t, "/signin/forgot").csrf(t)
	for i := range 4 {
		p := b.post(t, "/signin/forgot", url.Values{"csrf_token": {csrf}, "email": {"nobody@example.com"}})
		if want := map[bool]int{false: http.StatusOK, true: http.StatusTooManyRequests}[i == 3]; p.status != want {
			t.Fatalf("request %d: %d, want %d", i+1, p.status, want)
		}
		if i == 3 && p.header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
	}
}

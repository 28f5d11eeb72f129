package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
)

// sessionRows counts the stored sessions.
func sessionRows(t *testing.T, db *store.DB) int {
	t.Helper()
	n, err := db.NewSelect().Table("sessions").Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAnonymousVisitsStoreNothing: pages seen before sign-in, their failed
// form posts included, leave the session table as it was; signing in
// stores one session.
func TestAnonymousVisitsStoreNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, nil)
		newBrowser(t, s).signUp(t, "", "ada@example.com", "long enough password")
		before := sessionRows(t, db)
		clientID := s.register(t, s.callback)
		authURL, _ := pkceAuthURL(s.oauthConfig(clientID), "state")
		for i := range 10 {
			cookieless := newBrowser(t, s)
			for _, path := range []string{"/signin", "/signup", "/signout", "/reset?token=unknown", "/app", "/app/assistants", authURL} {
				if p := cookieless.get(t, path); p.status >= 500 {
					t.Fatalf("GET %s: %d", path, p.status)
				}
			}
			// The same visitor, with its form cookie, fails to sign in and up.
			form := cookieless.get(t, "/signin")
			if p := cookieless.post(t, "/signin", url.Values{"csrf_token": {form.csrf(t)}, "email": {"nobody" + strconv.Itoa(i) + "@example.com"}, "password": {"long enough password"}}); p.status != http.StatusUnauthorized {
				t.Fatalf("wrong password: %d", p.status)
			}
			if p := cookieless.post(t, "/signup", url.Values{"csrf_token": {form.csrf(t)}, "email": {"not an email"}, "password": {"long enough password"}}); p.status != http.StatusUnprocessableEntity {
				t.Fatalf("bad sign-up: %d", p.status)
			}
		}
		if after := sessionRows(t, db); after != before {
			t.Fatalf("anonymous visits changed the session rows from %d to %d", before, after)
		}
		newBrowser(t, s).signIn(t, "", "ada@example.com", "long enough password")
		if after := sessionRows(t, db); after != before+1 {
			t.Fatalf("a sign-in left %d session rows, want %d", after, before+1)
		}
	})
}

// TestAnonymousCSRF: the sign-in and sign-up forms need the token of the
// visitor's own form cookie.
func TestAnonymousCSRF(t *testing.T) {
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	victim, attacker := newBrowser(t, s), newBrowser(t, s)
	victim.get(t, "/signin")
	attackerToken := attacker.get(t, "/signin").csrf(t)
	tests := []struct {
		name  string
		b     *browser
		token string
	}{
		{"no token", victim, ""},
		{"another visitor's token", victim, attackerToken},
		{"a token without the cookie", newBrowser(t, s), attackerToken},
	}
	for _, tt := range tests {
		for _, path := range []string{"/signin", "/signup"} {
			p := tt.b.post(t, path, url.Values{"csrf_token": {tt.token}, "email": {"eve@example.com"}, "password": {"long enough password"}})
			if p.status != http.StatusForbidden || !strings.Contains(p.body, "expired") {
				t.Errorf("%s, POST %s: %d, want 403 saying the form expired", tt.name, path, p.status)
			}
		}
	}
}

// TestSignUpThrottling: each client may try SIGNUP_RATE_LIMIT sign-ups an
// hour, half at once, counted like sign-ins (an IPv4 address, an IPv6 /64).
func TestSignUpThrottling(t *testing.T) {
	// 4 an hour: 2 at once, then one every 15 minutes.
	s := startAuthServer(t, storetest.Open(t, "sqlite"), map[string]string{"SIGNUP_RATE_LIMIT": "4", "TRUSTED_PROXIES": "127.0.0.0/8"})
	signUp := func(xff, email string) page {
		b := newBrowser(t, s)
		form := b.get(t, "/signup")
		req, _ := http.NewRequest(http.MethodPost, s.base+"/signup", strings.NewReader(url.Values{"csrf_token": {form.csrf(t)}, "email": {email}, "password": {"long enough password"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", xff)
		return b.do(t, req)
	}
	steps := []struct {
		xff, email string
		want       int
	}{
		{"2001:db8:1:2::1", "a1@example.com", http.StatusSeeOther},
		{"2001:db8:1:2::2", "not an email", http.StatusUnprocessableEntity}, // a failed attempt counts
		{"2001:db8:1:2:ffff::9", "a2@example.com", http.StatusTooManyRequests},
		{"2001:db8:1:3::1", "b1@example.com", http.StatusSeeOther}, // another /64
		{"198.51.100.1", "c1@example.com", http.StatusSeeOther},
		{"198.51.100.1", "c2@example.com", http.StatusSeeOther},
		{"198.51.100.1", "c3@example.com", http.StatusTooManyRequests},
	}
	for i, st := range steps {
		p := signUp(st.xff, st.email)
		if p.status != st.want {
			t.Fatalf("step %d (%s, %s): %d, want %d: %.200s", i, st.xff, st.email, p.status, st.want, p.body)
		}
		if st.want != http.StatusTooManyRequests {
			continue
		}
		if secs, err := strconv.Atoi(p.header.Get("Retry-After")); err != nil || secs < 890 || secs > 900 {
			t.Errorf("step %d: Retry-After %q, want about 900 seconds", i, p.header.Get("Retry-After"))
		}
		if !strings.Contains(p.body, "Too many sign-ups came from your network recently. Try again in 15 minutes.") {
			t.Errorf("step %d: the page does not say when to try again: %.300s", i, p.body)
		}
	}
	if _, err := s.db.UserByEmail(context.Background(), "a2@example.com"); err == nil {
		t.Fatal("a refused sign-up created the account")
	}
}

package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
)

func TestAccountPages(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, nil)
		b := newBrowser(t, s)

		for _, path := range []string{"/signup", "/signin", "/signout"} {
			p := b.get(t, path)
			if p.status != http.StatusOK || !strings.Contains(p.body, "/css/site.css") {
				t.Fatalf("GET %s: %d, or not in the site layout", path, p.status)
			}
			checkSensitiveHeaders(t, path, p.header)
		}

		signup := func(email, password, csrf string) page {
			return b.post(t, "/signup", url.Values{"csrf_token": {csrf}, "email": {email}, "password": {password}})
		}
		csrf := b.get(t, "/signup").csrf(t)
		rejects := []struct {
			name, email, password, csrf string
			status                      int
			message                     string
		}{
			{"no CSRF token", "a@example.com", "long enough password", "", http.StatusForbidden, "expired"},
			{"wrong CSRF token", "a@example.com", "long enough password", "x" + csrf[1:], http.StatusForbidden, "expired"},
			{"invalid email", "not-an-email", "long enough password", csrf, http.StatusBadRequest, "email address"},
			{"short password", "a@example.com", "short", csrf, http.StatusBadRequest, "at least 10 characters"},
		}
		for _, r := range rejects {
			p := signup(r.email, r.password, r.csrf)
			if p.status != r.status || !strings.Contains(p.body, r.message) {
				t.Errorf("sign-up with %s: %d, want %d with %q", r.name, p.status, r.status, r.message)
			}
		}
		if p := signup("Ada@Example.com", "long enough password", csrf); p.status != http.StatusSeeOther || p.location != s.base+"/app" {
			t.Fatalf("sign-up: %d %q", p.status, p.location)
		}
		// Signed in now: the sign-in page sends the student on, and an
		// unsafe next is not followed.
		if p := b.get(t, "/signin?next="+url.QueryEscape("//evil.example/x")); p.status != http.StatusSeeOther || p.location != s.base+"/app" {
			t.Fatalf("signed-in GET /signin with an off-site next: %d %q", p.status, p.location)
		}

		other := newBrowser(t, s)
		dup := other.get(t, "/signup")
		if p := other.post(t, "/signup", url.Values{"csrf_token": {dup.csrf(t)}, "email": {"ADA@example.com"}, "password": {"another long password"}}); p.status != http.StatusConflict || !strings.Contains(p.body, "already exists") {
			t.Fatalf("duplicate sign-up: %d", p.status)
		}
		if p := other.trySignIn(t, "", "ada@example.com", "wrong password!!"); p.status != http.StatusUnauthorized || !strings.Contains(p.body, "do not match") {
			t.Fatalf("wrong password: %d", p.status)
		}
		if p := other.trySignIn(t, "https://evil.example/", "ada@example.com", "long enough password"); p.status != http.StatusSeeOther || p.location != s.base+"/app" {
			t.Fatalf("sign-in with an off-site next: %d %q", p.status, p.location)
		}
	})
}

func TestSignInThrottling(t *testing.T) {
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	b := newBrowser(t, s)
	b.signUp(t, "", "ada@example.com", "long enough password")
	attacker := newBrowser(t, s)
	for i := range 5 {
		if p := attacker.trySignIn(t, "", "ada@example.com", "guess number "+strconv.Itoa(i)); p.status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i, p.status)
		}
	}
	p := attacker.trySignIn(t, "", "ada@example.com", "long enough password")
	if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") == "" || !strings.Contains(p.body, "Too many failed sign-ins") {
		t.Fatalf("after 5 failures, even the right password: %d Retry-After %q", p.status, p.header.Get("Retry-After"))
	}
}

func TestSessionCookie(t *testing.T) {
	tests := []struct {
		name, baseURL, cookie string
		secure                bool
	}{
		{"http origin", "", "studyloop_session", false},
		{"https origin", "https://studyloop.example", "__Host-studyloop_session", true},
		{"https origin in capitals", "HTTPS://studyloop.example", "__Host-studyloop_session", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{}
			if tt.baseURL != "" {
				env["BASE_URL"] = tt.baseURL
			}
			s := startAuthServer(t, storetest.Open(t, "sqlite"), env)
			res, err := http.Get(s.base + "/signin")
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			var found bool
			for _, c := range res.Cookies() {
				if c.Name == tt.cookie {
					found = true
					if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure != tt.secure || c.Path != "/" {
						t.Fatalf("cookie %+v: want HttpOnly, SameSite=Lax, Secure=%v, Path=/", c, tt.secure)
					}
				}
			}
			if !found {
				t.Fatalf("no %s cookie in %v", tt.cookie, res.Header["Set-Cookie"])
			}
		})
	}
}

func TestSessionTokenRenewedAtSignIn(t *testing.T) {
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	newBrowser(t, s).signUp(t, "", "ada@example.com", "long enough password")
	b := newBrowser(t, s)
	form := b.get(t, "/signin")
	before := sessionCookie(t, form.header)
	res := b.post(t, "/signin", url.Values{"csrf_token": {form.csrf(t)}, "email": {"ada@example.com"}, "password": {"long enough password"}})
	after := sessionCookie(t, res.header)
	if res.status != http.StatusSeeOther || after == "" || after == before {
		t.Fatalf("sign-in: %d, session token %q then %q: want a new token", res.status, before, after)
	}
	// The pre-sign-in token no longer carries a session.
	fixated := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodGet, s.base+"/signin", nil)
	req.AddCookie(&http.Cookie{Name: "studyloop_session", Value: before})
	r, err := fixated.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Fatalf("the old session token is still signed in: %d", r.StatusCode)
	}
}

func sessionCookie(t *testing.T, h http.Header) string {
	t.Helper()
	for _, c := range (&http.Response{Header: h}).Cookies() {
		if c.Name == "studyloop_session" {
			return c.Value
		}
	}
	return ""
}

func TestNoSessionOnStaticRoutes(t *testing.T) {
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	for _, path := range []string{"/", "/api/health", "/.well-known/oauth-authorization-server"} {
		res, err := http.Get(s.base + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		for _, v := range res.Header.Values("Vary") {
			if strings.Contains(strings.ToLower(v), "cookie") {
				t.Errorf("%s: Vary %q mentions Cookie", path, v)
			}
		}
		if len(res.Cookies()) != 0 {
			t.Errorf("%s sets cookies: %v", path, res.Cookies())
		}
	}
	res, err := http.Get(s.base + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if !strings.Contains(res.Header.Get("Vary"), "Cookie") {
		t.Errorf("/signin: Vary %q, want Cookie", res.Header.Get("Vary"))
	}
}

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
		wrong := "x" + csrf[1:]
		if wrong == csrf {
			wrong = "y" + csrf[1:]
		}
		rejects := []struct {
			name, email, password, csrf string
			status                      int
			message                     string
		}{
			{"no CSRF token", "a@example.com", "long enough password", "", http.StatusForbidden, "expired"},
			{"wrong CSRF token", "a@example.com", "long enough password", wrong, http.StatusForbidden, "expired"},
			{"invalid email", "not-an-email", "long enough password", csrf, http.StatusUnprocessableEntity, "email address"},
			{"short password", "a@example.com", "short", csrf, http.StatusUnprocessableEntity, "at least 10 characters"},
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

// TestSessionCookie: the sign-up form sets only its double-submit form
// cookie, and signing up the session cookie; both HttpOnly and SameSite=Lax,
// Secure and __Host- prefixed when BASE_URL is https.
func TestSessionCookie(t *testing.T) {
	tests := []struct {
		name, baseURL, prefix string
		secure                bool
	}{
		{"http origin", "", "", false},
		{"https origin", "https://studyloop.example", "__Host-", true},
		{"https origin in capitals", "HTTPS://studyloop.example", "__Host-", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{}
			if tt.baseURL != "" {
				env["BASE_URL"] = tt.baseURL
			}
			s := startAuthServer(t, storetest.Open(t, "sqlite"), env)
			b := newBrowser(t, s)
			b.c.Jar = &plainJar{cookies: map[string]*http.Cookie{}}
			checkCookies := func(what string, h http.Header, want string) {
				t.Helper()
				cookies := (&http.Response{Header: h}).Cookies()
				if len(cookies) != 1 || cookies[0].Name != want {
					t.Fatalf("%s sets %v, want one %s cookie", what, h["Set-Cookie"], want)
				}
				if c := cookies[0]; !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure != tt.secure || c.Path != "/" {
					t.Fatalf("%s: cookie %+v: want HttpOnly, SameSite=Lax, Secure=%v, Path=/", what, c, tt.secure)
				}
			}
			form := b.get(t, "/signup")
			checkCookies("GET /signup", form.header, tt.prefix+"studyloop_form")
			res := b.post(t, "/signup", url.Values{"csrf_token": {form.csrf(t)}, "email": {"ada@example.com"}, "password": {"long enough password"}})
			checkCookies("POST /signup", res.header, tt.prefix+"studyloop_session")
		})
	}
}

func TestSessionTokenRenewedAtSignIn(t *testing.T) {
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	newBrowser(t, s).signUp(t, "", "ada@example.com", "long enough password")
	// An attacker's own session token, planted in the student's browser.
	eve := newBrowser(t, s)
	eve.signUp(t, "", "eve@example.com", "long enough password")
	u, _ := url.Parse(s.base)
	var planted string
	for _, c := range eve.c.Jar.Cookies(u) {
		if c.Name == "studyloop_session" {
			planted = c.Value
		}
	}
	b := newBrowser(t, s)
	form := b.get(t, "/signin")
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: "studyloop_session", Value: planted}})
	res := b.post(t, "/signin", url.Values{"csrf_token": {form.csrf(t)}, "email": {"ada@example.com"}, "password": {"long enough password"}})
	after := sessionCookie(t, res.header)
	if res.status != http.StatusSeeOther || after == "" || after == planted {
		t.Fatalf("sign-in: %d, session token %q then %q: want a new token", res.status, planted, after)
	}
	if p := b.get(t, "/signout"); !strings.Contains(p.body, "ada@example.com") {
		t.Fatalf("after sign-in: %d, want Ada signed in", p.status)
	}
	// The planted token does not carry Ada's sign-in.
	fixated := newBrowser(t, s)
	fixated.c.Jar.SetCookies(u, []*http.Cookie{{Name: "studyloop_session", Value: planted}})
	if p := fixated.get(t, "/signout"); planted == "" || strings.Contains(p.body, "ada@example.com") {
		t.Fatalf("the planted token (%q) is signed in as Ada", planted)
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

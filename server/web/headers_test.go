package web_test

import (
	"io/fs"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/studyloop/studyloop/build"
	"github.com/studyloop/studyloop/server/store/storetest"
)

// plainJar keeps every cookie it is given and sends all of them back, even
// Secure ones over plain HTTP, so that a test server on loopback can be
// given an https BASE_URL.
type plainJar struct {
	mu      sync.Mutex
	cookies map[string]*http.Cookie
}

func (j *plainJar) SetCookies(_ *url.URL, cookies []*http.Cookie) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, c := range cookies {
		if c.MaxAge < 0 {
			delete(j.cookies, c.Name)
			continue
		}
		j.cookies[c.Name] = c
	}
}

func (j *plainJar) Cookies(*url.URL) []*http.Cookie {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []*http.Cookie
	for _, c := range j.cookies {
		out = append(out, &http.Cookie{Name: c.Name, Value: c.Value})
	}
	return out
}

// inlineCode finds what the content security policy would block in a page:
// script elements, style elements and attributes, event handler attributes.
// A script element without src is inline; one that loads a file of this
// origin is what the policy allows.
var inlineCode = regexp.MustCompile(`(?i)<script(\s+(type|nonce)="[^"]*")*\s*>|<style|\sstyle=|\son[a-z]+=`)

// TestBuiltPagesHaveNoInlineCode checks every built HTML page against the
// content security policy.
func TestBuiltPagesHaveNoInlineCode(t *testing.T) {
	pages := 0
	err := fs.WalkDir(build.Site(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".html") {
			return err
		}
		body, err := fs.ReadFile(build.Site(), path)
		if err != nil {
			return err
		}
		pages++
		if m := inlineCode.Find(body); m != nil {
			t.Errorf("%s: %q, which the content security policy blocks", path, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages < 10 {
		t.Fatalf("%d built HTML pages; run make site", pages)
	}
}

// TestSecurityHeaders checks the headers of every kind of response, with an
// http and an https BASE_URL: every response carries the strict content
// security policy and nosniff, HSTS goes with https only, and sensitive
// pages stay no-store even when they set the session cookie.
func TestSecurityHeaders(t *testing.T) {
	const csp = "default-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'"
	for _, scheme := range []string{"http", "https"} {
		t.Run(scheme, func(t *testing.T) {
			var env map[string]string
			if scheme == "https" {
				// The server on loopback, told that its public origin is
				// https (behind a proxy ending TLS).
				env = map[string]string{"BASE_URL": "https://studyloop.test", "ALLOWED_HOSTS": "127.0.0.1"}
			}
			s := startAuthServer(t, storetest.Open(t, "sqlite"), env)
			b := newBrowser(t, s)
			b.c.Jar = &plainJar{cookies: map[string]*http.Cookie{}}
			base := s.base
			get := func(path string) page {
				req, _ := http.NewRequest(http.MethodGet, base+path, nil)
				return b.do(t, req)
			}
			post := func(path, contentType, body string) page {
				req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
				req.Header.Set("Content-Type", contentType)
				return b.do(t, req)
			}
			kinds := []struct {
				name      string
				send      func() page
				status    int
				sensitive bool
			}{
				{"built HTML page", func() page { return get("/") }, http.StatusOK, false},
				{"German page", func() page { return get("/de/") }, http.StatusOK, false},
				{"markdown twin", func() page { return get("/index.md") }, http.StatusOK, false},
				{"stylesheet", func() page { return get("/css/site.css") }, http.StatusOK, false},
				{"llms.txt", func() page { return get("/llms.txt") }, http.StatusOK, false},
				{"404 page", func() page { return get("/no-such-page/") }, http.StatusNotFound, false},
				{"health JSON", func() page { return get("/api/health") }, http.StatusOK, false},
				{"OAuth metadata", func() page { return get("/.well-known/oauth-authorization-server") }, http.StatusOK, false},
				{"token endpoint error", func() page {
					return post("/oauth/token", "application/x-www-form-urlencoded", "grant_type=nope")
				}, http.StatusBadRequest, false},
				{"MCP connect page", func() page { return get("/mcp") }, http.StatusOK, false},
				{"MCP without a token", func() page { return post("/mcp", "application/json", `{"jsonrpc":"2.0","id":1,"method":"ping"}`) }, http.StatusUnauthorized, false},
				{"sign-in page", func() page { return get("/signin") }, http.StatusOK, true},
				{"authorize error page", func() page { return get("/oauth/authorize?client_id=nope") }, http.StatusBadRequest, true},
				{"app, signed out", func() page { return get("/app") }, http.StatusSeeOther, true},
				{"sign-up, setting the session cookie", func() page {
					form := get("/signup")
					return post("/signup", "application/x-www-form-urlencoded", url.Values{
						"csrf_token": {form.csrf(t)}, "email": {scheme + "@example.com"}, "password": {"long enough password"},
					}.Encode())
				}, http.StatusSeeOther, true},
				{"app, signed in", func() page { return get("/app") }, http.StatusOK, true},
				{"sign-out page, signed in", func() page { return get("/signout") }, http.StatusOK, true},
			}
			for _, k := range kinds {
				p := k.send()
				if p.status != k.status {
					t.Errorf("%s: status %d, want %d", k.name, p.status, k.status)
				}
				want := map[string]string{
					"Content-Security-Policy":   csp,
					"X-Content-Type-Options":    "nosniff",
					"Strict-Transport-Security": "",
				}
				if scheme == "https" {
					want["Strict-Transport-Security"] = "max-age=31536000"
				}
				if k.sensitive {
					want["Cache-Control"] = "no-store"
					want["X-Frame-Options"] = "DENY"
					want["Referrer-Policy"] = "no-referrer"
				}
				if strings.HasPrefix(p.header.Get("Content-Type"), "text/html") && inlineCode.MatchString(p.body) {
					t.Errorf("%s: inline script or style, which the policy blocks: %q", k.name, inlineCode.FindString(p.body))
				}
				for h, v := range want {
					if got := strings.Join(p.header.Values(h), ", "); got != v {
						t.Errorf("%s: %s = %q, want %q", k.name, h, got, v)
					}
				}
			}
		})
	}
}

package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/studyloop/studyloop/server/store/storetest"
)

// TestAppSavesTheSessionOnce checks the web app's routes, which wrap
// RequireCSRF in RequireUser: a signed-in request loads and saves the
// session once, so the response carries the session cookie at most once.
func TestAppSavesTheSessionOnce(t *testing.T) {
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	b := newBrowser(t, s)
	b.signUp(t, "", "ada@example.com", "long enough password")
	csrf := b.get(t, "/app").csrf(t)

	tests := []struct {
		name string
		send func() page
		want int
	}{
		{"GET /app", func() page { return b.get(t, "/app") }, http.StatusOK},
		{"POST /app/studies", func() page {
			return b.post(t, "/app/studies", url.Values{"csrf_token": {csrf}, "title": {"Cells"}, "text": {"A cell is the smallest unit of life."}})
		}, http.StatusSeeOther},
		{"POST /app/studies without a CSRF token", func() page {
			return b.post(t, "/app/studies", url.Values{"title": {"Cells"}, "text": {"A cell is the smallest unit of life."}})
		}, http.StatusForbidden},
	}
	for _, tt := range tests {
		p := tt.send()
		var cookies int
		for _, c := range (&http.Response{Header: p.header}).Cookies() {
			if c.Name == "studyloop_session" {
				cookies++
			}
		}
		if p.status != tt.want || cookies > 1 {
			t.Errorf("%s: %d with %d session cookies (Set-Cookie %q), want %d with at most one", tt.name, p.status, cookies, p.header.Values("Set-Cookie"), tt.want)
		}
	}
}

package session_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// newServer serves, over a real session store: /login?id=N signs in user N
// (users 1 to 50 exist) and prints the CSRF token, /private requires a user, /form requires CSRF,
// /private/form requires both, as the web app's forms do.
func newServer(t *testing.T) (*httptest.Server, *http.Client) {
	t.Helper()
	db := storetest.Open(t, "sqlite")
	for range 50 {
		storetest.User(t, db)
	}
	m := session.New(db.Sessions(), nil)
	mux := http.NewServeMux()
	mux.Handle("GET /login", m.Load(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(r.URL.Query().Get("id"), 10, 64)
		if err := m.SignIn(r.Context(), id); err != nil {
			t.Error(err)
		}
		fmt.Fprint(w, m.CSRFToken(r.Context()))
	})))
	mux.Handle("/private", m.RequireUser(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := studyloop.UserIDFromContext(r.Context())
		fmt.Fprintf(w, "user %d %v", id, ok)
	})))
	mux.Handle("/form", m.RequireCSRF(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "accepted")
	})))
	mux.Handle("/private/form", m.RequireUser(m.RequireCSRF(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "accepted")
	}))))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	return srv, &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func call(t *testing.T, c *http.Client, method, u string, form url.Values, header map[string]string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(method, u, strings.NewReader(form.Encode()))
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Location"), string(b)
}

func TestRequireUser(t *testing.T) {
	srv, c := newServer(t)
	tests := []struct {
		method, path, wantLocation string
	}{
		{"GET", "/private?tab=2", "/signin?next=%2Fprivate%3Ftab%3D2"},
		{"POST", "/private?tab=2", "/signin?next=%2Fprivate"},
	}
	for _, tt := range tests {
		status, loc, _ := call(t, c, tt.method, srv.URL+tt.path, nil, nil)
		if status != http.StatusSeeOther || loc != tt.wantLocation {
			t.Errorf("%s %s signed out: %d %q, want 303 %q", tt.method, tt.path, status, loc, tt.wantLocation)
		}
	}
	call(t, c, "GET", srv.URL+"/login?id=42", nil, nil)
	if status, _, body := call(t, c, "GET", srv.URL+"/private", nil, nil); status != http.StatusOK || body != "user 42 true" {
		t.Fatalf("signed in: %d %q", status, body)
	}
}

func TestRequireCSRF(t *testing.T) {
	srv, c := newServer(t)
	_, _, token := call(t, c, "GET", srv.URL+"/login?id=7", nil, nil)
	tests := []struct {
		name   string
		method string
		form   url.Values
		header map[string]string
		want   int
	}{
		{"GET needs no token", "GET", nil, nil, http.StatusOK},
		{"POST without token", "POST", url.Values{"x": {"1"}}, nil, http.StatusForbidden},
		{"POST with wrong token", "POST", url.Values{session.CSRFField: {token + "x"}}, nil, http.StatusForbidden},
		{"POST with empty token", "POST", url.Values{session.CSRFField: {""}}, nil, http.StatusForbidden},
		{"POST with form token", "POST", url.Values{session.CSRFField: {token}}, nil, http.StatusOK},
		{"DELETE with header token", "DELETE", nil, map[string]string{session.CSRFHeader: token}, http.StatusOK},
		{"PUT with wrong header token", "PUT", nil, map[string]string{session.CSRFHeader: "nope"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		if status, _, _ := call(t, c, tt.method, srv.URL+"/form", tt.form, tt.header); status != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, status, tt.want)
		}
	}
	// Another session's token is no good.
	fresh, _ := cookiejar.New(nil)
	c2 := &http.Client{Jar: fresh}
	call(t, c2, "GET", srv.URL+"/login?id=8", nil, nil)
	if status, _, _ := call(t, c2, "POST", srv.URL+"/form", url.Values{session.CSRFField: {token}}, nil); status != http.StatusForbidden {
		t.Fatalf("another session's token: %d, want 403", status)
	}
}

// TestNestedLoadSavesOnce checks that RequireUser around RequireCSRF loads
// and saves the session once: one session cookie and one Vary: Cookie per
// response, and the request still passes both checks.
func TestNestedLoadSavesOnce(t *testing.T) {
	srv, c := newServer(t)
	_, _, token := call(t, c, "GET", srv.URL+"/login?id=7", nil, nil)
	tests := []struct {
		name, method, path string
		form               url.Values
		want               int
	}{
		{"RequireUser", "GET", "/private", nil, http.StatusOK},
		{"RequireCSRF", "POST", "/form", url.Values{session.CSRFField: {token}}, http.StatusOK},
		{"RequireUser(RequireCSRF)", "POST", "/private/form", url.Values{session.CSRFField: {token}}, http.StatusOK},
		{"RequireUser(RequireCSRF) without token", "POST", "/private/form", url.Values{}, http.StatusForbidden},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		var cookies int
		for _, ck := range res.Cookies() {
			if ck.Name == "studyloop_session" {
				cookies++
			}
		}
		if res.StatusCode != tt.want || cookies != 1 || len(res.Header.Values("Vary")) != 1 {
			t.Errorf("%s: %d with %d session cookies and Vary %q, want %d with one cookie and one Vary", tt.name, res.StatusCode, cookies, res.Header.Values("Vary"), tt.want)
		}
	}
}

func TestSafeNext(t *testing.T) {
	tests := []struct{ next, want string }{
		{"/app", "/app"},
		{"/oauth/authorize?client_id=x&state=y", "/oauth/authorize?client_id=x&state=y"},
		{"", "/fallback"},
		{"app", "/fallback"},
		{"//evil.example/x", "/fallback"},
		{"/\\evil.example", "/fallback"},
		{"https://evil.example/", "/fallback"},
		{"/ok\r\nSet-Cookie: x", "/fallback"},
		{"javascript:alert(1)", "/fallback"},
	}
	for _, tt := range tests {
		if got := session.SafeNext(tt.next, "/fallback"); got != tt.want {
			t.Errorf("SafeNext(%q) = %q, want %q", tt.next, got, tt.want)
		}
	}
}

// cancelKey holds, in a request's context, the function that cancels it.
type cancelKey struct{}

// TestSaveOfACutOffRequest: a session that cannot be saved because the
// request was cut off (the client left, or the server's read deadline
// passed) is answered 408, not reported as a server error.
func TestSaveOfACutOffRequest(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	m := session.New(db.Sessions(), nil)
	handler := m.Load(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.PutString(r.Context(), "seen", "yes")
		if r.URL.Query().Has("cut") {
			r.Context().Value(cancelKey{}).(context.CancelFunc)()
		}
		fmt.Fprint(w, "done")
	}))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		handler.ServeHTTP(w, r.WithContext(context.WithValue(ctx, cancelKey{}, cancel)))
	}))
	t.Cleanup(srv.Close)
	tests := []struct {
		path string
		want int
	}{
		{"/", http.StatusOK},
		{"/?cut", http.StatusRequestTimeout},
	}
	for _, tt := range tests {
		if status, _, _ := call(t, http.DefaultClient, "GET", srv.URL+tt.path, nil, nil); status != tt.want {
			t.Errorf("GET %s: %d, want %d", tt.path, status, tt.want)
		}
	}
}

package web_test

// Helpers for the tests of accounts and the OAuth authorization server:
// the real server (web.NewServer) on loopback with a real database, a
// loopback "client" that receives authorization responses, and a browser
// made of net/http with a cookie jar that fills in the real HTML forms.

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/oauth"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/server/web"
	"github.com/studyloop/studyloop/server/web/webtest"
)

// protectedPath is a test-only route behind oauth.RequireToken that echoes
// the grant it was given.
const protectedPath = "/test/protected"

// authServer is a running Studyloop server and a loopback client callback.
type authServer struct {
	base     string
	db       *store.DB
	cfg      config.Config
	callback string // http://127.0.0.1:PORT/callback, answered by the test
}

// startAuthServer serves web.NewServer (plus protectedPath) on loopback with
// BASE_URL set to its own address. env overrides configuration.
func startAuthServer(t testing.TB, db *store.DB, env map[string]string) *authServer {
	t.Helper()
	return startAuthServerTrusting(t, db, env, nil)
}

// startAuthServerTrusting is startAuthServer with the test switch for Client
// ID Metadata Documents: fetched trusting documentRoots only, from loopback
// too. Nil leaves the switch off, as in production.
func startAuthServerTrusting(t testing.TB, db *store.DB, env map[string]string, documentRoots *x509.CertPool) *authServer {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	vars := map[string]string{"BASE_URL": base, "REGISTER_RATE_LIMIT": "100000", "SIGNUP_RATE_LIMIT": "100000"}
	for k, v := range env {
		vars[k] = v
	}
	cfg, err := config.FromEnv(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := web.NewServer(webtest.Deps(t, cfg, db, webtest.Options{Logger: logger, ClientMetadataTestRoots: documentRoots}))
	mux := http.NewServeMux()
	mux.Handle("/", h)
	verifier := oauth.New(db, nil, cfg, &oauth.Options{Logger: logger})
	mux.Handle("GET "+protectedPath, oauth.RequireToken(verifier, cfg, logger)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := studyloop.UserIDFromContext(r.Context())
		info := oauth.TokenInfoFromContext(r.Context())
		fmt.Fprintf(w, "user=%d client=%s audience=%s", id, info.ClientID, info.Audience)
	})))
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)

	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "You can close this window.")
	}))
	t.Cleanup(cb.Close)
	return &authServer{base: base, db: db, cfg: cfg, callback: cb.URL + "/callback"}
}

// register registers a client and returns its id.
func (s *authServer) register(t testing.TB, redirectURIs ...string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"client_name": "Test agent", "redirect_uris": redirectURIs})
	status, got, _ := s.postJSON(t, "/oauth/register", "application/json", string(body))
	if status != http.StatusCreated {
		t.Fatalf("register: status %d, body %v", status, got)
	}
	return got["client_id"].(string)
}

// oauthConfig is the x/oauth2 client configuration for a registered client
// whose callback is s.callback.
func (s *authServer) oauthConfig(clientID string) *oauth2.Config {
	return &oauth2.Config{
		ClientID:    clientID,
		RedirectURL: s.callback,
		Endpoint: oauth2.Endpoint{
			AuthURL:   s.base + "/oauth/authorize",
			TokenURL:  s.base + "/oauth/token",
			AuthStyle: oauth2.AuthStyleInParams,
		},
	}
}

// postJSON posts a body and decodes the JSON answer.
func (s *authServer) postJSON(t testing.TB, path, contentType, body string) (int, map[string]any, http.Header) {
	t.Helper()
	res, err := http.Post(s.base+path, contentType, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var got map[string]any
	json.NewDecoder(res.Body).Decode(&got) //nolint:errcheck // asserted by callers
	return res.StatusCode, got, res.Header
}

// token posts a form to the token endpoint and returns the status and
// the decoded JSON body.
func (s *authServer) token(t testing.TB, form url.Values) (int, map[string]any) {
	t.Helper()
	status, got, h := s.postJSON(t, "/oauth/token", "application/x-www-form-urlencoded", form.Encode())
	if h.Get("Cache-Control") != "no-store" {
		t.Errorf("token response Cache-Control %q, want no-store", h.Get("Cache-Control"))
	}
	return status, got
}

// protected calls the test-only protected route with a bearer token ("" for
// none) and returns the status, the WWW-Authenticate header and the body.
func (s *authServer) protected(t testing.TB, accessToken string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.base+protectedPath, nil)
	if accessToken != "" {
		req.Header.Set("Authorization", "Bearer "+accessToken)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("WWW-Authenticate"), string(b)
}

// expire moves the expiry of a code or token (given in clear) into the past.
func (s *authServer) expire(t testing.TB, table, secret string) {
	t.Helper()
	sum := sha256.Sum256([]byte(secret))
	res, err := s.db.NewUpdate().Table(table).
		Set("expires_at = ?", time.Now().Add(-time.Minute).UTC()).
		Where("hash = ?", hex.EncodeToString(sum[:])).
		Exec(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("expire %s: %d rows", table, n)
	}
}

// browser is a person's browser: a cookie jar, redirects not followed so
// that each step can be checked.
type browser struct {
	s *authServer
	c *http.Client
}

func newBrowser(t testing.TB, s *authServer) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{s: s, c: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// page is one response as a browser saw it.
type page struct {
	status   int
	header   http.Header
	body     string
	location string // absolute, "" when not a redirect
}

func (b *browser) do(t testing.TB, req *http.Request) page {
	t.Helper()
	res, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	p := page{status: res.StatusCode, header: res.Header, body: string(body)}
	if loc, err := res.Location(); err == nil {
		p.location = loc.String()
	}
	return p
}

// get fetches a path on the server or an absolute URL.
func (b *browser) get(t testing.TB, target string) page {
	t.Helper()
	if strings.HasPrefix(target, "/") {
		target = b.s.base + target
	}
	req, _ := http.NewRequest(http.MethodGet, target, nil)
	return b.do(t, req)
}

// post submits a form to a path on the server.
func (b *browser) post(t testing.TB, path string, form url.Values) page {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.s.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(t, req)
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// csrf returns the CSRF token of the form on the page.
func (p page) csrf(t testing.TB) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no csrf_token on the page (status %d): %.300s", p.status, p.body)
	}
	return m[1]
}

// nextQuery is the query string that sends the sign-up or sign-in page on
// to next afterwards; "" when next is "".
func nextQuery(next string) string {
	if next == "" {
		return ""
	}
	return "?" + url.Values{"next": {next}}.Encode()
}

// signUp creates an account through the sign-up form, arriving from a
// sign-in redirect whose next is given, and returns where it was sent.
func (b *browser) signUp(t testing.TB, next, email, password string) string {
	t.Helper()
	q := nextQuery(next)
	form := b.get(t, "/signup"+q)
	if form.status != http.StatusOK {
		t.Fatalf("GET /signup: %d", form.status)
	}
	res := b.post(t, "/signup"+q, url.Values{"csrf_token": {form.csrf(t)}, "email": {email}, "password": {password}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("POST /signup: %d %.300s", res.status, res.body)
	}
	return res.location
}

// signIn signs in through the form and returns where it was sent.
func (b *browser) signIn(t testing.TB, next, email, password string) string {
	t.Helper()
	res := b.trySignIn(t, next, email, password)
	if res.status != http.StatusSeeOther {
		t.Fatalf("POST /signin: %d %.300s", res.status, res.body)
	}
	return res.location
}

func (b *browser) trySignIn(t testing.TB, next, email, password string) page {
	t.Helper()
	q := nextQuery(next)
	form := b.get(t, "/signin"+q)
	return b.post(t, "/signin"+q, url.Values{"csrf_token": {form.csrf(t)}, "email": {email}, "password": {password}})
}

// consent opens an authorization URL as a signed-in student and returns
// the consent page.
func (b *browser) consent(t testing.TB, authURL string) page {
	t.Helper()
	p := b.get(t, authURL)
	if p.status != http.StatusOK || !strings.Contains(p.body, `value="approve"`) {
		t.Fatalf("authorize: status %d location %q body %.300s", p.status, p.location, p.body)
	}
	return p
}

// approve opens the authorization URL, approves on the consent page and
// returns the redirect back to the client, parsed.
func (b *browser) approve(t testing.TB, authURL string) *url.URL {
	t.Helper()
	p := b.consent(t, authURL)
	res := b.post(t, "/oauth/authorize", url.Values{"csrf_token": {p.csrf(t)}, "decision": {"approve"}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("approve: status %d body %.300s", res.status, res.body)
	}
	u, err := url.Parse(res.location)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// pkceAuthURL is an authorization URL for conf with a fresh verifier.
func pkceAuthURL(conf *oauth2.Config, state string, opts ...oauth2.AuthCodeOption) (authURL, verifier string) {
	verifier = oauth2.GenerateVerifier()
	opts = append(opts, oauth2.S256ChallengeOption(verifier))
	return conf.AuthCodeURL(state, opts...), verifier
}

// errorCode returns the "error" member of a decoded JSON body.
func errorCode(body map[string]any) string {
	s, _ := body["error"].(string)
	return s
}

func decodeJSON(res *http.Response, v any) {
	json.NewDecoder(res.Body).Decode(v) //nolint:errcheck // asserted by callers
}

package web_test

import (
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/oauth2"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
)

// docServer is a client's HTTPS server on loopback publishing its Client
// ID Metadata Document at /client.json, with a test certificate.
type docServer struct {
	srv      *httptest.Server
	clientID string // the document's URL
	conns    atomic.Int64

	mu           sync.Mutex
	body         string // "" answers 404
	cacheControl string
}

func startDocServer(t *testing.T) *docServer {
	t.Helper()
	d := &docServer{}
	d.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		body, cacheControl := d.body, d.cacheControl
		d.mu.Unlock()
		if r.URL.Path != "/client.json" || body == "" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if cacheControl != "" {
			w.Header().Set("Cache-Control", cacheControl)
		}
		io.WriteString(w, body)
	}))
	d.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	d.srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			d.conns.Add(1)
		}
	}
	d.srv.StartTLS()
	t.Cleanup(d.srv.Close)
	d.clientID = d.srv.URL + "/client.json"
	d.publish(`{"client_id":"`+d.clientID+`","client_name":"Docs Agent","redirect_uris":["http://127.0.0.1/callback"],"token_endpoint_auth_method":"none"}`, "")
	return d
}

// publish replaces the document and its Cache-Control header.
func (d *docServer) publish(body, cacheControl string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.body, d.cacheControl = body, cacheControl
}

// roots trusts the document server's test certificate.
func (d *docServer) roots() *x509.CertPool {
	roots := x509.NewCertPool()
	roots.AddCert(d.srv.Certificate())
	return roots
}

// host is the document server's host and port.
func (d *docServer) host() string { return strings.TrimPrefix(d.srv.URL, "https://") }

// TestCIMDEndToEnd runs a client that names itself by its metadata
// document through authorization, consent, the code exchange, /mcp with
// the official go-sdk client (at 2026-07-28, and at 2025-11-25 after), a
// refresh and a revocation, on both databases.
func TestCIMDEndToEnd(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		doc := startDocServer(t)
		s := startAuthServerTrusting(t, db, nil, doc.roots())
		conf := s.oauthConfig(doc.clientID)
		authURL, verifier := pkceAuthURL(conf, "st", oauth2.SetAuthURLParam("resource", s.base+"/mcp"))

		b := newBrowser(t, s)
		b.signUp(t, "", "cimd@example.com", "correct horse battery staple")
		consent := b.consent(t, authURL)
		for _, want := range []string{"Docs Agent", `<strong class="client-host">` + doc.host() + `</strong>`, "127.0.0.1", "cimd@example.com"} {
			if !strings.Contains(consent.body, want) {
				t.Errorf("consent page does not show %q", want)
			}
		}
		if strings.Contains(consent.body, "self-registered") {
			t.Error("consent page calls a document's client self-registered")
		}
		res := b.post(t, "/oauth/authorize", url.Values{"csrf_token": {consent.csrf(t)}, "decision": {"approve"}})
		back, err := url.Parse(res.location)
		if res.status != http.StatusSeeOther || err != nil || !strings.HasPrefix(res.location, s.callback+"?") {
			t.Fatalf("approve: %d %q", res.status, res.location)
		}
		tok, err := conf.Exchange(t.Context(), back.Query().Get("code"), oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", s.base+"/mcp"))
		if err != nil {
			t.Fatalf("token exchange: %v", err)
		}

		type list struct {
			Studies []any `json:"studies"`
		}
		cs, _ := connectMCP(t, s, tok.AccessToken, "2026-07-28")
		if l, res := callJSON[list](t, cs, "list_studies", map[string]any{}); res.IsError || len(l.Studies) != 0 {
			t.Fatalf("list_studies: %+v %+v", l, res)
		}
		if status, _, body := s.protected(t, tok.AccessToken); status != http.StatusOK || !strings.Contains(body, "client="+doc.clientID) {
			t.Fatalf("protected route: %d %q", status, body)
		}

		refreshed, err := conf.TokenSource(t.Context(), &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
		if err != nil || refreshed.AccessToken == tok.AccessToken {
			t.Fatalf("refresh: %v", err)
		}
		cs2, _ := connectMCP(t, s, refreshed.AccessToken, "2025-11-25")
		if _, res := callJSON[list](t, cs2, "list_studies", map[string]any{}); res.IsError {
			t.Fatalf("list_studies after the refresh: %+v", res)
		}

		// The student's list of connected assistants names it.
		if p := b.get(t, "/app/assistants"); p.status != http.StatusOK || !strings.Contains(p.body, "Docs Agent") {
			t.Fatalf("connected assistants: %d %.300s", p.status, p.body)
		}

		// The client ends its grant, naming itself by its document's URL.
		if status, body := s.revoke(t, url.Values{"token": {refreshed.RefreshToken}, "client_id": {doc.clientID}}); status != http.StatusOK {
			t.Fatalf("revoke: %d %v", status, body)
		}
		if status, _, _ := s.protected(t, refreshed.AccessToken); status != http.StatusUnauthorized {
			t.Fatalf("access token after the revocation: %d, want 401", status)
		}
	})
}

// TestCIMDSwitchOff: without the test switch, as in production, a document
// on loopback is refused at the authorization and token endpoints, and the
// document's server sees no connection.
func TestCIMDSwitchOff(t *testing.T) {
	doc := startDocServer(t)
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	conf := s.oauthConfig(doc.clientID)
	authURL, verifier := pkceAuthURL(conf, "st")
	b := newBrowser(t, s)
	b.signUp(t, "", "off@example.com", "correct horse battery staple")
	p := b.get(t, authURL)
	if p.status != http.StatusBadRequest || p.location != "" || !strings.Contains(p.body, "which is not a public address (loopback)") {
		t.Fatalf("authorize: %d %q %.400s", p.status, p.location, p.body)
	}
	status, body := s.token(t, url.Values{
		"grant_type": {"authorization_code"}, "client_id": {doc.clientID}, "code": {"x"},
		"code_verifier": {verifier}, "redirect_uri": {s.callback},
	})
	if status != http.StatusUnauthorized || errorCode(body) != "invalid_client" || !strings.Contains(body["error_description"].(string), "loopback") {
		t.Fatalf("token: %d %v", status, body)
	}
	if n := doc.conns.Load(); n != 0 {
		t.Fatalf("the document server saw %d connections, want 0", n)
	}
}

// TestCIMDRefusals: documents that cannot be used are explained on an
// error page at the authorization endpoint, never by a redirect; a
// document changed or gone after consent fails the token request (it is
// fetched again, as no-store asks).
func TestCIMDRefusals(t *testing.T) {
	doc := startDocServer(t)
	s := startAuthServerTrusting(t, storetest.Open(t, "sqlite"), nil, doc.roots())
	b := newBrowser(t, s)
	b.signUp(t, "", "refusals@example.com", "correct horse battery staple")
	conf := s.oauthConfig(doc.clientID)
	good := `{"client_id":"` + doc.clientID + `","client_name":"Docs Agent","redirect_uris":["http://127.0.0.1/callback"]}`

	pages := []struct {
		name, body, redirectURI, want string
	}{
		{"another client_id", `{"client_id":"https://elsewhere.example/client.json","redirect_uris":["http://127.0.0.1/callback"]}`, "", "is not the document"},
		{"a client secret", `{"client_id":"` + doc.clientID + `","client_secret":"x","redirect_uris":["http://127.0.0.1/callback"]}`, "", "client secret"},
		{"not JSON", `<html>`, "", "is not one JSON object"},
		{"gone", "", "", "HTTP 404"},
		{"an unlisted redirect URI", good, "https://attacker.example/cb", "is not one the app registered"},
		{"a loopback path not listed", good, "http://127.0.0.1:4000/other", "is not one the app registered"},
	}
	for _, tt := range pages {
		doc.publish(tt.body, "no-store")
		c := *conf
		if tt.redirectURI != "" {
			c.RedirectURL = tt.redirectURI
		}
		authURL, _ := pkceAuthURL(&c, "st")
		p := b.get(t, authURL)
		if p.status != http.StatusBadRequest || p.location != "" || !strings.Contains(p.body, tt.want) {
			t.Errorf("%s: %d %q, want 400 saying %q: %.400s", tt.name, p.status, p.location, tt.want, p.body)
		}
	}

	// Approved, then the document drops the redirect URI, or disappears.
	for _, tt := range []struct {
		name, body, wantCode, wantDescription string
	}{
		{"redirect URI dropped", `{"client_id":"` + doc.clientID + `","redirect_uris":["https://app.example/cb"]}`, "invalid_grant", "no longer one of the client's redirect URIs"},
		{"document gone", "", "invalid_client", "HTTP 404"},
	} {
		doc.publish(good, "no-store")
		authURL, verifier := pkceAuthURL(conf, "st")
		code := b.approve(t, authURL).Query().Get("code")
		doc.publish(tt.body, "no-store")
		status, body := s.token(t, url.Values{
			"grant_type": {"authorization_code"}, "client_id": {doc.clientID}, "code": {code},
			"code_verifier": {verifier}, "redirect_uri": {s.callback},
		})
		if errorCode(body) != tt.wantCode || !strings.Contains(body["error_description"].(string), tt.wantDescription) {
			t.Errorf("%s: %d %v, want %s saying %q", tt.name, status, body, tt.wantCode, tt.wantDescription)
		}
	}

	// A refresh, with or without client_id, needs the document too.
	doc.publish(good, "no-store")
	authURL, verifier := pkceAuthURL(conf, "st")
	tok, err := conf.Exchange(t.Context(), b.approve(t, authURL).Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	doc.publish("", "")
	for _, form := range []url.Values{
		{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {doc.clientID}},
		{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}},
	} {
		if status, body := s.token(t, form); status != http.StatusUnauthorized || errorCode(body) != "invalid_client" {
			t.Errorf("refresh %v with the document gone: %d %v", form.Has("client_id"), status, body)
		}
	}
	doc.publish(good, "")
	if _, err := conf.TokenSource(t.Context(), &oauth2.Token{RefreshToken: tok.RefreshToken}).Token(); err != nil {
		t.Fatalf("refresh with the document back: %v", err)
	}
}

package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
)

// TestOAuthFlow runs the whole flow as an MCP client and a student would:
// discovery, registration, authorization with sign-up, sign-in and consent
// through the real forms, code exchange and refresh with golang.org/x/oauth2
// (PKCE, parameters in the body), and the token on a protected route.
func TestOAuthFlow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, nil)
		ctx := context.Background()

		// Discovery: the protected resource names its authorization
		// server, whose metadata names the endpoints.
		var prm struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}
		getJSON(t, s.base+"/.well-known/oauth-protected-resource", &prm)
		if prm.Resource != s.base+"/mcp" || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != s.base {
			t.Fatalf("protected resource metadata: %+v", prm)
		}
		var asm struct {
			Issuer, AuthorizationEndpoint, TokenEndpoint, RegistrationEndpoint string
		}
		getJSON(t, prm.AuthorizationServers[0]+"/.well-known/oauth-authorization-server", &struct {
			Issuer                *string `json:"issuer"`
			AuthorizationEndpoint *string `json:"authorization_endpoint"`
			TokenEndpoint         *string `json:"token_endpoint"`
			RegistrationEndpoint  *string `json:"registration_endpoint"`
		}{&asm.Issuer, &asm.AuthorizationEndpoint, &asm.TokenEndpoint, &asm.RegistrationEndpoint})
		if asm.Issuer != s.base || asm.AuthorizationEndpoint != s.base+"/oauth/authorize" || asm.TokenEndpoint != s.base+"/oauth/token" {
			t.Fatalf("authorization server metadata: %+v", asm)
		}

		// Registration with a loopback redirect URI without port; the
		// client listens on a port of its choosing (RFC 8252 §7.3).
		clientID := s.register(t, "http://127.0.0.1/callback")
		conf := s.oauthConfig(clientID)
		authURL, verifier := pkceAuthURL(conf, "state-1", oauth2.SetAuthURLParam("resource", s.base+"/mcp"))

		// Not signed in: the authorization request sends the student to
		// sign in, who signs up instead and comes back to the same request.
		b := newBrowser(t, s)
		first := b.get(t, authURL)
		if first.status != http.StatusSeeOther || !strings.HasPrefix(first.location, s.base+"/signin?") {
			t.Fatalf("authorize before sign-in: %d %q", first.status, first.location)
		}
		next, _ := url.Parse(first.location)
		back := b.signUp(t, next.Query().Get("next"), "student@example.com", "correct horse battery staple")
		if back != authURL {
			t.Fatalf("after sign-up, sent to %q, want the authorization request %q", back, authURL)
		}
		consent := b.consent(t, back)
		for _, want := range []string{"Test agent", "self-registered and unverified", "127.0.0.1", "create studies", "mastery", "student@example.com"} {
			if !strings.Contains(consent.body, want) {
				t.Errorf("consent page does not mention %q", want)
			}
		}
		res := b.post(t, "/oauth/authorize", url.Values{"csrf_token": {consent.csrf(t)}, "decision": {"approve"}})
		if res.status != http.StatusSeeOther || !strings.HasPrefix(res.location, s.callback+"?") {
			t.Fatalf("approve: %d %q", res.status, res.location)
		}
		back2, _ := url.Parse(res.location)
		q := back2.Query()
		if q.Get("state") != "state-1" || q.Get("iss") != s.base || q.Get("code") == "" || len(q["code"]) != 1 {
			t.Fatalf("authorization response %v", q)
		}
		if cb := b.get(t, res.location); cb.status != http.StatusOK {
			t.Fatalf("the client's loopback callback answered %d", cb.status)
		}

		// Exchange with PKCE, naming the resource again as MCP clients do.
		tok, err := conf.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", s.base+"/mcp"))
		if err != nil {
			t.Fatal(err)
		}
		if tok.TokenType != "Bearer" || tok.RefreshToken == "" || len(tok.AccessToken) < 43 {
			t.Fatalf("token %+v", tok)
		}
		if d := time.Until(tok.Expiry); d < 59*time.Minute || d > 61*time.Minute {
			t.Fatalf("access token expires in %v, want an hour", d)
		}
		if scope, ok := tok.Extra("scope").(string); !ok || scope != "" {
			t.Fatalf("scope %v, want empty string", tok.Extra("scope"))
		}
		status, _, body := s.protected(t, tok.AccessToken)
		if status != http.StatusOK || !strings.Contains(body, "client="+clientID) || !strings.Contains(body, "audience="+s.base+"/mcp") {
			t.Fatalf("protected route with the token: %d %q", status, body)
		}
		userPart := strings.Fields(body)[0]

		// Refresh through x/oauth2: rotation gives a new pair.
		refreshed, err := conf.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
		if err != nil {
			t.Fatal(err)
		}
		if refreshed.RefreshToken == tok.RefreshToken || refreshed.AccessToken == tok.AccessToken {
			t.Fatal("refresh did not rotate the tokens")
		}
		if status, _, body := s.protected(t, refreshed.AccessToken); status != http.StatusOK || !strings.HasPrefix(body, userPart+" ") {
			t.Fatalf("refreshed token: %d %q", status, body)
		}

		// A second authorization by the same student, now signing out
		// and in again through the forms.
		signout := b.get(t, "/signout")
		if r := b.post(t, "/signout", url.Values{"csrf_token": {signout.csrf(t)}}); r.status != http.StatusOK || !strings.Contains(r.body, "signed out") {
			t.Fatalf("sign out: %d", r.status)
		}
		authURL2, verifier2 := pkceAuthURL(conf, "state-2")
		again := b.get(t, authURL2)
		if again.status != http.StatusSeeOther || !strings.HasPrefix(again.location, s.base+"/signin?") {
			t.Fatalf("authorize after sign-out: %d %q", again.status, again.location)
		}
		next2, _ := url.Parse(again.location)
		if got := b.signIn(t, next2.Query().Get("next"), "Student@Example.com", "correct horse battery staple"); got != authURL2 {
			t.Fatalf("after sign-in, sent to %q", got)
		}
		code2 := b.approve(t, authURL2).Query().Get("code")
		tok2, err := conf.Exchange(ctx, code2, oauth2.VerifierOption(verifier2))
		if err != nil {
			t.Fatal(err)
		}
		if status, _, body := s.protected(t, tok2.AccessToken); status != http.StatusOK || !strings.HasPrefix(body, userPart+" ") {
			t.Fatalf("second grant: %d %q", status, body)
		}
	})
}

// TestDefaultAudienceAsBaseURLIsWritten: a token requested without a
// resource parameter is bound to the MCP URL, and must be accepted however
// BASE_URL spells its host (capitals, the default port).
func TestDefaultAudienceAsBaseURLIsWritten(t *testing.T) {
	for _, baseURL := range []string{"http://Studyloop.Example", "http://studyloop.example:80"} {
		t.Run(baseURL, func(t *testing.T) {
			s := startAuthServer(t, storetest.Open(t, "sqlite"), map[string]string{"BASE_URL": baseURL})
			conf := s.oauthConfig(s.register(t, "http://127.0.0.1/callback"))
			b := newBrowser(t, s)
			b.signUp(t, "", "student@example.com", "a long enough password")
			authURL, verifier := pkceAuthURL(conf, "st")
			tok, err := conf.Exchange(context.Background(), b.approve(t, authURL).Query().Get("code"), oauth2.VerifierOption(verifier))
			if err != nil {
				t.Fatal(err)
			}
			if status, challenge, body := s.protected(t, tok.AccessToken); status != http.StatusOK {
				t.Fatalf("token without resource: %d %q %q, want 200", status, challenge, body)
			}
		})
	}
}

// TestMetadataDocuments checks both RFC 8414 and RFC 9728 documents at
// their two addresses, with CORS.
func TestMetadataDocuments(t *testing.T) {
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	as := map[string]any{
		"issuer":                 s.base,
		"authorization_endpoint": s.base + "/oauth/authorize",
		"token_endpoint":         s.base + "/oauth/token",
		"registration_endpoint":  s.base + "/oauth/register",
		"revocation_endpoint":    s.base + "/oauth/revoke",
		"revocation_endpoint_auth_methods_supported":     []any{"none"},
		"response_types_supported":                       []any{"code"},
		"grant_types_supported":                          []any{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []any{"S256"},
		"token_endpoint_auth_methods_supported":          []any{"none"},
		"scopes_supported":                               []any{},
		"authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported":          true,
	}
	pr := map[string]any{
		"resource":                 s.base + "/mcp",
		"authorization_servers":    []any{s.base},
		"bearer_methods_supported": []any{"header"},
		"scopes_supported":         []any{},
	}
	docs := []struct {
		path string
		want map[string]any
	}{
		{"/.well-known/oauth-authorization-server", as},
		{"/.well-known/oauth-authorization-server/mcp", as},
		{"/.well-known/oauth-protected-resource", pr},
		{"/.well-known/oauth-protected-resource/mcp", pr},
	}
	for _, d := range docs {
		t.Run(d.path, func(t *testing.T) {
			res, err := http.Get(s.base + d.path)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" || res.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Fatalf("status %d, content-type %q, CORS %q", res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Access-Control-Allow-Origin"))
			}
			var got map[string]any
			if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			for k, want := range d.want {
				if fmt.Sprint(got[k]) != fmt.Sprint(want) {
					t.Errorf("%s = %v, want %v", k, got[k], want)
				}
			}
		})
	}
	for _, path := range []string{"/oauth/register", "/oauth/token", "/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/mcp"} {
		req, _ := http.NewRequest(http.MethodOptions, s.base+path, nil)
		req.Header.Set("Origin", "https://agent.example")
		req.Header.Set("Access-Control-Request-Method", "POST")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNoContent || res.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(res.Header.Get("Access-Control-Allow-Methods"), "POST") {
			t.Errorf("preflight %s: %d %v", path, res.StatusCode, res.Header)
		}
	}
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", u, res.StatusCode)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

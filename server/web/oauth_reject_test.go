package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/studyloop/studyloop/server/oauth"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/server/wiretest"
)

// The negative cases: every one asserts the status and the error code.

// TestRegisterRejects sends the registrations of
// testdata/register-rejects.txtar, each refused for one reason, and
// compares the answers with those recorded there (go test -update records
// them anew); and a body over 64 KiB.
func TestRegisterRejects(t *testing.T) {
	golden := wiretest.Open(t, "testdata/register-rejects.txtar", "Content-Type", "Cache-Control")
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, nil)
		for _, c := range golden.Cases(t) {
			t.Run(c.Name, func(t *testing.T) {
				res, err := http.DefaultClient.Do(c.Request(t, s.base, nil))
				if err != nil {
					t.Fatal(err)
				}
				golden.Check(t, c, res)
			})
		}
		big := `{"redirect_uris":["https://a.example/cb"],"client_name":"` + strings.Repeat("x", 65<<10) + `"}`
		status, body, _ := s.postJSON(t, "/oauth/register", "application/json", big)
		if status != http.StatusRequestEntityTooLarge || errorCode(body) != "invalid_client_metadata" {
			t.Fatalf("a body over 64 KiB: status %d error %q, want 413 invalid_client_metadata", status, errorCode(body))
		}
	})
}

func TestRegisterRateLimit(t *testing.T) {
	// 4 an hour gives a burst of 1: the second registration at once is
	// refused.
	s := startAuthServer(t, storetest.Open(t, "sqlite"), map[string]string{"REGISTER_RATE_LIMIT": "4"})
	s.register(t, "https://a.example/cb")
	status, body, h := s.postJSON(t, "/oauth/register", "application/json", `{"redirect_uris":["https://a.example/cb"]}`)
	if status != http.StatusTooManyRequests || errorCode(body) != "too_many_requests" {
		t.Fatalf("status %d error %q, want 429 too_many_requests", status, errorCode(body))
	}
	if secs, err := strconv.Atoi(h.Get("Retry-After")); err != nil || secs < 1 || secs > 900 {
		t.Fatalf("Retry-After %q, want about 900 seconds", h.Get("Retry-After"))
	}
}

// TestRegisterDefaultRateLimit: with REGISTER_RATE_LIMIT unset, one address
// (a hosted agent registering for many users) gets 60 registrations at once
// and the 61st waits about 3 seconds, the default 1200 an hour.
func TestRegisterDefaultRateLimit(t *testing.T) {
	s := startAuthServer(t, storetest.Open(t, "sqlite"), map[string]string{"REGISTER_RATE_LIMIT": ""})
	for i := range 60 {
		if status, body, _ := s.postJSON(t, "/oauth/register", "application/json", `{"redirect_uris":["https://a.example/cb"]}`); status != http.StatusCreated {
			t.Fatalf("registration %d: status %d %v, want 201", i+1, status, body)
		}
	}
	status, body, h := s.postJSON(t, "/oauth/register", "application/json", `{"redirect_uris":["https://a.example/cb"]}`)
	if status != http.StatusTooManyRequests || errorCode(body) != "too_many_requests" {
		t.Fatalf("registration 61: status %d error %q, want 429 too_many_requests", status, errorCode(body))
	}
	if secs, err := strconv.Atoi(h.Get("Retry-After")); err != nil || secs < 1 || secs > 3 {
		t.Fatalf("Retry-After %q, want at most 3 seconds", h.Get("Retry-After"))
	}
}

// TestRegisterApplicationType: application_type web or native is accepted
// and answered back, web when absent.
func TestRegisterApplicationType(t *testing.T) {
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	tests := []struct{ name, field, redirect, want string }{
		{"absent", ``, "https://a.example/cb", "web"},
		{"web", `,"application_type":"web"`, "https://a.example/cb", "web"},
		{"native with a loopback redirect", `,"application_type":"native"`, "http://127.0.0.1/cb", "native"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, _ := s.postJSON(t, "/oauth/register", "application/json", `{"redirect_uris":["`+tt.redirect+`"]`+tt.field+`}`)
			if status != http.StatusCreated || body["application_type"] != tt.want {
				t.Fatalf("status %d application_type %v, want 201 %q", status, body["application_type"], tt.want)
			}
		})
	}
}

// TestRegisterRateLimitPerClient: behind a trusted proxy the limit counts
// the client X-Forwarded-For names, IPv6 clients by their /64; from an
// untrusted peer X-Forwarded-For changes nothing.
func TestRegisterRateLimitPerClient(t *testing.T) {
	register := func(s *authServer, xff string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, s.base+"/oauth/register", strings.NewReader(`{"redirect_uris":["https://a.example/cb"]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", xff)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	db := storetest.Open(t, "sqlite")
	// 4 an hour gives a burst of 1.
	proxied := startAuthServer(t, db, map[string]string{"REGISTER_RATE_LIMIT": "4", "TRUSTED_PROXIES": "127.0.0.0/8, ::1"})
	steps := []struct {
		xff  string
		want int
	}{
		{"2001:db8:1:2::1", 201},
		{"2001:db8:1:2:ffff::9", 429},          // same /64
		{"192.0.2.5, 2001:db8:1:2::7", 429},    // a spoofed entry left of the proxy's changes nothing
		{"2001:db8:1:3::1", 201},               // another /64
		{"198.51.100.1", 201},                  // IPv4 by full address
		{"198.51.100.2", 201},                  // its neighbour is another client
		{"2001:db8:1:2::1, 198.51.100.1", 429}, // the rightmost untrusted entry counts
		{"198.51.100.3, 127.0.0.9", 201},       // trusted hops are skipped
		{"198.51.100.3", 429},
	}
	for i, st := range steps {
		if got := register(proxied, st.xff); got != st.want {
			t.Errorf("behind a trusted proxy, step %d (X-Forwarded-For %q): %d, want %d", i, st.xff, got, st.want)
		}
	}

	direct := startAuthServer(t, db, map[string]string{"REGISTER_RATE_LIMIT": "4"})
	if got := register(direct, "192.0.2.1"); got != 201 {
		t.Fatalf("first registration: %d", got)
	}
	if got := register(direct, "192.0.2.2"); got != 429 {
		t.Fatalf("a spoofed X-Forwarded-For without trusted proxies: %d, want 429", got)
	}
}

// sensitiveHeaders are the headers of pages handling credentials or consent.
var sensitiveHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'",
	"X-Frame-Options":         "DENY",
	"Cache-Control":           "no-store",
	"Referrer-Policy":         "no-referrer",
}

func checkSensitiveHeaders(t *testing.T, what string, h http.Header) {
	t.Helper()
	for k, want := range sensitiveHeaders {
		if got := strings.Join(h.Values(k), ", "); got != want {
			t.Errorf("%s: %s = %q, want %q", what, k, got, want)
		}
	}
}

func TestAuthorizeRejects(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, nil)
		clientID := s.register(t, "http://127.0.0.1/callback", "https://agent.example/cb")
		otherClient := s.register(t, "https://other.example/cb")
		challenge := oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier())
		valid := func() url.Values {
			return url.Values{
				"client_id": {clientID}, "redirect_uri": {s.callback}, "response_type": {"code"},
				"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"st ate/1"},
			}
		}
		tests := []struct {
			name   string
			change func(q url.Values)
			// page: an HTML error page and no redirect; otherwise a
			// redirect to the client carrying this error code.
			page bool
			code string
		}{
			{"unknown client", func(q url.Values) { q.Set("client_id", "slc_NOPE") }, true, ""},
			{"missing client_id", func(q url.Values) { q.Del("client_id") }, true, ""},
			{"missing redirect_uri", func(q url.Values) { q.Del("redirect_uri") }, true, ""},
			{"unregistered redirect", func(q url.Values) { q.Set("redirect_uri", "https://evil.example/cb") }, true, ""},
			{"redirect of another client", func(q url.Values) { q.Set("redirect_uri", "https://other.example/cb") }, true, ""},
			{"loopback path change", func(q url.Values) { q.Set("redirect_uri", strings.Replace(s.callback, "/callback", "/other", 1)) }, true, ""},
			{"loopback host change", func(q url.Values) { q.Set("redirect_uri", strings.Replace(s.callback, "127.0.0.1", "localhost", 1)) }, true, ""},
			{"https redirect port change", func(q url.Values) { q.Set("redirect_uri", "https://agent.example:8443/cb") }, true, ""},
			{"https redirect trailing slash", func(q url.Values) { q.Set("redirect_uri", "https://agent.example/cb/") }, true, ""},
			{"repeated client_id", func(q url.Values) { q.Add("client_id", otherClient) }, true, ""},
			{"missing code_challenge", func(q url.Values) { q.Del("code_challenge") }, false, "invalid_request"},
			{"missing code_challenge_method", func(q url.Values) { q.Del("code_challenge_method") }, false, "invalid_request"},
			{"plain PKCE method", func(q url.Values) { q.Set("code_challenge_method", "plain") }, false, "invalid_request"},
			{"short code_challenge", func(q url.Values) { q.Set("code_challenge", challenge[:42]) }, false, "invalid_request"},
			{"code_challenge with bad characters", func(q url.Values) { q.Set("code_challenge", challenge[:40]+"+/=") }, false, "invalid_request"},
			{"missing response_type", func(q url.Values) { q.Del("response_type") }, false, "invalid_request"},
			{"token response_type", func(q url.Values) { q.Set("response_type", "token") }, false, "invalid_request"},
			{"repeated state", func(q url.Values) { q.Add("state", "again") }, false, "invalid_request"},
			{"state over 2048 characters", func(q url.Values) { q.Set("state", strings.Repeat("s", 2049)) }, false, "invalid_request"},
			{"resource of another server", func(q url.Values) { q.Set("resource", "https://other.example/mcp") }, false, "invalid_target"},
			{"resource on another path", func(q url.Values) { q.Set("resource", s.base+"/api") }, false, "invalid_target"},
			{"relative resource", func(q url.Values) { q.Set("resource", "/mcp") }, false, "invalid_target"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				q := valid()
				tt.change(q)
				p := newBrowser(t, s).get(t, "/oauth/authorize?"+q.Encode())
				checkSensitiveHeaders(t, "authorize", p.header)
				if tt.page {
					if p.status != http.StatusBadRequest || p.location != "" || !strings.HasPrefix(p.header.Get("Content-Type"), "text/html") {
						t.Fatalf("status %d location %q content-type %q, want a 400 HTML page and no redirect", p.status, p.location, p.header.Get("Content-Type"))
					}
					return
				}
				if p.status != http.StatusSeeOther {
					t.Fatalf("status %d, want 303 to the client", p.status)
				}
				u, _ := url.Parse(p.location)
				back := u.Query()
				if !strings.HasPrefix(p.location, s.callback+"?") || back.Get("error") != tt.code || back.Get("iss") != s.base {
					t.Fatalf("redirect %q: error %q, want %q with iss", p.location, back.Get("error"), tt.code)
				}
				if tt.name != "repeated state" && back.Get("state") != q.Get("state") {
					t.Fatalf("state %q not echoed unchanged", back.Get("state"))
				}
			})
		}

		// Accepted variants: a loopback redirect on any port, the bare
		// origin or a differently written MCP URL as resource, unknown
		// scopes. They lead to sign-in.
		accepted := []func(q url.Values){
			func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:1/callback") },
			func(q url.Values) { q.Set("resource", s.base) },
			func(q url.Values) { q.Set("resource", strings.ToUpper(s.base[:4])+s.base[4:]+"/mcp/") },
			func(q url.Values) { q.Set("scope", "read write admin") },
			func(q url.Values) { q.Del("state") },
			func(q url.Values) { q.Set("state", strings.Repeat("s", 2048)) },
			func(q url.Values) { q.Set("state", strings.Repeat("é", 2048)) },
		}
		for i, change := range accepted {
			q := valid()
			change(q)
			if p := newBrowser(t, s).get(t, "/oauth/authorize?"+q.Encode()); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, s.base+"/signin?") {
				t.Errorf("accepted variant %d: %d %q", i, p.status, p.location)
			}
		}
	})
}

func TestConsentCSRFAndDeny(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, nil)
		conf := s.oauthConfig(s.register(t, "http://127.0.0.1/callback"))
		alice, mallory := newBrowser(t, s), newBrowser(t, s)
		alice.signUp(t, "", "alice@example.com", "alice's long password")
		mallory.signUp(t, "", "mallory@example.com", "mallory's long password")

		authURL, _ := pkceAuthURL(conf, "s1")
		consent := alice.consent(t, authURL)
		checkSensitiveHeaders(t, "consent page", consent.header)
		malloryToken := mallory.consent(t, authURL).csrf(t)

		rejects := []struct {
			name string
			form url.Values
		}{
			{"missing token", url.Values{"decision": {"approve"}}},
			{"token of another session's request", url.Values{"csrf_token": {malloryToken}, "decision": {"approve"}}},
			{"made-up token", url.Values{"csrf_token": {otherToken(consent.csrf(t))}, "decision": {"approve"}}},
		}
		for _, r := range rejects {
			res := alice.post(t, "/oauth/authorize", r.form)
			if res.status != http.StatusForbidden || res.location != "" {
				t.Errorf("%s: status %d location %q, want 403 and no redirect", r.name, res.status, res.location)
			}
			checkSensitiveHeaders(t, r.name, res.header)
		}

		// A post without a valid decision is refused and leaves the
		// request pending: the same form can still be answered.
		token := consent.csrf(t)
		for _, d := range []string{"", "maybe"} {
			form := url.Values{"csrf_token": {token}}
			if d != "" {
				form.Set("decision", d)
			}
			if res := alice.post(t, "/oauth/authorize", form); res.status != http.StatusBadRequest || res.location != "" {
				t.Fatalf("decision %q: status %d location %q, want 400 and no redirect", d, res.status, res.location)
			}
		}

		// The real token works once; used again it is refused.
		if res := alice.post(t, "/oauth/authorize", url.Values{"csrf_token": {token}, "decision": {"approve"}}); res.status != http.StatusSeeOther {
			t.Fatalf("approve: %d", res.status)
		}
		if res := alice.post(t, "/oauth/authorize", url.Values{"csrf_token": {token}, "decision": {"approve"}}); res.status != http.StatusForbidden {
			t.Fatalf("approve with a used token: %d, want 403", res.status)
		}

		// Two pending requests in one session: the token of the first
		// still answers the first.
		first := alice.consent(t, authURL).csrf(t)
		authURL2, _ := pkceAuthURL(conf, "s2")
		alice.consent(t, authURL2)
		res := alice.post(t, "/oauth/authorize", url.Values{"csrf_token": {first}, "decision": {"deny"}})
		u, _ := url.Parse(res.location)
		if res.status != http.StatusSeeOther || u.Query().Get("error") != "access_denied" || u.Query().Get("state") != "s1" || u.Query().Get("iss") != s.base || u.Query().Has("code") {
			t.Fatalf("deny: %d %q", res.status, res.location)
		}
	})
}

func TestTokenRejects(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, nil)
		clientID := s.register(t, "http://127.0.0.1/callback")
		otherClient := s.register(t, "http://127.0.0.1/callback")
		conf := s.oauthConfig(clientID)
		b := newBrowser(t, s)
		b.signUp(t, "", "student@example.com", "a long enough password")
		newCode := func() (code, verifier string) {
			authURL, verifier := pkceAuthURL(conf, "st")
			return b.approve(t, authURL).Query().Get("code"), verifier
		}
		exchange := func(code, verifier string) url.Values {
			return url.Values{"grant_type": {"authorization_code"}, "client_id": {clientID}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {s.callback}}
		}
		expect := func(t *testing.T, what string, form url.Values, status int, code string) map[string]any {
			t.Helper()
			gotStatus, body := s.token(t, form)
			if gotStatus != status || errorCode(body) != code {
				t.Fatalf("%s: status %d error %q, want %d %q (%v)", what, gotStatus, errorCode(body), status, code, body)
			}
			return body
		}
		with := func(v url.Values, kv ...string) url.Values {
			c := url.Values{}
			for k, vs := range v {
				c[k] = append([]string(nil), vs...)
			}
			for i := 0; i < len(kv); i += 2 {
				if kv[i+1] == "" {
					c.Del(kv[i])
				} else {
					c.Set(kv[i], kv[i+1])
				}
			}
			return c
		}

		t.Run("failed checks do not consume the code", func(t *testing.T) {
			code, verifier := newCode()
			ex := exchange(code, verifier)
			expect(t, "wrong verifier", with(ex, "code_verifier", oauth2.GenerateVerifier()), 400, "invalid_grant")
			expect(t, "malformed verifier", with(ex, "code_verifier", "short"), 400, "invalid_request")
			expect(t, "missing verifier", with(ex, "code_verifier", ""), 400, "invalid_request")
			expect(t, "missing code", with(ex, "code", ""), 400, "invalid_request")
			expect(t, "missing redirect_uri", with(ex, "redirect_uri", ""), 400, "invalid_request")
			expect(t, "missing client_id", with(ex, "client_id", ""), 400, "invalid_request")
			expect(t, "redirect mismatch", with(ex, "redirect_uri", "http://127.0.0.1/callback"), 400, "invalid_grant")
			expect(t, "another client's code", with(ex, "client_id", otherClient), 400, "invalid_grant")
			expect(t, "unknown client", with(ex, "client_id", "slc_UNKNOWN"), 401, "invalid_client")
			expect(t, "unknown code", with(ex, "code", "slac_"+code[5:10]), 400, "invalid_grant")
			expect(t, "resource of another server", with(ex, "resource", "https://other.example/mcp"), 400, "invalid_target")
			body := expect(t, "the right request after all that", ex, 200, "")
			if body["access_token"] == nil || body["token_type"] != "Bearer" || body["scope"] != "" {
				t.Fatalf("token response %v", body)
			}
		})

		t.Run("expired code", func(t *testing.T) {
			code, verifier := newCode()
			s.expire(t, "oauth_codes", code)
			expect(t, "expired code", exchange(code, verifier), 400, "invalid_grant")
		})

		t.Run("verifier without challenge", func(t *testing.T) {
			// A code stored without a challenge (no such code is issued:
			// authorize requires one) must not be redeemable with any
			// verifier: this is the PKCE downgrade.
			u, err := db.UserByEmail(context.Background(), "student@example.com")
			if err != nil {
				t.Fatal(err)
			}
			code := "slac_nochallenge_" + strings.Repeat("a", 40)
			sum := sha256.Sum256([]byte(code))
			now := time.Now()
			if err := db.CreateAuthorizationCode(context.Background(), &studyloop.AuthorizationCode{
				Hash: hex.EncodeToString(sum[:]), ClientID: clientID, UserID: u.ID, RedirectURI: s.callback,
				Audience: s.base + "/mcp", FamilyID: "fam-nochallenge", CreatedAt: now, ExpiresAt: now.Add(time.Minute),
			}); err != nil {
				t.Fatal(err)
			}
			expect(t, "verifier without challenge", exchange(code, oauth2.GenerateVerifier()), 400, "invalid_grant")
		})

		t.Run("replayed code revokes its tokens", func(t *testing.T) {
			code, verifier := newCode()
			body := expect(t, "first use", exchange(code, verifier), 200, "")
			access, refresh := body["access_token"].(string), body["refresh_token"].(string)
			// A replay with a wrong verifier is refused and revokes
			// nothing (otherwise anyone holding a leaked code could revoke
			// the grant).
			expect(t, "replay with wrong verifier", with(exchange(code, verifier), "code_verifier", oauth2.GenerateVerifier()), 400, "invalid_grant")
			if status, _, _ := s.protected(t, access); status != http.StatusOK {
				t.Fatalf("an invalid replay revoked the access token: %d", status)
			}
			expect(t, "valid replay", exchange(code, verifier), 400, "invalid_grant")
			if status, challenge, _ := s.protected(t, access); status != http.StatusUnauthorized || !strings.Contains(challenge, `error="invalid_token"`) {
				t.Fatalf("access token after replay: %d %q, want 401 invalid_token", status, challenge)
			}
			expect(t, "refresh token after replay", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}, 400, "invalid_grant")
		})

		t.Run("replayed code revokes its tokens after pruning", func(t *testing.T) {
			code, verifier := newCode()
			access := expect(t, "first use", exchange(code, verifier), 200, "")["access_token"].(string)
			// The code expires; pruning, as the server does every ten
			// minutes, keeps it because it was used.
			s.expire(t, "oauth_codes", code)
			now := time.Now()
			if _, err := db.PruneOAuth(context.Background(), now, now.Add(-s.cfg.RefreshTokenTTL), now.Add(-24*time.Hour)); err != nil {
				t.Fatal(err)
			}
			expect(t, "replay after pruning", exchange(code, verifier), 400, "invalid_grant")
			if status, _, _ := s.protected(t, access); status != http.StatusUnauthorized {
				t.Fatalf("access token after a replay of a pruned-over code: %d, want 401", status)
			}
		})

		t.Run("refresh reuse revokes the family", func(t *testing.T) {
			code, verifier := newCode()
			first := expect(t, "exchange", exchange(code, verifier), 200, "")
			rt1 := first["refresh_token"].(string)
			refresh := func(rt string) url.Values {
				return url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {clientID}}
			}
			second := expect(t, "rotation", refresh(rt1), 200, "")
			rt2, at2 := second["refresh_token"].(string), second["access_token"].(string)
			if status, _, _ := s.protected(t, at2); status != http.StatusOK {
				t.Fatalf("rotated access token: %d", status)
			}
			// Within the retry window a second use is refused and revokes
			// nothing.
			expect(t, "reuse within the retry window", refresh(rt1), 400, "invalid_grant")
			if status, _, _ := s.protected(t, at2); status != http.StatusOK {
				t.Fatalf("access token after a reuse within the window: %d, want 200", status)
			}
			// After the window it is a replay.
			s.backdateRotation(t, rt1, oauth.RefreshRetryWindow+time.Second)
			expect(t, "reuse of the rotated token", refresh(rt1), 400, "invalid_grant")
			expect(t, "the successor after reuse", refresh(rt2), 400, "invalid_grant")
			if status, _, _ := s.protected(t, at2); status != http.StatusUnauthorized {
				t.Fatalf("access token of a revoked family: %d, want 401", status)
			}
			if status, _, _ := s.protected(t, first["access_token"].(string)); status != http.StatusUnauthorized {
				t.Fatalf("first access token of a revoked family: %d, want 401", status)
			}
		})

		t.Run("refresh by the wrong client", func(t *testing.T) {
			code, verifier := newCode()
			body := expect(t, "exchange", exchange(code, verifier), 200, "")
			rt := body["refresh_token"].(string)
			expect(t, "another registered client", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {otherClient}}, 400, "invalid_grant")
			expect(t, "an unknown client", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {"slc_UNKNOWN"}}, 401, "invalid_client")
			expect(t, "an access token as refresh token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {body["access_token"].(string)}}, 400, "invalid_grant")
			expect(t, "missing refresh_token", url.Values{"grant_type": {"refresh_token"}}, 400, "invalid_request")
			expect(t, "refresh for another resource", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "resource": {"https://other.example/mcp"}}, 400, "invalid_target")
			// None of that spent the token.
			expect(t, "the right client, naming this resource", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {clientID}, "resource": {s.base + "/mcp"}}, 200, "")
		})

		t.Run("expired refresh token", func(t *testing.T) {
			code, verifier := newCode()
			rt := expect(t, "exchange", exchange(code, verifier), 200, "")["refresh_token"].(string)
			s.expire(t, "oauth_tokens", rt)
			expect(t, "expired refresh", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}}, 400, "invalid_grant")
		})

		t.Run("concurrent refresh", func(t *testing.T) {
			code, verifier := newCode()
			rt := expect(t, "exchange", exchange(code, verifier), 200, "")["refresh_token"].(string)
			const n = 5
			statuses := make([]int, n)
			bodies := make([]map[string]any, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					statuses[i], bodies[i] = s.token(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {clientID}})
				})
			}
			wg.Wait()
			var winner map[string]any
			ok := 0
			for i := range n {
				switch {
				case statuses[i] == 200:
					ok++
					winner = bodies[i]
				case statuses[i] != 400 || errorCode(bodies[i]) != "invalid_grant":
					t.Errorf("request %d: %d %q, want 200 or 400 invalid_grant", i, statuses[i], errorCode(bodies[i]))
				}
			}
			if ok != 1 {
				t.Fatalf("%d of %d concurrent refreshes succeeded, want exactly 1 (%v)", ok, n, statuses)
			}
			// The losers revoked nothing: the winner's tokens work.
			if status, _, _ := s.protected(t, winner["access_token"].(string)); status != http.StatusOK {
				t.Fatalf("the winner's access token: %d, want 200", status)
			}
			expect(t, "the winner's refresh token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {winner["refresh_token"].(string)}, "client_id": {clientID}}, 200, "")
		})

		t.Run("malformed requests", func(t *testing.T) {
			code, verifier := newCode()
			ex := exchange(code, verifier)
			expect(t, "unsupported grant type", with(ex, "grant_type", "client_credentials"), 400, "unsupported_grant_type")
			expect(t, "password grant", with(ex, "grant_type", "password"), 400, "unsupported_grant_type")
			expect(t, "missing grant type", with(ex, "grant_type", ""), 400, "invalid_request")
			repeated := with(ex)
			repeated.Add("code", code)
			expect(t, "repeated parameter", repeated, 400, "invalid_request")

			post := func(contentType, body string, header map[string]string) (int, map[string]any) {
				req, _ := http.NewRequest(http.MethodPost, s.base+"/oauth/token", strings.NewReader(body))
				req.Header.Set("Content-Type", contentType)
				for k, v := range header {
					req.Header.Set(k, v)
				}
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				var got map[string]any
				decodeJSON(res, &got)
				return res.StatusCode, got
			}
			raw := []struct {
				name, contentType, body string
				header                  map[string]string
				status                  int
				code                    string
			}{
				{"JSON body", "application/json", `{"grant_type":"authorization_code"}`, nil, 400, "invalid_request"},
				{"no content type", "", ex.Encode(), nil, 400, "invalid_request"},
				{"body over 64 KiB", "application/x-www-form-urlencoded", ex.Encode() + "&pad=" + strings.Repeat("x", 65<<10), nil, 413, "invalid_request"},
				{"basic client authentication", "application/x-www-form-urlencoded", ex.Encode(), map[string]string{"Authorization": "Basic Y2xpZW50Og=="}, 401, "invalid_client"},
			}
			for _, r := range raw {
				if status, body := post(r.contentType, r.body, r.header); status != r.status || errorCode(body) != r.code {
					t.Errorf("%s: status %d error %q, want %d %q", r.name, status, errorCode(body), r.status, r.code)
				}
			}
			// None of the malformed requests consumed the code.
			expect(t, "the code after malformed requests", ex, 200, "")
		})
	})
}

func TestRequireToken(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, nil)
		// Another deployment on the same database: its tokens are for
		// another audience.
		other := startAuthServer(t, db, nil)
		conf := s.oauthConfig(s.register(t, "http://127.0.0.1/callback"))
		b := newBrowser(t, s)
		b.signUp(t, "", "student@example.com", "a long enough password")
		authURL, verifier := pkceAuthURL(conf, "st")
		tok, err := conf.Exchange(context.Background(), b.approve(t, authURL).Query().Get("code"), oauth2.VerifierOption(verifier))
		if err != nil {
			t.Fatal(err)
		}
		bare := `Bearer resource_metadata="` + s.base + `/.well-known/oauth-protected-resource"`

		status, challenge, _ := s.protected(t, "")
		if status != http.StatusUnauthorized || challenge != bare {
			t.Fatalf("no token: %d %q, want 401 %q", status, challenge, bare)
		}
		req, _ := http.NewRequest(http.MethodGet, s.base+protectedPath, nil)
		req.Header.Set("Authorization", "Basic dXNlcjpwYXNz")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized || res.Header.Get("WWW-Authenticate") != bare {
			t.Fatalf("basic credentials: %d %q", res.StatusCode, res.Header.Get("WWW-Authenticate"))
		}

		if status, _, _ := s.protected(t, tok.AccessToken); status != http.StatusOK {
			t.Fatalf("valid token: %d", status)
		}
		expired, err := conf.Exchange(context.Background(), b.approve(t, authURL).Query().Get("code"), oauth2.VerifierOption(verifier))
		if err != nil {
			t.Fatal(err)
		}
		s.expire(t, "oauth_tokens", expired.AccessToken)
		invalid := []struct {
			name, token string
			server      *authServer
		}{
			{"unknown token", "slat_" + strings.Repeat("A", 43), s},
			{"refresh token as access token", tok.RefreshToken, s},
			{"expired token", expired.AccessToken, s},
			{"token for another audience", tok.AccessToken, other},
		}
		for _, c := range invalid {
			status, challenge, _ := c.server.protected(t, c.token)
			want := `Bearer resource_metadata="` + c.server.base + `/.well-known/oauth-protected-resource", error="invalid_token"`
			if status != http.StatusUnauthorized || !strings.HasPrefix(challenge, want) {
				t.Errorf("%s: %d %q, want 401 %q", c.name, status, challenge, want)
			}
		}
	})
}

// backdateRotation moves the rotation time of a rotated refresh token
// (given in clear) by ago into the past, as if the clock had moved on.
func (s *authServer) backdateRotation(t testing.TB, refreshToken string, ago time.Duration) {
	t.Helper()
	sum := sha256.Sum256([]byte(refreshToken))
	res, err := s.db.NewUpdate().Table("oauth_tokens").
		Set("rotated_at = ?", time.Now().Add(-ago).UTC()).
		Where("hash = ?", hex.EncodeToString(sum[:])).
		Where("rotated_at IS NOT NULL").
		Exec(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("backdate rotation: %d rows", n)
	}
}

// otherToken is token with its first character changed, so it can never
// equal token.
func otherToken(token string) string {
	if strings.HasPrefix(token, "x") {
		return "y" + token[1:]
	}
	return "x" + token[1:]
}

package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
)

// revoke posts a form to the revocation endpoint and returns the status and
// the decoded JSON body (nil on success, which has none).
func (s *authServer) revoke(t testing.TB, form url.Values) (int, map[string]any) {
	t.Helper()
	status, got, _ := s.postJSON(t, "/oauth/revoke", "application/x-www-form-urlencoded", form.Encode())
	return status, got
}

// grant registers a client, signs a new student up, approves and returns
// the client id and the tokens.
func (s *authServer) grant(t testing.TB, email string) (string, *oauth2.Token) {
	t.Helper()
	b := newBrowser(t, s)
	b.signUp(t, "", email, "a long enough password")
	return b.grant(t)
}

// grant registers a client (named "Test agent", redirecting to 127.0.0.1),
// approves it as the signed-in student and returns the client id and the
// tokens.
func (b *browser) grant(t testing.TB) (string, *oauth2.Token) {
	t.Helper()
	clientID := b.s.register(t, "http://127.0.0.1/callback")
	conf := b.s.oauthConfig(clientID)
	authURL, verifier := pkceAuthURL(conf, "st")
	tok, err := conf.Exchange(context.Background(), b.approve(t, authURL).Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	return clientID, tok
}

// TestRevoke: revoking either token of a grant (RFC 7009) ends the grant:
// the access token gets 401 and the refresh token invalid_grant, for the
// tokens issued by rotation too; other grants stand.
func TestRevoke(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, nil)
		refresh := func(clientID, refreshToken string) (int, map[string]any) {
			return s.token(t, url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {refreshToken}})
		}
		for _, kind := range []string{"refresh_token", "access_token"} {
			t.Run("revoke the "+kind, func(t *testing.T) {
				clientID, first := s.grant(t, kind+"@example.com")
				// Rotate once: the revoked token's family includes the
				// tokens issued before and after it.
				status, body := refresh(clientID, first.RefreshToken)
				if status != http.StatusOK {
					t.Fatalf("refresh: %d %v", status, body)
				}
				access, refreshToken := body["access_token"].(string), body["refresh_token"].(string)
				_, other := s.grant(t, "other-"+kind+"@example.com")

				presented := map[string]string{"refresh_token": refreshToken, "access_token": access}[kind]
				if status, body := s.revoke(t, url.Values{"token": {presented}, "token_type_hint": {kind}, "client_id": {clientID}}); status != http.StatusOK {
					t.Fatalf("revoke: %d %v, want 200", status, body)
				}
				for _, a := range []string{first.AccessToken, access} {
					if status, _, _ := s.protected(t, a); status != http.StatusUnauthorized {
						t.Errorf("access token after revocation: %d, want 401", status)
					}
				}
				if status, body := refresh(clientID, refreshToken); status != http.StatusBadRequest || errorCode(body) != "invalid_grant" {
					t.Errorf("refresh after revocation: %d %q, want 400 invalid_grant", status, errorCode(body))
				}
				if status, _, _ := s.protected(t, other.AccessToken); status != http.StatusOK {
					t.Errorf("another student's grant after revocation: %d, want 200", status)
				}
				// Revoking again is harmless.
				if status, _ := s.revoke(t, url.Values{"token": {presented}}); status != http.StatusOK {
					t.Errorf("second revocation: %d, want 200", status)
				}
			})
		}
	})
}

func TestRevokeRejects(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, nil)
		clientID, tok := s.grant(t, "student@example.com")
		otherClient := s.register(t, "http://127.0.0.1/callback")
		tests := []struct {
			name        string
			contentType string
			form        url.Values
			status      int
			code        string // "" for success
		}{
			{"unknown token", "", url.Values{"token": {"sla_not-a-token"}, "client_id": {clientID}}, 200, ""},
			{"unknown token without client_id", "", url.Values{"token": {"sla_not-a-token"}}, 200, ""},
			{"unknown hint", "", url.Values{"token": {"sla_not-a-token"}, "token_type_hint": {"id_token"}}, 200, ""},
			{"no token", "", url.Values{"client_id": {clientID}}, 400, "invalid_request"},
			{"unknown client", "", url.Values{"token": {tok.RefreshToken}, "client_id": {"slc_unknown"}}, 401, "invalid_client"},
			{"another client's token", "", url.Values{"token": {tok.RefreshToken}, "client_id": {otherClient}}, 400, "invalid_grant"},
			{"repeated parameter", "", url.Values{"token": {tok.RefreshToken, "x"}}, 400, "invalid_request"},
			{"JSON body", "application/json", nil, 400, "invalid_request"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				contentType, body := "application/x-www-form-urlencoded", tt.form.Encode()
				if tt.contentType != "" {
					contentType, body = tt.contentType, `{"token":"`+tok.RefreshToken+`"}`
				}
				status, got, _ := s.postJSON(t, "/oauth/revoke", contentType, body)
				if status != tt.status || errorCode(got) != tt.code {
					t.Fatalf("status %d error %q, want %d %q (%v)", status, errorCode(got), tt.status, tt.code, got)
				}
			})
		}
		// None of the refused requests ended the grant.
		if status, _, _ := s.protected(t, tok.AccessToken); status != http.StatusOK {
			t.Fatalf("grant after refused revocations: %d, want 200", status)
		}
	})
}

var revokeAction = regexp.MustCompile(`action="(/app/assistants/[^"/]+/revoke)"`)

// TestConnectedAssistants: the student's page lists their grants only;
// Revoke needs the CSRF token, ends the grant (its access token gets 401),
// and another student posting to it gets 404 and changes nothing.
func TestConnectedAssistants(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, nil)
		grace, ada := newBrowser(t, s), newBrowser(t, s)
		grace.signUp(t, "", "grace@example.com", "a long enough password")
		ada.signUp(t, "", "ada@example.com", "a long enough password")
		_, graceTok := grace.grant(t)
		_, adaTok := ada.grant(t)
		ada.grant(t)

		list := grace.get(t, "/app/assistants")
		if list.status != http.StatusOK || !strings.Contains(list.body, "Test agent") || !strings.Contains(list.body, "<code>127.0.0.1</code>") {
			t.Fatalf("assistants page: %d %.500s", list.status, list.body)
		}
		actions := revokeAction.FindAllStringSubmatch(list.body, -1)
		if len(actions) != 1 {
			t.Fatalf("grace sees %d grants, want 1", len(actions))
		}
		if got := len(revokeAction.FindAllString(ada.get(t, "/app/assistants").body, -1)); got != 2 {
			t.Fatalf("ada sees %d grants, want 2", got)
		}
		revoke := actions[0][1]

		adaPage := ada.get(t, "/app/assistants")
		if res := ada.post(t, revoke, url.Values{"csrf_token": {adaPage.csrf(t)}}); res.status != http.StatusNotFound {
			t.Fatalf("another student revoking: %d, want 404", res.status)
		}
		if res := grace.post(t, revoke, url.Values{}); res.status != http.StatusForbidden {
			t.Fatalf("revoking without the CSRF token: %d, want 403", res.status)
		}
		if status, _, _ := s.protected(t, graceTok.AccessToken); status != http.StatusOK {
			t.Fatalf("grant after refused revocations: %d, want 200", status)
		}

		if res := grace.post(t, revoke, url.Values{"csrf_token": {list.csrf(t)}}); res.status != http.StatusSeeOther || res.location != s.base+"/app/assistants" {
			t.Fatalf("revoke: %d to %q, want 303 to /app/assistants", res.status, res.location)
		}
		if status, _, _ := s.protected(t, graceTok.AccessToken); status != http.StatusUnauthorized {
			t.Fatalf("access token after revoking: %d, want 401", status)
		}
		if status, body := s.token(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {graceTok.RefreshToken}}); status != http.StatusBadRequest || errorCode(body) != "invalid_grant" {
			t.Fatalf("refresh after revoking: %d %q, want 400 invalid_grant", status, errorCode(body))
		}
		if body := grace.get(t, "/app/assistants").body; !strings.Contains(body, "No assistant is connected.") {
			t.Fatalf("page after revoking: %.500s", body)
		}
		if status, _, _ := s.protected(t, adaTok.AccessToken); status != http.StatusOK {
			t.Fatalf("the other student's grant: %d, want 200", status)
		}
	})
}

package oauth

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// TestRefreshRetryWindow presents a rotated refresh token again on a
// clock the test sets: just inside the window nothing is revoked, just
// after it the family is.
func TestRefreshRetryWindow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		cfg, err := config.FromEnv(func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		s := New(db, nil, cfg, nil)
		clock := time.Now()
		s.now = func() time.Time { return clock }

		userID := storetest.User(t, db)
		client := &studyloop.OAuthClient{ID: "slc_test", RedirectURIs: []string{"http://127.0.0.1/cb"}, CreatedAt: clock}
		if err := db.CreateOAuthClient(ctx, client); err != nil {
			t.Fatal(err)
		}
		code := &studyloop.AuthorizationCode{
			Hash: "code", ClientID: client.ID, UserID: userID, RedirectURI: client.RedirectURIs[0],
			CodeChallenge: "ch", Audience: cfg.MCPResource(), FamilyID: "fam", CreatedAt: clock, ExpiresAt: clock.Add(time.Minute),
		}
		if err := db.CreateAuthorizationCode(ctx, code); err != nil {
			t.Fatal(err)
		}
		access, refresh, first := s.newTokens(code.FamilyID, client.ID, userID, code.Audience, "", clock)
		if err := db.RedeemAuthorizationCode(ctx, code.Hash, clock, access, refresh); err != nil {
			t.Fatal(err)
		}
		form := func(rt string) url.Values {
			return url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {client.ID}}
		}
		revoked := func(secret string) bool {
			t.Helper()
			tok, err := db.OAuthToken(ctx, hashSecret(secret))
			if err != nil {
				t.Fatal(err)
			}
			return !tok.RevokedAt.IsZero()
		}

		second, terr := s.refresh(ctx, form(first.RefreshToken))
		if terr != nil {
			t.Fatal(terr)
		}
		clock = clock.Add(RefreshRetryWindow - time.Millisecond)
		if _, terr := s.refresh(ctx, form(first.RefreshToken)); terr == nil || terr.code != "invalid_grant" {
			t.Fatalf("reuse just inside the window: %v, want invalid_grant", terr)
		}
		if revoked(second.AccessToken) || revoked(second.RefreshToken) {
			t.Fatal("a reuse inside the window revoked the family")
		}
		clock = clock.Add(2 * time.Millisecond)
		if _, terr := s.refresh(ctx, form(first.RefreshToken)); terr == nil || terr.code != "invalid_grant" {
			t.Fatalf("reuse just after the window: %v, want invalid_grant", terr)
		}
		if !revoked(second.AccessToken) || !revoked(second.RefreshToken) {
			t.Fatal("a reuse after the window left the family live")
		}
	})
}

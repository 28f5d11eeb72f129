package oauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// newTestGrant returns a server with the default configuration on a clock
// the test sets (*clock), and the tokens of a grant it issued at *clock to
// client slc_test.
func newTestGrant(t *testing.T, db *store.DB) (*Server, *tokenResponse, *time.Time) {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s := New(db, nil, cfg, nil)
	clock := time.Now().Truncate(time.Second) // stored times keep microseconds
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
	access, refresh, first := s.newTokens(code.FamilyID, client.ID, userID, code.Audience, "", clock, clock.Add(cfg.RefreshTokenTTL))
	if err := db.RedeemAuthorizationCode(ctx, code.Hash, clock, access, refresh); err != nil {
		t.Fatal(err)
	}
	return s, first, &clock
}

// tokenRequest is a request to the token endpoint, for the methods that
// take one; its body has been read.
func tokenRequest(ctx context.Context) *http.Request {
	return httptest.NewRequestWithContext(ctx, http.MethodPost, "/oauth/token", nil)
}

// TestRefreshRetryWindow presents a rotated refresh token again on a
// clock the test sets: just inside the window nothing is revoked, just
// after it the family is.
func TestRefreshRetryWindow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s, first, clock := newTestGrant(t, db)
		form := func(rt string) url.Values {
			return url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {"slc_test"}}
		}
		revoked := func(secret string) bool {
			t.Helper()
			tok, err := db.OAuthToken(ctx, hashSecret(secret))
			if err != nil {
				t.Fatal(err)
			}
			return !tok.RevokedAt.IsZero()
		}

		second, terr := s.refresh(tokenRequest(ctx), form(first.RefreshToken))
		if terr != nil {
			t.Fatal(terr)
		}
		*clock = clock.Add(RefreshRetryWindow - time.Millisecond)
		if _, terr := s.refresh(tokenRequest(ctx), form(first.RefreshToken)); terr == nil || terr.code != "invalid_grant" {
			t.Fatalf("reuse just inside the window: %v, want invalid_grant", terr)
		}
		if revoked(second.AccessToken) || revoked(second.RefreshToken) {
			t.Fatal("a reuse inside the window revoked the family")
		}
		*clock = clock.Add(2 * time.Millisecond)
		if _, terr := s.refresh(tokenRequest(ctx), form(first.RefreshToken)); terr == nil || terr.code != "invalid_grant" {
			t.Fatalf("reuse just after the window: %v, want invalid_grant", terr)
		}
		if !revoked(second.AccessToken) || !revoked(second.RefreshToken) {
			t.Fatal("a reuse after the window left the family live")
		}
	})
}

// TestGrantLifetimeIsAbsolute: rotation hands on the grant's end, 30 days
// (REFRESH_TOKEN_TTL) after consent, instead of moving it; the last access
// token stops with the grant; at its end the refresh token has expired.
func TestGrantLifetimeIsAbsolute(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s, first, clock := newTestGrant(t, db)
		ends := clock.Add(30 * 24 * time.Hour)
		expiresAt := func(secret string) time.Time {
			t.Helper()
			tok, err := db.OAuthToken(ctx, hashSecret(secret))
			if err != nil {
				t.Fatal(err)
			}
			return tok.ExpiresAt
		}
		refresh := func(rt string) (*tokenResponse, *tokenError) {
			return s.refresh(tokenRequest(ctx), url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {"slc_test"}})
		}
		rt := first.RefreshToken
		steps := []struct {
			at            time.Duration // after consent
			accessExpires time.Duration // after consent
			expiresIn     int64
		}{
			{24 * time.Hour, 25 * time.Hour, 3600},
			{29 * 24 * time.Hour, 29*24*time.Hour + time.Hour, 3600},
			{30*24*time.Hour - 30*time.Minute, 30 * 24 * time.Hour, 1800},
		}
		start := *clock
		for _, st := range steps {
			*clock = start.Add(st.at)
			res, terr := refresh(rt)
			if terr != nil {
				t.Fatalf("refresh after %v: %v", st.at, terr)
			}
			rt = res.RefreshToken
			if got := expiresAt(rt); !got.Equal(ends) {
				t.Errorf("refresh after %v: refresh token expires %v after consent, want %v", st.at, got.Sub(start), ends.Sub(start))
			}
			if got := expiresAt(res.AccessToken); !got.Equal(start.Add(st.accessExpires)) {
				t.Errorf("refresh after %v: access token expires %v after consent, want %v", st.at, got.Sub(start), st.accessExpires)
			}
			if res.ExpiresIn != st.expiresIn {
				t.Errorf("refresh after %v: expires_in %d, want %d", st.at, res.ExpiresIn, st.expiresIn)
			}
		}
		*clock = ends
		if _, terr := refresh(rt); terr == nil || terr.code != "invalid_grant" {
			t.Fatalf("refresh at the grant's end: %v, want invalid_grant", terr)
		}
	})
}

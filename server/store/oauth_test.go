package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// oauthFixture stores a user and a client and returns them.
func oauthFixture(t *testing.T, db *store.DB) (*studyloop.User, *studyloop.OAuthClient) {
	t.Helper()
	ctx := context.Background()
	u := &studyloop.User{Email: "grace@example.com", PasswordHash: "h"}
	if err := db.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	c := &studyloop.OAuthClient{ID: "client-1", Name: "Agent", RedirectURIs: []string{"http://127.0.0.1/cb", "https://a.example/cb"}, CreatedAt: time.Now()}
	if err := db.CreateOAuthClient(ctx, c); err != nil {
		t.Fatal(err)
	}
	return u, c
}

func newCode(u *studyloop.User, c *studyloop.OAuthClient, hash string, ttl time.Duration) *studyloop.AuthorizationCode {
	now := time.Now()
	return &studyloop.AuthorizationCode{
		Hash: hash, ClientID: c.ID, UserID: u.ID, RedirectURI: c.RedirectURIs[0], CodeChallenge: "ch",
		Audience: "https://s.example/mcp", FamilyID: "fam-" + hash, CreatedAt: now, ExpiresAt: now.Add(ttl),
	}
}

func newToken(code *studyloop.AuthorizationCode, hash string, kind studyloop.TokenKind) *studyloop.OAuthToken {
	now := time.Now()
	return &studyloop.OAuthToken{
		Hash: hash, Kind: kind, FamilyID: code.FamilyID, ClientID: code.ClientID, UserID: code.UserID,
		Audience: code.Audience, CreatedAt: now, ExpiresAt: now.Add(time.Hour),
	}
}

func TestOAuthClients(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		_, c := oauthFixture(t, db)
		got, err := db.OAuthClient(context.Background(), c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != c.Name || !slices.Equal(got.RedirectURIs, c.RedirectURIs) || !got.CreatedAt.Equal(c.CreatedAt) || !got.GrantedAt.IsZero() {
			t.Fatalf("got %+v, want %+v", got, c)
		}
		if _, err := db.OAuthClient(context.Background(), "nope"); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Fatalf("unknown client: %v", err)
		}
	})
}

// TestSaveOAuthClient stores a metadata document's client, then a newer
// copy of it: name, redirect URIs and CreatedAt (when it was last fetched)
// are replaced, the first grant's time is kept, and a never-granted copy is
// pruned a day after its last save, not after its first.
func TestSaveOAuthClient(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		const id = "https://app.example/oauth/client.json"
		first := time.Now().Add(-30 * time.Hour)
		if err := db.SaveOAuthClient(ctx, &studyloop.OAuthClient{ID: id, Name: "Old name", RedirectURIs: []string{"https://app.example/cb"}, CreatedAt: first}); err != nil {
			t.Fatal(err)
		}
		refetched := &studyloop.OAuthClient{ID: id, Name: "New name", RedirectURIs: []string{"http://127.0.0.1/cb", "https://app.example/cb2"}, CreatedAt: time.Now().Add(-time.Hour)}
		if err := db.SaveOAuthClient(ctx, refetched); err != nil {
			t.Fatal(err)
		}
		got, err := db.OAuthClient(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "New name" || !slices.Equal(got.RedirectURIs, refetched.RedirectURIs) || !got.CreatedAt.Equal(refetched.CreatedAt) {
			t.Fatalf("after the second save: %+v, want %+v", got, refetched)
		}
		if _, err := db.PruneOAuth(ctx, time.Now(), time.Now().Add(-24*time.Hour), time.Now().Add(-24*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.OAuthClient(ctx, id); err != nil {
			t.Fatalf("a client saved an hour ago was pruned: %v", err)
		}

		// Granted: a later save keeps GrantedAt.
		u := &studyloop.User{Email: "ada@example.com", PasswordHash: "h"}
		if err := db.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		code := newCode(u, got, "doc-code", time.Minute)
		if err := db.CreateAuthorizationCode(ctx, code); err != nil {
			t.Fatal(err)
		}
		if err := db.RedeemAuthorizationCode(ctx, code.Hash, time.Now(), newToken(code, "doc-token", studyloop.RefreshToken)); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveOAuthClient(ctx, &studyloop.OAuthClient{ID: id, Name: "Newest", RedirectURIs: refetched.RedirectURIs, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if got, err := db.OAuthClient(ctx, id); err != nil || got.GrantedAt.IsZero() || got.Name != "Newest" {
			t.Fatalf("after a save of a granted client: %+v, %v; want GrantedAt kept", got, err)
		}
	})
}

func TestRedeemAuthorizationCode(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, c := oauthFixture(t, db)
		code := newCode(u, c, "code-1", time.Minute)
		if err := db.CreateAuthorizationCode(ctx, code); err != nil {
			t.Fatal(err)
		}
		access, refresh := newToken(code, "at-1", studyloop.AccessToken), newToken(code, "rt-1", studyloop.RefreshToken)

		// Concurrent redemptions: exactly one wins.
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() {
				a, r := *access, *refresh
				a.Hash, r.Hash = a.Hash+string(rune('a'+i)), r.Hash+string(rune('a'+i))
				errs[i] = db.RedeemAuthorizationCode(ctx, code.Hash, time.Now(), &a, &r)
			})
		}
		wg.Wait()
		var wins int
		for _, err := range errs {
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, store.ErrAlreadyUsed):
				t.Fatalf("unexpected error: %v", err)
			}
		}
		if wins != 1 {
			t.Fatalf("%d redemptions succeeded, want 1 (%v)", wins, errs)
		}
		got, err := db.AuthorizationCode(ctx, code.Hash)
		if err != nil || got.UsedAt.IsZero() {
			t.Fatalf("code after redemption: %+v, %v", got, err)
		}
		if cl, _ := db.OAuthClient(ctx, c.ID); cl.GrantedAt.IsZero() {
			t.Fatal("client not marked granted")
		}

		expired := newCode(u, c, "code-2", -time.Second)
		if err := db.CreateAuthorizationCode(ctx, expired); err != nil {
			t.Fatal(err)
		}
		if err := db.RedeemAuthorizationCode(ctx, expired.Hash, time.Now(), newToken(expired, "at-2", studyloop.AccessToken)); !errors.Is(err, store.ErrAlreadyUsed) {
			t.Fatalf("expired code: %v, want ErrAlreadyUsed", err)
		}
		if _, err := db.OAuthToken(ctx, "at-2"); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Fatalf("a failed redemption stored its token: %v", err)
		}
	})
}

func TestRotateRefreshTokenAndRevokeFamily(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, c := oauthFixture(t, db)
		code := newCode(u, c, "code", time.Minute)
		db.CreateAuthorizationCode(ctx, code)
		if err := db.RedeemAuthorizationCode(ctx, code.Hash, time.Now(), newToken(code, "at", studyloop.AccessToken), newToken(code, "rt", studyloop.RefreshToken)); err != nil {
			t.Fatal(err)
		}
		if err := db.RotateRefreshToken(ctx, "at", time.Now(), newToken(code, "x", studyloop.AccessToken)); !errors.Is(err, store.ErrAlreadyUsed) {
			t.Fatalf("rotating an access token: %v", err)
		}

		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() {
				suffix := string(rune('a' + i))
				errs[i] = db.RotateRefreshToken(ctx, "rt", time.Now(), newToken(code, "at2"+suffix, studyloop.AccessToken), newToken(code, "rt2"+suffix, studyloop.RefreshToken))
			})
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			if err == nil {
				wins++
			} else if !errors.Is(err, store.ErrAlreadyUsed) {
				t.Fatal(err)
			}
		}
		if wins != 1 {
			t.Fatalf("%d rotations succeeded, want 1", wins)
		}
		old, err := db.OAuthToken(ctx, "rt")
		if err != nil || old.RotatedAt.IsZero() || old.Kind != studyloop.RefreshToken {
			t.Fatalf("rotated token: %+v %v", old, err)
		}

		n, err := db.RevokeTokenFamily(ctx, code.FamilyID, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if n != 4 { // at, rt, and the winner's two successors
			t.Fatalf("revoked %d tokens, want 4", n)
		}
		if tok, _ := db.OAuthToken(ctx, "at"); tok.RevokedAt.IsZero() {
			t.Fatal("access token not revoked with its family")
		}
	})
}

// TestRevokeTokenFamilyDuringRotation revokes a family while a rotation of
// its refresh token is under way: the successors the rotation stores must
// be revoked too, or a replay detected at that moment would leave a live
// token behind. On PostgreSQL the revocation waits for the rotation's row
// lock and would otherwise not see rows inserted after its snapshot.
func TestRevokeTokenFamilyDuringRotation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, c := oauthFixture(t, db)
		code := newCode(u, c, "code", time.Minute)
		db.CreateAuthorizationCode(ctx, code)
		if err := db.RedeemAuthorizationCode(ctx, code.Hash, time.Now(), newToken(code, "at", studyloop.AccessToken), newToken(code, "rt", studyloop.RefreshToken)); err != nil {
			t.Fatal(err)
		}
		// Hold the refresh token's row so that the rotation, then the
		// revocation, queue behind it in that order.
		hold, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hold.NewUpdate().Table("oauth_tokens").Set("scope = scope").Where("hash = ?", "rt").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		waiting := func(n int) {
			t.Helper()
			for range 500 {
				if !db.IsPostgres() {
					time.Sleep(50 * time.Millisecond) // SQLite: one writer at a time anyway
					return
				}
				var got int
				if err := db.NewRaw("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'").Scan(ctx, &got); err != nil {
					t.Fatal(err)
				}
				if got >= n {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Fatalf("fewer than %d statements waiting for the held row", n)
		}
		rotated, revoked := make(chan error, 1), make(chan error, 1)
		go func() {
			rotated <- db.RotateRefreshToken(ctx, "rt", time.Now(), newToken(code, "at2", studyloop.AccessToken), newToken(code, "rt2", studyloop.RefreshToken))
		}()
		waiting(1)
		go func() {
			_, err := db.RevokeTokenFamily(ctx, code.FamilyID, time.Now())
			revoked <- err
		}()
		waiting(2)
		if err := hold.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := <-rotated; err != nil && !errors.Is(err, store.ErrAlreadyUsed) {
			t.Fatal(err)
		}
		if err := <-revoked; err != nil {
			t.Fatal(err)
		}
		for _, hash := range []string{"at", "rt", "at2", "rt2"} {
			tok, err := db.OAuthToken(ctx, hash)
			if studyloop.ErrorCode(err) == studyloop.ENOTFOUND {
				continue // the rotation lost: nothing was stored
			}
			if err != nil {
				t.Fatal(err)
			}
			if tok.RevokedAt.IsZero() {
				t.Errorf("token %s is live after its family was revoked", hash)
			}
		}
	})
}

func TestPruneOAuth(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, c := oauthFixture(t, db)
		unused := &studyloop.OAuthClient{ID: "unused", RedirectURIs: []string{"https://u.example/cb"}, CreatedAt: time.Now().Add(-48 * time.Hour)}
		db.CreateOAuthClient(ctx, unused)
		live := newCode(u, c, "live", time.Minute)
		dead := newCode(u, c, "dead", -time.Minute)
		db.CreateAuthorizationCode(ctx, live)
		db.CreateAuthorizationCode(ctx, dead)
		if err := db.RedeemAuthorizationCode(ctx, live.Hash, time.Now(), newToken(live, "t-live", studyloop.AccessToken)); err != nil {
			t.Fatal(err)
		}
		expiredTok := newToken(live, "t-dead", studyloop.RefreshToken)
		expiredTok.ExpiresAt = time.Now().Add(-time.Minute)
		live2 := newCode(u, c, "live2", time.Minute)
		db.CreateAuthorizationCode(ctx, live2)
		if err := db.RedeemAuthorizationCode(ctx, live2.Hash, time.Now(), expiredTok); err != nil {
			t.Fatal(err)
		}

		// Expired codes used recently (kept: a replay must still revoke
		// their tokens) and long ago (pruned).
		usedRecently := newCode(u, c, "used-recently", -time.Minute)
		usedLongAgo := newCode(u, c, "used-long-ago", -47*time.Hour)
		for _, uc := range []struct {
			code *studyloop.AuthorizationCode
			at   time.Time
		}{{usedRecently, time.Now().Add(-2 * time.Minute)}, {usedLongAgo, time.Now().Add(-48 * time.Hour)}} {
			if err := db.CreateAuthorizationCode(ctx, uc.code); err != nil {
				t.Fatal(err)
			}
			if err := db.RedeemAuthorizationCode(ctx, uc.code.Hash, uc.at); err != nil {
				t.Fatal(err)
			}
		}

		const refreshTTL = 24 * time.Hour
		n, err := db.PruneOAuth(ctx, time.Now(), time.Now().Add(-refreshTTL), time.Now().Add(-24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if n != 4 { // the dead code, the code used long ago, the expired token, the unused client
			t.Fatalf("pruned %d rows, want 4", n)
		}
		checks := []struct {
			name    string
			err     error
			present bool
		}{
			{"used client", errOf(db.OAuthClient(ctx, c.ID)), true},
			{"unused client", errOf(db.OAuthClient(ctx, unused.ID)), false},
			{"live code", errOf(db.AuthorizationCode(ctx, "live")), true},
			{"dead code", errOf(db.AuthorizationCode(ctx, "dead")), false},
			{"expired code used recently", errOf(db.AuthorizationCode(ctx, "used-recently")), true},
			{"expired code used long ago", errOf(db.AuthorizationCode(ctx, "used-long-ago")), false},
			{"live token", errOf(db.OAuthToken(ctx, "t-live")), true},
			{"expired token", errOf(db.OAuthToken(ctx, "t-dead")), false},
		}
		for _, c := range checks {
			if got := c.err == nil; got != c.present {
				t.Errorf("%s: present=%v, want %v (%v)", c.name, got, c.present, c.err)
			}
		}
	})
}

func errOf[T any](_ T, err error) error { return err }

// TestEndUserGrants ends every grant of one user: tokens of all their
// families are revoked and a code not yet exchanged can no longer be;
// another user's grant stands.
func TestEndUserGrants(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, c := oauthFixture(t, db)
		other := &studyloop.User{Email: "ada@example.com", PasswordHash: "h"}
		if err := db.CreateUser(ctx, other); err != nil {
			t.Fatal(err)
		}
		redeem := func(u *studyloop.User, name string) {
			t.Helper()
			code := newCode(u, c, name, time.Minute)
			if err := db.CreateAuthorizationCode(ctx, code); err != nil {
				t.Fatal(err)
			}
			if err := db.RedeemAuthorizationCode(ctx, code.Hash, time.Now(), newToken(code, name+"-at", studyloop.AccessToken), newToken(code, name+"-rt", studyloop.RefreshToken)); err != nil {
				t.Fatal(err)
			}
		}
		redeem(u, "first")
		redeem(u, "second")
		redeem(other, "others")
		pending := newCode(u, c, "pending", time.Minute)
		if err := db.CreateAuthorizationCode(ctx, pending); err != nil {
			t.Fatal(err)
		}

		n, err := db.EndUserGrants(ctx, u.ID, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if n != 4 {
			t.Fatalf("revoked %d tokens, want 4", n)
		}
		for hash, wantRevoked := range map[string]bool{"first-at": true, "first-rt": true, "second-at": true, "second-rt": true, "others-at": false, "others-rt": false} {
			tok, err := db.OAuthToken(ctx, hash)
			if err != nil {
				t.Fatal(err)
			}
			if revoked := !tok.RevokedAt.IsZero(); revoked != wantRevoked {
				t.Errorf("token %s revoked = %v, want %v", hash, revoked, wantRevoked)
			}
		}
		if err := db.RedeemAuthorizationCode(ctx, pending.Hash, time.Now(), newToken(pending, "late-at", studyloop.AccessToken)); !errors.Is(err, store.ErrAlreadyUsed) {
			t.Fatalf("exchanging a code after the grants ended: %v, want ErrAlreadyUsed", err)
		}
		if n, err := db.EndUserGrants(ctx, u.ID, time.Now()); err != nil || n != 0 {
			t.Fatalf("ending them again: %d, %v; want 0", n, err)
		}
	})
}

// TestUserGrants lists a user's live grants with their first and last use,
// and ends one by id; another user's grant can be neither seen nor ended.
func TestUserGrants(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, c := oauthFixture(t, db)
		other := &studyloop.User{Email: "ada@example.com", PasswordHash: "h"}
		if err := db.CreateUser(ctx, other); err != nil {
			t.Fatal(err)
		}
		start := time.Now().Truncate(time.Second)
		// grant stores a family for u whose tokens were issued at the
		// given offsets from start (a rotation for each after the first)
		// and whose last refresh token expires after ttl.
		grant := func(u *studyloop.User, name string, ttl time.Duration, issued ...time.Duration) {
			t.Helper()
			code := newCode(u, c, name, time.Minute)
			if err := db.CreateAuthorizationCode(ctx, code); err != nil {
				t.Fatal(err)
			}
			tokens := func(i int) (*studyloop.OAuthToken, *studyloop.OAuthToken) {
				a, r := newToken(code, fmt.Sprint(name, "-at", i), studyloop.AccessToken), newToken(code, fmt.Sprint(name, "-rt", i), studyloop.RefreshToken)
				a.CreatedAt, r.CreatedAt = start.Add(issued[i]), start.Add(issued[i])
				r.ExpiresAt = start.Add(ttl)
				return a, r
			}
			a, r := tokens(0)
			if err := db.RedeemAuthorizationCode(ctx, code.Hash, a.CreatedAt, a, r); err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(issued); i++ {
				a, next := tokens(i)
				if err := db.RotateRefreshToken(ctx, r.Hash, a.CreatedAt, a, next); err != nil {
					t.Fatal(err)
				}
				r = next
			}
		}
		grant(u, "older", time.Hour, -3*time.Hour, -2*time.Hour, -time.Hour)
		grant(u, "newer", time.Hour, -30*time.Minute)
		grant(u, "expired", -time.Minute, -2*time.Hour)
		grant(u, "revoked", time.Hour, -10*time.Minute)
		grant(other, "others", time.Hour, -time.Minute)
		if _, err := db.RevokeTokenFamily(ctx, "fam-revoked", start); err != nil {
			t.Fatal(err)
		}

		list := func(u *studyloop.User) []string {
			t.Helper()
			grants, err := db.UserGrants(ctx, u.ID, start)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, g := range grants {
				got = append(got, fmt.Sprintf("%s %s %v %v %d", g.ID, g.Client.Name, start.Sub(g.FirstUsed), start.Sub(g.LastUsed), len(g.Client.RedirectURIs)))
			}
			return got
		}
		want := []string{"fam-newer Agent 30m0s 30m0s 2", "fam-older Agent 3h0m0s 1h0m0s 2"}
		if got := list(u); !slices.Equal(got, want) {
			t.Fatalf("grants %q, want %q", got, want)
		}

		if err := db.EndUserGrant(ctx, u.ID, "fam-others", start); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Fatalf("ending another user's grant: %v, want ENOTFOUND", err)
		}
		if got := list(other); len(got) != 1 {
			t.Fatalf("the other user's grants after a stranger's attempt: %q", got)
		}
		for _, id := range []string{"fam-unknown", "fam-revoked"} {
			if err := db.EndUserGrant(ctx, u.ID, id, start); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
				t.Fatalf("ending %s: %v, want ENOTFOUND", id, err)
			}
		}
		if err := db.EndUserGrant(ctx, u.ID, "fam-older", start); err != nil {
			t.Fatal(err)
		}
		if tok, _ := db.OAuthToken(ctx, "older-at2"); tok.RevokedAt.IsZero() {
			t.Fatal("the ended grant's access token is live")
		}
		if got, want := list(u), want[:1]; !slices.Equal(got, want) {
			t.Fatalf("grants after ending one %q, want %q", got, want)
		}
	})
}

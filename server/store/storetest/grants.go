package storetest

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
)

// Grant stores an approved agent grant of the user as the OAuth flow
// leaves it (a client, a redeemed authorization code, an access and a
// refresh token, all live) and returns the refresh token's hash, by which
// db.OAuthToken finds it.
func Grant(tb testing.TB, db *store.DB, userID int64) string {
	tb.Helper()
	ctx := context.Background()
	now := time.Now()
	unique := rand.Text()
	client := &studyloop.OAuthClient{ID: "slc_" + unique, Name: "Agent", RedirectURIs: []string{"https://agent.example/cb"}, CreatedAt: now}
	code := &studyloop.AuthorizationCode{Hash: "code_" + unique, ClientID: client.ID, UserID: userID, RedirectURI: client.RedirectURIs[0],
		CodeChallenge: "challenge", Audience: "https://study.example/mcp", FamilyID: "family_" + unique, CreatedAt: now, ExpiresAt: now.Add(time.Minute)}
	token := func(hash string, kind studyloop.TokenKind) *studyloop.OAuthToken {
		return &studyloop.OAuthToken{Hash: hash, Kind: kind, FamilyID: code.FamilyID, ClientID: client.ID, UserID: userID,
			Audience: code.Audience, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	}
	if err := db.CreateOAuthClient(ctx, client); err != nil {
		tb.Fatal(err)
	}
	if err := db.CreateAuthorizationCode(ctx, code); err != nil {
		tb.Fatal(err)
	}
	refresh := "refresh_" + unique
	if err := db.RedeemAuthorizationCode(ctx, code.Hash, now, token("access_"+unique, studyloop.AccessToken), token(refresh, studyloop.RefreshToken)); err != nil {
		tb.Fatal(err)
	}
	return refresh
}

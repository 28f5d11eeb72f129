package storetest

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
)

// Agent is the client a test grant is made to.
type Agent struct {
	Name        string
	RedirectURI string
}

// SomeAgent is an agent for tests that do not care which.
var SomeAgent = Agent{Name: "Agent", RedirectURI: "https://agent.example/cb"}

// Grant stores an approved grant of the user to the agent for the
// audience (a resource URL such as https://study.example/mcp) as the OAuth
// flow leaves it: a newly registered client, a redeemed authorization
// code, and a live access and refresh token. It returns the tokens'
// hashes, by which db.OAuthToken finds them.
func Grant(tb testing.TB, db *store.DB, userID int64, agent Agent, audience string) (accessHash, refreshHash string) {
	tb.Helper()
	ctx := context.Background()
	now := time.Now()
	unique := rand.Text()
	client := &studyloop.OAuthClient{ID: "slc_" + unique, Name: agent.Name, RedirectURIs: []string{agent.RedirectURI}, CreatedAt: now}
	code := &studyloop.AuthorizationCode{Hash: "code_" + unique, ClientID: client.ID, UserID: userID, RedirectURI: agent.RedirectURI,
		CodeChallenge: "challenge", Audience: audience, FamilyID: "family_" + unique, CreatedAt: now, ExpiresAt: now.Add(time.Minute)}
	token := func(hash string, kind studyloop.TokenKind) *studyloop.OAuthToken {
		return &studyloop.OAuthToken{Hash: hash, Kind: kind, FamilyID: code.FamilyID, ClientID: client.ID, UserID: userID,
			Audience: audience, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	}
	if err := db.CreateOAuthClient(ctx, client); err != nil {
		tb.Fatal(err)
	}
	if err := db.CreateAuthorizationCode(ctx, code); err != nil {
		tb.Fatal(err)
	}
	accessHash, refreshHash = "access_"+unique, "refresh_"+unique
	if err := db.RedeemAuthorizationCode(ctx, code.Hash, now, token(accessHash, studyloop.AccessToken), token(refreshHash, studyloop.RefreshToken)); err != nil {
		tb.Fatal(err)
	}
	return accessHash, refreshHash
}

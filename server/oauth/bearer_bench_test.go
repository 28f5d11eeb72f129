package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/oauth"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// BenchmarkRequireToken measures what a protected request pays to resolve
// its access token: hashing it, one primary-key read, the checks, and the
// context values. It runs on SQLite and on PostgreSQL.
func BenchmarkRequireToken(b *testing.B) {
	for _, dialect := range storetest.Dialects {
		b.Run(dialect, func(b *testing.B) {
			db := storetest.Open(b, dialect)
			ctx := context.Background()
			cfg := config.Config{BaseURL: "https://studyloop.example", AccessTokenTTL: time.Hour, RefreshTokenTTL: 720 * time.Hour}
			u := &studyloop.User{Email: "bench@example.com", PasswordHash: "x"}
			if err := db.CreateUser(ctx, u); err != nil {
				b.Fatal(err)
			}
			now := time.Now()
			if err := db.CreateOAuthClient(ctx, &studyloop.OAuthClient{ID: "c", RedirectURIs: []string{"https://a.example/cb"}, CreatedAt: now}); err != nil {
				b.Fatal(err)
			}
			code := &studyloop.AuthorizationCode{Hash: "code", ClientID: "c", UserID: u.ID, RedirectURI: "https://a.example/cb", CodeChallenge: "x", Audience: cfg.MCPResource(), FamilyID: "f", CreatedAt: now, ExpiresAt: now.Add(time.Minute)}
			if err := db.CreateAuthorizationCode(ctx, code); err != nil {
				b.Fatal(err)
			}
			const token = "slat_benchmark-token-benchmark-token-benchmark-tok"
			sum := sha256.Sum256([]byte(token))
			if err := db.RedeemAuthorizationCode(ctx, "code", now, &studyloop.OAuthToken{
				Hash: hex.EncodeToString(sum[:]), Kind: studyloop.AccessToken, FamilyID: "f", ClientID: "c", UserID: u.ID,
				Audience: cfg.MCPResource(), CreatedAt: now, ExpiresAt: now.Add(time.Hour),
			}); err != nil {
				b.Fatal(err)
			}
			h := oauth.RequireToken(oauth.New(db, nil, cfg, nil), cfg, slog.New(slog.DiscardHandler))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if id, _ := studyloop.UserIDFromContext(r.Context()); id != u.ID {
					b.Errorf("user %d, want %d", id, u.ID)
				}
				w.WriteHeader(http.StatusNoContent)
			}))
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusNoContent {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}

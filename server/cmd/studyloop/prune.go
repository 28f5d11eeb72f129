package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/studyloop/studyloop/server/store"
)

// Pruning of expired authorization codes, tokens, sessions, password
// resets, and clients that registered but never completed a grant.
const (
	pruneInterval     = 10 * time.Minute
	unusedClientGrace = 24 * time.Hour
)

// pruneExpired deletes expired rows every interval until ctx ends. Used
// authorization codes are kept for refreshTTL after their use, so that a
// replayed code still revokes the tokens issued from it until those could
// have expired.
func pruneExpired(ctx context.Context, db *store.DB, logger *slog.Logger, interval, refreshTTL time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		now := time.Now()
		oauthRows, err := db.PruneOAuth(ctx, now, now.Add(-refreshTTL), now.Add(-unusedClientGrace))
		if err != nil && ctx.Err() == nil {
			logger.Error("prune oauth", "err", err)
		}
		sessionRows, err := db.PruneSessions(ctx, now)
		if err != nil && ctx.Err() == nil {
			logger.Error("prune sessions", "err", err)
		}
		resetRows, err := db.PrunePasswordResets(ctx, now)
		if err != nil && ctx.Err() == nil {
			logger.Error("prune password resets", "err", err)
		}
		if oauthRows+sessionRows+resetRows > 0 {
			logger.Info("pruned expired rows", "oauth", oauthRows, "sessions", sessionRows, "password_resets", resetRows)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

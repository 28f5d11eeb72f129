package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"
)

type sessionRow struct {
	bun.BaseModel `bun:"table:sessions"`
	Token         string    `bun:"token,pk"`
	Data          []byte    `bun:"data,notnull"`
	Expiry        time.Time `bun:"expiry,notnull"`
	UserID        int64     `bun:"user_id,nullzero"`
	SignedInAt    time.Time `bun:"signed_in_at,nullzero"`
}

// SessionStore keeps browser sessions in the database, each with the
// account signed in to it, so that a user's sessions can be ended
// together. Package session adapts it to scs; with scs's HashTokenInStore
// only hashes of session tokens are stored.
type SessionStore struct {
	db *DB
}

// Sessions returns the session store on db.
func (db *DB) Sessions() *SessionStore { return &SessionStore{db: db} }

// FindCtx returns the data of an unexpired session. A signed-in session
// without a sign-in time, or signed in to before its account's
// sessions_valid_from (a password change), is not found, even if a
// request that was under way stored it again.
func (s *SessionStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	var row sessionRow
	err := s.db.NewSelect().Model(&row).
		Where("token = ?", token).
		Where("expiry > ?", now()).
		Where("?TableAlias.user_id IS NULL OR (?TableAlias.signed_in_at IS NOT NULL AND NOT EXISTS (" +
			"SELECT 1 FROM users AS u WHERE u.id = ?TableAlias.user_id AND u.sessions_valid_from > ?TableAlias.signed_in_at))").
		Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return row.Data, true, nil
}

// CommitUserCtx stores the session of userID (0: no one is signed in),
// who signed in to it at signedIn, overwriting an existing one.
func (s *SessionStore) CommitUserCtx(ctx context.Context, token string, userID int64, signedIn time.Time, data []byte, expiry time.Time) error {
	row := sessionRow{Token: token, Data: data, Expiry: StoredTime(expiry), UserID: userID, SignedInAt: StoredTime(signedIn)}
	_, err := s.db.NewInsert().Model(&row).
		On("CONFLICT (token) DO UPDATE").
		Set("data = EXCLUDED.data").
		Set("expiry = EXCLUDED.expiry").
		Set("user_id = EXCLUDED.user_id").
		Set("signed_in_at = EXCLUDED.signed_in_at").
		Exec(ctx)
	return err
}

// DeleteCtx removes the session; a missing one is no error.
func (s *SessionStore) DeleteCtx(ctx context.Context, token string) error {
	_, err := s.db.NewDelete().Model((*sessionRow)(nil)).Where("token = ?", token).Exec(ctx)
	return err
}

// deleteUserSessions ends every session of the user.
func deleteUserSessions(ctx context.Context, db bun.IDB, userID int64) error {
	_, err := db.NewDelete().Model((*sessionRow)(nil)).Where("user_id = ?", userID).Exec(ctx)
	return err
}

// PruneSessions deletes sessions that expired before now and returns how
// many.
func (db *DB) PruneSessions(ctx context.Context, now time.Time) (int64, error) {
	res, err := db.NewDelete().Model((*sessionRow)(nil)).Where("expiry <= ?", StoredTime(now)).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

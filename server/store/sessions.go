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
}

// SessionStore keeps scs browser sessions in the database. It implements
// scs.CtxStore. Use it with scs's HashTokenInStore so that only hashes of
// session tokens are stored.
type SessionStore struct {
	db *DB
}

// Sessions returns the session store on db.
func (db *DB) Sessions() *SessionStore { return &SessionStore{db: db} }

// FindCtx returns the data of an unexpired session.
func (s *SessionStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	var row sessionRow
	err := s.db.NewSelect().Model(&row).
		Where("token = ?", token).
		Where("expiry > ?", now()).
		Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return row.Data, true, nil
}

// CommitCtx stores the session, overwriting both the data and the expiry of
// an existing one.
func (s *SessionStore) CommitCtx(ctx context.Context, token string, data []byte, expiry time.Time) error {
	row := sessionRow{Token: token, Data: data, Expiry: storedTime(expiry)}
	_, err := s.db.NewInsert().Model(&row).
		On("CONFLICT (token) DO UPDATE").
		Set("data = EXCLUDED.data").
		Set("expiry = EXCLUDED.expiry").
		Exec(ctx)
	return err
}

// DeleteCtx removes the session; a missing one is no error.
func (s *SessionStore) DeleteCtx(ctx context.Context, token string) error {
	_, err := s.db.NewDelete().Model((*sessionRow)(nil)).Where("token = ?", token).Exec(ctx)
	return err
}

// Find is FindCtx without a context.
func (s *SessionStore) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}

// Commit is CommitCtx without a context.
func (s *SessionStore) Commit(token string, data []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, data, expiry)
}

// Delete is DeleteCtx without a context.
func (s *SessionStore) Delete(token string) error {
	return s.DeleteCtx(context.Background(), token)
}

// PruneSessions deletes sessions that expired before now and returns how
// many.
func (db *DB) PruneSessions(ctx context.Context, now time.Time) (int64, error) {
	res, err := db.NewDelete().Model((*sessionRow)(nil)).Where("expiry <= ?", storedTime(now)).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

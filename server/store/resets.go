package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/studyloop/studyloop/server/studyloop"
)

type passwordResetRow struct {
	bun.BaseModel `bun:"table:password_resets"`
	Hash          string    `bun:"hash,pk"`
	UserID        int64     `bun:"user_id,notnull"`
	CreatedAt     time.Time `bun:"created_at,notnull"`
	ExpiresAt     time.Time `bun:"expires_at,notnull"`
	UsedAt        time.Time `bun:"used_at,nullzero"`
}

// ErrResetInvalid is returned by ResetPassword for a token that is
// unknown, used or expired alike.
var ErrResetInvalid = &studyloop.Error{Code: studyloop.EINVALID, Message: "This reset link has expired or was already used. Ask for a new one."}

// CreatePasswordReset stores a password-reset token of the user by its
// hash, valid until expires.
func (db *DB) CreatePasswordReset(ctx context.Context, userID int64, hash string, expires time.Time) error {
	row := passwordResetRow{Hash: hash, UserID: userID, CreatedAt: now(), ExpiresAt: StoredTime(expires)}
	_, err := db.NewInsert().Model(&row).Exec(ctx)
	return err
}

// PasswordResetUser returns the user of a reset token (by hash) that is
// unused and unexpired at now, or ErrResetInvalid.
func (db *DB) PasswordResetUser(ctx context.Context, hash string, at time.Time) (*studyloop.User, error) {
	var row userRow
	err := db.NewSelect().Model(&row).
		Where("id = (?)", db.NewSelect().Model((*passwordResetRow)(nil)).Column("user_id").
			Where("hash = ?", hash).Where("used_at IS NULL").Where("expires_at > ?", StoredTime(at))).
		Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrResetInvalid
	}
	if err != nil {
		return nil, err
	}
	return row.user(), nil
}

// ResetPassword spends the reset token (by hash), which must be unused
// and unexpired at now, and sets the user's new password hash as
// SetPassword does (every session and every other reset token ends), in one
// transaction, so that a token works once even when presented twice at
// once. It returns the user; any token that cannot be spent is
// ErrResetInvalid.
func (db *DB) ResetPassword(ctx context.Context, hash, passwordHash string, at time.Time) (int64, error) {
	var userID int64
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var row passwordResetRow
		err := tx.NewUpdate().Model(&row).
			Set("used_at = ?", StoredTime(at)).
			Where("hash = ?", hash).
			Where("used_at IS NULL").
			Where("expires_at > ?", StoredTime(at)).
			Returning("user_id").
			Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrResetInvalid
		}
		if err != nil {
			return err
		}
		userID = row.UserID
		return setPassword(ctx, tx, userID, passwordHash)
	})
	return userID, err
}

// PrunePasswordResets deletes reset tokens that expired before now and
// returns how many.
func (db *DB) PrunePasswordResets(ctx context.Context, now time.Time) (int64, error) {
	res, err := db.NewDelete().Model((*passwordResetRow)(nil)).Where("expires_at <= ?", StoredTime(now)).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/studyloop/studyloop/server/studyloop"
)

type userRow struct {
	bun.BaseModel `bun:"table:users"`
	ID            int64     `bun:"id,pk,autoincrement"`
	Email         string    `bun:"email,notnull"`
	PasswordHash  string    `bun:"password_hash,notnull"`
	CreatedAt     time.Time `bun:"created_at,notnull"`
}

func (r userRow) user() *studyloop.User {
	return &studyloop.User{ID: r.ID, Email: r.Email, PasswordHash: r.PasswordHash, CreatedAt: r.CreatedAt.UTC()}
}

// ErrEmailTaken is returned by CreateUser when the email already has an
// account.
var ErrEmailTaken = &studyloop.Error{Code: studyloop.ECONFLICT, Message: "An account with this email address already exists."}

// CreateUser stores a new account and sets u.ID and u.CreatedAt. The email
// must already be normalised (package account does it); a duplicate gives
// ErrEmailTaken.
func (db *DB) CreateUser(ctx context.Context, u *studyloop.User) error {
	row := userRow{Email: u.Email, PasswordHash: u.PasswordHash, CreatedAt: now()}
	if _, err := db.NewInsert().Model(&row).Returning("id").Exec(ctx); err != nil {
		if isUniqueViolation(err) {
			return ErrEmailTaken
		}
		return err
	}
	u.ID, u.CreatedAt = row.ID, row.CreatedAt
	return nil
}

// UserByEmail returns the account with the (normalised) email, or an
// ENOTFOUND error.
func (db *DB) UserByEmail(ctx context.Context, email string) (*studyloop.User, error) {
	var row userRow
	err := db.NewSelect().Model(&row).Where("email = ?", email).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, studyloop.Errorf(studyloop.ENOTFOUND, "No account has this email address.")
	}
	if err != nil {
		return nil, err
	}
	return row.user(), nil
}

// UserByID returns the account with the id, or an ENOTFOUND error.
func (db *DB) UserByID(ctx context.Context, id int64) (*studyloop.User, error) {
	var row userRow
	err := db.NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, studyloop.Errorf(studyloop.ENOTFOUND, "No such account.")
	}
	if err != nil {
		return nil, err
	}
	return row.user(), nil
}

// StoredTime is t as rows hold it: UTC, cut to the microsecond both
// dialects keep, so that comparisons in SQL and in Go agree.
func StoredTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// isUniqueViolation reports whether err is a unique-constraint failure on
// either dialect.
func isUniqueViolation(err error) bool {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('C') == "23505"
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// SetPassword stores a new password hash for the user and, in the same
// transaction, ends every session of the user and spends every password
// reset not yet used, so that nothing issued under the old password
// survives it. The caller signs the current browser in again if it should
// stay signed in; agent grants are ended by EndUserGrants. A missing user
// is an ENOTFOUND error.
func (db *DB) SetPassword(ctx context.Context, userID int64, hash string) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return setPassword(ctx, tx, userID, hash)
	})
}

func setPassword(ctx context.Context, tx bun.Tx, userID int64, hash string) error {
	// Sessions signed in to before now no longer count, even one a
	// request under way stores again after they are deleted below.
	res, err := tx.NewUpdate().Model((*userRow)(nil)).
		Set("password_hash = ?", hash).
		Set("sessions_valid_from = ?", now()).
		Where("id = ?", userID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return studyloop.Errorf(studyloop.ENOTFOUND, "No such account.")
	}
	if err := deleteUserSessions(ctx, tx, userID); err != nil {
		return err
	}
	_, err = tx.NewUpdate().Model((*passwordResetRow)(nil)).
		Set("used_at = ?", now()).
		Where("user_id = ?", userID).
		Where("used_at IS NULL").
		Exec(ctx)
	return err
}

// DeleteUser deletes the account and everything in it: its studies with
// their topics, questions, files, cards, answers and progress, its agent
// grants (codes and tokens), its sessions and password resets. The foreign
// keys of every such table cascade from users. Registered OAuth clients
// are not the account's: an agent registers itself, and its registration
// may serve other students. A missing user is an ENOTFOUND error.
func (db *DB) DeleteUser(ctx context.Context, userID int64) error {
	res, err := db.NewDelete().Model((*userRow)(nil)).Where("id = ?", userID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return studyloop.Errorf(studyloop.ENOTFOUND, "No such account.")
	}
	return nil
}

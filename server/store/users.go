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

// storedTime is t as rows hold it: UTC, cut to the microsecond both
// dialects keep, so that comparisons in SQL and in Go agree.
func storedTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// isUniqueViolation reports whether err is a unique-constraint failure on
// either dialect.
func isUniqueViolation(err error) bool {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('C') == "23505"
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed")
}

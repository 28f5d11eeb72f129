package migrations

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Account management: every session names its account, so that a password
// change can end the others and deleting an account removes them; and
// password-reset tokens, stored only as SHA-256 hashes.
//
// Sessions stored before this migration cannot be tied to their account
// (the account sits inside the encoded session data), so they are ended:
// every student signs in once more.
func init() {
	type passwordReset struct {
		bun.BaseModel `bun:"table:password_resets"`
		Hash          string    `bun:"hash,pk"`
		UserID        int64     `bun:"user_id,notnull"`
		CreatedAt     time.Time `bun:"created_at,notnull"`
		ExpiresAt     time.Time `bun:"expires_at,notnull"`
		UsedAt        time.Time `bun:"used_at,nullzero"`
	}
	type sessionBefore struct {
		bun.BaseModel `bun:"table:sessions"`
		Token         string    `bun:"token,pk"`
		Data          []byte    `bun:"data,notnull"`
		Expiry        time.Time `bun:"expiry,notnull"`
	}
	Migrations.MustRegister(func(ctx context.Context, db *bun.DB) error {
		steps := []func() error{
			func() error {
				_, err := db.NewDelete().Table("sessions").Where("1 = 1").Exec(ctx)
				return err
			},
			func() error {
				_, err := db.ExecContext(ctx, `ALTER TABLE sessions ADD COLUMN user_id BIGINT REFERENCES users (id) ON DELETE CASCADE`)
				return err
			},
			func() error {
				_, err := db.NewCreateIndex().Table("sessions").Index("sessions_user_id_idx").Column("user_id").Exec(ctx)
				return err
			},
			func() error {
				_, err := db.NewCreateTable().Model((*passwordReset)(nil)).
					ForeignKey(`(user_id) REFERENCES users (id) ON DELETE CASCADE`).
					Exec(ctx)
				return err
			},
			func() error {
				_, err := db.NewCreateIndex().Model((*passwordReset)(nil)).Index("password_resets_user_id_idx").Column("user_id").Exec(ctx)
				return err
			},
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	}, func(ctx context.Context, db *bun.DB) error {
		// SQLite cannot drop a column with a foreign key, and sessions are
		// disposable: the table goes back to its first shape, empty.
		if _, err := db.NewDropTable().Model((*passwordReset)(nil)).IfExists().Exec(ctx); err != nil {
			return err
		}
		if _, err := db.NewDropTable().Table("sessions").IfExists().Exec(ctx); err != nil {
			return err
		}
		if _, err := db.NewCreateTable().Model((*sessionBefore)(nil)).Exec(ctx); err != nil {
			return err
		}
		_, err := db.NewCreateIndex().Model((*sessionBefore)(nil)).Index("sessions_expiry_idx").Column("expiry").Exec(ctx)
		return err
	})
}

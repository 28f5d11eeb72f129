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
		steps := []string{
			`DROP TABLE IF EXISTS password_resets`,
			`DROP INDEX IF EXISTS sessions_user_id_idx`,
			`ALTER TABLE sessions DROP COLUMN user_id`,
		}
		for _, q := range steps {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
}

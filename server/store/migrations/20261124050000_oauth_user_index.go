package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// oauth_tokens_user_id_idx finds a user's grants: ending them all when the
// password changes, and listing them for the student.
func init() {
	Migrations.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.NewCreateIndex().Table("oauth_tokens").Index("oauth_tokens_user_id_idx").Column("user_id").Exec(ctx)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.NewDropIndex().Index("oauth_tokens_user_id_idx").Exec(ctx)
		return err
	})
}

package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// studies.progress_version stamps the state mastery is computed from: a
// study's topics and questions and the student's cards and topic progress
// in it. Every write that changes any of them increments it in the same
// transaction (completing a study, recording an answer), so that a server
// may keep what it read under the stamp and reuse it until the stamp moves,
// whichever server made the change.
func init() {
	Migrations.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.NewAddColumn().Table("studies").
			ColumnExpr("progress_version BIGINT NOT NULL DEFAULT 0").Exec(ctx)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.NewDropColumn().Table("studies").Column("progress_version").Exec(ctx)
		return err
	})
}

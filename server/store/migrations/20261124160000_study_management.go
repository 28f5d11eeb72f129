package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// What a student changes in a study: how many new questions it starts a
// day (studies.new_per_day), and per question whether it is suspended
// (never asked, left out of mastery) and which other answers are accepted
// (questions.alternatives, a JSON array of strings).
func init() {
	columns := []struct{ table, column, def string }{
		{"studies", "new_per_day", "new_per_day INTEGER NOT NULL DEFAULT 20"},
		{"questions", "suspended", "suspended BOOLEAN NOT NULL DEFAULT FALSE"},
		{"questions", "alternatives", "alternatives TEXT NOT NULL DEFAULT '[]'"},
	}
	Migrations.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for _, c := range columns {
				if _, err := tx.NewAddColumn().Table(c.table).ColumnExpr(c.def).Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	}, func(ctx context.Context, db *bun.DB) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for _, c := range columns {
				if _, err := tx.NewDropColumn().Table(c.table).Column(c.column).Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

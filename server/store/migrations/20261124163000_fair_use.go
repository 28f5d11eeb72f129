package migrations

import (
	"context"
	"strings"

	"github.com/uptrace/bun"
)

// Columns for per-account quotas, the fair queue and upload progress:
//   - studies.chars: characters of the study's text (the stored-text quota);
//   - studies.upload_files, upload_pages, upload_bytes: what an upload
//     counted against the daily upload quotas (0 for pasted text), the
//     pages being the total of its progress;
//   - studies.pages_done: pages and photos read so far;
//   - studies.extract_pending: files wait for extraction (the upload lane);
//   - users.last_served: when a worker last claimed one of the account's
//     studies, in Unix microseconds (0: never), so the queue serves the
//     account waiting longest first.
func init() {
	columns := []struct{ table, def string }{
		{"studies", "chars INTEGER NOT NULL DEFAULT 0"},
		{"studies", "upload_files INTEGER NOT NULL DEFAULT 0"},
		{"studies", "upload_pages INTEGER NOT NULL DEFAULT 0"},
		{"studies", "upload_bytes BIGINT NOT NULL DEFAULT 0"},
		{"studies", "pages_done INTEGER NOT NULL DEFAULT 0"},
		{"studies", "extract_pending BOOLEAN NOT NULL DEFAULT FALSE"},
		{"users", "last_served BIGINT NOT NULL DEFAULT 0"},
	}
	Migrations.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for _, c := range columns {
				if _, err := tx.NewAddColumn().Table(c.table).ColumnExpr(c.def).Exec(ctx); err != nil {
					return err
				}
			}
			// Both dialects' length() counts characters.
			if _, err := tx.NewRaw(`UPDATE studies SET chars = length(text)`).Exec(ctx); err != nil {
				return err
			}
			_, err := tx.NewRaw(`UPDATE studies SET extract_pending = TRUE
				WHERE text = '' AND status IN ('uploaded', 'processing')`).Exec(ctx)
			return err
		})
	}, func(ctx context.Context, db *bun.DB) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for _, c := range columns {
				name, _, _ := strings.Cut(c.def, " ")
				if _, err := tx.NewDropColumn().Table(c.table).Column(name).Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

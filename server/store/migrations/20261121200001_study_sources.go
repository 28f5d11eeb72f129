package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// Study material uploaded as files (PDFs, photos), kept with the study
// until its text is extracted, and the parts of an extracted text (which
// bytes came from which page or photo), so topics can name their source.
func init() {
	type studySource struct {
		bun.BaseModel `bun:"table:study_sources"`
		ID            int64  `bun:"id,pk,autoincrement"`
		StudyID       string `bun:"study_id,notnull"`
		Position      int    `bun:"position,notnull"`
		Kind          string `bun:"kind,notnull"`
		Pages         string `bun:"pages,notnull"`
		Data          []byte `bun:"data,notnull"`
	}
	type studyPart struct {
		bun.BaseModel `bun:"table:study_parts"`
		ID            int64  `bun:"id,pk,autoincrement"`
		StudyID       string `bun:"study_id,notnull"`
		Position      int    `bun:"position,notnull"`
		Label         string `bun:"label,notnull"`
		SpanStart     int    `bun:"span_start,notnull"`
		SpanEnd       int    `bun:"span_end,notnull"`
	}
	Migrations.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.NewCreateTable().Model((*studySource)(nil)).
				ColumnExpr("CHECK (kind IN ('pdf', 'jpeg', 'png', 'heic'))").
				ForeignKey(`("study_id") REFERENCES "studies" ("id") ON DELETE CASCADE`).
				Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.NewCreateTable().Model((*studyPart)(nil)).
				ForeignKey(`("study_id") REFERENCES "studies" ("id") ON DELETE CASCADE`).
				Exec(ctx); err != nil {
				return err
			}
			for _, ix := range []struct{ name, table string }{
				{"study_sources_study_position_idx", "study_sources"},
				{"study_parts_study_position_idx", "study_parts"},
			} {
				if _, err := tx.NewCreateIndex().Table(ix.table).Index(ix.name).Unique().
					Column("study_id", "position").Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	}, func(ctx context.Context, db *bun.DB) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for _, model := range []any{(*studyPart)(nil), (*studySource)(nil)} {
				if _, err := tx.NewDropTable().Model(model).IfExists().Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

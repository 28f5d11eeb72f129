package migrations

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Studies, their topics and their questions, and the columns of the
// processing queue (status, attempts and the lease).
func init() {
	type study struct {
		bun.BaseModel `bun:"table:studies"`
		ID            string     `bun:"id,pk"`
		UserID        int64      `bun:"user_id,notnull"`
		Title         string     `bun:"title,notnull"`
		Text          string     `bun:"text,notnull"`
		Status        string     `bun:"status,notnull"`
		Reason        string     `bun:"reason,notnull"`
		Attempts      int        `bun:"attempts,notnull"`
		LeaseOwner    string     `bun:"lease_owner,notnull"`
		LeaseUntil    *time.Time `bun:"lease_until"`
		TopicCount    int        `bun:"topic_count,notnull"`
		QuestionCount int        `bun:"question_count,notnull"`
		CreatedAt     time.Time  `bun:"created_at,notnull"`
		UpdatedAt     time.Time  `bun:"updated_at,notnull"`
	}
	type topic struct {
		bun.BaseModel `bun:"table:topics"`
		ID            int64  `bun:"id,pk,autoincrement"`
		StudyID       string `bun:"study_id,notnull"`
		ParentID      *int64 `bun:"parent_id"`
		Position      int    `bun:"position,notnull"`
		Title         string `bun:"title,notnull"`
		SpanStart     int    `bun:"span_start,notnull"`
		SpanEnd       int    `bun:"span_end,notnull"`
	}
	type question struct {
		bun.BaseModel `bun:"table:questions"`
		ID            int64  `bun:"id,pk,autoincrement"`
		StudyID       string `bun:"study_id,notnull"`
		TopicID       int64  `bun:"topic_id,notnull"`
		Position      int    `bun:"position,notnull"`
		Type          string `bun:"type,notnull"`
		Prompt        string `bun:"prompt,notnull"`
		Answer        string `bun:"answer,notnull"`
		Choices       string `bun:"choices,notnull"` // JSON array of strings
		SpanStart     int    `bun:"span_start,notnull"`
		SpanEnd       int    `bun:"span_end,notnull"`
	}
	indexes := []struct {
		name, table string
		unique      bool
		columns     []string
	}{
		// Listing a user's studies newest first, keyset on (created_at, id).
		{"studies_user_created_idx", "studies", false, []string{"user_id", "created_at DESC", "id DESC"}},
		// Claiming the oldest queued study.
		{"studies_status_created_idx", "studies", false, []string{"status", "created_at", "id"}},
		{"topics_study_position_idx", "topics", true, []string{"study_id", "position"}},
		{"topics_parent_idx", "topics", false, []string{"parent_id"}},
		{"questions_study_position_idx", "questions", true, []string{"study_id", "position"}},
		{"questions_topic_idx", "questions", false, []string{"topic_id"}},
	}
	Migrations.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.NewCreateTable().Model((*study)(nil)).
				ColumnExpr("CHECK (status IN ('uploaded', 'processing', 'ready', 'failed'))").
				ForeignKey(`("user_id") REFERENCES "users" ("id") ON DELETE CASCADE`).
				Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.NewCreateTable().Model((*topic)(nil)).
				ForeignKey(`("study_id") REFERENCES "studies" ("id") ON DELETE CASCADE`).
				ForeignKey(`("parent_id") REFERENCES "topics" ("id") ON DELETE CASCADE`).
				Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.NewCreateTable().Model((*question)(nil)).
				ForeignKey(`("study_id") REFERENCES "studies" ("id") ON DELETE CASCADE`).
				ForeignKey(`("topic_id") REFERENCES "topics" ("id") ON DELETE CASCADE`).
				Exec(ctx); err != nil {
				return err
			}
			for _, ix := range indexes {
				q := tx.NewCreateIndex().Table(ix.table).Index(ix.name)
				if ix.unique {
					q = q.Unique()
				}
				for _, c := range ix.columns {
					q = q.ColumnExpr(c)
				}
				if _, err := q.Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	}, func(ctx context.Context, db *bun.DB) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for _, model := range []any{(*question)(nil), (*topic)(nil), (*study)(nil)} {
				if _, err := tx.NewDropTable().Model(model).IfExists().Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

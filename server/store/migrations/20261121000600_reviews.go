package migrations

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Spaced repetition: one FSRS card per answered question, the log of every
// answer, and per-topic answer counts and streaks kept up to date with each
// answer so that mastery never rescans the log. Topic and study ids are
// copied from the question (which never moves) so that mastery reads need no
// joins.
func init() {
	type card struct {
		bun.BaseModel `bun:"table:cards"`
		QuestionID    int64     `bun:"question_id,pk"`
		UserID        int64     `bun:"user_id,notnull"`
		StudyID       string    `bun:"study_id,notnull"`
		TopicID       int64     `bun:"topic_id,notnull"`
		Due           time.Time `bun:"due,notnull"`
		Stability     float64   `bun:"stability,notnull"`
		Difficulty    float64   `bun:"difficulty,notnull"`
		Reps          int       `bun:"reps,notnull"`
		Lapses        int       `bun:"lapses,notnull"`
		State         int       `bun:"state,notnull"`
		Step          int       `bun:"step,notnull"`
		LastReview    time.Time `bun:"last_review,notnull"`
	}
	type reviewLog struct {
		bun.BaseModel `bun:"table:review_logs"`
		ID            int64     `bun:"id,pk,autoincrement"`
		UserID        int64     `bun:"user_id,notnull"`
		StudyID       string    `bun:"study_id,notnull"`
		TopicID       int64     `bun:"topic_id,notnull"`
		QuestionID    int64     `bun:"question_id,notnull"`
		Rating        int       `bun:"rating,notnull"`
		State         int       `bun:"state,notnull"` // the card's state before the answer
		ReviewedAt    time.Time `bun:"reviewed_at,notnull"`
		ElapsedDays   float64   `bun:"elapsed_days,notnull"`
		ScheduledDays float64   `bun:"scheduled_days,notnull"`
		Stability     float64   `bun:"stability,notnull"`  // after the answer
		Difficulty    float64   `bun:"difficulty,notnull"` // after the answer
	}
	type topicProgress struct {
		bun.BaseModel `bun:"table:topic_progress"`
		TopicID       int64  `bun:"topic_id,pk"`
		UserID        int64  `bun:"user_id,notnull"`
		StudyID       string `bun:"study_id,notnull"`
		Attempts      int    `bun:"attempts,notnull"`
		CurrentStreak int    `bun:"current_streak,notnull"`
		BestStreak    int    `bun:"best_streak,notnull"`
	}
	indexes := []struct {
		name, table string
		columns     []string
	}{
		// Due questions of a study, earliest first; a study's cards for mastery.
		{"cards_user_study_due_idx", "cards", []string{"user_id", "study_id", "due"}},
		{"topic_progress_user_study_idx", "topic_progress", []string{"user_id", "study_id"}},
		// New questions introduced in the last day.
		{"review_logs_user_study_reviewed_idx", "review_logs", []string{"user_id", "study_id", "reviewed_at"}},
		{"review_logs_question_idx", "review_logs", []string{"question_id"}},
	}
	Migrations.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.NewCreateTable().Model((*card)(nil)).
				ColumnExpr("CHECK (state BETWEEN 0 AND 3)").
				ForeignKey(`("question_id") REFERENCES "questions" ("id") ON DELETE CASCADE`).
				ForeignKey(`("study_id") REFERENCES "studies" ("id") ON DELETE CASCADE`).
				ForeignKey(`("user_id") REFERENCES "users" ("id") ON DELETE CASCADE`).
				Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.NewCreateTable().Model((*reviewLog)(nil)).
				ColumnExpr("CHECK (rating BETWEEN 1 AND 4)").
				ForeignKey(`("question_id") REFERENCES "questions" ("id") ON DELETE CASCADE`).
				ForeignKey(`("study_id") REFERENCES "studies" ("id") ON DELETE CASCADE`).
				ForeignKey(`("user_id") REFERENCES "users" ("id") ON DELETE CASCADE`).
				Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.NewCreateTable().Model((*topicProgress)(nil)).
				ForeignKey(`("topic_id") REFERENCES "topics" ("id") ON DELETE CASCADE`).
				ForeignKey(`("study_id") REFERENCES "studies" ("id") ON DELETE CASCADE`).
				ForeignKey(`("user_id") REFERENCES "users" ("id") ON DELETE CASCADE`).
				Exec(ctx); err != nil {
				return err
			}
			for _, ix := range indexes {
				q := tx.NewCreateIndex().Table(ix.table).Index(ix.name)
				for _, c := range ix.columns {
					q = q.Column(c)
				}
				if _, err := q.Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	}, func(ctx context.Context, db *bun.DB) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for _, model := range []any{(*topicProgress)(nil), (*reviewLog)(nil), (*card)(nil)} {
				if _, err := tx.NewDropTable().Model(model).IfExists().Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

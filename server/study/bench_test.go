package study_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/study"
)

// BenchmarkRecordAnswer measures one answer: the card update and the log
// append in their transaction.
func BenchmarkRecordAnswer(b *testing.B) {
	for _, dialect := range storetest.Dialects {
		b.Run(dialect, func(b *testing.B) {
			db := storetest.Open(b, dialect)
			ctx := context.Background()
			user := storetest.Student(b, db, "bench@example.com")
			_, qs := storetest.ReadyStudy(b, db, user, "Bench", 40, 20)
			at := storetest.ReviewStart
			i := 0
			for b.Loop() {
				r := fsrs.Good
				if i%4 == 0 {
					r = fsrs.Again
				}
				if _, err := storetest.Service(db).RecordAnswer(ctx, user, qs[i%len(qs)].ID, r, at); err != nil {
					b.Fatal(err)
				}
				i++
				at = at.Add(time.Minute)
			}
		})
	}
}

// BenchmarkStudyMastery measures per-topic mastery of a study of 40 topics
// and 800 questions, every question answered, with 10,000 review-log rows:
// cached, as read again with no answer in between (one query, the figures
// computed at now from the cached inputs), and uncached, as read first or
// after an answer.
func BenchmarkStudyMastery(b *testing.B) {
	const topics, perTopic, logRows = 40, 20, 10_000
	for _, dialect := range storetest.Dialects {
		b.Run(dialect, func(b *testing.B) {
			db := storetest.Open(b, dialect)
			ctx := context.Background()
			user := storetest.Student(b, db, "bench@example.com")
			st, qs := storetest.ReadyStudy(b, db, user, "Bench", topics, perTopic)
			ratings := []fsrs.Rating{fsrs.Good, fsrs.Good, fsrs.Again, fsrs.Hard, fsrs.Easy}
			for i, q := range qs {
				storetest.Answer(b, db, user, q.ID, ratings[i%len(ratings)], storetest.ReviewStart.Add(time.Duration(i)*time.Second))
			}
			// The remaining history goes in directly: replaying it through
			// RecordAnswer would only slow the setup.
			extra := make([]logEntry, 0, logRows-len(qs))
			for i := range logRows - len(qs) {
				q := qs[i%len(qs)]
				extra = append(extra, logEntry{
					UserID: user, StudyID: st.ID, TopicID: q.TopicID, QuestionID: q.ID,
					Rating: int(ratings[i%len(ratings)]), State: int(fsrs.Review),
					ReviewedAt: storetest.ReviewStart.Add(time.Duration(i) * time.Minute), Stability: 3, Difficulty: 5,
				})
			}
			for chunk := range slices.Chunk(extra, 1000) {
				if _, err := db.NewInsert().Model(&chunk).ExcludeColumn("id").Exec(ctx); err != nil {
					b.Fatal(err)
				}
			}
			// Keep the per-topic answer counts true to the log.
			if _, err := db.NewRaw(`UPDATE topic_progress SET attempts =
				(SELECT count(*) FROM review_logs AS l WHERE l.topic_id = topic_progress.topic_id)`).Exec(ctx); err != nil {
				b.Fatal(err)
			}
			now := storetest.ReviewStart.Add(30 * aDay)
			// fresh: from memory, the version confirmed within the second;
			// verified: the version read, inputs and figures from memory;
			// uncached: read and worked out afresh, as after an answer.
			for _, c := range []struct {
				name string
				s    *study.Service
			}{{"fresh", storetest.Service(db)}, {"verified", study.Verifying(db)}, {"uncached", study.Uncached(db)}} {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						m, err := c.s.StudyMastery(ctx, user, st.ID, now)
						if err != nil {
							b.Fatal(err)
						}
						if m.Attempts != logRows || len(m.Topics) != topics {
							b.Fatalf("attempts %d topics %d", m.Attempts, len(m.Topics))
						}
					}
				})
			}
		})
	}
}

package study

import (
	"context"
	"fmt"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/mastery"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
)

// RecordAnswer schedules the user's answer to a question, rated r at now:
// in one transaction it updates the question's card, appends the answer to
// the review log, counts it in the topic's attempts and streaks and moves
// the study's progress version, and it returns the new card. Concurrent
// answers to the same question, or to questions of the same topic, are
// applied one after the other. A question that is not the user's is
// ENOTFOUND; an invalid rating is EINVALID.
func (s *Service) RecordAnswer(ctx context.Context, userID, questionID int64, r fsrs.Rating, now time.Time) (fsrs.Card, error) {
	if !r.Valid() {
		return fsrs.Card{}, invalidRating()
	}
	now = store.StoredTime(now)
	var result fsrs.Card
	err := s.db.InReviewTx(ctx, func(ctx context.Context, tx *store.ReviewTx) error {
		row, err := tx.LockCard(ctx, userID, questionID, now)
		if err != nil {
			return err
		}
		before := fsrsCard(&row)
		if before.Reps == 0 {
			before = fsrs.Card{} // the placeholder LockCard inserted
		}
		next, log, err := scheduler.Next(before, r, now)
		if err != nil {
			return invalidRating()
		}
		next.Due = store.StoredTime(next.Due)
		setCard(&row, next)
		if err := tx.UpdateCard(ctx, &row); err != nil {
			return err
		}
		// The topic's lock is taken before the log is appended, so that log
		// order and streak order agree.
		if err := countAnswer(ctx, tx, row, r); err != nil {
			return err
		}
		entry := store.ReviewLog{
			UserID: userID, StudyID: row.StudyID, TopicID: row.TopicID, QuestionID: questionID,
			Rating: int(r), State: int(log.State), ReviewedAt: now,
			ElapsedDays: log.ElapsedDays, ScheduledDays: log.ScheduledDays,
			Stability: next.Stability, Difficulty: next.Difficulty,
		}
		if err := tx.AppendReview(ctx, &entry); err != nil {
			return err
		}
		// Last, to hold the study's row lock briefly: servers caching this
		// study's mastery inputs see them change.
		if err := tx.MoveProgressVersion(ctx, row.StudyID); err != nil {
			return err
		}
		result = next
		return nil
	})
	return result, err
}

func invalidRating() error {
	return studyloop.Errorf(studyloop.EINVALID, "Rating must be again, hard, good or easy.")
}

// countAnswer adds an answer rated r to the attempts and streaks of the
// card's topic, holding the topic's row lock so that concurrent answers in
// one topic count in order.
func countAnswer(ctx context.Context, tx *store.ReviewTx, card store.Card, r fsrs.Rating) error {
	p, err := tx.LockTopicProgress(ctx, card)
	if err != nil {
		return err
	}
	streak := mastery.Streak{Current: p.CurrentStreak, Best: p.BestStreak}
	streak.Add(r)
	p.Attempts++
	p.CurrentStreak, p.BestStreak = streak.Current, streak.Best
	return tx.UpdateTopicProgress(ctx, &p)
}

// PreviewAnswer returns when the user's question would next be due for
// each rating given at now, indexed by fsrs.Rating (index 0 unused), as
// RecordAnswer would schedule it. A question that is not the user's is
// ENOTFOUND.
func (s *Service) PreviewAnswer(ctx context.Context, userID, questionID int64, now time.Time) ([5]time.Time, error) {
	var due [5]time.Time
	now = store.StoredTime(now)
	row, found, err := s.db.AnsweredCard(ctx, userID, questionID)
	if err != nil {
		return due, err
	}
	var before fsrs.Card
	if found {
		before = fsrsCard(&row)
	} else if _, err := s.db.PracticeQuestion(ctx, userID, "", questionID); err != nil {
		return due, err
	}
	for r := fsrs.Again; r <= fsrs.Easy; r++ {
		next, _, err := scheduler.Next(before, r, now)
		if err != nil {
			return due, fmt.Errorf("study: preview rating %s: %w", r, err)
		}
		due[r] = next.Due
	}
	return due, nil
}

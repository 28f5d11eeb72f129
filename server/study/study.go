// Package study is the study service, between the surfaces that people and
// agents use (the web app, /mcp) and store: it records answers (the FSRS
// step, the review log, the topic's streaks) and works out mastery figures
// (per topic, rolled up the topic tree, and across studies), keeping what
// they are computed from in one bounded cache that every surface shares.
// store keeps the rows, queries and transactions; this package decides
// what goes in them.
package study

import (
	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/store"
)

// scheduler is the FSRS-6 scheduler with its defaults; it holds no state.
var scheduler = fsrs.Default()

// Service records answers and reports mastery for the students of one
// database. Make one with New, one per *store.DB, and share it between
// the surfaces. It is safe for concurrent use.
type Service struct {
	db      *store.DB
	mastery *masteryCache
}

// New returns the service over db, with an empty mastery cache that
// drops a study as soon as a change made through db moves its progress
// version.
func New(db *store.DB) *Service {
	return newService(db, newMasteryCache(masteryCacheStudies, masteryCacheWeight))
}

func newService(db *store.DB, c *masteryCache) *Service {
	db.WatchProgress(c.forget)
	return &Service{db: db, mastery: c}
}

// fsrsCard is the schedule a card row holds.
func fsrsCard(c *store.Card) fsrs.Card {
	return fsrs.Card{
		Due: c.Due.UTC(), Stability: c.Stability, Difficulty: c.Difficulty,
		Reps: c.Reps, Lapses: c.Lapses, State: fsrs.State(c.State), Step: c.Step,
		LastReview: c.LastReview.UTC(),
	}
}

// setCard puts the schedule f in the card row c.
func setCard(c *store.Card, f fsrs.Card) {
	c.Due, c.Stability, c.Difficulty = f.Due, f.Stability, f.Difficulty
	c.Reps, c.Lapses, c.State, c.Step = f.Reps, f.Lapses, int(f.State), f.Step
	c.LastReview = f.LastReview
}

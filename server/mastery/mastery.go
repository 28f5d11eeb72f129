// Package mastery turns FSRS card states and answer histories into the
// mastery figures students and agents see: per-topic scores, attempts,
// streaks, next reviews and state counts, and their question-weighted
// totals per study and across studies. Its functions are pure: everything,
// the current time included, is passed in.
package mastery

import (
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/studyloop"
)

// Cards returns the figures of a set of questions, one card each (the zero
// card for a question never answered), at time now. Attempts is left 0:
// answers are counted from the review log.
func Cards(s *fsrs.Scheduler, cards []fsrs.Card, now time.Time) studyloop.MasteryFigures {
	return CardsAndNew(s, cards, 0, now)
}

// CardsAndNew is Cards of the given cards and unanswered more questions
// never answered, without building their zero cards.
func CardsAndNew(s *fsrs.Scheduler, cards []fsrs.Card, unanswered int, now time.Time) studyloop.MasteryFigures {
	f := studyloop.MasteryFigures{Questions: unanswered, New: unanswered}
	var sum float64
	horizon := now.Add(studyloop.MasteryHorizon)
	for _, c := range cards {
		f.Questions++
		switch c.State {
		case fsrs.New:
			f.New++
			continue
		case fsrs.Learning, fsrs.Relearning:
			f.Learning++
		case fsrs.Review:
			f.Review++
		}
		sum += s.Retrievability(c, horizon)
		if !c.Due.After(now) {
			f.DueNow++
		}
		if f.NextReview == nil || c.Due.Before(*f.NextReview) {
			due := c.Due
			f.NextReview = &due
		}
	}
	if f.Questions > 0 {
		f.Score = clamp01(sum / float64(f.Questions))
	}
	return f
}

// Combine adds up parts (topics of a study, or studies): counts and
// attempts are summed, the score is weighted by question count, and the
// next review is the earliest.
func Combine(parts ...studyloop.MasteryFigures) studyloop.MasteryFigures {
	var f studyloop.MasteryFigures
	var weighted float64
	for _, p := range parts {
		weighted += p.Score * float64(p.Questions)
		f.Questions += p.Questions
		f.Attempts += p.Attempts
		f.DueNow += p.DueNow
		f.New += p.New
		f.Learning += p.Learning
		f.Review += p.Review
		if p.NextReview != nil && (f.NextReview == nil || p.NextReview.Before(*f.NextReview)) {
			next := *p.NextReview
			f.NextReview = &next
		}
	}
	if f.Questions > 0 {
		f.Score = clamp01(weighted / float64(f.Questions))
	}
	return f
}

// RollUp returns the figures of each node of a forest over its whole
// subtree: for node i, own[i] combined (as by Combine) with the rolled-up
// figures of its direct children in index order, so that every question
// below a node counts once in it. parents[i] is the index of node i's
// parent, or -1 (or any index out of range) for a root; parents and own
// have the same length. A node that is its own ancestor is cut from the
// cycle where it closes: the child that closes it is left out. A node
// without children keeps own[i], its NextReview pointer included.
func RollUp(parents []int, own []studyloop.MasteryFigures) []studyloop.MasteryFigures {
	n := len(own)
	rolled := make([]studyloop.MasteryFigures, n)
	copy(rolled, own)
	// children[first[i]:first[i+1]] are node i's direct children, in
	// index order.
	first := make([]int, n+1)
	for i, p := range parents[:n] {
		if p >= 0 && p < n && p != i {
			first[p+1]++
		}
	}
	for i := range n {
		first[i+1] += first[i]
	}
	children := make([]int, first[n])
	next := make([]int, n)
	copy(next, first[:n])
	for i, p := range parents[:n] {
		if p >= 0 && p < n && p != i {
			children[next[p]] = i
			next[p]++
		}
	}
	const (
		unseen = iota
		visiting
		done
	)
	state := make([]uint8, n)
	var parts []studyloop.MasteryFigures
	var visit func(i int)
	visit = func(i int) {
		state[i] = visiting
		kids := children[first[i]:first[i+1]]
		for _, c := range kids {
			if state[c] == unseen {
				visit(c)
			}
		}
		if len(kids) > 0 {
			parts = append(parts[:0], own[i])
			for _, c := range kids {
				if state[c] == done {
					parts = append(parts, rolled[c])
				}
			}
			rolled[i] = Combine(parts...)
		}
		state[i] = done
	}
	for i := range n {
		if state[i] == unseen {
			visit(i)
		}
	}
	return rolled
}

// Streak follows a run of answers in the order they were given. Answers
// rated Hard or better extend the run; Again ends it.
type Streak struct {
	Current int // the run ending at the latest answer
	Best    int // the longest run
}

// Add records the next answer.
func (s *Streak) Add(r fsrs.Rating) {
	if !r.Passed() {
		s.Current = 0
		return
	}
	s.Current++
	s.Best = max(s.Best, s.Current)
}

func clamp01(v float64) float64 { return min(max(v, 0), 1) }

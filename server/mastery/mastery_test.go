package mastery

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/studyloop"
)

var now = time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

func reviewCard(stability float64, lastReview, due time.Time) fsrs.Card {
	return fsrs.Card{State: fsrs.Review, Stability: stability, Difficulty: 5, Reps: 3, LastReview: lastReview, Due: due}
}

func TestCards(t *testing.T) {
	s := fsrs.Default()
	// A card with stability S reviewed S−7 days ago has recall probability
	// 0.9 seven days from now (R = 0.9 when elapsed equals stability).
	atNinety := reviewCard(10, now.Add(-3*day), now.Add(7*day))
	dueYesterday := reviewCard(10, now.Add(-3*day), now.Add(-day))
	learning := fsrs.Card{State: fsrs.Learning, Stability: 2.3065, LastReview: now.Add(-5 * time.Minute), Due: now.Add(5 * time.Minute)}
	relearning := fsrs.Card{State: fsrs.Relearning, Stability: 7, LastReview: now, Due: now} // due exactly now
	tests := []struct {
		name      string
		cards     []fsrs.Card
		score     float64
		due       int
		counts    [3]int // new, learning, review
		next      *time.Time
		questions int
	}{
		{name: "no questions", cards: nil},
		{name: "never answered counts zero", cards: []fsrs.Card{{}, {}, {}}, counts: [3]int{3, 0, 0}, questions: 3},
		{
			name:      "one known, one new",
			cards:     []fsrs.Card{atNinety, {}},
			score:     0.45,
			counts:    [3]int{1, 0, 1},
			next:      &atNinety.Due,
			questions: 2,
		},
		{
			name:      "due counts and earliest next review",
			cards:     []fsrs.Card{atNinety, dueYesterday, learning, relearning, {}},
			score:     (0.9 + 0.9 + s.Retrievability(learning, now.Add(7*day)) + s.Retrievability(relearning, now.Add(7*day))) / 5,
			due:       2,
			counts:    [3]int{1, 2, 2},
			next:      &dueYesterday.Due,
			questions: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Cards(s, tt.cards, now)
			if math.Abs(f.Score-tt.score) > 1e-9 {
				t.Errorf("score=%v, want %v", f.Score, tt.score)
			}
			if f.DueNow != tt.due {
				t.Errorf("due now=%d, want %d", f.DueNow, tt.due)
			}
			if got := [3]int{f.New, f.Learning, f.Review}; got != tt.counts {
				t.Errorf("new/learning/review=%v, want %v", got, tt.counts)
			}
			if f.Questions != tt.questions || f.Attempts != 0 {
				t.Errorf("questions=%d attempts=%d, want %d 0", f.Questions, f.Attempts, tt.questions)
			}
			switch {
			case tt.next == nil && f.NextReview != nil:
				t.Errorf("next review=%v, want nil", *f.NextReview)
			case tt.next != nil && (f.NextReview == nil || !f.NextReview.Equal(*tt.next)):
				t.Errorf("next review=%v, want %v", f.NextReview, *tt.next)
			}
			if f.Score < 0 || f.Score > 1 {
				t.Errorf("score %v out of 0..1", f.Score)
			}
		})
	}
}

func TestScoreRisesWithPractice(t *testing.T) {
	// Answering Good whenever the questions fall due raises a topic's score
	// towards 1; same-day answers never lower it.
	s := fsrs.Default()
	cards := make([]fsrs.Card, 4)
	at := now
	prev := Cards(s, cards, at).Score
	for round := 0; round < 6; round++ {
		for i := range cards {
			var err error
			if cards[i], _, err = s.Next(cards[i], fsrs.Good, at); err != nil {
				t.Fatal(err)
			}
		}
		score := Cards(s, cards, at).Score
		if score < prev || (cards[0].State == fsrs.Review && round > 1 && score == prev) {
			t.Fatalf("round %d: score %v after %v", round, score, prev)
		}
		prev = score
		at = cards[0].Due
	}
	if prev < 0.95 {
		t.Errorf("score after practice %v, want at least 0.95", prev)
	}
}

func TestCombine(t *testing.T) {
	early, late := now.Add(time.Hour), now.Add(48*time.Hour)
	parts := []studyloop.MasteryFigures{
		{Score: 1, Questions: 30, Attempts: 40, NextReview: &late, DueNow: 2, New: 1, Learning: 4, Review: 25},
		{Score: 0.2, Questions: 10, Attempts: 5, NextReview: &early, DueNow: 1, New: 6, Learning: 1, Review: 3},
		{Score: 0, Questions: 0},
	}
	f := Combine(parts...)
	// Weighted by question count: (1·30 + 0.2·10) / 40 = 0.8, not the
	// unweighted 0.6 or 0.4.
	if math.Abs(f.Score-0.8) > 1e-12 {
		t.Errorf("score=%v, want 0.8", f.Score)
	}
	want := studyloop.MasteryFigures{Score: f.Score, Questions: 40, Attempts: 45, NextReview: f.NextReview, DueNow: 3, New: 7, Learning: 5, Review: 28}
	if f != want {
		t.Errorf("combined=%+v, want %+v", f, want)
	}
	if f.NextReview == nil || !f.NextReview.Equal(early) {
		t.Errorf("next review=%v, want %v", f.NextReview, early)
	}
	if f.NextReview == &early {
		t.Error("next review aliases the part's time")
	}
	if got := Combine(); got != (studyloop.MasteryFigures{}) {
		t.Errorf("empty combine=%+v", got)
	}
}

func TestStreak(t *testing.T) {
	A, H, G, E := fsrs.Again, fsrs.Hard, fsrs.Good, fsrs.Easy
	tests := []struct {
		name          string
		ratings       []fsrs.Rating
		current, best int
	}{
		{"none", nil, 0, 0},
		{"all pass", []fsrs.Rating{G, H, E}, 3, 3},
		{"ends in again", []fsrs.Rating{G, G, A}, 0, 2},
		{"best earlier", []fsrs.Rating{G, G, G, G, A, H, G}, 2, 4},
		{"hard counts as pass", []fsrs.Rating{A, H, H}, 2, 2},
		{"only again", []fsrs.Rating{A, A}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Streak
			for _, r := range tt.ratings {
				s.Add(r)
			}
			if s.Current != tt.current || s.Best != tt.best {
				t.Errorf("streak=%+v, want current %d best %d", s, tt.current, tt.best)
			}
		})
	}
}

func TestCardsAndNew(t *testing.T) {
	s := fsrs.Default()
	answered := []fsrs.Card{
		reviewCard(10, now.Add(-3*day), now.Add(7*day)),
		reviewCard(4, now.Add(-2*day), now.Add(-day)),
		{State: fsrs.Learning, Stability: 2.3065, LastReview: now.Add(-5 * time.Minute), Due: now.Add(5 * time.Minute)},
	}
	for _, tt := range []struct {
		name       string
		cards      []fsrs.Card
		unanswered int
	}{
		{"nothing", nil, 0},
		{"only unanswered", nil, 4},
		{"only answered", answered, 0},
		{"both", answered, 17},
	} {
		t.Run(tt.name, func(t *testing.T) {
			padded := append(slices.Clone(tt.cards), make([]fsrs.Card, tt.unanswered)...)
			if got, want := CardsAndNew(s, tt.cards, tt.unanswered, now), Cards(s, padded, now); !reflect.DeepEqual(got, want) {
				t.Errorf("CardsAndNew %+v\nwant Cards of the padded set %+v", got, want)
			}
		})
	}
}

func TestRollUp(t *testing.T) {
	early, mid, late := now.Add(time.Hour), now.Add(2*time.Hour), now.Add(48*time.Hour)
	leafA := studyloop.MasteryFigures{Score: 0.9, Questions: 3, Attempts: 7, NextReview: &late, DueNow: 1, Learning: 1, Review: 2}
	leafB := studyloop.MasteryFigures{Score: 0.3, Questions: 5, Attempts: 2, NextReview: &early, New: 3, Learning: 2, DueNow: 2}
	leafC := studyloop.MasteryFigures{Score: 0, Questions: 4, New: 4}
	ownOfParent := studyloop.MasteryFigures{Score: 0.5, Questions: 2, Attempts: 1, NextReview: &mid, Review: 2}
	var none studyloop.MasteryFigures
	tests := []struct {
		name    string
		parents []int
		own     []studyloop.MasteryFigures
		want    func(own []studyloop.MasteryFigures) []studyloop.MasteryFigures
	}{
		{"empty", nil, nil, func([]studyloop.MasteryFigures) []studyloop.MasteryFigures { return []studyloop.MasteryFigures{} }},
		{
			"flat topics keep their own figures",
			[]int{-1, -1}, []studyloop.MasteryFigures{leafA, leafB},
			func(own []studyloop.MasteryFigures) []studyloop.MasteryFigures { return own },
		},
		{
			// 0 ⊃ {1 ⊃ {2, 3}, 4}: only leaves have questions.
			"three levels, only leaves have questions",
			[]int{-1, 0, 1, 1, 0}, []studyloop.MasteryFigures{none, none, leafA, leafB, leafC},
			func(own []studyloop.MasteryFigures) []studyloop.MasteryFigures {
				mid := Combine(leafA, leafB)
				return []studyloop.MasteryFigures{Combine(mid, leafC), mid, leafA, leafB, leafC}
			},
		},
		{
			"a parent's own questions count with its subtopics'",
			[]int{-1, 0, 0}, []studyloop.MasteryFigures{ownOfParent, leafA, leafB},
			func(own []studyloop.MasteryFigures) []studyloop.MasteryFigures {
				return []studyloop.MasteryFigures{Combine(ownOfParent, leafA, leafB), leafA, leafB}
			},
		},
		{
			"child listed before its parent",
			[]int{1, -1}, []studyloop.MasteryFigures{leafA, none},
			func(own []studyloop.MasteryFigures) []studyloop.MasteryFigures {
				return []studyloop.MasteryFigures{leafA, Combine(none, leafA)}
			},
		},
		{
			"out-of-range and self parents are roots",
			[]int{7, 1, -3}, []studyloop.MasteryFigures{leafA, leafB, leafC},
			func(own []studyloop.MasteryFigures) []studyloop.MasteryFigures { return own },
		},
		{
			"a cycle is cut where it closes",
			[]int{1, 0}, []studyloop.MasteryFigures{leafA, leafB},
			func(own []studyloop.MasteryFigures) []studyloop.MasteryFigures {
				return []studyloop.MasteryFigures{Combine(leafA, Combine(leafB)), Combine(leafB)}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.own)
			got := RollUp(tt.parents, tt.own)
			if want := tt.want(tt.own); !reflect.DeepEqual(got, want) {
				t.Errorf("RollUp=%+v\nwant %+v", got, want)
			}
			if !reflect.DeepEqual(tt.own, before) {
				t.Errorf("RollUp changed its input: %+v, was %+v", tt.own, before)
			}
		})
	}
	// The root of the three levels covers every question once: its figures
	// are those of the leaves combined directly.
	rolled := RollUp([]int{-1, 0, 1, 1, 0}, []studyloop.MasteryFigures{none, none, leafA, leafB, leafC})
	direct := Combine(leafA, leafB, leafC)
	root := rolled[0]
	if math.Abs(root.Score-direct.Score) > 1e-12 || root.NextReview == nil || !root.NextReview.Equal(early) {
		t.Errorf("root %+v, want the leaves combined %+v", root, direct)
	}
	root.Score, root.NextReview = direct.Score, direct.NextReview
	if root != direct {
		t.Errorf("root counts %+v, want %+v", root, direct)
	}
}

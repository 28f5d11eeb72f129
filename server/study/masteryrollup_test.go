package study_test

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/mastery"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// rollupTopics is a study three levels deep where only the leaves have
// questions: Optics ⊃ {Lenses ⊃ {Convex, Concave}, Mirrors}, and Waves.
var rollupTopics = []struct {
	title     string
	parent    int // index, -1 for a top-level topic
	questions int
}{
	{"Optics", -1, 0},
	{"Lenses", 0, 0},
	{"Convex", 1, 3},
	{"Concave", 1, 2},
	{"Mirrors", 0, 3},
	{"Waves", -1, 2},
}

// mustRollupStudy stores a ready study of the user with rollupTopics, and
// returns it with its questions grouped by topic index.
func mustRollupStudy(tb testing.TB, db *store.DB, userID int64, title string) (studyloop.Study, [][]studyloop.Question) {
	tb.Helper()
	var ex studyloop.Extraction
	for i, tp := range rollupTopics {
		ex.Topics = append(ex.Topics, studyloop.Topic{Parent: tp.parent, Title: tp.title})
		for range tp.questions {
			ex.Questions = append(ex.Questions, studyloop.Question{
				Topic: i, Type: studyloop.QuestionShortAnswer, Prompt: "What does " + tp.title + " do?", Answer: "It shapes light.",
			})
		}
	}
	st, qs := storetest.CompleteStudy(tb, db, userID, title, "Light bends in lenses, bounces off mirrors, and travels in waves.", ex)
	byTopic := make([][]studyloop.Question, len(rollupTopics))
	for _, q := range qs {
		byTopic[q.Topic] = append(byTopic[q.Topic], q)
	}
	for i, tp := range rollupTopics {
		if len(byTopic[i]) != tp.questions {
			tb.Fatalf("topic %d has %d questions, want %d", i, len(byTopic[i]), tp.questions)
		}
	}
	return st, byTopic
}

// inSubtree reports whether topic i of rollupTopics is root or below it.
func inSubtree(i, root int) bool {
	for ; i >= 0; i = rollupTopics[i].parent {
		if i == root {
			return true
		}
	}
	return false
}

func TestTopicMasteryRollsUpSubtopics(t *testing.T) {
	type answer struct {
		topic, nth int
		r          fsrs.Rating
	}
	G, A, E, H := fsrs.Good, fsrs.Again, fsrs.Easy, fsrs.Hard
	tests := []struct {
		name    string
		answers []answer
		later   time.Duration // how long after the last answer mastery is read
	}{
		{name: "nothing answered"},
		{name: "one leaf answered", answers: []answer{{2, 0, G}, {2, 1, E}}, later: time.Hour},
		{
			name:    "every leaf answered, mixed ratings",
			answers: []answer{{2, 0, G}, {3, 1, A}, {4, 2, E}, {5, 0, H}, {2, 0, G}, {3, 0, G}, {4, 0, A}, {2, 2, H}, {5, 1, G}},
			later:   20 * time.Minute,
		},
		{
			name:    "days later, some due",
			answers: []answer{{2, 0, E}, {2, 1, G}, {3, 0, G}, {3, 1, E}, {4, 0, G}, {4, 1, G}, {4, 2, A}},
			later:   9 * aDay,
		},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := fsrs.Default()
		alice := storetest.Student(t, db, "alice@example.com")
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				st, qs := mustRollupStudy(t, db, alice, tt.name)
				cards := map[int64]fsrs.Card{}
				attempts := make([]int, len(rollupTopics))
				streaks := make([]mastery.Streak, len(rollupTopics))
				at := storetest.ReviewStart
				for _, a := range tt.answers {
					q := qs[a.topic][a.nth]
					cards[q.ID] = storetest.Answer(t, db, alice, q.ID, a.r, at)
					attempts[a.topic]++
					streaks[a.topic].Add(a.r)
					at = at.Add(3 * time.Minute)
				}
				now := at.Add(tt.later)
				m := checkMatchesUncached(t, db, alice, st.ID, now)
				asOf := now.Truncate(time.Minute)
				if len(m.Topics) != len(rollupTopics) {
					t.Fatalf("%d topics, want %d", len(m.Topics), len(rollupTopics))
				}

				// The study counts each question once: its figures are the
				// leaves' combined, over all ten questions.
				var leaves []studyloop.MasteryFigures
				for i, tp := range rollupTopics {
					if tp.questions > 0 {
						leaves = append(leaves, m.Topics[i].MasteryFigures)
					}
				}
				if want := mastery.Combine(leaves...); !reflect.DeepEqual(m.MasteryFigures, want) {
					t.Errorf("study figures %+v\nwant the leaves' combined %+v", m.MasteryFigures, want)
				}
				if m.Questions != 10 || m.Attempts != len(tt.answers) {
					t.Errorf("study questions %d attempts %d, want 10 and %d", m.Questions, m.Attempts, len(tt.answers))
				}

				for i, tp := range rollupTopics {
					got := m.Topics[i]
					// A parent's figures are its children's combined.
					var children []studyloop.MasteryFigures
					for j := range rollupTopics {
						if rollupTopics[j].parent == i {
							children = append(children, m.Topics[j].MasteryFigures)
						}
					}
					if len(children) > 0 {
						if want := mastery.Combine(children...); !reflect.DeepEqual(got.MasteryFigures, want) {
							t.Errorf("%s: figures %+v\nwant its children's combined %+v", tp.title, got.MasteryFigures, want)
						}
					}
					// And, worked out from the cards, those of every question
					// in its subtree.
					var subtree []fsrs.Card
					wantAttempts := 0
					for j := range rollupTopics {
						if !inSubtree(j, i) {
							continue
						}
						wantAttempts += attempts[j]
						for _, q := range qs[j] {
							subtree = append(subtree, cards[q.ID]) // the zero card if never answered
						}
					}
					want := mastery.Cards(s, subtree, asOf)
					want.Attempts = wantAttempts
					if math.Abs(got.Score-want.Score) > 1e-12 {
						t.Errorf("%s: score %v, want %v", tp.title, got.Score, want.Score)
					}
					want.Score = got.Score
					if !reflect.DeepEqual(got.MasteryFigures, want) {
						t.Errorf("%s: figures %+v\nwant those of its subtree's questions %+v", tp.title, got.MasteryFigures, want)
					}
					// Streaks stay the topic's own.
					if got.CurrentStreak != streaks[i].Current || got.BestStreak != streaks[i].Best {
						t.Errorf("%s: streak %d/%d, want its own %d/%d", tp.title, got.CurrentStreak, got.BestStreak, streaks[i].Current, streaks[i].Best)
					}
				}
				if m.Topics[0].Questions != 8 || m.Topics[1].Questions != 5 {
					t.Errorf("parents' questions %d and %d, want 8 and 5", m.Topics[0].Questions, m.Topics[1].Questions)
				}
				if len(tt.answers) > 0 && (m.Topics[0].Score == 0 || m.Topics[1].Score == 0) {
					t.Errorf("parents' scores %v and %v after answers to their subtopics, want above 0", m.Topics[0].Score, m.Topics[1].Score)
				}
			})
		}
	})
}

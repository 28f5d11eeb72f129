package study_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/study"
	"github.com/studyloop/studyloop/server/studyloop"
)

// countingRendering encodes a study's mastery as JSON and counts how often
// it is asked to.
type countingRendering struct {
	*study.Rendering
	calls int
}

func newCountingRendering() *countingRendering {
	c := &countingRendering{}
	c.Rendering = study.NewRendering(func(m studyloop.StudyMastery) ([]byte, error) {
		c.calls++
		return json.Marshal(m)
	})
	return c
}

// TestRenderStudyMastery checks that a rendering is made from exactly the
// figures StudyMastery reports, once per student, study, version and
// minute, and kept with them in the one mastery cache.
func TestRenderStudyMastery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := storetest.Service(db)
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		st, qs := storetest.NestedStudy(t, db, alice, "Optics")
		other, _ := storetest.ReadyStudy(t, db, alice, "Waves", 1, 2)
		storetest.Answer(t, db, alice, qs[0].ID, fsrs.Good, storetest.ReviewStart)
		minute := storetest.ReviewStart.Add(time.Hour)
		r := newCountingRendering()
		render := func(userID int64, studyID string, at time.Time) []byte {
			t.Helper()
			b, err := s.RenderStudyMastery(ctx, userID, studyID, at, r.Rendering)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(mustStudyMastery(t, s, userID, studyID, at))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != string(want) {
				t.Fatalf("rendered %s, StudyMastery reports %s", b, want)
			}
			return b
		}
		steps := []struct {
			name      string
			do        func()
			at        time.Time
			studyID   string
			wantCalls int
		}{
			{"first", nil, minute, st.ID, 1},
			{"again in the minute", nil, minute.Add(30 * time.Second), st.ID, 1},
			{"another study", nil, minute, other.ID, 2},
			{"the next minute", nil, minute.Add(time.Minute), st.ID, 3},
			{"after an answer", func() { storetest.Answer(t, db, alice, qs[1].ID, fsrs.Again, minute) }, minute.Add(time.Minute), st.ID, 4},
			{"after a rename", func() {
				if err := db.RenameStudy(ctx, alice, st.ID, "Light"); err != nil {
					t.Fatal(err)
				}
			}, minute.Add(time.Minute), st.ID, 5},
			{"unchanged since", nil, minute.Add(time.Minute), st.ID, 5},
		}
		for _, step := range steps {
			if step.do != nil {
				step.do()
			}
			render(alice, step.studyID, step.at)
			if r.calls != step.wantCalls {
				t.Errorf("%s: rendered %d times in all, want %d", step.name, r.calls, step.wantCalls)
			}
		}

		// Another student is told the study does not exist, and nothing
		// is rendered for her.
		if _, err := s.RenderStudyMastery(ctx, mallory, st.ID, minute, r.Rendering); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Errorf("mallory: %v, want %s", err, studyloop.ENOTFOUND)
		}
		// Another rendering of the same figures is made on its own.
		r2 := newCountingRendering()
		if _, err := s.RenderStudyMastery(ctx, alice, st.ID, minute.Add(time.Minute), r2.Rendering); err != nil || r2.calls != 1 || r.calls != 5 {
			t.Errorf("second rendering: %v, made %d and %d times, want 1 and 5", err, r2.calls, r.calls)
		}
		// A rendering that fails is passed on and not kept.
		refused := errors.New("not this one")
		calls := 0
		failing := study.NewRendering(func(studyloop.StudyMastery) ([]byte, error) { calls++; return nil, refused })
		for range 2 {
			if _, err := s.RenderStudyMastery(ctx, alice, st.ID, minute, failing); !errors.Is(err, refused) {
				t.Errorf("failing rendering: %v", err)
			}
		}
		if calls != 2 {
			t.Errorf("failing rendering made %d times, want 2", calls)
		}
	})
}

// TestRenderStudyMasteryStatus checks that a study on its way to ready is
// rendered with its current status, which moves without its version.
func TestRenderStudyMasteryStatus(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := storetest.Service(db)
		alice := storetest.Student(t, db, "alice@example.com")
		st, err := db.CreateStudy(ctx, alice, "Heat", "Heat flows from warm to cold.")
		if err != nil {
			t.Fatal(err)
		}
		r := study.NewRendering(func(m studyloop.StudyMastery) ([]byte, error) { return []byte(m.Status), nil })
		check := func(want studyloop.StudyStatus) {
			t.Helper()
			b, err := s.RenderStudyMastery(ctx, alice, st.ID, storetest.ReviewStart, r)
			if err != nil || string(b) != string(want) {
				t.Errorf("rendered %q (err %v), want %q", b, err, want)
			}
		}
		check(studyloop.StatusUploaded)
		if _, ok, err := db.ClaimStudy(ctx, "test", time.Minute, store.AnyLane); !ok || err != nil {
			t.Fatalf("claim: %v %v", ok, err)
		}
		check(studyloop.StatusProcessing)
	})
}

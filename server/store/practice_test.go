package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

func TestNextQuestion(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		st, qs := storetest.ReadyStudy(t, db, alice, "Optics", 2, 2)

		next := func(at time.Time) (int64, bool) {
			t.Helper()
			q, found, err := db.NextQuestion(ctx, alice, store.PracticeScope{StudyID: st.ID}, at)
			if err != nil {
				t.Fatalf("next question: %v", err)
			}
			if found && (q.Prompt == "" || len(q.Choices) != 4 || q.TopicID == 0) {
				t.Fatalf("incomplete question %+v", q)
			}
			return q.ID, found
		}

		// New questions come in study order.
		for i, q := range qs {
			id, found := next(storetest.ReviewStart)
			if !found || id != q.ID {
				t.Fatalf("step %d: next=%d found=%v, want question %d", i, id, found, q.ID)
			}
			r := fsrs.Good
			if i == 2 {
				r = fsrs.Again // due again after one minute
			}
			storetest.Answer(t, db, alice, q.ID, r, storetest.ReviewStart.Add(time.Duration(i)*time.Second))
		}
		if id, found := next(storetest.ReviewStart.Add(5 * time.Second)); found {
			t.Fatalf("nothing should be due yet, got %d", id)
		}
		// After a minute the Again answer is due; after ten minutes the most
		// overdue (the first answered) comes first.
		if id, found := next(storetest.ReviewStart.Add(2 * time.Minute)); !found || id != qs[2].ID {
			t.Fatalf("after 2 min: next=%d found=%v, want %d", id, found, qs[2].ID)
		}
		if id, found := next(storetest.ReviewStart.Add(11 * time.Minute)); !found || id != qs[2].ID {
			t.Fatalf("after 11 min: next=%d found=%v, want the most overdue %d", id, found, qs[2].ID)
		}
		storetest.Answer(t, db, alice, qs[2].ID, fsrs.Good, storetest.ReviewStart.Add(11*time.Minute))
		if id, found := next(storetest.ReviewStart.Add(12 * time.Minute)); !found || id != qs[0].ID {
			t.Fatalf("after 12 min: next=%d found=%v, want %d", id, found, qs[0].ID)
		}

		// Another user's study, and a missing one, are not found.
		for _, tc := range []struct {
			user  int64
			study string
		}{{mallory, st.ID}, {alice, "st_missing"}} {
			_, _, err := db.NextQuestion(ctx, tc.user, store.PracticeScope{StudyID: tc.study}, storetest.ReviewStart)
			if got := studyloop.ErrorCode(err); got != studyloop.ENOTFOUND {
				t.Errorf("user %d study %q: error %v, want not found", tc.user, tc.study, err)
			}
		}
	})
}

func TestPracticeQuestion(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		st, qs := storetest.ReadyStudy(t, db, alice, "Optics", 2, 2)
		other, otherQs := storetest.ReadyStudy(t, db, alice, "Other", 1, 1)
		got, err := db.PracticeQuestion(ctx, alice, st.ID, qs[3].ID)
		if err != nil {
			t.Fatal(err)
		}
		want := qs[3]
		want.Topic = 0
		if got.ID != want.ID || got.TopicID != want.TopicID || got.Prompt != want.Prompt || got.Answer != want.Answer ||
			got.Type != want.Type || strings.Join(got.Choices, "|") != strings.Join(want.Choices, "|") {
			t.Errorf("question %+v, want %+v", got, want)
		}
		tests := []struct {
			name  string
			user  int64
			study string
			q     int64
		}{
			{"another user", mallory, st.ID, qs[0].ID},
			{"question of another study", alice, st.ID, otherQs[0].ID},
			{"study of the question mismatched", alice, other.ID, qs[0].ID},
			{"missing", alice, st.ID, qs[3].ID + 1000},
		}
		for _, tt := range tests {
			if _, err := db.PracticeQuestion(ctx, tt.user, tt.study, tt.q); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
				t.Errorf("%s: error %v, want not found", tt.name, err)
			}
		}
	})
}

func TestNextQuestionBoundsNewPerDay(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		st, qs := storetest.ReadyStudy(t, db, alice, "Optics", 3, 10)
		at := storetest.ReviewStart
		for i := range studyloop.DefaultNewPerDay {
			q, found, err := db.NextQuestion(ctx, alice, store.PracticeScope{StudyID: st.ID}, at)
			if err != nil || !found || q.ID != qs[i].ID {
				t.Fatalf("new question %d: %d found=%v err=%v", i, q.ID, found, err)
			}
			storetest.Answer(t, db, alice, q.ID, fsrs.Easy, at) // Easy: due in 8 days
			at = at.Add(time.Minute)
		}
		if q, found, err := db.NextQuestion(ctx, alice, store.PracticeScope{StudyID: st.ID}, at); err != nil || found {
			t.Fatalf("after %d new questions got %d found=%v err=%v, want none", studyloop.DefaultNewPerDay, q.ID, found, err)
		}
		// A day after the first ones were started, new ones come again.
		q, found, err := db.NextQuestion(ctx, alice, store.PracticeScope{StudyID: st.ID}, storetest.ReviewStart.Add(25*time.Hour))
		if err != nil || !found || q.ID != qs[studyloop.DefaultNewPerDay].ID {
			t.Fatalf("next day: %d found=%v err=%v, want %d", q.ID, found, err, qs[studyloop.DefaultNewPerDay].ID)
		}
		// Due reviews are not bounded: after eight days all twenty are due
		// and come before new ones.
		q, found, err = db.NextQuestion(ctx, alice, store.PracticeScope{StudyID: st.ID}, storetest.ReviewStart.Add(9*24*time.Hour))
		if err != nil || !found || q.ID != qs[0].ID {
			t.Fatalf("after 9 days: %d found=%v err=%v, want due review %d", q.ID, found, err, qs[0].ID)
		}
	})
}

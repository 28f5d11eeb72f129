package store_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// TestWatchProgress checks that every change that moves a study's
// progress version, and only a committed one, is heard by every watcher,
// once, with the study's id.
func TestWatchProgress(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var mu sync.Mutex
		var heard, heardToo []string
		db.WatchProgress(func(id string) { mu.Lock(); heard = append(heard, id); mu.Unlock() })
		db.WatchProgress(func(id string) { mu.Lock(); heardToo = append(heardToo, id); mu.Unlock() })
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		st, qs := storetest.ReadyStudy(t, db, alice, "Optics", 1, 3)
		other, _ := storetest.ReadyStudy(t, db, alice, "Acoustics", 1, 1)
		errRollback := errors.New("roll back")
		tests := []struct {
			name   string
			change func() error
			want   []string // nil: the change fails, and nothing is heard
		}{
			{"rename", func() error { return db.RenameStudy(ctx, alice, st.ID, "Light") }, []string{st.ID}},
			{"new per day", func() error { return db.SetNewPerDay(ctx, alice, st.ID, 5) }, []string{st.ID}},
			{"suspend", func() error { return db.SuspendQuestion(ctx, alice, st.ID, qs[0].ID, true) }, []string{st.ID}},
			{"delete question", func() error { return db.DeleteQuestion(ctx, alice, st.ID, qs[1].ID) }, []string{st.ID}},
			{"another's rename", func() error { return db.RenameStudy(ctx, mallory, st.ID, "Mine") }, nil},
			{"another's suspend", func() error { return db.SuspendQuestion(ctx, mallory, st.ID, qs[2].ID, true) }, nil},
			{"answer", func() error {
				return db.InReviewTx(ctx, func(ctx context.Context, tx *store.ReviewTx) error {
					return tx.MoveProgressVersion(ctx, st.ID)
				})
			}, []string{st.ID}},
			{"rolled back answer", func() error {
				return db.InReviewTx(ctx, func(ctx context.Context, tx *store.ReviewTx) error {
					if err := tx.MoveProgressVersion(ctx, st.ID); err != nil {
						return err
					}
					return errRollback
				})
			}, nil},
			{"delete study", func() error { return db.DeleteStudy(ctx, alice, other.ID) }, []string{other.ID}},
		}
		for _, tt := range tests {
			mu.Lock()
			heard, heardToo = nil, nil
			mu.Unlock()
			err := tt.change()
			if (err != nil) != (tt.want == nil) {
				t.Errorf("%s: error %v", tt.name, err)
			}
			mu.Lock()
			if !slices.Equal(heard, tt.want) || !slices.Equal(heardToo, tt.want) {
				t.Errorf("%s: watchers heard %q and %q, want %q", tt.name, heard, heardToo, tt.want)
			}
			mu.Unlock()
		}

		// The worker's completion of a study moves its version too.
		pending, err := db.CreateStudy(ctx, alice, "Heat", "Heat flows from warm to cold.")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := db.ClaimStudy(ctx, "test", time.Minute, store.AnyLane); !ok || err != nil {
			t.Fatalf("claim: %v %v", ok, err)
		}
		mu.Lock()
		heard = nil
		mu.Unlock()
		ex := studyloop.Extraction{Topics: []studyloop.Topic{{Parent: -1, Title: "Heat"}}, Questions: []studyloop.Question{
			{Topic: 0, Type: studyloop.QuestionShortAnswer, Prompt: "Where does heat flow?", Answer: "From warm to cold."},
		}}
		if err := db.CompleteStudy(ctx, pending.ID, "test", ex); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(heard, []string{pending.ID}) {
			t.Errorf("complete study: heard %q, want %q", heard, pending.ID)
		}
	})
}

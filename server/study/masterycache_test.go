package study_test

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/study"
	"github.com/studyloop/studyloop/server/studyloop"
)

// progressVersion reads the study's stored progress version.
func progressVersion(tb testing.TB, db *store.DB, studyID string) int64 {
	tb.Helper()
	var v int64
	if err := db.NewSelect().Table("studies").Column("progress_version").Where("id = ?", studyID).Scan(context.Background(), &v); err != nil {
		tb.Fatal(err)
	}
	return v
}

// checkMatchesUncached fails unless db's study mastery and summary of the
// user at now, read twice (the second from the cache), equal exactly what a
// handle without a cache computes, and db caches the study at its current
// progress version.
func checkMatchesUncached(t *testing.T, db *store.DB, userID int64, studyID string, now time.Time) studyloop.StudyMastery {
	t.Helper()
	ctx := context.Background()
	want, err := study.Uncached(db).StudyMastery(ctx, userID, studyID, now)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := storetest.Service(db).StudyMastery(ctx, userID, studyID, now)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("at %v mastery\n%+v\nwant, as read without the cache,\n%+v", now, got, want)
		}
	}
	if v, ok := study.CachedMasteryVersion(storetest.Service(db), studyID); !ok || v != progressVersion(t, db, studyID) {
		t.Fatalf("cached at version %d (%v), want the stored %d", v, ok, progressVersion(t, db, studyID))
	}
	wantSum, err := study.Uncached(db).MasterySummary(ctx, userID, now)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		gotSum, err := storetest.Service(db).MasterySummary(ctx, userID, now)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotSum, wantSum) {
			t.Fatalf("at %v summary\n%+v\nwant, as read without the cache,\n%+v", now, gotSum, wantSum)
		}
	}
	return want
}

func TestMasteryCacheMatchesUncached(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		alice := storetest.Student(t, db, "alice@example.com")
		st, qs := storetest.NestedStudy(t, db, alice, "Optics")
		storetest.ReadyStudy(t, db, alice, "Waves", 2, 3)

		// Rounds of answers, each followed by reads at several times: the
		// cached inputs must give what a fresh read gives, whatever now is.
		ratings := []fsrs.Rating{fsrs.Good, fsrs.Again, fsrs.Easy, fsrs.Hard, fsrs.Good}
		at := storetest.ReviewStart
		var last studyloop.StudyMastery
		for round := range 4 {
			for i := round; i < len(qs); i += 2 {
				storetest.Answer(t, db, alice, qs[i].ID, ratings[(i+round)%len(ratings)], at)
				at = at.Add(7 * time.Minute)
			}
			for _, later := range []time.Duration{0, time.Minute, time.Hour, 3 * aDay, 40 * aDay} {
				last = checkMatchesUncached(t, db, alice, st.ID, at.Add(later))
			}
			at = at.Add(2 * aDay)
		}
		if last.Attempts == 0 || last.Score == 0 || last.Topics[1].ParentID == nil || *last.Topics[1].ParentID != last.Topics[0].TopicID {
			t.Fatalf("the study was not exercised: %+v", last)
		}

		// A caller changing what it was given does not change the cache.
		ctx := context.Background()
		m, err := storetest.Service(db).StudyMastery(ctx, alice, st.ID, at)
		if err != nil {
			t.Fatal(err)
		}
		*m.Topics[1].ParentID = -1
		*m.Topics[0].NextReview = time.Time{}
		checkMatchesUncached(t, db, alice, st.ID, at)
	})
}

// openReplica opens a second handle on the database at url, as another
// server would.
func openReplica(t *testing.T, url string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestMasteryCacheAcrossReplicas(t *testing.T) {
	for _, dialect := range storetest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			url := storetest.URL(t, dialect)
			a := openReplica(t, url)
			if _, err := a.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			b := openReplica(t, url)
			// Each server measures how long a confirmed version is
			// trusted (a second) by a clock the test moves.
			clock := storetest.ReviewStart
			for _, db := range []*store.DB{a, b} {
				study.SetMasteryClock(storetest.Service(db), func() time.Time { return clock })
			}
			alice := storetest.Student(t, a, "alice@example.com")
			st, qs := storetest.NestedStudy(t, a, alice, "Optics")
			now := storetest.ReviewStart.Add(time.Hour)
			for _, db := range []*store.DB{a, b} {
				checkMatchesUncached(t, db, alice, st.ID, now)
			}

			// An answer recorded through one server shows on it at once,
			// and on the other, which holds the study's inputs in its
			// cache, once a second has passed since it last read the
			// study's version.
			for i, q := range qs[:6] {
				via, other := a, b
				if i%2 == 1 {
					via, other = b, a
				}
				before, err := storetest.Service(other).StudyMastery(ctx, alice, st.ID, now)
				if err != nil {
					t.Fatal(err)
				}
				storetest.Answer(t, via, alice, q.ID, fsrs.Good, storetest.ReviewStart.Add(time.Duration(i)*time.Minute))
				if got := checkMatchesUncached(t, via, alice, st.ID, now); got.Attempts != before.Attempts+1 {
					t.Fatalf("answer %d: the server that recorded it reports %d attempts, want %d", i, got.Attempts, before.Attempts+1)
				}
				clock = clock.Add(999 * time.Millisecond)
				if stale, err := storetest.Service(other).StudyMastery(ctx, alice, st.ID, now); err != nil || !reflect.DeepEqual(stale, before) {
					t.Fatalf("answer %d: within the second the other server reports\n%+v (%v)\nwant what it read before\n%+v", i, stale, err, before)
				}
				clock = clock.Add(time.Millisecond)
				after := checkMatchesUncached(t, other, alice, st.ID, now)
				if after.Attempts != before.Attempts+1 {
					t.Fatalf("answer %d: a second later the other server reports %d attempts, want %d", i, after.Attempts, before.Attempts+1)
				}
			}

			// A study read while processing (no topics yet) and completed
			// through the other server shows its topics at once, in the
			// study and in the summary.
			pending, err := b.CreateStudy(ctx, alice, "Acoustics", "Sound is a wave in a medium.")
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, err := b.ClaimStudy(ctx, "test", time.Minute, store.AnyLane); !ok || err != nil {
				t.Fatalf("claim: %v %v", ok, err)
			}
			if m, err := storetest.Service(a).StudyMastery(ctx, alice, pending.ID, now); err != nil || len(m.Topics) != 0 || m.Status != studyloop.StatusProcessing {
				t.Fatalf("processing study: %+v %v", m, err)
			}
			ex := studyloop.Extraction{
				Topics:    []studyloop.Topic{{Parent: -1, Title: "Sound"}},
				Questions: []studyloop.Question{{Topic: 0, Type: studyloop.QuestionShortAnswer, Prompt: "What is sound?", Answer: "A wave."}},
			}
			if err := b.CompleteStudy(ctx, pending.ID, "test", ex); err != nil {
				t.Fatal(err)
			}
			m := checkMatchesUncached(t, a, alice, pending.ID, now)
			if m.Status != studyloop.StatusReady || len(m.Topics) != 1 || m.Questions != 1 {
				t.Fatalf("completed study as seen by the other server: %+v", m)
			}
			if sum, err := storetest.Service(a).MasterySummary(ctx, alice, now); err != nil || len(sum.Studies) != 2 || sum.Studies[0].StudyID != pending.ID {
				t.Fatalf("summary after completion: %+v %v", sum, err)
			}
		})
	}
}

func TestMasteryCacheIsolation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		st, qs := storetest.NestedStudy(t, db, alice, "Optics")
		own, _ := storetest.ReadyStudy(t, db, mallory, "Mallory's", 1, 1)
		storetest.Answer(t, db, alice, qs[0].ID, fsrs.Good, storetest.ReviewStart)
		checkMatchesUncached(t, db, alice, st.ID, storetest.ReviewStart)

		// Alice's study is in the cache at its current version; Mallory
		// still cannot read it, and her own reads show nothing of it.
		if _, ok := study.CachedMasteryVersion(storetest.Service(db), st.ID); !ok {
			t.Fatal("alice's study is not cached: the test proves nothing")
		}
		if _, err := storetest.Service(db).StudyMastery(ctx, mallory, st.ID, storetest.ReviewStart); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Errorf("mallory reading alice's cached study: %v, want not found", err)
		}
		sum, err := storetest.Service(db).MasterySummary(ctx, mallory, storetest.ReviewStart)
		if err != nil || len(sum.Studies) != 1 || sum.Studies[0].StudyID != own.ID || sum.Attempts != 0 {
			t.Errorf("mallory's summary %+v %v, want only her own study, unanswered", sum, err)
		}
		if _, err := storetest.Service(db).StudyMastery(ctx, alice, own.ID, storetest.ReviewStart); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Errorf("alice reading mallory's study: %v, want not found", err)
		}
	})
}

func TestMasteryCacheConcurrent(t *testing.T) {
	// Reads race with answers; whatever interleaving, once the answers are
	// in, the cached reads equal a fresh one.
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		st, qs := storetest.NestedStudy(t, db, alice, "Optics")
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for w := range 3 {
			wg.Go(func() {
				for i := w; i < len(qs); i += 3 {
					if _, err := storetest.Service(db).RecordAnswer(ctx, alice, qs[i].ID, fsrs.Good, storetest.ReviewStart.Add(time.Duration(i)*time.Minute)); err != nil {
						errs <- err
					}
				}
			})
			wg.Go(func() {
				for range 10 {
					if _, err := storetest.Service(db).StudyMastery(ctx, alice, st.ID, storetest.ReviewStart); err != nil {
						errs <- err
					}
					if _, err := storetest.Service(db).MasterySummary(ctx, alice, storetest.ReviewStart); err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if m := checkMatchesUncached(t, db, alice, st.ID, storetest.ReviewStart.Add(time.Hour)); m.Attempts != len(qs) {
			t.Fatalf("%d attempts, want %d", m.Attempts, len(qs))
		}
	})
}

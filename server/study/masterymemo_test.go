package study_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/study"
	"github.com/studyloop/studyloop/server/studyloop"
)

// mustStudyMastery reads the user's mastery of the study at now.
func mustStudyMastery(tb testing.TB, s *study.Service, userID int64, studyID string, now time.Time) studyloop.StudyMastery {
	tb.Helper()
	m, err := s.StudyMastery(context.Background(), userID, studyID, now)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// mustMasterySummary reads the user's mastery summary at now.
func mustMasterySummary(tb testing.TB, s *study.Service, userID int64, now time.Time) studyloop.MasterySummary {
	tb.Helper()
	sum, err := s.MasterySummary(context.Background(), userID, now)
	if err != nil {
		tb.Fatal(err)
	}
	return sum
}

// answerDueMidMinute answers questions of the study so that one card falls
// due in the middle of a minute, and returns its due time.
func answerDueMidMinute(tb testing.TB, db *store.DB, userID int64, qs []studyloop.Question) time.Time {
	tb.Helper()
	for _, q := range qs[:4] {
		storetest.Answer(tb, db, userID, q.ID, fsrs.Good, storetest.ReviewStart)
	}
	due := storetest.Answer(tb, db, userID, qs[4].ID, fsrs.Again, storetest.ReviewStart.Add(30*time.Second)).Due
	if due.Truncate(time.Minute).Equal(due) {
		tb.Fatalf("card due at %v, on the minute: the test proves nothing", due)
	}
	return due
}

func TestMasteryMemo(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		alice := storetest.Student(t, db, "alice@example.com")
		st, qs := storetest.NestedStudy(t, db, alice, "Optics")
		storetest.ReadyStudy(t, db, alice, "Waves", 2, 3)
		due := answerDueMidMinute(t, db, alice, qs)
		minute := due.Truncate(time.Minute)
		asked := due.Add(15 * time.Second)

		// The figures are those of the minute's start, as a fresh read
		// computes them there, not those of the instant asked.
		atMinute := mustStudyMastery(t, study.Uncached(db), alice, st.ID, minute)
		exact := mustStudyMastery(t, study.WithMasteryGranularity(db, 0), alice, st.ID, asked)
		first := mustStudyMastery(t, storetest.Service(db), alice, st.ID, asked)
		if !reflect.DeepEqual(first, atMinute) {
			t.Fatalf("at %v mastery\n%+v\nwant that of %v\n%+v", asked, first, minute, atMinute)
		}
		if exact.DueNow != first.DueNow+1 {
			t.Fatalf("due now %d at the minute and %d at %v, want the card due at %v only in the latter", first.DueNow, exact.DueNow, asked, due)
		}
		memo, at, ok := study.MasteryMemo(storetest.Service(db), st.ID)
		if !ok || !at.Equal(minute) {
			t.Fatalf("memo for %v (%v), want for %v", at, ok, minute)
		}

		// Later in the minute the memo answers, with the same figures, and
		// what a caller does to its copy changes nothing.
		for _, later := range []time.Duration{0, 10 * time.Second} {
			got := mustStudyMastery(t, storetest.Service(db), alice, st.ID, asked.Add(later))
			if !reflect.DeepEqual(got, atMinute) {
				t.Fatalf("memo hit at %v\n%+v\nwant\n%+v", asked.Add(later), got, atMinute)
			}
			if again, _, _ := study.MasteryMemo(storetest.Service(db), st.ID); again != memo {
				t.Fatalf("at %v the figures were computed again", asked.Add(later))
			}
			*got.NextReview = time.Time{}
			got.Score = 2
			got.Topics[0].Title = "changed"
			got.Topics[0].Score = 2
			*got.Topics[0].NextReview = time.Time{}
			*got.Topics[1].ParentID = -1
			got.Topics[2] = studyloop.TopicMastery{}
		}
		sum := mustMasterySummary(t, storetest.Service(db), alice, asked)
		if want := mustMasterySummary(t, study.Uncached(db), alice, minute); !reflect.DeepEqual(sum, want) {
			t.Fatalf("summary at %v\n%+v\nwant that of %v\n%+v", asked, sum, minute, want)
		}
		if i := len(sum.Studies) - 1; sum.Studies[i].StudyID != st.ID || !reflect.DeepEqual(sum.Studies[i].MasteryFigures, atMinute.MasteryFigures) {
			t.Fatalf("summary's study %+v, want the figures %+v", sum.Studies[i], atMinute.MasteryFigures)
		}
		*sum.Studies[len(sum.Studies)-1].NextReview = time.Time{}
		if got := mustStudyMastery(t, storetest.Service(db), alice, st.ID, asked); !reflect.DeepEqual(got, atMinute) {
			t.Fatalf("after the summary was changed\n%+v\nwant\n%+v", got, atMinute)
		}

		// An answer in the same minute shows at once.
		storetest.Answer(t, db, alice, qs[5].ID, fsrs.Good, asked)
		answered := mustStudyMastery(t, storetest.Service(db), alice, st.ID, asked.Add(5*time.Second))
		if want := mustStudyMastery(t, study.Uncached(db), alice, st.ID, minute); !reflect.DeepEqual(answered, want) || answered.Attempts != first.Attempts+1 {
			t.Fatalf("after an answer\n%+v\nwant %d attempts,\n%+v", answered, first.Attempts+1, want)
		}
		if sum := mustMasterySummary(t, storetest.Service(db), alice, asked); sum.Attempts != first.Attempts+1 {
			t.Fatalf("summary after an answer: %d attempts, want %d", sum.Attempts, first.Attempts+1)
		}
		if again, _, _ := study.MasteryMemo(storetest.Service(db), st.ID); again == memo {
			t.Fatal("the memo of the version before the answer is still kept")
		}

		// The next minute is computed afresh, and so is a return to an
		// earlier one.
		next := minute.Add(time.Minute)
		rolled := mustStudyMastery(t, storetest.Service(db), alice, st.ID, next.Add(5*time.Second))
		if want := mustStudyMastery(t, study.Uncached(db), alice, st.ID, next); !reflect.DeepEqual(rolled, want) {
			t.Fatalf("next minute\n%+v\nwant\n%+v", rolled, want)
		}
		if rolled.DueNow != answered.DueNow+1 {
			t.Fatalf("due now %d in the next minute, want %d: the card due at %v counts", rolled.DueNow, answered.DueNow+1, due)
		}
		if _, at, _ := study.MasteryMemo(storetest.Service(db), st.ID); !at.Equal(next) {
			t.Fatalf("memo for %v, want for %v", at, next)
		}
		if back := mustStudyMastery(t, storetest.Service(db), alice, st.ID, asked); !reflect.DeepEqual(back, answered) {
			t.Fatalf("back in the earlier minute\n%+v\nwant\n%+v", back, answered)
		}
	})
}

func TestMasteryMemoGranularity(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		alice := storetest.Student(t, db, "alice@example.com")
		st, qs := storetest.NestedStudy(t, db, alice, "Optics")
		due := answerDueMidMinute(t, db, alice, qs) // 08:31:30
		tests := []struct {
			granularity time.Duration
			asked, as   time.Time
		}{
			{0, due.Add(15500 * time.Millisecond), due.Add(15500 * time.Millisecond)},
			{-time.Minute, due.Add(15500 * time.Millisecond), due.Add(15500 * time.Millisecond)},
			{time.Minute, due.Add(15500 * time.Millisecond), due.Add(-30 * time.Second)},
			{time.Hour, storetest.ReviewStart.Add(50 * time.Minute), storetest.ReviewStart.Add(30 * time.Minute)},
		}
		exact := study.WithMasteryGranularity(db, 0)
		for _, tt := range tests {
			h := study.WithMasteryGranularity(db, tt.granularity)
			want := mustStudyMastery(t, exact, alice, st.ID, tt.as)
			for range 2 {
				if got := mustStudyMastery(t, h, alice, st.ID, tt.asked); !reflect.DeepEqual(got, want) {
					t.Fatalf("granularity %v at %v\n%+v\nwant that of %v\n%+v", tt.granularity, tt.asked, got, tt.as, want)
				}
			}
			if _, at, ok := study.MasteryMemo(h, st.ID); !ok || !at.Equal(tt.as) {
				t.Fatalf("granularity %v at %v: memo for %v (%v), want for %v", tt.granularity, tt.asked, at, ok, tt.as)
			}
		}
	})
}

func TestMasteryMemoIsolation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		st, qs := storetest.NestedStudy(t, db, alice, "Optics")
		own, _ := storetest.ReadyStudy(t, db, mallory, "Mallory's", 1, 1)
		due := answerDueMidMinute(t, db, alice, qs)
		m := mustStudyMastery(t, storetest.Service(db), alice, st.ID, due)
		memo, _, ok := study.MasteryMemo(storetest.Service(db), st.ID)
		if !ok || m.Attempts == 0 {
			t.Fatalf("alice's mastery %+v is not memoized (%v): the test proves nothing", m, ok)
		}

		// In the same minute, Mallory can neither read Alice's memoized
		// figures nor see them in her summary, and her reads leave
		// Alice's memo as it was.
		if _, err := storetest.Service(db).StudyMastery(ctx, mallory, st.ID, due); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Errorf("mallory reading alice's memoized study: %v, want not found", err)
		}
		sum := mustMasterySummary(t, storetest.Service(db), mallory, due)
		if len(sum.Studies) != 1 || sum.Studies[0].StudyID != own.ID || sum.Attempts != 0 || sum.Questions != 1 {
			t.Errorf("mallory's summary %+v, want only her own study, unanswered", sum)
		}
		if got := mustStudyMastery(t, storetest.Service(db), mallory, own.ID, due); got.Attempts != 0 || got.Questions != 1 {
			t.Errorf("mallory's own study %+v", got)
		}
		if again, _, _ := study.MasteryMemo(storetest.Service(db), st.ID); again != memo {
			t.Error("mallory's reads replaced alice's memo")
		}
		if got := mustStudyMastery(t, storetest.Service(db), alice, st.ID, due); !reflect.DeepEqual(got, m) {
			t.Errorf("alice's mastery after mallory's reads\n%+v\nwant\n%+v", got, m)
		}
	})
}

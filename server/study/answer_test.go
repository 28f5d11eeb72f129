package study_test

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/mastery"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

const aDay = 24 * time.Hour

// logEntry is a review_logs row as the tests read it back.
type logEntry struct {
	bun.BaseModel `bun:"table:review_logs"`
	ID            int64     `bun:"id"`
	UserID        int64     `bun:"user_id"`
	StudyID       string    `bun:"study_id"`
	TopicID       int64     `bun:"topic_id"`
	QuestionID    int64     `bun:"question_id"`
	Rating        int       `bun:"rating"`
	State         int       `bun:"state"`
	ReviewedAt    time.Time `bun:"reviewed_at"`
	ElapsedDays   float64   `bun:"elapsed_days"`
	ScheduledDays float64   `bun:"scheduled_days"`
	Stability     float64   `bun:"stability"`
	Difficulty    float64   `bun:"difficulty"`
}

func logsOf(tb testing.TB, db *store.DB, questionID int64) []logEntry {
	tb.Helper()
	var logs []logEntry
	if err := db.NewSelect().Model(&logs).Where("question_id = ?", questionID).Order("id").Scan(context.Background()); err != nil {
		tb.Fatalf("read logs: %v", err)
	}
	return logs
}

func TestRecordAnswer(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		alice := storetest.Student(t, db, "alice@example.com")
		st, qs := storetest.ReadyStudy(t, db, alice, "Optics", 1, 2)
		q := qs[0]

		// The stored card follows the scheduler step by step.
		s := fsrs.Default()
		var want fsrs.Card
		steps := []struct {
			at time.Time
			r  fsrs.Rating
		}{
			{storetest.ReviewStart, fsrs.Good},
			{storetest.ReviewStart.Add(10 * time.Minute), fsrs.Good},
			{storetest.ReviewStart.Add(2*aDay + time.Hour), fsrs.Again},
			{storetest.ReviewStart.Add(2*aDay + 2*time.Hour), fsrs.Hard},
		}
		for i, step := range steps {
			var err error
			if want, _, err = s.Next(want, step.r, step.at); err != nil {
				t.Fatal(err)
			}
			got := storetest.Answer(t, db, alice, q.ID, step.r, step.at)
			if !got.Due.Equal(want.Due) || !got.LastReview.Equal(want.LastReview) ||
				got.State != want.State || got.Step != want.Step || got.Reps != want.Reps || got.Lapses != want.Lapses ||
				math.Abs(got.Stability-want.Stability) > 1e-12 || math.Abs(got.Difficulty-want.Difficulty) > 1e-12 {
				t.Fatalf("answer %d: card %+v, want %+v", i, got, want)
			}
		}
		if want.Lapses != 1 || want.Reps != 4 {
			t.Fatalf("sequence lapses=%d reps=%d, want 1 and 4", want.Lapses, want.Reps)
		}

		logs := logsOf(t, db, q.ID)
		if len(logs) != len(steps) {
			t.Fatalf("%d logs, want %d", len(logs), len(steps))
		}
		wantStates := []fsrs.State{fsrs.New, fsrs.Learning, fsrs.Review, fsrs.Relearning}
		for i, l := range logs {
			if l.UserID != alice || l.StudyID != st.ID || l.TopicID != q.TopicID || l.Rating != int(steps[i].r) ||
				!l.ReviewedAt.Equal(steps[i].at) || fsrs.State(l.State) != wantStates[i] {
				t.Errorf("log %d = %+v", i, l)
			}
		}
		if got, want := logs[2].ElapsedDays, (2*aDay+time.Hour-10*time.Minute).Hours()/24; math.Abs(got-want) > 1e-9 {
			t.Errorf("elapsed days=%v, want %v", got, want)
		}
		if got := logs[1].ScheduledDays; got != 2 {
			t.Errorf("graduating answer scheduled %v days, want 2", got)
		}

		// The other question is untouched.
		if n := len(logsOf(t, db, qs[1].ID)); n != 0 {
			t.Errorf("other question has %d logs", n)
		}
	})
}

func TestRecordAnswerRejects(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		_, qs := storetest.ReadyStudy(t, db, alice, "Optics", 1, 1)
		tests := []struct {
			name   string
			user   int64
			q      int64
			r      fsrs.Rating
			wantEC string
		}{
			{"another user's question", mallory, qs[0].ID, fsrs.Good, studyloop.ENOTFOUND},
			{"missing question", alice, qs[0].ID + 1000, fsrs.Good, studyloop.ENOTFOUND},
			{"rating zero", alice, qs[0].ID, 0, studyloop.EINVALID},
			{"rating five", alice, qs[0].ID, 5, studyloop.EINVALID},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := storetest.Service(db).RecordAnswer(ctx, tt.user, tt.q, tt.r, storetest.ReviewStart)
				if got := studyloop.ErrorCode(err); got != tt.wantEC {
					t.Errorf("error %v (code %q), want code %q", err, got, tt.wantEC)
				}
			})
		}
		if n := len(logsOf(t, db, qs[0].ID)); n != 0 {
			t.Errorf("rejected answers left %d logs", n)
		}
		n, err := db.NewSelect().Table("cards").Count(ctx)
		if err != nil || n != 0 {
			t.Errorf("rejected answers left %d cards (err %v)", n, err)
		}
	})
}

func TestRecordAnswerConcurrent(t *testing.T) {
	// Many answers at once to two questions of one topic: each is applied to
	// the card and the topic counts left by the one before, so replaying the
	// log in order gives exactly the stored cards and streaks, and nothing is
	// lost.
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		st, qs := storetest.ReadyStudy(t, db, alice, "Optics", 1, 2)
		const workers, each = 6, 5
		var wg sync.WaitGroup
		errs := make(chan error, workers*each)
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					r := fsrs.Good
					if (w+i)%3 == 0 {
						r = fsrs.Again
					}
					if _, err := storetest.Service(db).RecordAnswer(ctx, alice, qs[w%2].ID, r, storetest.ReviewStart.Add(time.Duration(i)*time.Hour)); err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("concurrent answer: %v", err)
		}
		s := fsrs.Default()
		var streak mastery.Streak
		var logs []logEntry
		if err := db.NewSelect().Model(&logs).Where("study_id = ?", st.ID).Order("id").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if len(logs) != workers*each {
			t.Fatalf("%d logs, want %d", len(logs), workers*each)
		}
		replay := map[int64]fsrs.Card{}
		for _, l := range logs {
			c := replay[l.QuestionID]
			if fsrs.State(l.State) != c.State {
				t.Fatalf("log %d: state before %v, replay has %v", l.ID, fsrs.State(l.State), c.State)
			}
			var err error
			if replay[l.QuestionID], _, err = s.Next(c, fsrs.Rating(l.Rating), l.ReviewedAt.UTC()); err != nil {
				t.Fatal(err)
			}
			streak.Add(fsrs.Rating(l.Rating))
		}
		m, err := storetest.Service(db).StudyMastery(ctx, alice, st.ID, storetest.ReviewStart)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Topics[0]; got.Attempts != len(logs) || got.CurrentStreak != streak.Current || got.BestStreak != streak.Best {
			t.Errorf("topic attempts %d streak %d/%d, log replay gives %d %d/%d",
				got.Attempts, got.CurrentStreak, got.BestStreak, len(logs), streak.Current, streak.Best)
		}
		// One more answer to each question shows its stored card: it must
		// continue the replay.
		for _, q := range qs {
			got := storetest.Answer(t, db, alice, q.ID, fsrs.Good, storetest.ReviewStart.Add(30*aDay))
			want, _, _ := s.Next(replay[q.ID], fsrs.Good, storetest.ReviewStart.Add(30*aDay))
			if got.Reps != want.Reps || got.Lapses != want.Lapses ||
				math.Abs(got.Stability-want.Stability) > 1e-9 || !got.Due.Equal(want.Due) {
				t.Fatalf("question %d after concurrent answers %+v, replay gives %+v", q.ID, got, want)
			}
		}
	})
}

func TestStudyMastery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		st, qs := storetest.ReadyStudy(t, db, alice, "Optics", 3, 4)
		s := fsrs.Default()

		fresh, err := storetest.Service(db).StudyMastery(ctx, alice, st.ID, storetest.ReviewStart)
		if err != nil {
			t.Fatal(err)
		}
		if fresh.StudyID != st.ID || fresh.Title != "Optics" || fresh.Status != studyloop.StatusReady ||
			fresh.Score != 0 || fresh.Attempts != 0 || fresh.Questions != 12 || fresh.New != 12 || fresh.NextReview != nil {
			t.Fatalf("fresh study mastery %+v", fresh)
		}
		if len(fresh.Topics) != 3 || fresh.Topics[0].Title != "Optics topic 0" || fresh.Topics[2].Title != "Optics topic 2" {
			t.Fatalf("topics %+v", fresh.Topics)
		}

		// Topic 0: answers Good, Good, Again, Good, Hard (streak 2, best 2)
		// across its questions; topic 1: one Easy; topic 2: nothing.
		topic0 := []struct {
			q int
			r fsrs.Rating
		}{{0, fsrs.Good}, {1, fsrs.Good}, {0, fsrs.Again}, {2, fsrs.Good}, {3, fsrs.Hard}}
		cards := map[int64]fsrs.Card{}
		for i, a := range topic0 {
			cards[qs[a.q].ID] = storetest.Answer(t, db, alice, qs[a.q].ID, a.r, storetest.ReviewStart.Add(time.Duration(i)*time.Minute))
		}
		cards[qs[4].ID] = storetest.Answer(t, db, alice, qs[4].ID, fsrs.Easy, storetest.ReviewStart)

		now := storetest.ReviewStart.Add(20 * time.Minute)
		m, err := storetest.Service(db).StudyMastery(ctx, alice, st.ID, now)
		if err != nil {
			t.Fatal(err)
		}
		horizon := now.Add(7 * aDay)
		expectScore := func(qi ...int) float64 {
			var sum float64
			for _, i := range qi {
				sum += s.Retrievability(cards[qs[i].ID], horizon)
			}
			return sum / 4
		}
		tests := []struct {
			topic                          int
			score                          float64
			attempts, current, best        int
			dueNow, newN, learning, review int
		}{
			// All four topic-0 questions are in learning steps of at most ten
			// minutes, so all are due twenty minutes on.
			{0, expectScore(0, 1, 2, 3), 5, 2, 2, 4, 0, 4, 0},
			{1, expectScore(4), 1, 1, 1, 0, 3, 0, 1},
			{2, 0, 0, 0, 0, 0, 4, 0, 0},
		}
		for _, tt := range tests {
			got := m.Topics[tt.topic]
			if math.Abs(got.Score-tt.score) > 1e-9 || got.Attempts != tt.attempts ||
				got.CurrentStreak != tt.current || got.BestStreak != tt.best ||
				got.DueNow != tt.dueNow || got.New != tt.newN || got.Learning != tt.learning || got.Review != tt.review {
				t.Errorf("topic %d: %+v\nwant score %v attempts %d streak %d/%d due %d new/learning/review %d/%d/%d",
					tt.topic, got, tt.score, tt.attempts, tt.current, tt.best, tt.dueNow, tt.newN, tt.learning, tt.review)
			}
		}
		if got := m.Topics[2].NextReview; got != nil {
			t.Errorf("untouched topic next review %v, want nil", got)
		}
		if got, want := m.Topics[1].NextReview, cards[qs[4].ID].Due; got == nil || !got.Equal(want) {
			t.Errorf("topic 1 next review %v, want %v", got, want)
		}
		if want := (m.Topics[0].Score*4 + m.Topics[1].Score*4) / 12; math.Abs(m.Score-want) > 1e-9 || m.Attempts != 6 {
			t.Errorf("study score %v attempts %d, want %v and 6", m.Score, m.Attempts, want)
		}
		if m.Score <= 0 || m.Score > 1 {
			t.Errorf("study score %v outside (0, 1]", m.Score)
		}

		// A wrong answer breaks the streak; later answers rebuild it.
		storetest.Answer(t, db, alice, qs[1].ID, fsrs.Again, now)
		storetest.Answer(t, db, alice, qs[2].ID, fsrs.Good, now)
		m2, err := storetest.Service(db).StudyMastery(ctx, alice, st.ID, now)
		if err != nil {
			t.Fatal(err)
		}
		if got := m2.Topics[0]; got.CurrentStreak != 1 || got.BestStreak != 2 || got.Attempts != 7 {
			t.Errorf("after again+good: streak %d/%d attempts %d, want 1/2/7", got.CurrentStreak, got.BestStreak, got.Attempts)
		}

		for _, tc := range []struct {
			user  int64
			study string
		}{{mallory, st.ID}, {alice, "st_missing"}} {
			if _, err := storetest.Service(db).StudyMastery(ctx, tc.user, tc.study, now); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
				t.Errorf("user %d study %q: error %v, want not found", tc.user, tc.study, err)
			}
		}
	})
}

func TestMasterySummary(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		bob := storetest.Student(t, db, "bob@example.com")
		older, olderQs := storetest.ReadyStudy(t, db, alice, "Older", 2, 5) // 10 questions
		newer, newerQs := storetest.ReadyStudy(t, db, alice, "Newer", 1, 2) // 2 questions
		_, bobQs := storetest.ReadyStudy(t, db, bob, "Bob's", 1, 3)
		// A study still waiting for processing is left out.
		if _, err := db.CreateStudy(ctx, alice, "Waiting", "Text still waiting for processing."); err != nil {
			t.Fatal(err)
		}

		for _, q := range olderQs[:3] {
			storetest.Answer(t, db, alice, q.ID, fsrs.Easy, storetest.ReviewStart)
		}
		storetest.Answer(t, db, alice, newerQs[0].ID, fsrs.Good, storetest.ReviewStart)
		storetest.Answer(t, db, alice, newerQs[0].ID, fsrs.Again, storetest.ReviewStart.Add(time.Minute))
		storetest.Answer(t, db, bob, bobQs[0].ID, fsrs.Easy, storetest.ReviewStart)

		now := storetest.ReviewStart.Add(time.Hour)
		sum, err := storetest.Service(db).MasterySummary(ctx, alice, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.Studies) != 2 || sum.Studies[0].StudyID != newer.ID || sum.Studies[1].StudyID != older.ID {
			t.Fatalf("summary studies %+v, want newer then older", sum.Studies)
		}
		for _, sm := range sum.Studies {
			full, err := storetest.Service(db).StudyMastery(ctx, alice, sm.StudyID, now)
			if err != nil {
				t.Fatal(err)
			}
			if !sameFigures(sm.MasteryFigures, full.MasteryFigures) {
				t.Errorf("summary of %s %+v differs from its study mastery %+v", sm.Title, sm.MasteryFigures, full.MasteryFigures)
			}
			if len(sm.Topics) != 0 {
				t.Errorf("summary carries topics for %s", sm.Title)
			}
		}
		o, n := sum.Studies[1], sum.Studies[0]
		if o.Attempts != 3 || n.Attempts != 2 || sum.Attempts != 5 || sum.Questions != 12 {
			t.Errorf("attempts %d/%d/%d questions %d, want 3/2/5 and 12", o.Attempts, n.Attempts, sum.Attempts, sum.Questions)
		}
		if want := (o.Score*10 + n.Score*2) / 12; math.Abs(sum.Score-want) > 1e-9 {
			t.Errorf("overall score %v, want question-weighted %v", sum.Score, want)
		}
		if sum.NextReview == nil || n.NextReview == nil || !sum.NextReview.Equal(*n.NextReview) {
			t.Errorf("overall next review %v, want the newer study's %v", sum.NextReview, n.NextReview)
		}

		// Bob sees only his own study; a user without studies sees none.
		bobSum, err := storetest.Service(db).MasterySummary(ctx, bob, now)
		if err != nil || len(bobSum.Studies) != 1 || bobSum.Attempts != 1 || bobSum.Questions != 3 {
			t.Fatalf("bob's summary %+v err %v", bobSum, err)
		}
		carol := storetest.Student(t, db, "carol@example.com")
		empty, err := storetest.Service(db).MasterySummary(ctx, carol, now)
		if err != nil || len(empty.Studies) != 0 || empty.Score != 0 || empty.NextReview != nil {
			t.Fatalf("empty summary %+v err %v", empty, err)
		}
	})
}

// sameFigures compares figures, scores to rounding and times by instant.
func sameFigures(a, b studyloop.MasteryFigures) bool {
	if (a.NextReview == nil) != (b.NextReview == nil) || (a.NextReview != nil && !a.NextReview.Equal(*b.NextReview)) {
		return false
	}
	if math.Abs(a.Score-b.Score) > 1e-12 {
		return false
	}
	a.NextReview, b.NextReview, a.Score, b.Score = nil, nil, 0, 0
	return a == b
}

func TestPreviewAnswer(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		_, qs := storetest.ReadyStudy(t, db, alice, "Optics", 1, 1)
		_, err := storetest.Service(db).PreviewAnswer(ctx, mallory, qs[0].ID, storetest.ReviewStart)
		if studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Errorf("mallory previews: %v, want %s", err, studyloop.ENOTFOUND)
		}
		at := storetest.ReviewStart
		for _, r := range []fsrs.Rating{fsrs.Good, fsrs.Again, fsrs.Easy} {
			preview, err := storetest.Service(db).PreviewAnswer(ctx, alice, qs[0].ID, at)
			if err != nil {
				t.Fatal(err)
			}
			if !(preview[fsrs.Again].Before(preview[fsrs.Hard]) || preview[fsrs.Again].Equal(preview[fsrs.Hard])) || !preview[fsrs.Good].Before(preview[fsrs.Easy]) {
				t.Errorf("previews out of order: %v", preview)
			}
			card := storetest.Answer(t, db, alice, qs[0].ID, r, at)
			if !card.Due.Equal(preview[r]) {
				t.Errorf("rated %s: due %v, previewed %v", r, card.Due, preview[r])
			}
			at = card.Due.Add(time.Hour)
		}
	})
}

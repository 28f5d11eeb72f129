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

func wantCode(tb testing.TB, what string, err error, code string) {
	tb.Helper()
	if got := studyloop.ErrorCode(err); (err == nil && code != "") || (err != nil && got != code) {
		tb.Fatalf("%s: error %v, want code %q", what, err, code)
	}
}

func TestRenameStudy(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		st, _ := storetest.ReadyStudy(t, db, alice, "Optics", 1, 1)
		storetest.Mastery(t, db, alice, st.ID, storetest.ReviewStart) // cache the old title
		for _, tc := range []struct {
			user  int64
			title string
			code  string
		}{
			{alice, "  Light   and optics ", ""},
			{alice, strings.Repeat("é", studyloop.MaxStudyTitleChars), ""},
			{alice, strings.Repeat("é", studyloop.MaxStudyTitleChars+1), studyloop.EINVALID},
			{alice, " \t ", studyloop.EINVALID},
			{mallory, "Mine now", studyloop.ENOTFOUND},
		} {
			wantCode(t, "rename to "+tc.title[:min(len(tc.title), 20)], db.RenameStudy(ctx, tc.user, st.ID, tc.title), tc.code)
		}
		if err := db.RenameStudy(ctx, alice, st.ID, "  Light   and optics "); err != nil {
			t.Fatal(err)
		}
		if got := mustStatus(t, db, st, studyloop.StatusReady).Title; got != "Light and optics" {
			t.Errorf("title=%q, want %q", got, "Light and optics")
		}
		if got := storetest.Mastery(t, db, alice, st.ID, storetest.ReviewStart).Title; got != "Light and optics" {
			t.Errorf("mastery title=%q after rename", got)
		}
	})
}

func TestDeleteStudy(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		st, qs := storetest.ReadyStudy(t, db, alice, "Optics", 2, 2)
		kept, keptQs := storetest.ReadyStudy(t, db, alice, "Kept", 1, 1)
		storetest.Answer(t, db, alice, qs[0].ID, fsrs.Good, storetest.ReviewStart)
		storetest.Answer(t, db, alice, keptQs[0].ID, fsrs.Good, storetest.ReviewStart)
		wantCode(t, "mallory deletes", db.DeleteStudy(ctx, mallory, st.ID), studyloop.ENOTFOUND)
		mustStatus(t, db, st, studyloop.StatusReady)
		if err := db.DeleteStudy(ctx, alice, st.ID); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "deleted again", db.DeleteStudy(ctx, alice, st.ID), studyloop.ENOTFOUND)
		for _, table := range []string{"topics", "questions", "cards", "review_logs", "topic_progress"} {
			n, err := db.NewSelect().Table(table).Where("study_id = ?", st.ID).Count(ctx)
			if err != nil || n != 0 {
				t.Errorf("%s: %d rows of the deleted study left (err %v)", table, n, err)
			}
			if n, _ := db.NewSelect().Table(table).Where("study_id = ?", kept.ID).Count(ctx); n == 0 {
				t.Errorf("%s: the other study lost its rows", table)
			}
		}
		// A failed study can be deleted too.
		failed := storetest.PendingStudy(t, db, alice, "", "Some text.")
		mustClaim(t, db, "w", time.Minute)
		if err := db.FailStudy(ctx, failed.ID, "w", "broken"); err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteStudy(ctx, alice, failed.ID); err != nil {
			t.Fatalf("delete failed study: %v", err)
		}
	})
}

func TestSetNewPerDay(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		st, qs := storetest.ReadyStudy(t, db, alice, "Optics", 1, 4)
		scope := store.PracticeScope{StudyID: st.ID}
		for _, tc := range []struct {
			user int64
			n    int
			code string
		}{
			{alice, 0, ""}, {alice, studyloop.MaxNewPerDay, ""},
			{alice, -1, studyloop.EINVALID}, {alice, studyloop.MaxNewPerDay + 1, studyloop.EINVALID},
			{mallory, 5, studyloop.ENOTFOUND},
		} {
			wantCode(t, "new per day", db.SetNewPerDay(ctx, tc.user, st.ID, tc.n), tc.code)
		}
		if err := db.SetNewPerDay(ctx, alice, st.ID, 2); err != nil {
			t.Fatal(err)
		}
		counts, _, err := db.PracticeCounts(ctx, alice, scope, storetest.ReviewStart)
		if err != nil || counts != (studyloop.PracticeCounts{NewToday: 2, NewPerDay: 2}) {
			t.Fatalf("counts %+v (err %v), want 2 new of a limit of 2", counts, err)
		}
		for i := range 2 {
			q, found, err := db.NextQuestion(ctx, alice, scope, storetest.ReviewStart)
			if err != nil || !found || q.ID != qs[i].ID {
				t.Fatalf("new question %d: %d found=%v err=%v", i, q.ID, found, err)
			}
			storetest.Answer(t, db, alice, q.ID, fsrs.Easy, storetest.ReviewStart)
		}
		if q, found, _ := db.NextQuestion(ctx, alice, scope, storetest.ReviewStart); found {
			t.Fatalf("a third new question %d past the limit of 2", q.ID)
		}
		if counts, _, _ := db.PracticeCounts(ctx, alice, scope, storetest.ReviewStart); counts.Total() != 0 {
			t.Fatalf("counts %+v at the limit, want nothing", counts)
		}
	})
}

func TestEditQuestion(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		st, qs := storetest.ReadyStudy(t, db, alice, "Optics", 1, 2)
		other, _ := storetest.ReadyStudy(t, db, alice, "Other", 1, 1)
		good := studyloop.QuestionEdit{Prompt: "Is light a wave?", Answer: "both", Choices: []string{"yes", "no", "both", " "}, Alternatives: []string{"both of them", "", "both"}}
		for _, tc := range []struct {
			name  string
			user  int64
			study string
			edit  studyloop.QuestionEdit
			code  string
		}{
			{"another student", mallory, st.ID, good, studyloop.ENOTFOUND},
			{"another study", alice, other.ID, good, studyloop.ENOTFOUND},
			{"answer not a choice", alice, st.ID, studyloop.QuestionEdit{Prompt: "P", Answer: "x", Choices: []string{"a", "b"}}, studyloop.EINVALID},
			{"one choice", alice, st.ID, studyloop.QuestionEdit{Prompt: "P", Answer: "a", Choices: []string{"a"}}, studyloop.EINVALID},
			{"blank prompt", alice, st.ID, studyloop.QuestionEdit{Prompt: " ", Answer: "a", Choices: []string{"a", "b"}}, studyloop.EINVALID},
			{"longest prompt", alice, st.ID, studyloop.QuestionEdit{Prompt: strings.Repeat("p", studyloop.MaxPromptChars), Answer: "a", Choices: []string{"a", "b"}}, ""},
			{"prompt too long", alice, st.ID, studyloop.QuestionEdit{Prompt: strings.Repeat("p", studyloop.MaxPromptChars+1), Answer: "a", Choices: []string{"a", "b"}}, studyloop.EINVALID},
			{"good", alice, st.ID, good, ""},
		} {
			wantCode(t, tc.name, db.EditQuestion(ctx, tc.user, tc.study, qs[0].ID, tc.edit), tc.code)
		}
		got, err := db.PracticeQuestion(ctx, alice, st.ID, qs[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Prompt != good.Prompt || got.Answer != "both" || strings.Join(got.Choices, "|") != "yes|no|both" || strings.Join(got.Alternatives, "|") != "both of them" {
			t.Errorf("after edit: %+v", got)
		}
	})
}

func TestSuspendAndDeleteQuestion(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		st, qs := storetest.ReadyStudy(t, db, alice, "Optics", 1, 3)
		scope := store.PracticeScope{StudyID: st.ID}
		storetest.Answer(t, db, alice, qs[0].ID, fsrs.Again, storetest.ReviewStart)
		at := storetest.ReviewStart.Add(time.Hour) // qs[0] is due again
		wantCode(t, "mallory suspends", db.SuspendQuestion(ctx, mallory, st.ID, qs[0].ID, true), studyloop.ENOTFOUND)
		if err := db.SuspendQuestion(ctx, alice, st.ID, qs[0].ID, true); err != nil {
			t.Fatal(err)
		}
		if err := db.SuspendQuestion(ctx, alice, st.ID, qs[1].ID, true); err != nil {
			t.Fatal(err)
		}
		m := storetest.Mastery(t, db, alice, st.ID, at)
		if m.Questions != 1 || m.DueNow != 0 {
			t.Errorf("with two suspended: %d questions, %d due, want 1 and 0", m.Questions, m.DueNow)
		}
		for range 3 {
			q, found, err := db.NextQuestion(ctx, alice, scope, at)
			if err != nil || !found || q.ID != qs[2].ID {
				t.Fatalf("next=%d found=%v err=%v, want only the unsuspended %d", q.ID, found, err, qs[2].ID)
			}
			storetest.Answer(t, db, alice, q.ID, fsrs.Again, at)
			at = at.Add(time.Hour)
		}
		if err := db.SuspendQuestion(ctx, alice, st.ID, qs[0].ID, false); err != nil {
			t.Fatal(err)
		}
		if c, _, _ := db.PracticeCounts(ctx, alice, scope, at); c.DueNow != 2 {
			t.Errorf("after unsuspending: %+v, want 2 due", c)
		}
		wantCode(t, "mallory deletes", db.DeleteQuestion(ctx, mallory, st.ID, qs[0].ID), studyloop.ENOTFOUND)
		if err := db.DeleteQuestion(ctx, alice, st.ID, qs[0].ID); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "deleted again", db.DeleteQuestion(ctx, alice, st.ID, qs[0].ID), studyloop.ENOTFOUND)
		if m := storetest.Mastery(t, db, alice, st.ID, at); m.Questions != 1 || m.DueNow != 1 {
			t.Errorf("after delete: %d questions, %d due, want 1 and 1", m.Questions, m.DueNow)
		}
		if got := mustStatus(t, db, st, studyloop.StatusReady).QuestionCount; got != 2 {
			t.Errorf("question count %d, want 2", got)
		}
	})
}

func TestPracticeScope(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		older, olderQs := storetest.NestedStudy(t, db, alice, "Older")
		newer, newerQs := storetest.ReadyStudy(t, db, alice, "Newer", 1, 2)
		storetest.Answer(t, db, alice, newerQs[1].ID, fsrs.Again, storetest.ReviewStart)
		at := storetest.ReviewStart.Add(time.Hour)
		all, by, err := db.PracticeCounts(ctx, alice, store.PracticeScope{}, at)
		if err != nil {
			t.Fatal(err)
		}
		if want := (studyloop.PracticeCounts{DueNow: 1, NewToday: len(olderQs) + 1}); all != want {
			t.Errorf("all studies: %+v, want %+v", all, want)
		}
		if by[newer.ID].DueNow != 1 || by[older.ID].NewToday != len(olderQs) {
			t.Errorf("by study: %+v", by)
		}
		// Across studies the due review comes first, then new questions of
		// the oldest study.
		q, found, err := db.NextQuestion(ctx, alice, store.PracticeScope{}, at)
		if err != nil || !found || q.ID != newerQs[1].ID || q.StudyID != newer.ID {
			t.Fatalf("first across studies: %+v found=%v err=%v", q, found, err)
		}
		storetest.Answer(t, db, alice, q.ID, fsrs.Easy, at)
		if q, _, _ := db.NextQuestion(ctx, alice, store.PracticeScope{}, at); q.ID != olderQs[0].ID {
			t.Fatalf("second across studies: %d, want the older study's first %d", q.ID, olderQs[0].ID)
		}
		// One topic with its subtopics.
		topics, err := db.Topics(ctx, alice, older.ID)
		if err != nil {
			t.Fatal(err)
		}
		last := olderQs[len(olderQs)-1]
		scope := store.PracticeScope{StudyID: older.ID, TopicID: last.TopicID}
		want := 0
		for _, oq := range olderQs {
			for _, id := range store.TopicAndSubtopics(topics, last.TopicID) {
				if oq.TopicID == id {
					want++
				}
			}
		}
		if c, _, err := db.PracticeCounts(ctx, alice, scope, at); err != nil || c.NewToday != want || want == 0 {
			t.Errorf("topic scope: %+v err %v, want %d new", c, err, want)
		}
		if q, _, _ := db.NextQuestion(ctx, alice, scope, at); q.TopicID != last.TopicID && want == 1 {
			t.Errorf("topic scope asked topic %d", q.TopicID)
		}
		for _, bad := range []store.PracticeScope{{StudyID: older.ID, TopicID: -5}, {StudyID: newer.ID, TopicID: last.TopicID}} {
			_, _, err := db.NextQuestion(ctx, alice, bad, at)
			wantCode(t, "foreign topic", err, studyloop.ENOTFOUND)
		}
		_, _, err = db.PracticeCounts(ctx, mallory, store.PracticeScope{StudyID: older.ID}, at)
		wantCode(t, "mallory counts", err, studyloop.ENOTFOUND)
		if c, _, err := db.PracticeCounts(ctx, mallory, store.PracticeScope{}, at); err != nil || c.Total() != 0 {
			t.Errorf("mallory sees %+v (err %v) across her studies", c, err)
		}
	})
}

func TestQuestionSource(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice := storetest.Student(t, db, "alice@example.com")
		mallory := storetest.Student(t, db, "mallory@example.com")
		text := "Intro. Über die Brechung: Licht wird gebrochen. " + strings.Repeat("ä", 1000)
		start := strings.Index(text, "Über")
		_, qs := storetest.CompleteStudy(t, db, alice, "Optik", text, studyloop.Extraction{
			Topics: []studyloop.Topic{{Parent: -1, Title: "Optik", Span: studyloop.Span{End: len(text)}}},
			Questions: []studyloop.Question{
				{Type: studyloop.QuestionShortAnswer, Prompt: "Was passiert?", Answer: "gebrochen", Source: studyloop.Span{Start: start, End: strings.Index(text, " ä")}},
				{Type: studyloop.QuestionShortAnswer, Prompt: "Lang?", Answer: "ä", Source: studyloop.Span{Start: start + 1, End: len(text)}},
				{Type: studyloop.QuestionShortAnswer, Prompt: "Ohne?", Answer: "x"},
			},
		})
		for i, want := range []string{"Über die Brechung: Licht wird gebrochen.", "", ""} {
			got, err := db.QuestionSource(ctx, alice, qs[i].ID)
			if err != nil {
				t.Fatal(err)
			}
			switch i {
			case 1: // cut to the byte limit on a character boundary
				if len(got) > 1200 || len(got) < 1190 || !strings.HasPrefix(got, "ber") {
					t.Errorf("long passage: %d bytes %q…", len(got), got[:10])
				}
			default:
				if got != want {
					t.Errorf("question %d: %q, want %q", i, got, want)
				}
			}
		}
		_, err := db.QuestionSource(ctx, mallory, qs[0].ID)
		wantCode(t, "mallory reads", err, studyloop.ENOTFOUND)
	})
}

func TestGeneratedAlternativesAreKept(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		alice := storetest.Student(t, db, "alice@example.com")
		text := "Ribosomes (the protein factories) build proteins."
		_, qs := storetest.CompleteStudy(t, db, alice, "Cells", text, studyloop.Extraction{
			Topics: []studyloop.Topic{{Parent: -1, Title: "Cells", Span: studyloop.Span{End: len(text)}}},
			Questions: []studyloop.Question{
				{Type: studyloop.QuestionCloze, Prompt: "_____ build proteins.", Answer: "Ribosomes", Alternatives: []string{"the protein factories"}},
				{Type: studyloop.QuestionCloze, Prompt: "Ribosomes build _____.", Answer: "proteins"},
			},
		})
		if got := strings.Join(qs[0].Alternatives, "|"); got != "the protein factories" {
			t.Errorf("alternatives %q, want the generator's", got)
		}
		if len(qs[1].Alternatives) != 0 {
			t.Errorf("alternatives %q, want none", qs[1].Alternatives)
		}
	})
}

package mcp_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

type studyOut struct {
	StudyID       string `json:"study_id"`
	Status        string `json:"status"`
	Title         string `json:"title"`
	CreatedAt     string `json:"created_at"`
	TopicCount    *int   `json:"topic_count"`
	QuestionCount *int   `json:"question_count"`
	Reason        string `json:"reason"`
	Progress      *struct {
		PagesDone  int `json:"pages_done"`
		PagesTotal int `json:"pages_total"`
	} `json:"progress"`
}

type createdOut struct {
	StudyID string `json:"study_id"`
	Status  string `json:"status"`
}

type listOut struct {
	Studies    []studyOut `json:"studies"`
	NextCursor string     `json:"next_cursor"`
}

type figuresOut struct {
	Score      float64 `json:"score"`
	Attempts   int     `json:"attempts"`
	Questions  int     `json:"questions"`
	NextReview *string `json:"next_review"`
}

type masteryOut struct {
	Study *struct {
		StudyID string `json:"study_id"`
		Title   string `json:"title"`
		figuresOut
		Topics []struct {
			Topic         string  `json:"topic"`
			Score         float64 `json:"score"`
			Attempts      int     `json:"attempts"`
			CurrentStreak int     `json:"current_streak"`
			BestStreak    int     `json:"best_streak"`
			NextReview    *string `json:"next_review"`
		} `json:"topics"`
	} `json:"study"`
	Overall *figuresOut `json:"overall"`
	Studies []struct {
		StudyID string `json:"study_id"`
		figuresOut
	} `json:"studies"`
}

func countStudies(tb testing.TB, db *store.DB, userID int64) int {
	tb.Helper()
	studies, _, err := db.ListStudies(context.Background(), userID, studyloop.ListStudiesParams{Limit: studyloop.MaxStudyListLimit})
	if err != nil {
		tb.Fatal(err)
	}
	return len(studies)
}

func TestCreateStudy(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		res := e.call(t, e.alice, "create_study", map[string]any{"text": "# Optics\n\nLight bends when it enters glass.", "title": "Optics"})
		out := decode[createdOut](t, res)
		if !strings.HasPrefix(out.StudyID, "st_") || out.Status != "uploaded" {
			t.Fatalf("got %+v, want a new uploaded study", out)
		}
		st, err := db.GetStudy(context.Background(), e.alice, out.StudyID)
		if err != nil || st.Title != "Optics" {
			t.Fatalf("stored study %+v, %v", st, err)
		}
		select {
		case <-e.notified:
		default:
			t.Error("workers were not notified")
		}
		// Without a title one is derived from the text.
		out = decode[createdOut](t, e.call(t, e.alice, "create_study", map[string]any{"text": "Photosynthesis\nturns light into sugar."}))
		if st, _ := db.GetStudy(context.Background(), e.alice, out.StudyID); st.Title != "Photosynthesis" {
			t.Errorf("derived title %q", st.Title)
		}

		exactly := strings.Repeat("語", studyloop.MaxStudyTextChars)
		if res := e.call(t, e.alice, "create_study", map[string]any{"text": exactly}); res.IsError {
			t.Fatalf("400,000 characters refused: %s", res.Content[0].Text)
		}
		before := countStudies(t, db, e.alice)
		refused := []struct {
			name string
			args any
			want []string
			not  []string // what the message must not say
		}{
			{"one character over", map[string]any{"text": exactly + "x"}, []string{"400,000", "400,001"}, nil},
			{"far over", map[string]any{"text": strings.Repeat("ab", studyloop.MaxStudyTextChars)}, []string{"400,000", "800,000"}, nil},
			{"empty", map[string]any{"text": ""}, []string{"400,000", "received 0 characters"}, nil},
			{"whitespace only", map[string]any{"text": " \n\t "}, []string{"400,000", "not all whitespace", "received 4 characters"}, nil},
			{"NUL byte", map[string]any{"text": "a\x00b"}, []string{"NUL"}, []string{"received", "characters"}},
			{"missing text", map[string]any{"title": "x"}, []string{"text"}, nil},
			{"text null", map[string]any{"text": nil}, []string{"missing", "text"}, nil},
			{"text not a string", map[string]any{"text": 42}, []string{"text"}, nil},
			{"unknown argument", map[string]any{"text": "x", "colour": "red"}, []string{"colour"}, nil},
			{"title too long", map[string]any{"text": "x", "title": strings.Repeat("t", 201)}, []string{"title"}, nil},
			{"arguments not an object", []string{"x"}, []string{"object"}, nil},
		}
		for _, tt := range refused {
			t.Run(tt.name, func(t *testing.T) {
				msg := errorText(t, e.call(t, e.alice, "create_study", tt.args))
				for _, w := range tt.want {
					if !strings.Contains(msg, w) {
						t.Errorf("message %q does not mention %q", msg, w)
					}
				}
				for _, w := range tt.not {
					if strings.Contains(msg, w) {
						t.Errorf("message %q mentions %q", msg, w)
					}
				}
			})
		}
		if after := countStudies(t, db, e.alice); after != before {
			t.Errorf("refused calls stored %d studies", after-before)
		}
	})
}

func TestGetStudyStatus(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		ready, _ := storetest.ReadyStudy(t, db, e.alice, "Ready", 3, 4)
		failed, err := db.CreateStudy(ctx, e.alice, "Broken", "More text.")
		if err != nil {
			t.Fatal(err)
		}
		if claim, ok, err := db.ClaimStudy(ctx, "w", time.Minute, store.AnyLane); err != nil || !ok || claim.Study.ID != failed.ID {
			t.Fatalf("claim: %v %v", ok, err)
		}
		if err := db.FailStudy(ctx, failed.ID, "w", "The text had no sentences."); err != nil {
			t.Fatal(err)
		}
		uploaded, err := db.CreateStudy(ctx, e.alice, "Waiting", "Some text.")
		if err != nil {
			t.Fatal(err)
		}
		got := decode[studyOut](t, e.call(t, e.alice, "get_study_status", map[string]any{"study_id": ready.ID}))
		if got.Status != "ready" || got.Title != "Ready" || got.TopicCount == nil || *got.TopicCount != 3 || *got.QuestionCount != 12 || got.CreatedAt == "" {
			t.Errorf("ready study: %+v", got)
		}
		got = decode[studyOut](t, e.call(t, e.alice, "get_study_status", map[string]any{"study_id": failed.ID}))
		if got.Status != "failed" || got.Reason != "The text had no sentences." || got.TopicCount != nil {
			t.Errorf("failed study: %+v", got)
		}
		got = decode[studyOut](t, e.call(t, e.alice, "get_study_status", map[string]any{"study_id": uploaded.ID}))
		if got.Status != "uploaded" {
			t.Errorf("waiting study: %+v", got)
		}
		if got.TopicCount != nil || got.Reason != "" || got.Progress != nil {
			t.Errorf("waiting study from text shows counts, a reason or progress: %+v", got)
		}
		// A study made from uploads shows how far its reading has come.
		scan, err := db.CreateUploadStudy(ctx, e.alice, "Scan", []studyloop.Upload{{Kind: "pdf", PageCount: 7, Data: []byte("%PDF-")}, {Kind: "png", PageCount: 1, Data: []byte("\x89PNG")}})
		if err != nil {
			t.Fatal(err)
		}
		got = decode[studyOut](t, e.call(t, e.alice, "get_study_status", map[string]any{"study_id": scan.ID}))
		if got.Status != "uploaded" || got.Progress == nil || got.Progress.PagesDone != 0 || got.Progress.PagesTotal != 8 {
			t.Errorf("queued upload: %+v, want progress 0 of 8", got)
		}
		if claim, ok, err := db.ClaimStudy(ctx, "r", time.Minute, store.UploadLane); err != nil || !ok || claim.Study.ID != scan.ID {
			t.Fatalf("claim upload: %v %v", ok, err)
		}
		if err := db.SetPagesDone(ctx, scan.ID, "r", 3); err != nil {
			t.Fatal(err)
		}
		got = decode[studyOut](t, e.call(t, e.alice, "get_study_status", map[string]any{"study_id": scan.ID}))
		if got.Status != "processing" || got.Progress == nil || got.Progress.PagesDone != 3 || got.Progress.PagesTotal != 8 {
			t.Errorf("upload being read: %+v, want progress 3 of 8", got)
		}

		// A missing study and another user's read the same.
		const missing = "st_aaaaaaaaaaaaaaaaaaaaaaaaaa"
		notFound := errorText(t, e.call(t, e.alice, "get_study_status", map[string]any{"study_id": missing}))
		other := errorText(t, e.call(t, e.bob, "get_study_status", map[string]any{"study_id": ready.ID}))
		if !strings.Contains(notFound, "not found") {
			t.Errorf("message %q", notFound)
		}
		if strings.ReplaceAll(other, ready.ID, missing) != notFound {
			t.Errorf("another user's study reads %q, a missing one %q", other, notFound)
		}
		for _, args := range []map[string]any{{}, {"study_id": strings.Repeat("x", 65)}, {"study_id": 5}} {
			if msg := errorText(t, e.call(t, e.alice, "get_study_status", args)); !strings.Contains(msg, "study_id") {
				t.Errorf("%v: message %q does not name study_id", args, msg)
			}
		}
	})
}

func TestListStudies(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		ready, _ := storetest.ReadyStudy(t, db, e.alice, "Ready one", 1, 1)
		var ids []string // newest first
		for i := range 5 {
			st, err := db.CreateStudy(ctx, e.alice, "", "Study number "+string(rune('A'+i))+".")
			if err != nil {
				t.Fatal(err)
			}
			ids = append([]string{st.ID}, ids...)
		}
		ids = append(ids, ready.ID)

		all := decode[listOut](t, e.call(t, e.alice, "list_studies", map[string]any{}))
		if len(all.Studies) != 6 || all.NextCursor != "" {
			t.Fatalf("%d studies, cursor %q", len(all.Studies), all.NextCursor)
		}
		for i, st := range all.Studies {
			if st.StudyID != ids[i] {
				t.Errorf("study %d is %s, want %s (newest first)", i, st.StudyID, ids[i])
			}
		}
		// Optional arguments sent as null count as left out.
		nulls := decode[listOut](t, e.call(t, e.alice, "list_studies", map[string]any{"status": nil, "limit": nil, "cursor": nil}))
		if len(nulls.Studies) != 6 {
			t.Errorf("null optional arguments: %d studies, want 6", len(nulls.Studies))
		}
		onlyReady := decode[listOut](t, e.call(t, e.alice, "list_studies", map[string]any{"status": "ready"}))
		if len(onlyReady.Studies) != 1 || onlyReady.Studies[0].StudyID != ready.ID || *onlyReady.Studies[0].QuestionCount != 1 {
			t.Errorf("status ready: %+v", onlyReady)
		}

		// Page by two while new studies are created: pages keep going
		// through the older studies without repeats or gaps.
		var seen []string
		cursor := ""
		for page := 0; ; page++ {
			args := map[string]any{"limit": 2}
			if cursor != "" {
				args["cursor"] = cursor
			}
			got := decode[listOut](t, e.call(t, e.alice, "list_studies", args))
			if len(got.Studies) > 2 {
				t.Fatalf("page of %d", len(got.Studies))
			}
			for _, st := range got.Studies {
				seen = append(seen, st.StudyID)
			}
			if _, err := db.CreateStudy(ctx, e.alice, "", "Created while paging."); err != nil {
				t.Fatal(err)
			}
			if got.NextCursor == "" {
				break
			}
			cursor = got.NextCursor
		}
		if strings.Join(seen, ",") != strings.Join(ids, ",") {
			t.Errorf("paged %v, want %v", seen, ids)
		}

		for _, bad := range []map[string]any{
			{"limit": 0}, {"limit": 101}, {"limit": "ten"}, {"status": "done"}, {"cursor": "bogus"}, {"cursor": 5},
		} {
			errorText(t, e.call(t, e.alice, "list_studies", bad))
		}
		// Six studies, and one created after each of the three pages.
		if got := decode[listOut](t, e.call(t, e.alice, "list_studies", map[string]any{"limit": 100})); len(got.Studies) != 9 {
			t.Errorf("limit 100 gave %d", len(got.Studies))
		}
	})
}

func TestGetMastery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		empty := decode[masteryOut](t, e.call(t, e.alice, "get_mastery", map[string]any{}))
		if empty.Overall == nil || empty.Overall.Score != 0 || len(empty.Studies) != 0 || empty.Study != nil {
			t.Errorf("no studies: %+v", empty)
		}

		st, qs := storetest.ReadyStudy(t, db, e.alice, "Optics", 4, 5)
		other, _ := storetest.ReadyStudy(t, db, e.alice, "Untouched", 2, 2)
		mustAnswerAll(t, db, e.alice, qs)
		waiting, err := db.CreateStudy(ctx, e.alice, "Waiting", "Not processed yet.")
		if err != nil {
			t.Fatal(err)
		}

		got := decode[masteryOut](t, e.call(t, e.alice, "get_mastery", map[string]any{"study_id": st.ID}))
		if got.Study == nil || got.Study.StudyID != st.ID || len(got.Study.Topics) != 4 || got.Overall != nil {
			t.Fatalf("study mastery: %+v", got)
		}
		if got.Study.Attempts != 20 || got.Study.Questions != 20 || got.Study.NextReview == nil {
			t.Errorf("study figures: %+v", got.Study.figuresOut)
		}
		for _, tp := range got.Study.Topics {
			if !strings.HasPrefix(tp.Topic, "Optics topic") || tp.Score < 0 || tp.Score > 1 || tp.Attempts != 5 || tp.BestStreak < tp.CurrentStreak || tp.NextReview == nil {
				t.Errorf("topic %+v", tp)
			}
			if _, err := time.Parse(time.RFC3339, *tp.NextReview); err != nil {
				t.Errorf("next_review %q: %v", *tp.NextReview, err)
			}
		}

		sum := decode[masteryOut](t, e.call(t, e.alice, "get_mastery", map[string]any{}))
		if sum.Overall == nil || len(sum.Studies) != 2 || sum.Overall.Questions != 24 || sum.Overall.Attempts != 20 || sum.Study != nil {
			t.Fatalf("summary: %+v", sum)
		}
		if sum.Studies[0].StudyID != other.ID || sum.Studies[1].StudyID != st.ID {
			t.Errorf("summary order %s, %s; want newest first", sum.Studies[0].StudyID, sum.Studies[1].StudyID)
		}

		if msg := errorText(t, e.call(t, e.alice, "get_mastery", map[string]any{"study_id": waiting.ID})); !strings.Contains(msg, "uploaded") || !strings.Contains(msg, "not ready") {
			t.Errorf("not ready study: %q", msg)
		}
		const missing = "st_aaaaaaaaaaaaaaaaaaaaaaaaaa"
		notFound := errorText(t, e.call(t, e.alice, "get_mastery", map[string]any{"study_id": missing}))
		foreign := errorText(t, e.call(t, e.bob, "get_mastery", map[string]any{"study_id": st.ID}))
		if strings.ReplaceAll(foreign, st.ID, missing) != notFound || !strings.Contains(notFound, "not found") {
			t.Errorf("another user's study reads %q, a missing one %q", foreign, notFound)
		}
	})
}

// TestIsolation checks that a second user sees nothing of the first
// user's studies through any tool.
func TestIsolation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ready, qs := storetest.ReadyStudy(t, db, e.alice, "Alice's", 2, 3)
		mustAnswerAll(t, db, e.alice, qs)
		created := decode[createdOut](t, e.call(t, e.alice, "create_study", map[string]any{"text": "Alice's private notes."}))

		for _, status := range []string{"", "uploaded", "processing", "ready", "failed"} {
			args := map[string]any{}
			if status != "" {
				args["status"] = status
			}
			if got := decode[listOut](t, e.call(t, e.bob, "list_studies", args)); len(got.Studies) != 0 {
				t.Errorf("bob lists %d studies with status %q", len(got.Studies), status)
			}
		}
		sum := decode[masteryOut](t, e.call(t, e.bob, "get_mastery", map[string]any{}))
		if len(sum.Studies) != 0 || sum.Overall.Questions != 0 || sum.Overall.Attempts != 0 {
			t.Errorf("bob's summary: %+v", sum)
		}
		for _, id := range []string{ready.ID, created.StudyID} {
			errorText(t, e.call(t, e.bob, "get_study_status", map[string]any{"study_id": id}))
			errorText(t, e.call(t, e.bob, "get_mastery", map[string]any{"study_id": id}))
		}
		// Alice's cursor does not open her list to bob.
		page := decode[listOut](t, e.call(t, e.alice, "list_studies", map[string]any{"limit": 1}))
		if page.NextCursor == "" {
			t.Fatal("alice has one page only")
		}
		if got := decode[listOut](t, e.call(t, e.bob, "list_studies", map[string]any{"cursor": page.NextCursor})); len(got.Studies) != 0 {
			t.Errorf("bob pages into %d studies with alice's cursor", len(got.Studies))
		}
		if n := countStudies(t, db, e.bob); n != 0 {
			t.Errorf("bob owns %d studies", n)
		}
	})
}

// TestGetMasteryAfterAnswers checks that get_mastery asked again gives the
// same figures, and that an answer shows in the next call at once.
func TestGetMasteryAfterAnswers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		st, qs := storetest.ReadyStudy(t, db, e.alice, "Optics", 3, 4)
		args := map[string]any{"study_id": st.ID}
		first := decode[masteryOut](t, e.call(t, e.alice, "get_mastery", args))
		for i, q := range qs[:3] {
			again := decode[masteryOut](t, e.call(t, e.alice, "get_mastery", args))
			if !reflect.DeepEqual(again.Study.figuresOut, first.Study.figuresOut) || again.Study.Attempts != i {
				t.Fatalf("before answer %d: %+v, want %d attempts", i+1, again.Study, i)
			}
			if _, err := storetest.Service(db).RecordAnswer(context.Background(), e.alice, q.ID, fsrs.Good, time.Now()); err != nil {
				t.Fatal(err)
			}
			got := decode[masteryOut](t, e.call(t, e.alice, "get_mastery", args))
			if got.Study.Attempts != i+1 || got.Study.Topics[0].Attempts != i+1 || got.Study.Score <= first.Study.Score {
				t.Fatalf("after answer %d: %+v", i+1, got.Study)
			}
			first = got
		}
		if msg := errorText(t, e.call(t, e.bob, "get_mastery", args)); !strings.Contains(msg, "not found") {
			t.Errorf("bob after alice's reads: %q", msg)
		}
	})
}

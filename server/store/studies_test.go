package store_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// expired is a lease that has already run out when granted, standing in for
// a worker that died holding its claim.
const expired = -time.Second

func mustClaim(tb testing.TB, db *store.DB, owner string, lease time.Duration) store.Claim {
	tb.Helper()
	c, ok, err := db.ClaimStudy(context.Background(), owner, lease, store.AnyLane)
	if err != nil || !ok {
		tb.Fatalf("ClaimStudy(%q) = ok %v, err %v; want a claim", owner, ok, err)
	}
	return c
}

func claimNothing(tb testing.TB, db *store.DB, owner string) {
	tb.Helper()
	c, ok, err := db.ClaimStudy(context.Background(), owner, time.Minute, store.AnyLane)
	if err != nil || ok {
		tb.Fatalf("ClaimStudy(%q) = %q ok %v, err %v; want nothing", owner, c.Study.ID, ok, err)
	}
}

func mustStatus(tb testing.TB, db *store.DB, s studyloop.Study, want studyloop.StudyStatus) studyloop.Study {
	tb.Helper()
	got, err := db.GetStudy(context.Background(), s.UserID, s.ID)
	if err != nil {
		tb.Fatalf("GetStudy: %v", err)
	}
	if got.Status != want {
		tb.Fatalf("status=%q (reason %q), want %q", got.Status, got.Reason, want)
	}
	return got
}

func countRows(tb testing.TB, db *store.DB, table string) int {
	tb.Helper()
	n, err := db.NewSelect().Table(table).Count(context.Background())
	if err != nil {
		tb.Fatalf("count %s: %v", table, err)
	}
	return n
}

// sample is a small valid extraction for the text "sampleText".
const sampleText = "# Cells\n\nThe membrane surrounds the cell.\n\n## Energy\n\nMitochondria make ATP.\n"

func sampleExtraction() studyloop.Extraction {
	return studyloop.Extraction{
		Topics: []studyloop.Topic{
			{Parent: -1, Title: "Cells", Span: studyloop.Span{Start: 0, End: len(sampleText)}},
			{Parent: 0, Title: "Energy", Span: studyloop.Span{Start: 43, End: len(sampleText)}},
		},
		Questions: []studyloop.Question{
			{Topic: 0, Type: studyloop.QuestionCloze, Prompt: "The ____ surrounds the cell.", Answer: "membrane", Source: studyloop.Span{Start: 9, End: 41}},
			{Topic: 1, Type: studyloop.QuestionMultipleChoice, Prompt: "What makes ATP?", Answer: "Mitochondria",
				Choices: []string{"Ribosomes", "Mitochondria", "Nucleus", "Membrane"}, Source: studyloop.Span{Start: 54, End: 76}},
			{Topic: 1, Type: studyloop.QuestionShortAnswer, Prompt: "What do mitochondria make?", Answer: "ATP", Source: studyloop.Span{Start: 54, End: 76}},
		},
	}
}

func TestCreateStudy(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		user := storetest.User(t, db)
		before := time.Now().Add(-time.Second)
		s := storetest.PendingStudy(t, db, user, "", sampleText)
		if !regexp.MustCompile(`^st_[a-z2-7]{26}$`).MatchString(s.ID) {
			t.Errorf("id %q is not st_ and 26 base32 characters", s.ID)
		}
		if s.Status != studyloop.StatusUploaded || s.UserID != user || s.Title != "Cells" {
			t.Errorf("created %+v, want uploaded study of user %d titled Cells", s, user)
		}
		if s.CreatedAt.Before(before) || s.CreatedAt.After(time.Now()) {
			t.Errorf("created_at %v not now", s.CreatedAt)
		}
		got, err := db.GetStudy(context.Background(), user, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got != s {
			t.Errorf("GetStudy=%+v\nwant      %+v", got, s)
		}
		if _, err := db.NewRaw(`UPDATE studies SET status = 'done' WHERE id = ?`, s.ID).Exec(context.Background()); err == nil {
			t.Error("the schema accepted status 'done'")
		}
		other := storetest.PendingStudy(t, db, user, "  My   notes ", sampleText)
		if other.ID == s.ID || other.Title != "My notes" {
			t.Errorf("second study %+v: want a new id and title %q", other, "My notes")
		}
	})
}

func TestCreateStudyStoresTextExactly(t *testing.T) {
	// The limit is in characters: 400,000 three-byte characters are
	// accepted and come back byte for byte, but for line breaks, which
	// come back as LF (a CRLF counts as one character).
	text := strings.Repeat("語", studyloop.MaxStudyTextChars-6) + "\r\n\t x\ry"
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		storetest.PendingStudy(t, db, storetest.User(t, db), "", text)
		c := mustClaim(t, db, "w", time.Minute)
		if want := strings.Repeat("語", studyloop.MaxStudyTextChars-6) + "\n\t x\ny"; c.Text != want {
			t.Fatalf("stored text differs: %d bytes back, %d expected", len(c.Text), len(want))
		}
	})
}

func TestCreateStudyRejectsBadInput(t *testing.T) {
	tests := []struct {
		name, title, text string
		wantCode          string
	}{
		{"too long", "", strings.Repeat("a", studyloop.MaxStudyTextChars+1), studyloop.ETOOLARGE},
		{"too long in characters", "", strings.Repeat("é", studyloop.MaxStudyTextChars+1), studyloop.ETOOLARGE},
		{"empty", "", "", studyloop.EINVALID},
		{"whitespace", "", " \n\t ", studyloop.EINVALID},
		{"NUL", "", "a\x00b", studyloop.EINVALID},
		{"invalid UTF-8", "", "\xff\xfe", studyloop.EINVALID},
		{"title too long", strings.Repeat("t", studyloop.MaxStudyTitleChars+1), "text", studyloop.EINVALID},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		user := storetest.User(t, db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := db.CreateStudy(context.Background(), user, tt.title, tt.text)
				if got := studyloop.ErrorCode(err); got != tt.wantCode {
					t.Fatalf("code=%q (%v), want %q", got, err, tt.wantCode)
				}
				if n := countRows(t, db, "studies"); n != 0 {
					t.Fatalf("%d studies stored after rejected input", n)
				}
			})
		}
	})
}

func TestStudiesArePrivate(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice, bob := storetest.User(t, db), storetest.User(t, db)
		s := storetest.PendingStudy(t, db, alice, "", sampleText)
		c := mustClaim(t, db, "w", time.Minute)
		if err := db.CompleteStudy(ctx, c.Study.ID, "w", sampleExtraction()); err != nil {
			t.Fatal(err)
		}
		_, errOther := db.GetStudy(ctx, bob, s.ID)
		_, errMissing := db.GetStudy(ctx, bob, "st_"+strings.Repeat("a", 26))
		if studyloop.ErrorCode(errOther) != studyloop.ENOTFOUND || studyloop.ErrorCode(errMissing) != studyloop.ENOTFOUND {
			t.Fatalf("another user's study: %v; a missing one: %v; want ENOTFOUND for both", errOther, errMissing)
		}
		if list, next, err := db.ListStudies(ctx, bob, studyloop.ListStudiesParams{}); err != nil || len(list) != 0 || next != "" {
			t.Fatalf("bob lists %v %q %v, want nothing", list, next, err)
		}
		if _, err := db.Topics(ctx, bob, s.ID); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Fatalf("bob reads topics: %v, want ENOTFOUND", err)
		}
		if _, err := db.Questions(ctx, bob, s.ID); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Fatalf("bob reads questions: %v, want ENOTFOUND", err)
		}
		if list, _, err := db.ListStudies(ctx, alice, studyloop.ListStudiesParams{}); err != nil || len(list) != 1 || list[0].ID != s.ID {
			t.Fatalf("alice lists %v %v, want her study", list, err)
		}
		if q, err := db.Questions(ctx, alice, s.ID); err != nil || len(q) != 3 {
			t.Fatalf("alice reads %d questions, %v; want 3", len(q), err)
		}
	})
}

func TestListStudiesPagesStayCorrectWhileStudiesAreCreated(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		alice, bob := storetest.User(t, db), storetest.User(t, db)
		var original []string
		for i := range 25 {
			original = append(original, storetest.PendingStudy(t, db, alice, fmt.Sprint("study ", i), "text").ID)
			if i%5 == 0 {
				storetest.PendingStudy(t, db, bob, "", "bob's text")
			}
		}
		var (
			seen   []studyloop.Study
			cursor string
			pages  int
		)
		for {
			page, next, err := db.ListStudies(ctx, alice, studyloop.ListStudiesParams{Limit: 10, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			pages++
			seen = append(seen, page...)
			if pages == 1 {
				// New studies arrive after the first page was served.
				for range 5 {
					storetest.PendingStudy(t, db, alice, "", "late text")
				}
			}
			if next == "" {
				break
			}
			cursor = next
		}
		if pages != 3 {
			t.Errorf("%d pages, want 3 (10 + 10 + 5)", pages)
		}
		var ids []string
		for i, s := range seen {
			ids = append(ids, s.ID)
			if s.UserID != alice {
				t.Fatalf("listed a study of user %d", s.UserID)
			}
			if i > 0 {
				prev := seen[i-1]
				if s.CreatedAt.After(prev.CreatedAt) || (s.CreatedAt.Equal(prev.CreatedAt) && s.ID > prev.ID) {
					t.Fatalf("not newest first at %d: %v %s after %v %s", i, s.CreatedAt, s.ID, prev.CreatedAt, prev.ID)
				}
			}
		}
		slices.Reverse(original)
		if !slices.Equal(ids, original) {
			t.Fatalf("listed\n%v\nwant the 25 original studies newest first\n%v", ids, original)
		}
	})
}

func TestListStudiesFiltersAndLimits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		user := storetest.User(t, db)
		for range 30 {
			storetest.PendingStudy(t, db, user, "", "text")
		}
		processing := map[string]bool{}
		for range 4 {
			processing[mustClaim(t, db, "w", time.Minute).Study.ID] = true
		}
		list, next, err := db.ListStudies(ctx, user, studyloop.ListStudiesParams{Status: studyloop.StatusProcessing})
		if err != nil || len(list) != 4 || next != "" {
			t.Fatalf("processing: %d studies, next %q, %v; want 4 and no next page", len(list), next, err)
		}
		for _, s := range list {
			if !processing[s.ID] || s.Status != studyloop.StatusProcessing {
				t.Fatalf("listed %s (%s), not one of the claimed studies", s.ID, s.Status)
			}
		}
		if list, _, err := db.ListStudies(ctx, user, studyloop.ListStudiesParams{Status: studyloop.StatusUploaded, Limit: 100}); err != nil || len(list) != 26 {
			t.Fatalf("uploaded: %d, %v; want 26", len(list), err)
		}
		if list, next, err := db.ListStudies(ctx, user, studyloop.ListStudiesParams{}); err != nil || len(list) != studyloop.DefaultStudyListLimit || next == "" {
			t.Fatalf("default limit: %d studies, next %q, %v; want %d and a next page", len(list), next, err, studyloop.DefaultStudyListLimit)
		}
		if list, next, err := db.ListStudies(ctx, user, studyloop.ListStudiesParams{Limit: 30}); err != nil || len(list) != 30 || next != "" {
			t.Fatalf("exact fit: %d studies, next %q, %v; want 30 and no next page", len(list), next, err)
		}
		bad := []studyloop.ListStudiesParams{
			{Limit: -1}, {Limit: studyloop.MaxStudyListLimit + 1},
			{Status: "done"},
			{Cursor: "not a cursor"}, {Cursor: "MTIzNDU"}, // base64 of "12345": no id
		}
		for _, p := range bad {
			if _, _, err := db.ListStudies(ctx, user, p); studyloop.ErrorCode(err) != studyloop.EINVALID {
				t.Errorf("ListStudies(%+v) = %v, want EINVALID", p, err)
			}
		}
	})
}

func TestStudyLifecycle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		user := storetest.User(t, db)
		s := storetest.PendingStudy(t, db, user, "Cells", sampleText)
		if topics, err := db.Topics(ctx, user, s.ID); err != nil || len(topics) != 0 {
			t.Fatalf("topics before processing: %v %v, want none", topics, err)
		}

		c := mustClaim(t, db, "w1", time.Minute)
		if c.Study.ID != s.ID || c.Study.Status != studyloop.StatusProcessing || c.Attempt != 1 || c.Text != sampleText {
			t.Fatalf("claim %+v attempt %d, want study %s processing, attempt 1, with its text", c.Study, c.Attempt, s.ID)
		}
		if d := time.Until(c.LeaseUntil); d < 50*time.Second || d > time.Minute {
			t.Errorf("lease ends in %v, want about a minute", d)
		}
		mustStatus(t, db, s, studyloop.StatusProcessing)
		claimNothing(t, db, "w2")

		if err := db.CompleteStudy(ctx, s.ID, "w2", sampleExtraction()); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("complete by a worker without the lease: %v, want ErrLeaseLost", err)
		}
		if err := db.ExtendLease(ctx, s.ID, "w1", time.Hour); err != nil {
			t.Fatalf("ExtendLease: %v", err)
		}
		if err := db.CompleteStudy(ctx, s.ID, "w1", sampleExtraction()); err != nil {
			t.Fatalf("CompleteStudy: %v", err)
		}
		got := mustStatus(t, db, s, studyloop.StatusReady)
		if got.TopicCount != 2 || got.QuestionCount != 3 || got.Reason != "" {
			t.Fatalf("ready study %+v, want 2 topics, 3 questions, no reason", got)
		}
		claimNothing(t, db, "w2")
		if err := db.CompleteStudy(ctx, s.ID, "w1", sampleExtraction()); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("second completion: %v, want ErrLeaseLost", err)
		}
		if err := db.FailStudy(ctx, s.ID, "w1", "late"); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("failing a ready study: %v, want ErrLeaseLost", err)
		}

		want := sampleExtraction()
		topics, err := db.Topics(ctx, user, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(topics) != len(want.Topics) {
			t.Fatalf("%d topics, want %d", len(topics), len(want.Topics))
		}
		for i, tp := range topics {
			w := want.Topics[i]
			if tp.ID == 0 || tp.Parent != w.Parent || tp.Title != w.Title || tp.Span != w.Span {
				t.Errorf("topic %d = %+v, want %+v with an id", i, tp, w)
			}
		}
		questions, err := db.Questions(ctx, user, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(questions) != len(want.Questions) {
			t.Fatalf("%d questions, want %d", len(questions), len(want.Questions))
		}
		for i, q := range questions {
			w := want.Questions[i]
			if q.ID == 0 || q.Topic != w.Topic || q.TopicID != topics[w.Topic].ID || q.Type != w.Type ||
				q.Prompt != w.Prompt || q.Answer != w.Answer || !slices.Equal(q.Choices, w.Choices) || q.Source != w.Source {
				t.Errorf("question %d = %+v, want %+v on topic id %d", i, q, w, topics[w.Topic].ID)
			}
		}
	})
}

func TestCompleteStudyRejectsInvalidExtraction(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := storetest.PendingStudy(t, db, storetest.User(t, db), "", sampleText)
		mustClaim(t, db, "w", time.Minute)
		ex := sampleExtraction()
		ex.Questions[2].Source.End = len(sampleText) + 1 // one byte past the text
		if err := db.CompleteStudy(ctx, s.ID, "w", ex); studyloop.ErrorCode(err) != studyloop.EINVALID {
			t.Fatalf("CompleteStudy = %v, want EINVALID", err)
		}
		mustStatus(t, db, s, studyloop.StatusProcessing)
		if n := countRows(t, db, "topics") + countRows(t, db, "questions"); n != 0 {
			t.Fatalf("%d rows stored by a rejected completion", n)
		}
		// The lease is still held: the worker can still fail the study.
		if err := db.FailStudy(ctx, s.ID, "w", "The generator produced questions outside the text."); err != nil {
			t.Fatal(err)
		}
		mustStatus(t, db, s, studyloop.StatusFailed)
	})
}

func TestCompleteStudyStoresDeepAndWideTopics(t *testing.T) {
	// 2,000 topics nested up to six deep, each with a question, exercising
	// the parent links across insert chunks.
	const n = 2000
	text := strings.Repeat("x", n)
	var ex studyloop.Extraction
	for i := range n {
		parent := -1
		if i%6 != 0 {
			parent = i - 1
		}
		ex.Topics = append(ex.Topics, studyloop.Topic{Parent: parent, Title: fmt.Sprint("topic ", i), Span: studyloop.Span{Start: i, End: i + 1}})
		ex.Questions = append(ex.Questions, studyloop.Question{Topic: n - 1 - i, Type: studyloop.QuestionShortAnswer,
			Prompt: fmt.Sprint("q", i, "?"), Answer: "x", Source: studyloop.Span{Start: i, End: i + 1}})
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		user := storetest.User(t, db)
		s := storetest.PendingStudy(t, db, user, "", text)
		mustClaim(t, db, "w", time.Minute)
		if err := db.CompleteStudy(ctx, s.ID, "w", ex); err != nil {
			t.Fatal(err)
		}
		topics, err := db.Topics(ctx, user, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for i, tp := range topics {
			if tp.Parent != ex.Topics[i].Parent || tp.Title != ex.Topics[i].Title {
				t.Fatalf("topic %d = %+v, want parent %d title %q", i, tp, ex.Topics[i].Parent, ex.Topics[i].Title)
			}
		}
		questions, err := db.Questions(ctx, user, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range questions {
			if q.Topic != n-1-i || q.TopicID != topics[n-1-i].ID {
				t.Fatalf("question %d on topic %d (id %d), want %d (id %d)", i, q.Topic, q.TopicID, n-1-i, topics[n-1-i].ID)
			}
		}
		if len(topics) != n || len(questions) != n {
			t.Fatalf("%d topics and %d questions, want %d each", len(topics), len(questions), n)
		}
	})
}

func TestAbandonedClaimIsReclaimedAfterLeaseExpires(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := storetest.PendingStudy(t, db, storetest.User(t, db), "", sampleText)
		first := mustClaim(t, db, "dead", expired) // the worker dies holding it
		second := mustClaim(t, db, "alive", time.Minute)
		if second.Study.ID != s.ID || second.Attempt != 2 {
			t.Fatalf("reclaimed %s attempt %d, want %s attempt 2", second.Study.ID, second.Attempt, s.ID)
		}
		if first.Attempt != 1 {
			t.Fatalf("first attempt %d, want 1", first.Attempt)
		}
		// The dead worker wakes up: none of its writes take effect.
		if err := db.ExtendLease(ctx, s.ID, "dead", time.Hour); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("stale extend: %v, want ErrLeaseLost", err)
		}
		if err := db.FailStudy(ctx, s.ID, "dead", "boom"); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("stale fail: %v, want ErrLeaseLost", err)
		}
		if err := db.CompleteStudy(ctx, s.ID, "dead", sampleExtraction()); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("stale complete: %v, want ErrLeaseLost", err)
		}
		mustStatus(t, db, s, studyloop.StatusProcessing)
		if err := db.CompleteStudy(ctx, s.ID, "alive", sampleExtraction()); err != nil {
			t.Fatal(err)
		}
		mustStatus(t, db, s, studyloop.StatusReady)
		if n := countRows(t, db, "questions"); n != 3 {
			t.Fatalf("%d questions stored, want 3 (one completion)", n)
		}
	})
}

func TestRepeatedlyAbandonedStudyEndsFailed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := storetest.PendingStudy(t, db, storetest.User(t, db), "", sampleText)
		for attempt := 1; attempt <= store.MaxStudyAttempts; attempt++ {
			if c := mustClaim(t, db, fmt.Sprint("w", attempt), expired); c.Attempt != attempt {
				t.Fatalf("attempt %d, want %d", c.Attempt, attempt)
			}
		}
		claimNothing(t, db, "last")
		got := mustStatus(t, db, s, studyloop.StatusFailed)
		if !strings.Contains(got.Reason, fmt.Sprintf("%d times", store.MaxStudyAttempts)) {
			t.Fatalf("reason %q does not say how often processing was interrupted", got.Reason)
		}
	})
}

func TestFailStudy(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := storetest.PendingStudy(t, db, storetest.User(t, db), "", sampleText)
		mustClaim(t, db, "w", time.Minute)
		if err := db.FailStudy(ctx, s.ID, "other", "nope"); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("fail by another worker: %v, want ErrLeaseLost", err)
		}
		mustStatus(t, db, s, studyloop.StatusProcessing)
		long := strings.Repeat("é", 600)
		if err := db.FailStudy(ctx, s.ID, "w", "  "+long+"  "); err != nil {
			t.Fatal(err)
		}
		got := mustStatus(t, db, s, studyloop.StatusFailed)
		if n := len([]rune(got.Reason)); n != 500 || !strings.HasSuffix(got.Reason, "…") {
			t.Fatalf("reason of %d characters, want cut to 500 with an ellipsis", n)
		}
		claimNothing(t, db, "w")
	})
}

func TestExtendedLeaseIsNotReclaimed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := storetest.PendingStudy(t, db, storetest.User(t, db), "", sampleText)
		mustClaim(t, db, "w", expired)
		if err := db.ExtendLease(context.Background(), s.ID, "w", time.Hour); err != nil {
			t.Fatal(err)
		}
		claimNothing(t, db, "other")
	})
}

func TestReleasedStudyIsClaimedAgainWithoutUsingAnAttempt(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := storetest.PendingStudy(t, db, storetest.User(t, db), "", sampleText)
		for range store.MaxStudyAttempts + 2 {
			c := mustClaim(t, db, "w", time.Minute)
			if c.Attempt != 1 {
				t.Fatalf("attempt %d after releases, want 1", c.Attempt)
			}
			if err := db.ReleaseStudy(ctx, s.ID, "w"); err != nil {
				t.Fatal(err)
			}
			mustStatus(t, db, s, studyloop.StatusUploaded)
		}
		if err := db.ReleaseStudy(ctx, s.ID, "w"); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("release of an unclaimed study: %v, want ErrLeaseLost", err)
		}
	})
}

func TestClaimTakesOldestFirst(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		user := storetest.User(t, db)
		var ids []string
		for range 5 {
			ids = append(ids, storetest.PendingStudy(t, db, user, "", "text").ID)
		}
		for i, want := range ids {
			if got := mustClaim(t, db, "w", time.Minute).Study.ID; got != want {
				t.Fatalf("claim %d took %s, want the oldest waiting %s", i, got, want)
			}
		}
	})
}

func TestConcurrentClaimsTakeEachStudyOnce(t *testing.T) {
	const studies, workers = 60, 8
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		user := storetest.User(t, db)
		for range studies {
			storetest.PendingStudy(t, db, user, "", "text")
		}
		var (
			mu     sync.Mutex
			claims = map[string]int{}
			wg     sync.WaitGroup
		)
		// On PostgreSQL a claim skips rows another claim has locked, the
		// account's row included, so "nothing to claim" can mean "all of
		// it locked at this instant": a worker polls again, as the real
		// ones do, until every study is claimed or time is up.
		deadline := time.Now().Add(20 * time.Second)
		for w := range workers {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					c, ok, err := db.ClaimStudy(context.Background(), fmt.Sprint("w", w), time.Minute, store.AnyLane)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					if ok {
						claims[c.Study.ID]++
					}
					done := len(claims) == studies
					mu.Unlock()
					if done {
						return
					}
					if !ok {
						time.Sleep(time.Millisecond)
					}
				}
			})
		}
		wg.Wait()
		if len(claims) != studies {
			t.Fatalf("%d studies claimed, want %d", len(claims), studies)
		}
		for id, n := range claims {
			if n != 1 {
				t.Errorf("study %s claimed %d times", id, n)
			}
		}
	})
}

func BenchmarkCompleteStudy(b *testing.B) {
	// A study with 500 topics and 2,000 questions, about what the
	// generator makes of 400,000 characters.
	text := strings.Repeat("Light is refracted by a prism. ", 1000)
	var ex studyloop.Extraction
	for i := range 500 {
		parent := -1
		if i%5 != 0 {
			parent = i - i%5
		}
		ex.Topics = append(ex.Topics, studyloop.Topic{Parent: parent, Title: fmt.Sprint("Topic ", i), Span: studyloop.Span{Start: 0, End: 30}})
	}
	for i := range 2000 {
		ex.Questions = append(ex.Questions, studyloop.Question{Topic: i % 500, Type: studyloop.QuestionMultipleChoice,
			Prompt: fmt.Sprint("Which is refracted by a prism, case ", i, "?"), Answer: "Light",
			Choices: []string{"Sound", "Light", "Heat", "Water"}, Source: studyloop.Span{Start: 0, End: 30}})
	}
	for _, dialect := range storetest.Dialects {
		b.Run(dialect, func(b *testing.B) {
			db := storetest.Open(b, dialect)
			user := storetest.User(b, db)
			for b.Loop() {
				b.StopTimer()
				s := storetest.PendingStudy(b, db, user, "", text)
				mustClaim(b, db, "w", time.Minute)
				b.StartTimer()
				if err := db.CompleteStudy(context.Background(), s.ID, "w", ex); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkClaimStudy(b *testing.B) {
	for _, dialect := range storetest.Dialects {
		b.Run(dialect, func(b *testing.B) {
			db := storetest.Open(b, dialect)
			user := storetest.User(b, db)
			// A backlog of waiting studies, some abandoned, as under load.
			for i := range 200 {
				storetest.PendingStudy(b, db, user, "", "text")
				if i%10 == 0 {
					mustClaim(b, db, "dead", expired)
				}
			}
			for b.Loop() {
				b.StopTimer()
				storetest.PendingStudy(b, db, user, "", "text")
				b.StartTimer()
				mustClaim(b, db, "w", time.Minute)
			}
		})
	}
}

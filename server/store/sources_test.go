package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

func TestUploadStudyLifecycle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		user, other := storetest.User(t, db), storetest.User(t, db)
		binary := append([]byte("%PDF-1.4\x00\xff\xfe"), bytes.Repeat([]byte{0, 1, 2, 0xff}, 1000)...)
		uploads := []studyloop.Upload{
			{Kind: "pdf", Pages: "3-7, 10", Data: binary},
			{Kind: "jpeg", Data: []byte("\xff\xd8\xff\x00jpeg")},
		}
		st, err := db.CreateUploadStudy(ctx, user, "  Biology   handout ", uploads)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := st.Status, studyloop.StatusUploaded; got != want {
			t.Fatalf("status=%q, want %q", got, want)
		}
		if got, want := mustStatus(t, db, st, studyloop.StatusUploaded).NewPerDay, studyloop.DefaultNewPerDay; got != want {
			t.Errorf("new per day=%d, want %d", got, want)
		}
		if got, want := st.Title, "Biology handout"; got != want {
			t.Errorf("title=%q, want %q", got, want)
		}

		c := mustClaim(t, db, "w1", time.Minute)
		if c.Study.ID != st.ID || c.Text != "" {
			t.Fatalf("claim=%q with text %q, want %q without text", c.Study.ID, c.Text, st.ID)
		}
		got, err := db.StudySources(ctx, st.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Kind != "pdf" || got[0].Pages != "3-7, 10" || !bytes.Equal(got[0].Data, binary) ||
			got[1].Kind != "jpeg" || !bytes.Equal(got[1].Data, uploads[1].Data) {
			t.Fatalf("StudySources returned %d uploads not equal to those stored", len(got))
		}

		text := "## Page 3\n\nCells divide.\n\n## Photo 1\n\nIons move."
		parts := []studyloop.SourcePart{
			{Label: "Page 3", Span: studyloop.Span{Start: 0, End: 24}},
			{Label: "Photo 1", Span: studyloop.Span{Start: 26, End: len(text)}},
		}
		// Only the lease holder may store the text.
		if err := db.SetStudyText(ctx, st.ID, "w2", text, parts); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("SetStudyText by another worker: %v, want ErrLeaseLost", err)
		}
		if err := db.SetStudyText(ctx, st.ID, "w1", text, parts); err != nil {
			t.Fatal(err)
		}
		if left, err := db.StudySources(ctx, st.ID); err != nil || len(left) != 0 {
			t.Errorf("after extraction %d uploads are kept (err %v), want none", len(left), err)
		}
		stored, err := db.SourceParts(ctx, user, st.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(stored, parts) {
			t.Errorf("SourceParts=%v, want %v", stored, parts)
		}
		// Per-user isolation.
		if _, err := db.SourceParts(ctx, other, st.ID); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Errorf("another user's SourceParts: %v, want not found", err)
		}
		// A restart re-claims the study with its text: nothing is lost.
		if err := db.ReleaseStudy(ctx, st.ID, "w1"); err != nil {
			t.Fatal(err)
		}
		c = mustClaim(t, db, "w3", time.Minute)
		if c.Text != text {
			t.Fatalf("re-claimed text=%q, want the extracted text", c.Text)
		}
		// A text study has no parts.
		plain := storetest.PendingStudy(t, db, user, "", "Plain notes about the sea.")
		if p, err := db.SourceParts(ctx, user, plain.ID); err != nil || len(p) != 0 {
			t.Errorf("text study parts=%v, %v; want none", p, err)
		}
	})
}

func TestUploadStudyRefusals(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		user := storetest.User(t, db)
		tests := []struct {
			name    string
			title   string
			uploads []studyloop.Upload
			want    string
		}{
			{"no files", "", nil, "No files were uploaded."},
			{"unknown kind", "", []studyloop.Upload{{Kind: "exe", Data: []byte("MZ")}}, `unknown kind "exe"`},
			{"long title", strings.Repeat("x", 201), []studyloop.Upload{{Kind: "png", Data: []byte("x")}}, "Title is 201 characters long"},
		}
		for _, tt := range tests {
			if _, err := db.CreateUploadStudy(ctx, user, tt.title, tt.uploads); !strings.Contains(studyloop.ErrorMessage(err), tt.want) {
				t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
			}
		}
		if list, _, err := db.ListStudies(ctx, user, studyloop.ListStudiesParams{}); err != nil || len(list) != 0 {
			t.Fatalf("refused uploads stored %d studies (err %v)", len(list), err)
		}

		st, err := db.CreateUploadStudy(ctx, user, "Scans", []studyloop.Upload{{Kind: "png", Data: []byte("png")}})
		if err != nil {
			t.Fatal(err)
		}
		mustClaim(t, db, "w1", time.Minute)
		for _, bad := range []struct {
			text  string
			parts []studyloop.SourcePart
			want  string
		}{
			{"", nil, "empty"},
			{strings.Repeat("a", studyloop.MaxStudyTextChars+1), nil, "the limit is 400,000 characters"},
			{"short", []studyloop.SourcePart{{Label: "Photo 1", Span: studyloop.Span{Start: 0, End: 99}}}, "Part 0 (Photo 1) lies outside the text."},
		} {
			if err := db.SetStudyText(ctx, st.ID, "w1", bad.text, bad.parts); !strings.Contains(studyloop.ErrorMessage(err), bad.want) {
				t.Errorf("SetStudyText: %v, want %q", err, bad.want)
			}
		}
		if left, err := db.StudySources(ctx, st.ID); err != nil || len(left) != 1 {
			t.Fatalf("after refused texts %d uploads kept (err %v), want 1", len(left), err)
		}
	})
}

// TestFailedUploadStudyDropsItsFiles: a study that ends failed, by its
// worker's verdict or by running out of attempts, keeps no uploaded files
// (up to 40 MiB each); one interrupted with attempts to spare keeps them
// for the retry, and other studies' files are untouched.
func TestFailedUploadStudyDropsItsFiles(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		user := storetest.User(t, db)
		files := []studyloop.Upload{{Kind: "pdf", Data: []byte("%PDF-1.4 one")}, {Kind: "png", Data: []byte("\x89PNG\r\n\x1a\n two")}}
		create := func(title string) studyloop.Study {
			t.Helper()
			st, err := db.CreateUploadStudy(ctx, user, title, files)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		sources := func(st studyloop.Study) int {
			t.Helper()
			got, err := db.StudySources(ctx, st.ID)
			if err != nil {
				t.Fatal(err)
			}
			return len(got)
		}

		// The worker's verdict.
		refused := create("Refused")
		waiting := create("Waiting")
		if c := mustClaim(t, db, "w", time.Minute); c.Study.ID != refused.ID {
			t.Fatalf("claimed %s, want %s", c.Study.ID, refused.ID)
		}
		if err := db.FailStudy(ctx, refused.ID, "other", "nope"); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("fail by another worker: %v, want ErrLeaseLost", err)
		}
		if n := sources(refused); n != 2 {
			t.Fatalf("a failure refused for a lost lease dropped files: %d left, want 2", n)
		}
		if err := db.FailStudy(ctx, refused.ID, "w", "The PDF is encrypted (password-protected)."); err != nil {
			t.Fatal(err)
		}
		mustStatus(t, db, refused, studyloop.StatusFailed)
		if n := sources(refused); n != 0 {
			t.Errorf("failed study keeps %d uploaded files, want none", n)
		}
		if n := sources(waiting); n != 2 {
			t.Errorf("the queued study beside it has %d files, want 2", n)
		}

		// Interrupted, with attempts to spare: the files wait for the retry;
		// on the last attempt's interruption they go.
		for attempt := 1; attempt <= store.MaxStudyAttempts; attempt++ {
			c := mustClaim(t, db, fmt.Sprint("w", attempt), expired)
			if c.Study.ID != waiting.ID || c.Attempt != attempt {
				t.Fatalf("claimed %s attempt %d, want %s attempt %d", c.Study.ID, c.Attempt, waiting.ID, attempt)
			}
			if n := sources(waiting); n != 2 {
				t.Fatalf("attempt %d: %d files, want 2 for the retry", attempt, n)
			}
		}
		later := create("Later")
		if c := mustClaim(t, db, "next", time.Minute); c.Study.ID != later.ID {
			t.Fatalf("claimed %s, want %s", c.Study.ID, later.ID)
		}
		got := mustStatus(t, db, waiting, studyloop.StatusFailed)
		if !strings.Contains(got.Reason, fmt.Sprintf("%d times", store.MaxStudyAttempts)) {
			t.Fatalf("reason %q", got.Reason)
		}
		if n := sources(waiting); n != 0 {
			t.Errorf("study failed after %d interrupted attempts keeps %d uploaded files, want none", store.MaxStudyAttempts, n)
		}
		if n := sources(later); n != 2 {
			t.Errorf("the study claimed beside it has %d files, want 2", n)
		}
		if n := countRows(t, db, "study_sources"); n != 2 {
			t.Errorf("study_sources holds %d rows, want the 2 of the study in progress", n)
		}
	})
}

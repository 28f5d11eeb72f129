package worker_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/engine"
	textract "github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/extract/extracttest"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/server/worker"
)

// largeText is a study text of 395,000 characters: the lecture notes
// again and again under numbered headings.
func largeText() string {
	var b strings.Builder
	for i := 1; b.Len() < 395_000; i++ {
		b.WriteString(strings.Replace(lectureNotes, "# The Water Cycle", fmt.Sprintf("# The Water Cycle, part %d", i), 1))
	}
	return b.String()[:395_000]
}

// smallText is another student's two-sentence study.
const smallText = "Osmosis is the movement of water across a membrane. A cell is the smallest unit of life."

// timeToReady creates a small study for user and returns how long it took
// to be ready, polling every 5 ms.
func timeToReady(t *testing.T, db *store.DB, user int64) time.Duration {
	t.Helper()
	start := time.Now()
	st := storetest.PendingStudy(t, db, user, "Topic", smallText)
	for time.Since(start) < 30*time.Second {
		got, err := db.GetStudy(context.Background(), user, st.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch got.Status {
		case studyloop.StatusReady:
			return time.Since(start)
		case studyloop.StatusFailed:
			t.Fatalf("small study failed: %s", got.Reason)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("small study not ready after 30s")
	return 0
}

// waitProcessing waits until the study is being processed.
func waitProcessing(t *testing.T, db *store.DB, st studyloop.Study) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		got, err := db.GetStudy(context.Background(), st.UserID, st.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == studyloop.StatusProcessing {
			return
		}
	}
	t.Fatalf("study %s never started", st.ID)
}

// TestFairQueue: one account queues 40 studies of 395,000 characters, or a
// scanned PDF whose OCR takes seconds; another account's small study is
// still ready within a second of the time it takes alone, with the
// real generator, extractor and two workers per lane's default pool.
func TestFairQueue(t *testing.T) {
	gen, err := engine.NewOffline(nil)
	if err != nil {
		t.Fatal(err)
	}
	x := textract.New(nil)
	requireExtraction(t, x)
	scanned := make([]extracttest.Page, 8)
	for i := range scanned {
		scanned[i] = extracttest.Page{Image: extracttest.RenderText(t, []string{fmt.Sprintf("Page %d of the handout.", i+1), "Photosynthesis turns light into sugar."})}
	}
	scannedPDF := extracttest.PDF(t, scanned, nil)
	large := largeText()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		heavy, student := storetest.User(t, db), storetest.User(t, db)
		_, stop := startPool(t, db, gen, &worker.Options{Workers: 2, PollInterval: 20 * time.Millisecond, Extractor: x})
		defer stop()

		timeToReady(t, db, student) // the first study warms the generator up
		alone := timeToReady(t, db, student)

		var backlog []studyloop.Study
		for range 40 {
			backlog = append(backlog, storetest.PendingStudy(t, db, heavy, "Topic", large))
		}
		waitProcessing(t, db, backlog[0])
		behindBacklog := timeToReady(t, db, student)

		upload, err := db.CreateUploadStudy(ctx, heavy, "Scanned handout", []studyloop.Upload{{Kind: "pdf", PageCount: len(scanned), Data: scannedPDF}})
		if err != nil {
			t.Fatal(err)
		}
		waitProcessing(t, db, upload)
		behindOCR := timeToReady(t, db, student)

		t.Logf("small study ready after %v alone, %v behind 40 large studies, %v behind them and an OCR upload",
			alone.Round(time.Millisecond), behindBacklog.Round(time.Millisecond), behindOCR.Round(time.Millisecond))
		for what, d := range map[string]time.Duration{"40 large studies": behindBacklog, "an OCR upload": behindOCR} {
			if d > alone+time.Second {
				t.Errorf("behind %s the small study took %v, more than a second over its %v alone", what, d, alone)
			}
		}
		got, err := db.GetStudy(ctx, heavy, upload.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.PagesTotal != len(scanned) || got.PagesDone > got.PagesTotal {
			t.Errorf("upload progress %d of %d, want at most %d of %d", got.PagesDone, got.PagesTotal, len(scanned), len(scanned))
		}
	})
}

// TestUploadTakenOverAfterKill: a study whose reading stopped with its
// process (kill -9: the lease runs out, progress half way) is read again
// from the start by the upload lane of another pool and becomes ready,
// its progress complete; a study made from text of the same account, in
// the other lane, is not held up by it.
func TestUploadTakenOverAfterKill(t *testing.T) {
	gen, err := engine.NewOffline(nil)
	if err != nil {
		t.Fatal(err)
	}
	x := textract.New(nil)
	requireExtraction(t, x)
	pdf := extracttest.PDF(t, []extracttest.Page{{Lines: []string{"Osmosis is the movement of water across a membrane."}}, {Lines: []string{"Diffusion spreads particles from high to low concentration."}}}, nil)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		user := storetest.User(t, db)
		upload, err := db.CreateUploadStudy(ctx, user, "Handout", []studyloop.Upload{{Kind: "pdf", PageCount: 2, Data: pdf}})
		if err != nil {
			t.Fatal(err)
		}
		if c, ok, err := db.ClaimStudy(ctx, "killed", time.Minute, store.UploadLane); !ok || err != nil || c.Study.ID != upload.ID {
			t.Fatalf("claim: %v %v", ok, err)
		}
		if err := db.SetPagesDone(ctx, upload.ID, "killed", 1); err != nil {
			t.Fatal(err)
		}
		// The process dies: its lease runs out.
		if _, err := db.NewUpdate().Table("studies").Set("lease_until = ?", time.Now().Add(-time.Second).UTC()).Where("id = ?", upload.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		text := storetest.PendingStudy(t, db, user, "Topic", smallText)
		startPool(t, db, gen, &worker.Options{PollInterval: 20 * time.Millisecond, Extractor: x})
		settled := waitSettled(t, db, upload, text)
		for i, st := range settled {
			if st.Status != studyloop.StatusReady {
				t.Errorf("study %d: %s (%s), want ready", i, st.Status, st.Reason)
			}
		}
		if got := settled[0]; got.PagesDone != 2 || got.PagesTotal != 2 {
			t.Errorf("progress %d of %d, want 2 of 2", got.PagesDone, got.PagesTotal)
		}
	})
}

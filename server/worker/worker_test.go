package worker_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/server/worker"
)

// testGenerator makes one topic and one question of any text, counting its
// calls per text. A text starting with a command word changes what it does.
type testGenerator struct {
	mu      sync.Mutex
	calls   map[string]int
	started chan string // receives each text as generation starts, if set
	stopped chan error  // receives the context error when "block" is cancelled, if set
	delay   time.Duration
}

func newTestGenerator() *testGenerator { return &testGenerator{calls: map[string]int{}} }

func (g *testGenerator) Generate(ctx context.Context, title, text string) (studyloop.Extraction, error) {
	g.mu.Lock()
	g.calls[text]++
	g.mu.Unlock()
	if g.started != nil {
		g.started <- text
	}
	if g.delay > 0 {
		select {
		case <-time.After(g.delay):
		case <-ctx.Done():
			return studyloop.Extraction{}, ctx.Err()
		}
	}
	command, _, _ := strings.Cut(text, " ")
	switch command {
	case "refuse":
		return studyloop.Extraction{}, studyloop.Errorf(studyloop.EINVALID, "This text has no sentences to learn from.")
	case "break":
		return studyloop.Extraction{}, errors.New("open /var/lib/model.bin: permission denied")
	case "panic":
		panic("index out of range [7] with length 3")
	case "hang": // ignores its context
		time.Sleep(2 * time.Second)
	case "block": // waits for cancellation
		<-ctx.Done()
		if g.stopped != nil {
			g.stopped <- context.Cause(ctx)
		}
		return studyloop.Extraction{}, ctx.Err()
	case "empty":
		return studyloop.Extraction{Topics: []studyloop.Topic{{Parent: -1, Title: title, Span: studyloop.Span{End: len(text)}}}}, nil
	case "overflow": // a span past the end of the text
		ex := extract(title, text)
		ex.Questions[0].Source.End = len(text) + 10
		return ex, nil
	}
	return extract(title, text), nil
}

func extract(title, text string) studyloop.Extraction {
	return studyloop.Extraction{
		Topics: []studyloop.Topic{{Parent: -1, Title: title, Span: studyloop.Span{End: len(text)}}},
		Questions: []studyloop.Question{{Topic: 0, Type: studyloop.QuestionShortAnswer,
			Prompt: "What is this text about?", Answer: title, Source: studyloop.Span{End: len(text)}}},
	}
}

func (g *testGenerator) callsFor(text string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls[text]
}

// startPool runs a pool until the test ends and waits for it to stop.
func startPool(t *testing.T, db *store.DB, gen studyloop.Generator, opts *worker.Options) (*worker.Pool, context.CancelFunc) {
	t.Helper()
	pool := worker.New(db, gen, slog.New(slog.NewTextHandler(t.Output(), nil)), opts)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		if err := pool.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	stop := func() {
		cancel()
		select {
		case <-stopped:
		case <-time.After(10 * time.Second):
			t.Error("pool did not stop within 10s of cancellation")
		}
	}
	t.Cleanup(stop)
	return pool, stop
}

// waitSettled waits until every study has left uploaded and processing,
// and returns them as stored.
func waitSettled(t *testing.T, db *store.DB, studies ...studyloop.Study) []studyloop.Study {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	got := make([]studyloop.Study, len(studies))
	for i, s := range studies {
		for {
			var err error
			got[i], err = db.GetStudy(context.Background(), s.UserID, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got[i].Status == studyloop.StatusReady || got[i].Status == studyloop.StatusFailed {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("study %s still %s after 20s", s.ID, got[i].Status)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return got
}

func TestPoolProcessesQueuedStudies(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		user := storetest.User(t, db)
		var studies []studyloop.Study
		for i := range 12 {
			studies = append(studies, storetest.PendingStudy(t, db, user, "Topic", fmt.Sprint("text ", i)))
		}
		gen := newTestGenerator()
		startPool(t, db, gen, &worker.Options{Workers: 3, PollInterval: 20 * time.Millisecond})
		for i, s := range waitSettled(t, db, studies...) {
			if s.Status != studyloop.StatusReady || s.TopicCount != 1 || s.QuestionCount != 1 {
				t.Errorf("study %d = %+v, want ready with 1 topic and 1 question", i, s)
			}
			if n := gen.callsFor(fmt.Sprint("text ", i)); n != 1 {
				t.Errorf("study %d generated %d times", i, n)
			}
			questions, err := db.Questions(context.Background(), user, s.ID)
			if err != nil || len(questions) != 1 || questions[0].Answer != "Topic" {
				t.Errorf("study %d questions %+v, %v", i, questions, err)
			}
		}
	})
}

func TestPoolFailsStudiesWithReadableReasons(t *testing.T) {
	tests := []struct {
		text       string
		wantReason string // a substring
	}{
		{"refuse this", "This text has no sentences to learn from."},
		{"break this", "internal error"},
		{"panic now", "internal error"},
		{"hang forever", "took longer than 0.3 seconds"},
		{"empty result", "No practice questions could be made"},
		{"overflow the text", "internal error"},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		user := storetest.User(t, db)
		var studies []studyloop.Study
		for _, tt := range tests {
			studies = append(studies, storetest.PendingStudy(t, db, user, "Topic", tt.text))
		}
		startPool(t, db, newTestGenerator(), &worker.Options{Workers: 2, Timeout: 300 * time.Millisecond, PollInterval: 20 * time.Millisecond})
		for i, s := range waitSettled(t, db, studies...) {
			tt := tests[i]
			if s.Status != studyloop.StatusFailed || !strings.Contains(s.Reason, tt.wantReason) {
				t.Errorf("%q: %s with reason %q, want failed with %q", tt.text, s.Status, s.Reason, tt.wantReason)
			}
			for _, leak := range []string{"permission denied", "index out of range", "/var/lib", "span"} {
				if strings.Contains(s.Reason, leak) {
					t.Errorf("%q: reason %q shows internal detail %q", tt.text, s.Reason, leak)
				}
			}
		}
	})
}

func TestNotifyWakesAnIdlePool(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		user := storetest.User(t, db)
		first := storetest.PendingStudy(t, db, user, "Topic", "first")
		// Without Notify the pool would not look again for an hour.
		pool, _ := startPool(t, db, newTestGenerator(), &worker.Options{Workers: 2, PollInterval: time.Hour})
		waitSettled(t, db, first)
		time.Sleep(50 * time.Millisecond) // let the workers go idle
		second := storetest.PendingStudy(t, db, user, "Topic", "second")
		pool.Notify()
		if got := waitSettled(t, db, second)[0]; got.Status != studyloop.StatusReady {
			t.Fatalf("second study %s (%s)", got.Status, got.Reason)
		}
	})
}

func TestHeartbeatKeepsALongStudyWithItsWorker(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := storetest.PendingStudy(t, db, storetest.User(t, db), "Topic", "slow")
		gen := newTestGenerator()
		// The lease leaves room for a heartbeat delayed by a busy machine
		// (200 ms was missed now and then under a loaded test run).
		gen.delay = 2400 * time.Millisecond // four times the lease
		opts := &worker.Options{Lease: 600 * time.Millisecond, Timeout: 10 * time.Second, PollInterval: 10 * time.Millisecond}
		startPool(t, db, gen, opts)
		// A second pool keeps trying to claim: it must not get the study
		// while the first keeps renewing the lease.
		startPool(t, db, gen, opts)
		if got := waitSettled(t, db, s)[0]; got.Status != studyloop.StatusReady {
			t.Fatalf("study %s (%s), want ready", got.Status, got.Reason)
		}
		if n := gen.callsFor("slow"); n != 1 {
			t.Fatalf("generated %d times, want once", n)
		}
	})
}

func TestRestartResumesQueuedAndAbandonedWork(t *testing.T) {
	for _, dialect := range storetest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			url := storetest.URL(t, dialect)
			db, err := store.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			user := storetest.User(t, db)
			var studies []studyloop.Study
			for i := range 5 {
				studies = append(studies, storetest.PendingStudy(t, db, user, "Topic", fmt.Sprint("text ", i)))
			}
			// The old process died while processing the oldest study.
			if c, ok, err := db.ClaimStudy(ctx, "killed", -time.Second, store.AnyLane); !ok || err != nil || c.Study.ID != studies[0].ID {
				t.Fatalf("claim: %v %v %v", c.Study.ID, ok, err)
			}
			db.Close()

			db, err = store.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			gen := newTestGenerator()
			startPool(t, db, gen, &worker.Options{Workers: 2, PollInterval: 20 * time.Millisecond})
			for i, s := range waitSettled(t, db, studies...) {
				if s.Status != studyloop.StatusReady {
					t.Errorf("study %d %s (%s), want ready", i, s.Status, s.Reason)
				}
			}
		})
	}
}

func TestStopReleasesTheStudyInProgress(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := storetest.PendingStudy(t, db, storetest.User(t, db), "Topic", "block until stopped")
		gen := newTestGenerator()
		gen.started = make(chan string, 1)
		_, stop := startPool(t, db, gen, &worker.Options{PollInterval: 20 * time.Millisecond})
		select {
		case <-gen.started:
		case <-time.After(10 * time.Second):
			t.Fatal("generation did not start")
		}
		stop()
		got, err := db.GetStudy(context.Background(), s.UserID, s.ID)
		if err != nil || got.Status != studyloop.StatusUploaded {
			t.Fatalf("after stop: %s %v, want uploaded again", got.Status, err)
		}
		// The release did not use up an attempt.
		c, ok, err := db.ClaimStudy(context.Background(), "next", time.Minute, store.AnyLane)
		if err != nil || !ok || c.Attempt != 1 {
			t.Fatalf("claim after release: ok %v attempt %d err %v, want attempt 1", ok, c.Attempt, err)
		}
	})
}

func TestLostLeaseStopsGeneration(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := storetest.PendingStudy(t, db, storetest.User(t, db), "Topic", "block until the lease is lost")
		gen := newTestGenerator()
		gen.started, gen.stopped = make(chan string, 1), make(chan error, 1)
		startPool(t, db, gen, &worker.Options{Lease: 150 * time.Millisecond, Timeout: time.Minute, PollInterval: time.Hour})
		select {
		case <-gen.started:
		case <-time.After(10 * time.Second):
			t.Fatal("generation did not start")
		}
		// Another process takes the study over, as if this one had stalled
		// past its lease.
		if _, err := db.NewRaw(`UPDATE studies SET lease_owner = 'other', lease_until = ? WHERE id = ?`,
			time.Now().Add(time.Hour).UTC(), s.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-gen.stopped:
			if err == nil {
				t.Fatal("generation stopped without a cause")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("generation went on after the lease was lost")
		}
		time.Sleep(100 * time.Millisecond) // let the worker record whatever it would
		if err := db.CompleteStudy(ctx, s.ID, "other", extract("Topic", "block until the lease is lost")); err != nil {
			t.Fatalf("the new owner cannot complete: %v", err)
		}
	})
}

func TestTwoPoolsOnOneDatabaseProcessEachStudyOnce(t *testing.T) {
	const studies = 120
	for _, dialect := range storetest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			url := storetest.URL(t, dialect)
			open := func() *store.DB {
				db, err := store.Open(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
				if _, err := db.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
				return db
			}
			// Two servers, each with its own connection pool and workers.
			dbA, dbB := open(), open()
			user := storetest.User(t, dbA)
			genA, genB := newTestGenerator(), newTestGenerator()
			genA.delay, genB.delay = 2*time.Millisecond, 2*time.Millisecond
			opts := &worker.Options{Workers: 3, PollInterval: 10 * time.Millisecond}
			startPool(t, dbA, genA, opts)
			startPool(t, dbB, genB, opts)
			var created []studyloop.Study
			for i := range studies {
				// Created while both pools are already running.
				created = append(created, storetest.PendingStudy(t, dbA, user, "Topic", fmt.Sprint("study ", i)))
			}
			waitSettled(t, dbB, created...)
			var byA, byB int
			for i := range studies {
				text := fmt.Sprint("study ", i)
				a, b := genA.callsFor(text), genB.callsFor(text)
				if a+b != 1 {
					t.Errorf("%s generated %d times by A and %d by B, want once in all", text, a, b)
				}
				byA, byB = byA+a, byB+b
			}
			t.Logf("%d studies: %d by pool A, %d by pool B", studies, byA, byB)
			ready, _, err := dbB.ListStudies(ctx, user, studyloop.ListStudiesParams{Status: studyloop.StatusReady, Limit: studyloop.MaxStudyListLimit})
			if err != nil || len(ready) != studyloop.MaxStudyListLimit {
				t.Fatalf("listed %d ready studies, %v", len(ready), err)
			}
		})
	}
}

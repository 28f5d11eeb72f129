// Package worker turns queued studies into topics and questions in the
// background. A Pool runs a few workers in the server process; each claims
// a study through the database (so several processes on one PostgreSQL
// database share the work, each study going to one of them), runs the
// Generator within a time bound while keeping its lease alive, and stores
// the result, or marks the study failed with a reason a person can read.
// The queue is fair between accounts (see store.DB.ClaimStudy), and
// studies made from uploads, whose reading may take minutes, have workers
// of their own, so they never hold up studies made from text.
package worker

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
)

// Options tunes a Pool. A nil *Options, and every zero field, means the
// default written beside the field.
type Options struct {
	// Workers is how many studies made from text the pool processes at
	// once (default 1).
	Workers int
	// UploadWorkers is how many studies made from uploads the pool reads
	// and processes at once, besides Workers (default 1).
	UploadWorkers int
	// Timeout bounds the generation of one study (default 30s, well inside
	// the contract's "about a minute").
	Timeout time.Duration
	// Lease is how long a claim lasts without renewal (default 30s). While
	// a study is processed its lease is renewed every Lease/3, so a study
	// whose process died is taken over about Lease after the death.
	Lease time.Duration
	// PollInterval is how long an idle worker waits before looking for
	// work again when Notify does not wake it first (default 2s).
	PollInterval time.Duration
	// Owner names this process in leases and logs (default host name,
	// process id and a random suffix). Each worker appends its number.
	Owner string
	// Extractor reads the text of studies made from uploaded PDFs and
	// photos (default extract.New(nil)).
	Extractor *extract.Extractor
	// ExtractTimeout bounds the extraction of one study's uploads, before
	// generation (default 10 minutes: OCR takes about a second a page).
	ExtractTimeout time.Duration
}

// Pool is a set of workers processing studies from one database.
type Pool struct {
	db        *store.DB
	gen       studyloop.Generator
	extractor *extract.Extractor
	log       *slog.Logger
	opts      Options
	// wake holds one channel per lane, on which Notify wakes an idle
	// worker of the lane.
	wake map[store.Lane]chan struct{}
}

// Reasons stored on failed studies. They are shown to people, so they say
// what happened and what to do, never Go error text.
const (
	reasonInternal    = "Processing failed because of an internal error. Please try again later."
	reasonNoQuestions = "No practice questions could be made from this text. Notes with full sentences, definitions, lists or tables work best."
)

func reasonTimeout(limit time.Duration) string {
	seconds := strconv.FormatFloat(limit.Seconds(), 'f', -1, 64) + " seconds"
	if limit == time.Second {
		seconds = "1 second"
	}
	return fmt.Sprintf("Processing took longer than %s and was stopped. Try a shorter text, or split it into several studies.", seconds)
}

// errTimeout and errLeaseLost are the causes with which a generation is
// cancelled.
var (
	errTimeout   = errors.New("generation timed out")
	errLeaseLost = errors.New("lease lost to another worker")
)

// panicError is a panic in the generator, caught.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("generator panic: %v", e.value) }

// New returns a pool processing the studies of db with gen, logging to
// logger (nil discards). Nothing runs until Run.
func New(db *store.DB, gen studyloop.Generator, logger *slog.Logger, opts *Options) *Pool {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	if o.UploadWorkers <= 0 {
		o.UploadWorkers = 1
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Lease <= 0 {
		o.Lease = 30 * time.Second
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 2 * time.Second
	}
	if o.Owner == "" {
		host, _ := os.Hostname()
		o.Owner = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), rand.Text()[:6])
	}
	if o.Extractor == nil {
		o.Extractor = extract.New(nil)
	}
	if o.ExtractTimeout <= 0 {
		o.ExtractTimeout = 10 * time.Minute
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	wake := map[store.Lane]chan struct{}{store.TextLane: make(chan struct{}, 1), store.UploadLane: make(chan struct{}, 1)}
	return &Pool{db: db, gen: gen, extractor: o.Extractor, log: logger, opts: o, wake: wake}
}

// Notify wakes an idle worker of each lane to look for work at once, as
// when a study was just created in this process. It never blocks.
func (p *Pool) Notify() {
	for lane := range p.wake {
		p.notify(lane)
	}
}

// notify wakes an idle worker of the lane.
func (p *Pool) notify(lane store.Lane) {
	select {
	case p.wake[lane] <- struct{}{}:
	default:
	}
}

// Run processes studies until ctx is done, then stops gracefully: a study
// in the middle of processing is handed back to the queue (without using
// up an attempt) for this or another process to take up. It returns nil
// once every worker has stopped; the error result lets it sit beside other
// run loops of the server.
func (p *Pool) Run(ctx context.Context) error {
	p.log.Info("study workers started", "workers", p.opts.Workers, "upload_workers", p.opts.UploadWorkers, "owner", p.opts.Owner)
	var wg sync.WaitGroup
	for i := range p.opts.Workers {
		owner := fmt.Sprintf("%s/%d", p.opts.Owner, i+1)
		wg.Go(func() { p.work(ctx, owner, store.TextLane) })
	}
	for i := range p.opts.UploadWorkers {
		owner := fmt.Sprintf("%s/upload-%d", p.opts.Owner, i+1)
		wg.Go(func() { p.work(ctx, owner, store.UploadLane) })
	}
	wg.Wait()
	p.log.Info("study workers stopped", "owner", p.opts.Owner)
	return nil
}

// work is one worker's loop in its lane: claim, process, repeat; wait when
// idle.
func (p *Pool) work(ctx context.Context, owner string, lane store.Lane) {
	for ctx.Err() == nil {
		claim, ok, err := p.db.ClaimStudy(ctx, owner, p.opts.Lease, lane)
		if err != nil && ctx.Err() == nil {
			p.log.Error("claim study", "owner", owner, "err", err)
		}
		if ok {
			// More may be waiting: let another idle worker look too.
			p.notify(lane)
			p.process(ctx, owner, claim)
			continue
		}
		idle := time.NewTimer(p.opts.PollInterval)
		select {
		case <-ctx.Done():
		case <-p.wake[lane]:
		case <-idle.C:
		}
		idle.Stop()
	}
}

// process generates one claimed study and records the outcome.
func (p *Pool) process(ctx context.Context, owner string, c store.Claim) {
	id := c.Study.ID
	log := p.log.With("study", id, "attempt", c.Attempt, "owner", owner)
	start := time.Now()

	runCtx, cancelRun := context.WithCancelCause(ctx)
	heartbeatDone := make(chan struct{})
	go func() {
		defer close(heartbeatDone)
		p.heartbeat(runCtx, cancelRun, id, owner, log)
	}()
	c, err := p.extractUploads(runCtx, owner, c)
	var ex studyloop.Extraction
	if err == nil {
		ex, err = p.generate(runCtx, c)
	}
	cancelRun(nil)
	<-heartbeatDone

	// The outcome is written even when shutdown has begun.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var pe *panicError
	switch {
	case errors.Is(err, errLeaseLost):
		log.Warn("study lease lost; another worker took it over", "elapsed", time.Since(start))
		return
	case err != nil && ctx.Err() != nil:
		if rerr := p.db.ReleaseStudy(wctx, id, owner); rerr != nil {
			log.Error("release study at shutdown", "err", rerr)
			return
		}
		log.Info("study released at shutdown", "elapsed", time.Since(start))
		return
	case errors.Is(err, errTimeout):
		log.Warn("study generation timed out", "limit", p.opts.Timeout)
		p.fail(wctx, log, id, owner, reasonTimeout(p.opts.Timeout))
		return
	case errors.As(err, &pe):
		log.Error("study generator panicked", "panic", pe.value, "stack", string(pe.stack))
		p.fail(wctx, log, id, owner, reasonInternal)
		return
	case err != nil && studyloop.ErrorCode(err) != studyloop.EINTERNAL:
		log.Info("study generation refused the text", "err", err)
		p.fail(wctx, log, id, owner, studyloop.ErrorMessage(err))
		return
	case err != nil:
		log.Error("study generation failed", "err", err)
		p.fail(wctx, log, id, owner, reasonInternal)
		return
	case len(ex.Questions) == 0:
		log.Info("study produced no questions", "topics", len(ex.Topics))
		p.fail(wctx, log, id, owner, reasonNoQuestions)
		return
	}
	switch err := p.db.CompleteStudy(wctx, id, owner, ex); {
	case errors.Is(err, store.ErrLeaseLost):
		log.Warn("study finished after its lease was lost; result dropped", "elapsed", time.Since(start))
	case studyloop.ErrorCode(err) == studyloop.EINVALID:
		log.Error("generator output rejected by storage", "err", err)
		p.fail(wctx, log, id, owner, reasonInternal)
	case err != nil:
		// The lease runs out and the study is tried again.
		log.Error("store study result", "err", err)
	default:
		log.Info("study ready", "topics", len(ex.Topics), "questions", len(ex.Questions), "elapsed", time.Since(start))
	}
}

func (p *Pool) fail(ctx context.Context, log *slog.Logger, id, owner, reason string) {
	if err := p.db.FailStudy(ctx, id, owner, reason); err != nil {
		log.Error("mark study failed", "err", err)
	}
}

// generate runs the generator within the time bound, turning a panic into
// a *panicError. A generator that ignores its context is abandoned when the
// bound passes: its goroutine is left to finish on its own.
func (p *Pool) generate(ctx context.Context, c store.Claim) (studyloop.Extraction, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, p.opts.Timeout, errTimeout)
	defer cancel()
	type result struct {
		ex  studyloop.Extraction
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- result{err: &panicError{value: v, stack: debug.Stack()}}
			}
		}()
		ex, err := p.gen.Generate(ctx, c.Study.Title, c.Text)
		done <- result{ex, err}
	}()
	select {
	case r := <-done:
		if r.err != nil && ctx.Err() != nil {
			return studyloop.Extraction{}, context.Cause(ctx)
		}
		return r.ex, r.err
	case <-ctx.Done():
		return studyloop.Extraction{}, context.Cause(ctx)
	}
}

// heartbeat renews the lease every Lease/3 until ctx is done, and cancels
// the run with errLeaseLost when the lease turns out to be gone.
func (p *Pool) heartbeat(ctx context.Context, cancel context.CancelCauseFunc, id, owner string, log *slog.Logger) {
	tick := time.NewTicker(p.opts.Lease / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		switch err := p.db.ExtendLease(ctx, id, owner, p.opts.Lease); {
		case errors.Is(err, store.ErrLeaseLost):
			cancel(errLeaseLost)
			return
		case err != nil && ctx.Err() == nil:
			// Try again at the next tick; the lease has two more ticks to run.
			log.Warn("extend study lease", "err", err)
		}
	}
}

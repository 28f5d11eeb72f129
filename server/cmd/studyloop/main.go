// Command studyloop runs the Studyloop server.
//
// Usage:
//
//	studyloop [serve]   run the server (the default)
//	studyloop migrate   apply database migrations and exit
//	studyloop user create --email E (--password P | --password-stdin)
//	                    create a student account
//
// Configuration comes from environment variables; see the README.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/studyloop/studyloop/server/coalesce"
	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/engine"
	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/fastsite"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/server/web"
	"github.com/studyloop/studyloop/server/worker"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "studyloop: %v\n", err)
		os.Exit(1)
	}
}

const usage = `usage: studyloop [serve | migrate | user create --email E (--password P | --password-stdin)]`

// run is the whole program; it returns when ctx is cancelled (serve) or the
// command is done.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := config.FromEnv(getenv)
	if err != nil {
		return err
	}
	logger := newLogger(stderr, cfg.LogLevel)
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, cfg, logger, getenv("GOGC") == "", stdout, stderr)
	case "migrate":
		return migrate(ctx, cfg, stdout)
	case "user":
		return userCmd(ctx, cfg, args, stdin, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	l.UnmarshalText([]byte(level)) //nolint:errcheck // validated by config
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l}))
}

// openDB opens and migrates the configured database.
func openDB(ctx context.Context, cfg config.Config) (*store.DB, error) {
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	if _, err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func migrate(ctx context.Context, cfg config.Config, stdout io.Writer) error {
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	applied, err := db.Migrate(ctx)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		fmt.Fprintln(stdout, "database is up to date")
	}
	for _, name := range applied {
		fmt.Fprintln(stdout, "applied", name)
	}
	return nil
}

// serverGCPercent is the garbage collector's target while serving, unless
// the GOGC environment variable sets another: a collection starts when the
// heap has grown by this percentage of what the last one kept. Serving
// keeps little (about 6 MB once start-up's garbage is gone) and makes about
// 2 KB of short-lived garbage per request, nearly all of it net/http's, so
// at Go's default of 100 a server answering 50,000 requests a second
// collects 18 times a second: 4-5% of its CPU time goes to marking, and
// 8-9% with the write barriers and sweeping that come with it. At 200 it
// collects half as often. The heap between collections is what a server
// keeps after a burst of requests once idle again: 51 MB of RSS at 200,
// 43 MB at 100, but 64 MB at 400, which collects a quarter as often and
// would leave the idle server well above the 49 MB it holds after start.
// Start-up runs at Go's default, so what an idle server holds after start
// is unchanged; GOMEMLIMIT, when set, still bounds the process as Go
// documents.
const serverGCPercent = 200

// serve runs the server until ctx is cancelled; logger writes to stderr,
// which also takes the request lines directly. tuneGC sets the garbage
// collector's target to serverGCPercent once start-up is done.
func serve(ctx context.Context, cfg config.Config, logger *slog.Logger, tuneGC bool, stdout, stderr io.Writer) error {
	db, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	pruneCtx, stopPruning := context.WithCancel(ctx)
	pruned := make(chan struct{})
	go func() { pruneExpired(pruneCtx, db, logger, pruneInterval, cfg.RefreshTokenTTL); close(pruned) }()
	defer func() { stopPruning(); <-pruned }()

	gen, err := engine.NewOffline(nil)
	if err != nil {
		return err
	}
	// One extractor serves the workers and the web app's upload forms.
	extractor := extract.New(nil)
	if err := extractor.OCRAvailable(); err != nil {
		logger.Warn("photos and scanned PDF pages cannot be read", "reason", studyloop.ErrorMessage(err))
	}
	if !extractor.MemoryBounded() {
		logger.Warn("prlimit (util-linux) not found: PDF and OCR tools run without memory bounds, only with timeouts")
	}
	pool := worker.New(db, gen, logger, &worker.Options{Workers: cfg.Workers, UploadWorkers: cfg.UploadWorkers, Extractor: extractor})
	// Workers stop after the HTTP server has drained, and before the
	// database closes; a study in progress is handed back to the queue.
	workCtx, stopWorkers := context.WithCancel(context.WithoutCancel(ctx))
	worked := make(chan error, 1)
	if cfg.Workers > 0 {
		go func() { worked <- pool.Run(workCtx) }()
	} else {
		worked <- nil // WORKERS=0: another replica processes the studies
	}
	defer func() { stopWorkers(); <-worked }()

	// Request lines are gathered and written a few times a second; the
	// last ones go out when the server has drained.
	requestLog := web.NewLineBuffer(stderr)
	defer requestLog.Flush() //nolint:errcheck // nowhere left to report it
	handler, fast, err := newHandler(cfg, logger, requestLog, db, pool.Notify, extractor)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	if tuneGC {
		defer debug.SetGCPercent(debug.SetGCPercent(serverGCPercent))
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ConnContext:       coalesce.ConnContext,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	fmt.Fprintf(stdout, "studyloop: serving %s at http://%s (listening on %s)\n", cfg.BaseURL, displayAddr(ln.Addr()), ln.Addr())
	logger.Info("serving", "addr", ln.Addr().String(), "base_url", cfg.BaseURL)

	var front *fastsite.Listener
	if cfg.FastSite {
		front = fastsite.New(ln, fast, srv)
		defer front.Close() //nolint:errcheck // after Shutdown it is closed already
		ln = front
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(coalesce.Listener(ln)) }()
	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	if front != nil {
		err = errors.Join(err, front.Shutdown(shutdownCtx))
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// displayAddr turns a listen address such as [::]:8080 into one a person
// can open, localhost:8080.
func displayAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if ok && tcp.IP.IsUnspecified() {
		return fmt.Sprintf("localhost:%d", tcp.Port)
	}
	return a.String()
}

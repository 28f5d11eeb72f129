// Package webtest builds the dependencies of web.NewServer for tests, as
// the command's serve does for production: real sessions, services, pages
// and MCP handlers over a test database and the built site (make site).
package webtest

import (
	"crypto/x509"
	"io"
	"io/fs"
	"log/slog"
	"testing"

	"github.com/studyloop/studyloop/build"
	"github.com/studyloop/studyloop/server/account"
	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/mail"
	"github.com/studyloop/studyloop/server/mcp"
	"github.com/studyloop/studyloop/server/oauth"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/study"
	"github.com/studyloop/studyloop/server/web"
	"github.com/studyloop/studyloop/server/webapp"
)

// Options adjust Deps. The zero value serves build.Site() and discards
// the log.
type Options struct {
	// Logger receives the service's log. Nil: discarded.
	Logger *slog.Logger
	// RequestLog is web.Deps.RequestLog. Nil: request lines go through
	// Logger.
	RequestLog io.Writer
	// Site is the built site. Nil: build.Site(), which must hold a built
	// site.
	Site fs.FS
	// NotifyWorkers wakes a worker pool after a study is created. Nil:
	// nobody is woken.
	NotifyWorkers func()
	// Extractor reads uploads. Nil: extract.New(nil).
	Extractor *extract.Extractor
	// ClientMetadataTestRoots is oauth.Options.ClientMetadataTestRoots.
	ClientMetadataTestRoots *x509.CertPool
}

// Deps returns everything web.NewServer needs over db, configured by cfg,
// failing tb if any of it cannot be built.
func Deps(tb testing.TB, cfg config.Config, db *store.DB, o Options) web.Deps {
	tb.Helper()
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Site == nil {
		o.Site = build.Site()
		if _, err := fs.Stat(o.Site, "index.html"); err != nil {
			tb.Fatal("build/site holds no built site: run make site (make test does)")
		}
	}
	db = db.WithQuotas(cfg.Quotas)
	site, err := web.LoadSite(o.Site, cfg.BaseURL)
	if err != nil {
		tb.Fatal(err)
	}
	sessions := session.New(db.Sessions(), &session.Options{Secure: cfg.Secure(), Logger: o.Logger})
	studies := study.New(db)
	authServer := oauth.New(db, sessions, cfg, &oauth.Options{Logger: o.Logger, ClientMetadataTestRoots: o.ClientMetadataTestRoots})
	var sender webapp.Mailer
	if cfg.SMTPURL != "" {
		s, err := mail.New(cfg.SMTPURL, cfg.MailFrom)
		if err != nil {
			tb.Fatal(err)
		}
		sender = s
	}
	mcpHandlers, err := mcp.NewHandlers(mcp.HandlersOptions{
		Server: mcp.Options{Store: db, Mastery: studies, Notify: o.NotifyWorkers, Logger: o.Logger},
		Guard:  mcp.GuardOptions{BaseURL: cfg.BaseURL, AllowedHosts: cfg.AllowedHosts},
		Site:   site.Static(),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return web.Deps{
		Config:     cfg,
		Logger:     o.Logger,
		RequestLog: o.RequestLog,
		Sessions:   sessions,
		OAuth:      authServer,
		Pages: webapp.New(db, studies, sessions, o.Logger, &webapp.Options{
			Notify: o.NotifyWorkers, Extractor: o.Extractor, Accounts: account.NewService(db, nil),
			SignUpsPerHour: cfg.SignUpRateLimit, Mail: sender, BaseURL: cfg.BaseURL, Authorizer: authServer,
		}),
		MCP:  mcpHandlers,
		Site: site,
	}
}

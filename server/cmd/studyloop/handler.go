package main

import (
	"io"
	"log/slog"
	"net/http"

	"github.com/studyloop/studyloop/build"
	"github.com/studyloop/studyloop/server/account"
	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/fastsite"
	"github.com/studyloop/studyloop/server/mail"
	"github.com/studyloop/studyloop/server/mcp"
	"github.com/studyloop/studyloop/server/oauth"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/study"
	"github.com/studyloop/studyloop/server/web"
	"github.com/studyloop/studyloop/server/webapp"
)

// newHandler builds everything the HTTP surface serves over db (sessions,
// the account, study and OAuth services, the mail sender, the browser
// pages, the MCP handlers and the loaded site) and returns the service as
// one http.Handler, with what the connection-level fast path answers in
// front of it (web.NewServerAndFastPath). Studies created through it are
// held to the account quotas of cfg; notify wakes an idle worker after one
// is created.
func newHandler(cfg config.Config, logger *slog.Logger, requestLog io.Writer, db *store.DB, notify func(), extractor *extract.Extractor) (http.Handler, fastsite.Answerer, error) {
	db = db.WithQuotas(cfg.Quotas)
	site, err := web.LoadSite(build.Site(), cfg.BaseURL)
	if err != nil {
		return nil, nil, err
	}
	sessions := session.New(db.Sessions(), &session.Options{Secure: cfg.Secure(), Logger: logger})
	accounts := account.NewService(db, nil)
	// One study service for the web app and /mcp, sharing its mastery cache.
	studies := study.New(db)
	authServer := oauth.New(db, sessions, cfg, &oauth.Options{Logger: logger})
	var sender webapp.Mailer
	if cfg.SMTPURL != "" {
		s, err := mail.New(cfg.SMTPURL, cfg.MailFrom)
		if err != nil {
			return nil, nil, err
		}
		sender = s
	}
	mcpHandlers, err := mcp.NewHandlers(mcp.HandlersOptions{
		Server: mcp.Options{Store: db, Mastery: studies, Notify: notify, Logger: logger},
		Guard:  mcp.GuardOptions{BaseURL: cfg.BaseURL, AllowedHosts: cfg.AllowedHosts},
		Site:   site.Static(),
	})
	if err != nil {
		return nil, nil, err
	}
	handler, fast := web.NewServerAndFastPath(web.Deps{
		Config:     cfg,
		Logger:     logger,
		RequestLog: requestLog,
		Sessions:   sessions,
		OAuth:      authServer,
		Pages: webapp.New(db, studies, sessions, logger, &webapp.Options{
			Notify: notify, Extractor: extractor, Accounts: accounts,
			SignUpsPerHour: cfg.SignUpRateLimit, Mail: sender, BaseURL: cfg.BaseURL, Authorizer: authServer,
		}),
		MCP:  mcpHandlers,
		Site: site,
	})
	return handler, fast, nil
}

// Package web is the HTTP surface of Studyloop: one constructor, NewServer,
// assembles every route (listed in routes.go) and the middleware around
// them. Handlers are made by small maker functions that take exactly what
// they use.
package web

import (
	"crypto/x509"
	"io"
	"io/fs"
	"log/slog"
	"net/http"

	"github.com/studyloop/studyloop/server/clientaddr"
	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/store"
)

// Deps is everything the HTTP surface needs. Every field is required unless
// its comment says otherwise.
type Deps struct {
	Config config.Config
	Logger *slog.Logger
	DB     *store.DB
	// Site is the built Hugo output (build.Site()).
	Site fs.FS
	// NotifyWorkers, if non-nil, wakes an idle study worker after a study is
	// created (worker.Pool.Notify). Optional: workers also poll.
	NotifyWorkers func()
	// Extractor reads uploaded PDFs and photos; the web app asks it which
	// uploads the server can read. Optional: nil means extract.New(nil).
	Extractor *extract.Extractor
	// RequestLog, if non-nil, receives the one line per request directly,
	// formatted as Logger's JSON handler would write it (same keys and
	// formats) at a fraction of the cost; give it the writer Logger writes
	// to. Optional: nil sends request lines through Logger.
	RequestLog io.Writer
	// ClientMetadataTestRoots is for tests only (oauth.Options has the
	// same field): nil in production.
	ClientMetadataTestRoots *x509.CertPool
}

// NewServer returns the whole service as one http.Handler. Studies created
// through it are held to the account quotas of d.Config.
func NewServer(d Deps) (http.Handler, error) {
	d.DB = d.DB.WithQuotas(d.Config.Quotas)
	mux := http.NewServeMux()
	if err := addRoutes(mux, d); err != nil {
		return nil, err
	}
	var h http.Handler = clientaddr.Resolve(d.Config.TrustedProxies, mux)
	h = recoverPanics(d.Logger, h)
	h = securityHeaders(d.Config, h)
	h = logRequests(d.Logger, d.RequestLog, h)
	return h, nil
}

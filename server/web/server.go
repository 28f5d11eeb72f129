// Package web is the HTTP edge of Studyloop: NewServer puts the handlers
// the command built (deps) behind the routes listed in routes.go and the
// middleware around every request. It builds nothing itself and cannot
// fail; the built site is loaded by LoadSite.
package web

import (
	"io"
	"io/fs"
	"log/slog"
	"net/http"

	"github.com/studyloop/studyloop/server/clientaddr"
	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/fastsite"
	"github.com/studyloop/studyloop/server/mcp"
	"github.com/studyloop/studyloop/server/oauth"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/static"
	"github.com/studyloop/studyloop/server/webapp"
)

// Deps is everything the HTTP surface serves, built by the command (serve)
// or, in tests, by webtest.Deps. Every field is required unless its
// comment says otherwise.
type Deps struct {
	Config config.Config
	Logger *slog.Logger
	// RequestLog, if non-nil, receives the one line per request directly,
	// formatted as Logger's JSON handler would write it (same keys and
	// formats) at a fraction of the cost; give it the writer Logger writes
	// to. Optional: nil sends request lines through Logger.
	RequestLog io.Writer
	// Sessions are the sign-in sessions with their CSRF tokens.
	Sessions *session.Manager
	// OAuth is the authorization server and the bearer check of /mcp.
	OAuth *oauth.Server
	// Pages are the browser pages: signing in and up, password reset, the
	// consent page and the web app.
	Pages *webapp.App
	// MCP are the handlers of /mcp and its discovery documents.
	MCP mcp.Handlers
	// Site is the built Hugo site (LoadSite).
	Site *Site
}

// NewServer returns the whole service as one http.Handler.
func NewServer(d Deps) http.Handler {
	h, _ := NewServerAndFastPath(d)
	return h
}

// NewServerAndFastPath is NewServer, and also returns what the
// connection-level fast path (package fastsite) answers in front of it:
// the GETs and HEADs of built paths that the handler's routeSiteFirst
// answers itself, answered with the same bytes and logged alike.
func NewServerAndFastPath(d Deps) (http.Handler, fastsite.Answerer) {
	mux := http.NewServeMux()
	addRoutes(mux, d)
	var h http.Handler = clientaddr.Resolve(d.Config.TrustedProxies, routeSiteFirst(mux, d.Site.files))
	h = recoverPanics(d.Logger, h)
	h = securityHeaders(d.Config, h)
	h = logRequests(d.Logger, d.RequestLog, h)
	return h, newFastAnswers(d, directSitePaths(mux, d.Site.files))
}

// Site is the built site, loaded once: every file from memory, with the
// public origin in place of the one it was built with.
type Site struct{ files *siteFiles }

// LoadSite loads the built site (build.Site(), or an fstest.MapFS in
// tests) for the public origin baseURL.
func LoadSite(fsys fs.FS, baseURL string) (*Site, error) {
	files, err := newSiteFiles(fsys, baseURL)
	if err != nil {
		return nil, err
	}
	return &Site{files: files}, nil
}

// Static returns the loaded files, from which /mcp serves its discovery
// documents.
func (s *Site) Static() *static.Site { return s.files.site }

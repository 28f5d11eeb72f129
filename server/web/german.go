package web

import (
	"net/http"
	"strings"

	"github.com/studyloop/studyloop/templates"
)

// handleGermanApp serves the web app in German at /de/app/…: the request
// goes through the same routes as /app/… (routes, the whole mux), with the
// German locale in its context (templates.WithLocale), so that pages speak
// German and their links and forms stay under /de (templates.AppPath), as
// do redirects into the app, which it rewrites. The study material itself,
// questions and answers included, is shown as it was written.
func handleGermanApp(routes http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner := r.Clone(templates.WithLocale(r.Context(), templates.German))
		inner.URL.Path = strings.TrimPrefix(r.URL.Path, "/de")
		inner.URL.RawPath = strings.TrimPrefix(r.URL.RawPath, "/de")
		routes.ServeHTTP(&germanRedirects{ResponseWriter: w, r: inner}, inner)
	})
}

// germanRedirects sends redirects into the app to the German app.
type germanRedirects struct {
	http.ResponseWriter
	r           *http.Request
	wroteHeader bool
}

func (g *germanRedirects) WriteHeader(code int) {
	if !g.wroteHeader {
		g.wroteHeader = true
		h := g.Header()
		if loc := h.Get("Location"); loc != "" {
			h.Set("Location", templates.AppPath(g.r.Context(), loc))
		}
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *germanRedirects) Write(p []byte) (int, error) {
	if !g.wroteHeader {
		g.WriteHeader(http.StatusOK)
	}
	return g.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (uploads
// extend its deadlines).
func (g *germanRedirects) Unwrap() http.ResponseWriter { return g.ResponseWriter }

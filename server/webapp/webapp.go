// Package webapp is the signed-in web app: the list of a student's studies
// with a form to create one, a study's page with its topics, mastery and
// what is due, and the practice page that asks due questions one at a time,
// grades them and schedules them with FSRS.
//
// Every handler expects the signed-in student's id in the request context
// (session.Manager.RequireUser puts it there) and form posts to be checked
// for the session's CSRF token (session.Manager.RequireCSRF). Everything a
// handler reads is scoped to that student: another student's study is
// answered exactly like a missing one, with 404.
package webapp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/a-h/templ"

	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/templates"
)

// Options adjusts an App. A nil *Options means every default.
type Options struct {
	// Notify, if non-nil, is called after a study is created, to wake an
	// idle worker (worker.Pool.Notify). Nil: workers find it on their own
	// next poll.
	Notify func()
	// Now returns the current time. Nil: time.Now.
	Now func() time.Time
	// Extractor reads uploaded PDFs and photos; the app asks it which
	// kinds the server can read. Nil: extract.New(nil).
	Extractor *extract.Extractor
}

// App makes the web app's handlers.
type App struct {
	db        *store.DB
	sessions  *session.Manager
	logger    *slog.Logger
	notify    func()
	now       func() time.Time
	extractor *extract.Extractor
}

// New returns the web app over db, with sessions for CSRF tokens and
// practice feedback.
func New(db *store.DB, sessions *session.Manager, logger *slog.Logger, opts *Options) *App {
	a := &App{db: db, sessions: sessions, logger: logger, notify: func() {}, now: time.Now}
	if opts != nil {
		if opts.Notify != nil {
			a.notify = opts.Notify
		}
		if opts.Now != nil {
			a.now = opts.Now
		}
		a.extractor = opts.Extractor
	}
	if a.extractor == nil {
		a.extractor = extract.New(nil)
	}
	return a
}

// userID returns the signed-in student. The routes wrap every handler of
// this package in RequireUser, so a missing id is a wiring mistake.
func userID(ctx context.Context) (int64, error) {
	id, ok := studyloop.UserIDFromContext(ctx)
	if !ok {
		return 0, errors.New("webapp: no signed-in user in the request context (route not wrapped in RequireUser)")
	}
	return id, nil
}

// render writes a page with the given status.
func (a *App) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := c.Render(r.Context(), w); err != nil {
		a.logger.Error("render", "path", r.URL.Path, "err", err)
	}
}

// statusFor maps an error code to the HTTP status of the page reporting it.
func statusFor(code string) int {
	switch code {
	case studyloop.ENOTFOUND:
		return http.StatusNotFound
	case studyloop.EINVALID:
		return http.StatusUnprocessableEntity
	case studyloop.ETOOLARGE:
		return http.StatusRequestEntityTooLarge
	case studyloop.ECONFLICT:
		return http.StatusConflict
	case studyloop.EQUOTA:
		return http.StatusTooManyRequests
	}
	return http.StatusInternalServerError
}

// fail shows err on a page of its own. Internal errors are logged and shown
// only as a generic message.
func (a *App) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := studyloop.ErrorCode(err)
	status := statusFor(code)
	if status == http.StatusInternalServerError {
		a.logger.Error("web app", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	title := http.StatusText(status)
	if code == studyloop.ENOTFOUND {
		title = "Not found"
	}
	a.render(w, r, status, templates.Page(templates.PageProps{
		Title: title, Error: studyloop.ErrorMessage(err), SignedIn: true,
	}))
}

func studyURL(id string) string    { return "/app/studies/" + id }
func practiceURL(id string) string { return "/app/studies/" + id + "/practice" }

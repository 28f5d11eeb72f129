// Package webapp holds every page people use in a browser, as methods of
// App that return an http.Handler (routes in server/web/routes.go).
//
// Signed out (signin.go, reset.go): signing up, in and out, and resetting
// a password by email; their forms carry the double-submit CSRF cookie's
// token. The consent page of the OAuth authorization endpoint
// (consent.go) shows what the Authorizer (oauth.Server) decides.
//
// Signed in, the web app: the list of a student's studies with a form to
// create one, a study's page with its topics, mastery and what is due,
// the pages that rename and delete a study and list, edit, suspend and
// delete its questions, its CSV and Anki export, and practice sessions
// that ask due questions one at a time, grade them, show the feedback and
// schedule the rating with FSRS. These handlers expect the signed-in
// student's id in the request context (session.Manager.RequireUser puts
// it there) and form posts to be checked for the session's CSRF token
// (session.Manager.RequireCSRF). Everything they read is scoped to that
// student: another student's study is answered exactly like a missing
// one, with 404.
package webapp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/studyloop/studyloop/server/account"
	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/respond"
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
	// Accounts changes passwords and deletes accounts. Nil:
	// account.NewService(db, nil).
	Accounts *account.Service
	// SignUpsPerHour is how many sign-ups one client may make in an hour
	// (config.Config.SignUpRateLimit); 0 sets no limit.
	SignUpsPerHour int
	// Mail, if non-nil, mails password reset links, and the sign-in page
	// offers them (SMTP_URL is set).
	Mail Mailer
	// BaseURL is the public origin that reset links name.
	BaseURL string
	// Authorizer is the OAuth authorization endpoint behind the consent
	// page (oauth.Server); Authorize and Decide need it.
	Authorizer Authorizer
}

// Study records answers and reports mastery; *study.Service implements
// it, with the mastery cache it shares with /mcp. A question or study of
// another student is reported as missing (studyloop.ENOTFOUND).
type Study interface {
	RecordAnswer(ctx context.Context, userID, questionID int64, r fsrs.Rating, now time.Time) (fsrs.Card, error)
	PreviewAnswer(ctx context.Context, userID, questionID int64, now time.Time) ([5]time.Time, error)
	StudyMastery(ctx context.Context, userID int64, studyID string, now time.Time) (studyloop.StudyMastery, error)
	MasterySummary(ctx context.Context, userID int64, now time.Time) (studyloop.MasterySummary, error)
}

// Mailer sends one plain-text email (mail.Sender).
type Mailer interface {
	Send(ctx context.Context, to, subject, body string) error
}

// App makes the web app's handlers.
type App struct {
	db        *store.DB
	study     Study
	sessions  *session.Manager
	logger    *slog.Logger
	notify    func()
	now       func() time.Time
	extractor *extract.Extractor
	accounts  *account.Service
	uploads   *uploadSlots
	// The signed-out pages (signin.go, reset.go).
	signUpsPerHour int
	mail           Mailer
	baseURL        string
	// The consent page (consent.go).
	authorizer Authorizer
}

// New returns the web app over db and the study service, with sessions
// for CSRF tokens, flash messages and practice runs.
func New(db *store.DB, study Study, sessions *session.Manager, logger *slog.Logger, opts *Options) *App {
	a := &App{db: db, study: study, sessions: sessions, logger: logger, notify: func() {}, now: time.Now, uploads: &uploadSlots{active: map[int64]int{}}}
	if opts != nil {
		if opts.Notify != nil {
			a.notify = opts.Notify
		}
		if opts.Now != nil {
			a.now = opts.Now
		}
		a.extractor = opts.Extractor
		a.accounts = opts.Accounts
		a.signUpsPerHour, a.mail, a.baseURL = opts.SignUpsPerHour, opts.Mail, opts.BaseURL
		a.authorizer = opts.Authorizer
	}
	if a.extractor == nil {
		a.extractor = extract.New(nil)
	}
	if a.accounts == nil {
		a.accounts = account.NewService(db, nil)
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

// render writes a page with the given status, with the signed-in
// student's account menu in its header.
func (a *App) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	ctx := r.Context()
	if menu, err := a.accountMenu(r); err != nil {
		a.logger.Error("account menu", "path", r.URL.Path, "err", err)
	} else {
		ctx = templates.WithAccountMenu(ctx, menu)
	}
	w.Header().Set("Cache-Control", "no-store")
	respond.HTML(a.logger, w, r.WithContext(ctx), status, c)
}

// accountMenu is what the app header shows of the signed-in student: the
// email, the session's CSRF token for signing out, and the page in the
// other language (the app's home for a form post).
func (a *App) accountMenu(r *http.Request) (templates.AccountMenu, error) {
	ctx := r.Context()
	user, err := userID(ctx)
	if err != nil {
		return templates.AccountMenu{}, err
	}
	u, err := a.db.UserByID(ctx, user)
	if err != nil {
		return templates.AccountMenu{}, err
	}
	page := "/app"
	if r.Method == http.MethodGet {
		page = strings.TrimPrefix(r.URL.RequestURI(), "/de")
	}
	other := templates.WithLocale(ctx, templates.German)
	if templates.Locale(ctx) == templates.German {
		other = templates.WithLocale(ctx, templates.English)
	}
	return templates.AccountMenu{Email: u.Email, CSRFToken: a.sessions.CSRFToken(ctx), SwitchURL: templates.AppPath(other, page)}, nil
}

// fail shows err on a page of its own, with the status respond.Status
// gives its code. Internal errors are logged and shown only as
// respond.ServerErrorText.
func (a *App) fail(w http.ResponseWriter, r *http.Request, err error) {
	if ctxErr := r.Context().Err(); ctxErr != nil {
		// The request was cut off and the work stopped with it: no page
		// for nobody.
		if !errors.Is(err, ctxErr) {
			a.logger.Debug("request cut off", "method", r.Method, "path", r.URL.Path, "err", err)
		}
		respond.CutOff(w)
		return
	}
	status, msg := respond.StatusOf(err), studyloop.ErrorMessage(err)
	if status == http.StatusInternalServerError {
		respond.LogServerError(a.logger, r, err)
		msg = respond.ServerErrorText
	}
	title := http.StatusText(status)
	if status == http.StatusNotFound {
		title = "Not found"
	}
	a.render(w, r, status, templates.AppPage(templates.PageProps{
		Title: title, Error: msg, SignedIn: true,
	}))
}

func studyURL(id string) string    { return "/app/studies/" + id }
func practiceURL(id string) string { return "/app/studies/" + id + "/practice" }

package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/a-h/templ"

	"github.com/studyloop/studyloop/server/account"
	"github.com/studyloop/studyloop/server/clientaddr"
	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/ratelimit"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/templates"
)

// afterSignIn is where students go after signing in or up when no ?next=
// names a page: the practice app.
const afterSignIn = "/app"

// expiredForm is the message for a form whose CSRF token does not match.
const expiredForm = "The form expired. Please try again."

// userLookup finds the signed-in account for display.
type userLookup interface {
	UserByID(ctx context.Context, id int64) (*studyloop.User, error)
}

// handleSignUpPage answers GET /signup.
func handleSignUpPage(sessions *session.Manager) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next := session.SafeNext(r.URL.Query().Get("next"), afterSignIn)
		if _, ok := sessions.UserID(r.Context()); ok {
			http.Redirect(w, r, next, http.StatusSeeOther)
			return
		}
		renderAccountPage(w, r, http.StatusOK, templates.SignUp(authForm(w, r, sessions, "Create your account", "")))
	})
}

// handleSignUp answers POST /signup: it creates the account and signs the
// student in. Each client (clientaddr.Key: an IPv4 address or an IPv6 /64)
// may try cfg.SignUpRateLimit times an hour, half of them at once; beyond
// that the answer is 429 with Retry-After.
func handleSignUp(logger *slog.Logger, cfg config.Config, accounts *account.Service, sessions *session.Manager) http.Handler {
	attempts := ratelimit.New(cfg.SignUpRateLimit, max(1, cfg.SignUpRateLimit/2))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sessions.ValidAnonymousCSRF(r) {
			renderAccountPage(w, r, http.StatusForbidden, templates.SignUp(authForm(w, r, sessions, "Create your account", expiredForm)))
			return
		}
		if ok, wait := attempts.Allow(clientaddr.Key(r), time.Now()); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfterSeconds(wait)))
			msg := "Too many sign-ups came from your network recently. Try again in " + studyloop.Wait(wait) + "."
			renderAccountPage(w, r, http.StatusTooManyRequests, templates.SignUp(authForm(w, r, sessions, "Create your account", msg)))
			return
		}
		u, err := accounts.SignUp(r.Context(), r.PostForm.Get("email"), r.PostForm.Get("password"))
		if err != nil {
			status := http.StatusBadRequest
			switch studyloop.ErrorCode(err) {
			case studyloop.EINVALID:
			case studyloop.ECONFLICT:
				status = http.StatusConflict
			default:
				accountServerError(logger, w, r, err)
				return
			}
			renderAccountPage(w, r, status, templates.SignUp(authForm(w, r, sessions, "Create your account", studyloop.ErrorMessage(err))))
			return
		}
		if err := sessions.SignIn(r.Context(), u.ID); err != nil {
			accountServerError(logger, w, r, err)
			return
		}
		http.Redirect(w, r, session.SafeNext(r.URL.Query().Get("next"), afterSignIn), http.StatusSeeOther)
	})
}

// signInForm fills the sign-in form, which offers a reset link when
// canReset (SMTP_URL is set).
func signInForm(w http.ResponseWriter, r *http.Request, sessions *session.Manager, canReset bool, errMsg string) templates.AuthFormProps {
	p := authForm(w, r, sessions, "Sign in", errMsg)
	p.CanReset = canReset
	return p
}

// handleSignInPage answers GET /signin.
func handleSignInPage(sessions *session.Manager, canReset bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next := session.SafeNext(r.URL.Query().Get("next"), afterSignIn)
		if _, ok := sessions.UserID(r.Context()); ok {
			http.Redirect(w, r, next, http.StatusSeeOther)
			return
		}
		renderAccountPage(w, r, http.StatusOK, templates.SignIn(signInForm(w, r, sessions, canReset, "")))
	})
}

// handleSignIn answers POST /signin. Repeated failures for one account or
// one client (clientaddr.Key: an IPv4 address or an IPv6 /64) are answered
// 429 for a growing while.
func handleSignIn(logger *slog.Logger, accounts *account.Service, sessions *session.Manager, canReset bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sessions.ValidAnonymousCSRF(r) {
			renderAccountPage(w, r, http.StatusForbidden, templates.SignIn(signInForm(w, r, sessions, canReset, expiredForm)))
			return
		}
		u, err := accounts.SignIn(r.Context(), r.PostForm.Get("email"), r.PostForm.Get("password"), clientaddr.Key(r))
		var throttled *account.ThrottledError
		switch {
		case errors.As(err, &throttled):
			w.Header().Set("Retry-After", strconv.Itoa(throttled.Seconds()))
			renderAccountPage(w, r, http.StatusTooManyRequests, templates.SignIn(signInForm(w, r, sessions, canReset, throttled.Error())))
			return
		case errors.Is(err, account.ErrBadCredentials):
			renderAccountPage(w, r, http.StatusUnauthorized, templates.SignIn(signInForm(w, r, sessions, canReset, studyloop.ErrorMessage(err))))
			return
		case err != nil:
			accountServerError(logger, w, r, err)
			return
		}
		if err := sessions.SignIn(r.Context(), u.ID); err != nil {
			accountServerError(logger, w, r, err)
			return
		}
		http.Redirect(w, r, session.SafeNext(r.URL.Query().Get("next"), afterSignIn), http.StatusSeeOther)
	})
}

// handleSignOutPage answers GET /signout with a confirmation form (signing
// out by a plain link would let other sites sign students out).
func handleSignOutPage(logger *slog.Logger, users userLookup, sessions *session.Manager) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		props := templates.SignOutProps{Page: templates.PageProps{Title: "Sign out"}}
		if id, ok := sessions.UserID(r.Context()); ok {
			u, err := users.UserByID(r.Context(), id)
			if err != nil {
				accountServerError(logger, w, r, err)
				return
			}
			props.Email, props.Page.SignedIn, props.CSRFToken = u.Email, true, sessions.CSRFToken(r.Context())
		}
		renderAccountPage(w, r, http.StatusOK, templates.SignOut(props))
	})
}

// handleSignOut answers POST /signout.
func handleSignOut(logger *slog.Logger, sessions *session.Manager) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sessions.ValidCSRF(r) {
			http.Redirect(w, r, "/signout", http.StatusSeeOther)
			return
		}
		if err := sessions.SignOut(r.Context()); err != nil {
			accountServerError(logger, w, r, err)
			return
		}
		renderAccountPage(w, r, http.StatusOK, templates.SignOut(templates.SignOutProps{
			Page: templates.PageProps{Title: "Sign out", Flash: "You are signed out."},
		}))
	})
}

// authForm fills the sign-in and sign-up forms. Their CSRF token is the
// double-submit cookie's, so that showing them stores no session.
func authForm(w http.ResponseWriter, r *http.Request, sessions *session.Manager, title, errMsg string) templates.AuthFormProps {
	next := session.SafeNext(r.URL.Query().Get("next"), "")
	return templates.AuthFormProps{
		Page:             templates.PageProps{Title: title, Error: errMsg},
		Email:            r.PostFormValue("email"),
		Next:             next,
		CSRFToken:        sessions.AnonymousCSRFToken(w, r),
		MinPasswordChars: account.MinPasswordChars,
	}
}

// renderAccountPage writes an HTML page with the given status.
func renderAccountPage(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	c.Render(r.Context(), w) //nolint:errcheck // the client went away
}

// accountServerError logs err and answers 500 without details.
func accountServerError(logger *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	logger.Error("request failed", "path", r.URL.Path, "err", err)
	http.Error(w, "Something went wrong on our side.", http.StatusInternalServerError)
}

package webapp

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/studyloop/studyloop/server/account"
	"github.com/studyloop/studyloop/server/clientaddr"
	"github.com/studyloop/studyloop/server/ratelimit"
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/templates"
)

// afterSignIn is where students go after signing in or up when no ?next=
// names a page: the practice app.
const afterSignIn = "/app"

// expiredForm is the message for a form whose CSRF token does not match.
const expiredForm = "The form expired. Please try again."

// SignUpPage answers GET /signup.
func (a *App) SignUpPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next := session.SafeNext(r.URL.Query().Get("next"), afterSignIn)
		if _, ok := a.sessions.UserID(r.Context()); ok {
			http.Redirect(w, r, next, http.StatusSeeOther)
			return
		}
		respond.HTML(a.logger, w, r, http.StatusOK, templates.SignUp(a.authForm(w, r, "Create your account", "")))
	})
}

// SignUp answers POST /signup: it creates the account and signs the
// student in. Each client (clientaddr.Key: an IPv4 address or an IPv6
// /64) may try Options.SignUpsPerHour times an hour, half of them at once;
// beyond that the answer is 429 with Retry-After.
func (a *App) SignUp() http.Handler {
	attempts := ratelimit.New(a.signUpsPerHour, max(1, a.signUpsPerHour/2))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.sessions.ValidAnonymousCSRF(r) {
			respond.HTML(a.logger, w, r, http.StatusForbidden, templates.SignUp(a.authForm(w, r, "Create your account", expiredForm)))
			return
		}
		if ok, wait := attempts.Allow(clientaddr.Key(r), a.now()); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfterSeconds(wait)))
			msg := "Too many sign-ups came from your network recently. Try again in " + studyloop.Wait(wait) + "."
			respond.HTML(a.logger, w, r, http.StatusTooManyRequests, templates.SignUp(a.authForm(w, r, "Create your account", msg)))
			return
		}
		u, err := a.accounts.SignUp(r.Context(), r.PostForm.Get("email"), r.PostForm.Get("password"))
		if err != nil {
			status := respond.StatusOf(err)
			if status == http.StatusInternalServerError {
				respond.ServerError(a.logger, w, r, err)
				return
			}
			respond.HTML(a.logger, w, r, status, templates.SignUp(a.authForm(w, r, "Create your account", studyloop.ErrorMessage(err))))
			return
		}
		if err := a.sessions.SignIn(r.Context(), u.ID); err != nil {
			respond.ServerError(a.logger, w, r, err)
			return
		}
		http.Redirect(w, r, session.SafeNext(r.URL.Query().Get("next"), afterSignIn), http.StatusSeeOther)
	})
}

// signInForm fills the sign-in form, which offers a reset link when reset
// links can be mailed (Options.Mail).
func (a *App) signInForm(w http.ResponseWriter, r *http.Request, errMsg string) templates.AuthFormProps {
	p := a.authForm(w, r, "Sign in", errMsg)
	p.CanReset = a.mail != nil
	return p
}

// SignInPage answers GET /signin.
func (a *App) SignInPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next := session.SafeNext(r.URL.Query().Get("next"), afterSignIn)
		if _, ok := a.sessions.UserID(r.Context()); ok {
			http.Redirect(w, r, next, http.StatusSeeOther)
			return
		}
		respond.HTML(a.logger, w, r, http.StatusOK, templates.SignIn(a.signInForm(w, r, "")))
	})
}

// SignIn answers POST /signin. Repeated failures for one account or one
// client (clientaddr.Key: an IPv4 address or an IPv6 /64) are answered
// 429 for a growing while.
func (a *App) SignIn() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.sessions.ValidAnonymousCSRF(r) {
			respond.HTML(a.logger, w, r, http.StatusForbidden, templates.SignIn(a.signInForm(w, r, expiredForm)))
			return
		}
		u, err := a.accounts.SignIn(r.Context(), r.PostForm.Get("email"), r.PostForm.Get("password"), clientaddr.Key(r))
		var throttled *account.ThrottledError
		switch {
		case errors.As(err, &throttled):
			w.Header().Set("Retry-After", strconv.Itoa(throttled.Seconds()))
			respond.HTML(a.logger, w, r, http.StatusTooManyRequests, templates.SignIn(a.signInForm(w, r, throttled.Error())))
			return
		case errors.Is(err, account.ErrBadCredentials):
			respond.HTML(a.logger, w, r, http.StatusUnauthorized, templates.SignIn(a.signInForm(w, r, studyloop.ErrorMessage(err))))
			return
		case err != nil:
			respond.ServerError(a.logger, w, r, err)
			return
		}
		if err := a.sessions.SignIn(r.Context(), u.ID); err != nil {
			respond.ServerError(a.logger, w, r, err)
			return
		}
		http.Redirect(w, r, session.SafeNext(r.URL.Query().Get("next"), afterSignIn), http.StatusSeeOther)
	})
}

// SignOutPage answers GET /signout with a confirmation form (signing out
// by a plain link would let other sites sign students out).
func (a *App) SignOutPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		props := templates.SignOutProps{Page: templates.PageProps{Title: "Sign out"}}
		if id, ok := a.sessions.UserID(r.Context()); ok {
			u, err := a.db.UserByID(r.Context(), id)
			if err != nil {
				respond.ServerError(a.logger, w, r, err)
				return
			}
			props.Email, props.Page.SignedIn, props.CSRFToken = u.Email, true, a.sessions.CSRFToken(r.Context())
		}
		respond.HTML(a.logger, w, r, http.StatusOK, templates.SignOut(props))
	})
}

// SignOut answers POST /signout.
func (a *App) SignOut() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.sessions.ValidCSRF(r) {
			http.Redirect(w, r, "/signout", http.StatusSeeOther)
			return
		}
		if err := a.sessions.SignOut(r.Context()); err != nil {
			respond.ServerError(a.logger, w, r, err)
			return
		}
		respond.HTML(a.logger, w, r, http.StatusOK, templates.SignOut(templates.SignOutProps{
			Page: templates.PageProps{Title: "Sign out", Flash: "You are signed out."},
		}))
	})
}

// authForm fills the sign-in and sign-up forms. Their CSRF token is the
// double-submit cookie's, so that showing them stores no session.
func (a *App) authForm(w http.ResponseWriter, r *http.Request, title, errMsg string) templates.AuthFormProps {
	next := session.SafeNext(r.URL.Query().Get("next"), "")
	return templates.AuthFormProps{
		Page:             templates.PageProps{Title: title, Error: errMsg},
		Email:            r.PostFormValue("email"),
		Next:             next,
		CSRFToken:        a.sessions.AnonymousCSRFToken(w, r),
		MinPasswordChars: account.MinPasswordChars,
	}
}

package webapp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/studyloop/studyloop/server/account"
	"github.com/studyloop/studyloop/server/clientaddr"
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/templates"
)

// Password reset by email, offered when SMTP_URL is set: /signin/forgot
// asks for the address and mails a link to /reset?token=…, which lets the
// holder choose a new password once within account.ResetLifetime. The
// token travels in the query, which the request log leaves out.

// ResetURL is the address of the page a reset token opens.
func ResetURL(baseURL, token string) string {
	return baseURL + "/reset?" + url.Values{"token": {token}}.Encode()
}

// ForgotPage answers GET /signin/forgot.
func (a *App) ForgotPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		respond.HTML(a.logger, w, r, http.StatusOK, templates.Forgot(templates.ForgotProps{
			Page:      templates.PageProps{Title: "Reset your password"},
			CSRFToken: a.sessions.AnonymousCSRFToken(w, r),
		}))
	})
}

// Forgot answers POST /signin/forgot: for an address with an
// account it mails a reset link, in the background, so that the answer,
// the same for every address, comes as fast either way. Requests are
// limited per address and per client (429 with Retry-After).
func (a *App) Forgot() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		email := r.PostFormValue("email")
		props := templates.ForgotProps{Page: templates.PageProps{Title: "Reset your password"}, Email: email}
		refuse := func(status int, msg string) {
			props.CSRFToken, props.EmailError = a.sessions.AnonymousCSRFToken(w, r), msg
			respond.HTML(a.logger, w, r, status, templates.Forgot(props))
		}
		if !a.sessions.ValidAnonymousCSRF(r) {
			refuse(http.StatusForbidden, expiredForm)
			return
		}
		tok, err := a.accounts.StartReset(r.Context(), email, clientaddr.Key(r))
		var throttled *account.ThrottledError
		switch {
		case errors.As(err, &throttled):
			w.Header().Set("Retry-After", strconv.Itoa(throttled.Seconds()))
			refuse(http.StatusTooManyRequests, throttled.Error())
			return
		case studyloop.ErrorCode(err) == studyloop.EINVALID:
			refuse(respond.StatusOf(err), studyloop.ErrorMessage(err))
			return
		case err != nil:
			respond.ServerError(a.logger, w, r, err)
			return
		}
		if tok != nil {
			go a.sendResetLink(context.WithoutCancel(r.Context()), tok)
		}
		props.Sent = true
		respond.HTML(a.logger, w, r, http.StatusOK, templates.Forgot(props))
	})
}

// sendResetLink mails the reset link; a failure is logged (the student
// sees the same page either way and may ask again).
func (a *App) sendResetLink(ctx context.Context, tok *account.ResetToken) {
	minutes := int(account.ResetLifetime.Minutes())
	body := fmt.Sprintf(`Someone, hopefully you, asked to reset the password of the Studyloop account %s.

To choose a new password, open this link within %d minutes. It works once:

%s

Choosing a new password signs you out on every device and disconnects every assistant.
If you did not ask, ignore this email; your password stays as it is.
`, tok.Email, minutes, ResetURL(a.baseURL, tok.Token))
	if err := a.mail.Send(ctx, tok.Email, "Reset your Studyloop password", body); err != nil {
		a.logger.Error("password reset email not sent", "err", err)
	}
}

// ResetPage answers GET /reset?token=…: the form for a new password while
// the link works, or a page saying it no longer does.
func (a *App) ResetPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := r.URL.Query().Get("token")
		u, err := a.accounts.ResetUser(r.Context(), token)
		if err != nil {
			a.resetLinkFailed(w, r, err)
			return
		}
		respond.HTML(a.logger, w, r, http.StatusOK, templates.Reset(templates.ResetProps{
			Page:             templates.PageProps{Title: "Choose a new password"},
			CSRFToken:        a.sessions.AnonymousCSRFToken(w, r),
			Token:            token,
			Email:            u.Email,
			MinPasswordChars: account.MinPasswordChars,
		}))
	})
}

// Reset answers POST /reset: it spends the token, sets the new password
// (ending every session and agent grant of the account) and signs this
// browser in.
func (a *App) Reset() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := r.PostFormValue("token")
		props := templates.ResetProps{
			Page:             templates.PageProps{Title: "Choose a new password"},
			Token:            token,
			Email:            r.PostFormValue("email"),
			MinPasswordChars: account.MinPasswordChars,
		}
		refuse := func(status int, msg string) {
			props.CSRFToken, props.PasswordError = a.sessions.AnonymousCSRFToken(w, r), msg
			respond.HTML(a.logger, w, r, status, templates.Reset(props))
		}
		if !a.sessions.ValidAnonymousCSRF(r) {
			refuse(http.StatusForbidden, expiredForm)
			return
		}
		userID, err := a.accounts.FinishReset(r.Context(), token, r.PostFormValue("password"))
		switch {
		case errors.Is(err, store.ErrResetInvalid):
			a.resetLinkFailed(w, r, err)
			return
		case studyloop.ErrorCode(err) == studyloop.EINVALID:
			refuse(respond.StatusOf(err), studyloop.ErrorMessage(err))
			return
		case err != nil:
			respond.ServerError(a.logger, w, r, err)
			return
		}
		if err := a.sessions.SignIn(r.Context(), userID); err != nil {
			respond.ServerError(a.logger, w, r, err)
			return
		}
		http.Redirect(w, r, afterSignIn, http.StatusSeeOther)
	})
}

// resetLinkFailed answers a reset link that no longer works (410), or an
// internal error.
func (a *App) resetLinkFailed(w http.ResponseWriter, r *http.Request, err error) {
	if !errors.Is(err, store.ErrResetInvalid) {
		respond.ServerError(a.logger, w, r, err)
		return
	}
	respond.HTML(a.logger, w, r, http.StatusGone, templates.Reset(templates.ResetProps{
		Page: templates.PageProps{Title: "Choose a new password", Error: studyloop.ErrorMessage(err)},
	}))
}

package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"

	"github.com/studyloop/studyloop/server/account"
	"github.com/studyloop/studyloop/server/clientaddr"
	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/templates"
)

// Password reset by email, offered when SMTP_URL is set: /signin/forgot
// asks for the address and mails a link to /reset?token=…, which lets the
// holder choose a new password once within account.ResetLifetime. The
// token travels in the query, which the request log leaves out.

// mailer sends one plain-text email (mail.Sender).
type mailer interface {
	Send(ctx context.Context, to, subject, body string) error
}

// ResetURL is the address of the page a reset token opens.
func ResetURL(baseURL, token string) string {
	return baseURL + "/reset?" + url.Values{"token": {token}}.Encode()
}

// handleForgotPage answers GET /signin/forgot.
func handleForgotPage(sessions *session.Manager) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		renderAccountPage(w, r, http.StatusOK, templates.Forgot(templates.ForgotProps{
			Page:      templates.PageProps{Title: "Reset your password"},
			CSRFToken: sessions.AnonymousCSRFToken(w, r),
		}))
	})
}

// handleForgot answers POST /signin/forgot: for an address with an
// account it mails a reset link, in the background, so that the answer,
// the same for every address, comes as fast either way. Requests are
// limited per address and per client (429 with Retry-After).
func handleForgot(logger *slog.Logger, cfg config.Config, accounts *account.Service, sessions *session.Manager, mail mailer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		email := r.PostFormValue("email")
		props := templates.ForgotProps{Page: templates.PageProps{Title: "Reset your password"}, Email: email}
		refuse := func(status int, msg string) {
			props.CSRFToken, props.EmailError = sessions.AnonymousCSRFToken(w, r), msg
			renderAccountPage(w, r, status, templates.Forgot(props))
		}
		if !sessions.ValidAnonymousCSRF(r) {
			refuse(http.StatusForbidden, expiredForm)
			return
		}
		tok, err := accounts.StartReset(r.Context(), email, clientaddr.Key(r))
		var throttled *account.ThrottledError
		switch {
		case errors.As(err, &throttled):
			w.Header().Set("Retry-After", strconv.Itoa(throttled.Seconds()))
			refuse(http.StatusTooManyRequests, throttled.Error())
			return
		case studyloop.ErrorCode(err) == studyloop.EINVALID:
			refuse(http.StatusUnprocessableEntity, studyloop.ErrorMessage(err))
			return
		case err != nil:
			accountServerError(logger, w, r, err)
			return
		}
		if tok != nil {
			go sendResetLink(context.WithoutCancel(r.Context()), logger, mail, cfg.BaseURL, tok)
		}
		props.Sent = true
		renderAccountPage(w, r, http.StatusOK, templates.Forgot(props))
	})
}

// sendResetLink mails the reset link; a failure is logged (the student
// sees the same page either way and may ask again).
func sendResetLink(ctx context.Context, logger *slog.Logger, mail mailer, baseURL string, tok *account.ResetToken) {
	minutes := int(account.ResetLifetime.Minutes())
	body := fmt.Sprintf(`Someone, hopefully you, asked to reset the password of the Studyloop account %s.

To choose a new password, open this link within %d minutes. It works once:

%s

Choosing a new password signs you out on every device and disconnects every assistant.
If you did not ask, ignore this email; your password stays as it is.
`, tok.Email, minutes, ResetURL(baseURL, tok.Token))
	if err := mail.Send(ctx, tok.Email, "Reset your Studyloop password", body); err != nil {
		logger.Error("password reset email not sent", "err", err)
	}
}

// handleResetPage answers GET /reset?token=…: the form for a new password
// while the link works, or a page saying it no longer does.
func handleResetPage(logger *slog.Logger, accounts *account.Service, sessions *session.Manager) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := r.URL.Query().Get("token")
		u, err := accounts.ResetUser(r.Context(), token)
		if err != nil {
			resetLinkFailed(logger, w, r, err)
			return
		}
		renderAccountPage(w, r, http.StatusOK, templates.Reset(templates.ResetProps{
			Page:             templates.PageProps{Title: "Choose a new password"},
			CSRFToken:        sessions.AnonymousCSRFToken(w, r),
			Token:            token,
			Email:            u.Email,
			MinPasswordChars: account.MinPasswordChars,
		}))
	})
}

// handleReset answers POST /reset: it spends the token, sets the new
// password (ending every session and agent grant of the account) and signs
// this browser in.
func handleReset(logger *slog.Logger, accounts *account.Service, sessions *session.Manager) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := r.PostFormValue("token")
		props := templates.ResetProps{
			Page:             templates.PageProps{Title: "Choose a new password"},
			Token:            token,
			Email:            r.PostFormValue("email"),
			MinPasswordChars: account.MinPasswordChars,
		}
		refuse := func(status int, msg string) {
			props.CSRFToken, props.PasswordError = sessions.AnonymousCSRFToken(w, r), msg
			renderAccountPage(w, r, status, templates.Reset(props))
		}
		if !sessions.ValidAnonymousCSRF(r) {
			refuse(http.StatusForbidden, expiredForm)
			return
		}
		userID, err := accounts.FinishReset(r.Context(), token, r.PostFormValue("password"))
		switch {
		case errors.Is(err, store.ErrResetInvalid):
			resetLinkFailed(logger, w, r, err)
			return
		case studyloop.ErrorCode(err) == studyloop.EINVALID:
			refuse(http.StatusUnprocessableEntity, studyloop.ErrorMessage(err))
			return
		case err != nil:
			accountServerError(logger, w, r, err)
			return
		}
		if err := sessions.SignIn(r.Context(), userID); err != nil {
			accountServerError(logger, w, r, err)
			return
		}
		http.Redirect(w, r, afterSignIn, http.StatusSeeOther)
	})
}

// resetLinkFailed answers a reset link that no longer works (410), or an
// internal error.
func resetLinkFailed(logger *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	if !errors.Is(err, store.ErrResetInvalid) {
		accountServerError(logger, w, r, err)
		return
	}
	renderAccountPage(w, r, http.StatusGone, templates.Reset(templates.ResetProps{
		Page: templates.PageProps{Title: "Choose a new password", Error: studyloop.ErrorMessage(err)},
	}))
}

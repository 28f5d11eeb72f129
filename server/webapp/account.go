package webapp

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/studyloop/studyloop/server/account"
	"github.com/studyloop/studyloop/server/clientaddr"
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/templates"
)

// accountURL is the student's account page.
const accountURL = "/app/account"

// keyAccountFlash holds the account page's confirmation across the
// redirect after a change.
const keyAccountFlash = "account_flash"

// accountForm is what the account page shows again after a refusal.
type accountForm struct {
	passwordErrors map[string]string
	deleteError    string
}

// Account answers GET /app/account: the student's email, the form to
// change the password, how many assistants are connected (with a link to
// revoke them) and the form to delete the account.
func (a *App) Account() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.renderAccount(w, r, http.StatusOK, accountForm{})
	})
}

func (a *App) renderAccount(w http.ResponseWriter, r *http.Request, status int, form accountForm) {
	ctx := r.Context()
	user, err := userID(ctx)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	u, err := a.db.UserByID(ctx, user)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	grants, err := a.db.UserGrants(ctx, user, a.now())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.render(w, r, status, templates.Account(templates.AccountProps{
		Page:             templates.PageProps{Title: "Account", SignedIn: true, Flash: a.sessions.PopString(ctx, keyAccountFlash)},
		CSRFToken:        a.sessions.CSRFToken(ctx),
		Email:            u.Email,
		Assistants:       len(grants),
		PasswordErrors:   form.passwordErrors,
		DeleteError:      form.deleteError,
		MinPasswordChars: account.MinPasswordChars,
	}))
}

// ChangePassword answers POST /app/account/password: with the current
// password right, it stores the new one, which signs the student out
// everywhere else and ends every agent grant; this browser stays signed
// in under a new session token. A refusal is shown beside its field.
func (a *App) ChangePassword() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		err = a.accounts.ChangePassword(ctx, user, r.PostFormValue("current"), r.PostFormValue("new"), clientaddr.Key(r))
		if status, field, ok := a.accountRefusal(w, err, "new"); ok {
			a.renderAccount(w, r, status, accountForm{passwordErrors: map[string]string{field: studyloop.ErrorMessage(err)}})
			return
		}
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if err := a.sessions.SignIn(ctx, user); err != nil {
			a.fail(w, r, err)
			return
		}
		a.sessions.PutString(ctx, keyAccountFlash, "Your password is changed. Every other device is signed out and every assistant disconnected.")
		http.Redirect(w, r, templates.AppPath(ctx, accountURL), http.StatusSeeOther)
	})
}

// DeleteAccount answers POST /app/account/delete: with the password right,
// it deletes the account and everything in it, signs the browser out and
// says so.
func (a *App) DeleteAccount() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		err = a.accounts.DeleteAccount(ctx, user, r.PostFormValue("password"), clientaddr.Key(r))
		if status, _, ok := a.accountRefusal(w, err, "password"); ok {
			a.renderAccount(w, r, status, accountForm{deleteError: studyloop.ErrorMessage(err)})
			return
		}
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if err := a.sessions.SignOut(ctx); err != nil {
			a.fail(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		respond.HTML(a.logger, w, r, http.StatusOK, templates.AccountDeleted())
	})
}

// accountRefusal tells whether err refuses an account form (rather than
// failing): its status, and the field it belongs to, which is "current"
// for a wrong or throttled password and invalidField for an invalid new
// one. A throttled attempt gets Retry-After.
func (a *App) accountRefusal(w http.ResponseWriter, err error, invalidField string) (int, string, bool) {
	var throttled *account.ThrottledError
	switch {
	case errors.As(err, &throttled):
		w.Header().Set("Retry-After", strconv.Itoa(throttled.Seconds()))
		return http.StatusTooManyRequests, "current", true
	case errors.Is(err, account.ErrWrongPassword):
		return http.StatusUnauthorized, "current", true
	case studyloop.ErrorCode(err) == studyloop.EINVALID:
		return respond.StatusOf(err), invalidField, true
	}
	return 0, "", false
}

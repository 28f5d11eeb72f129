package webapp

import (
	"net/http"
	"strconv"

	"github.com/studyloop/studyloop/server/oauth"
	"github.com/studyloop/studyloop/server/ratelimit"
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/templates"
)

// The consent page of the OAuth authorization endpoint: the protocol
// (validating the request, keeping it pending in the session, minting the
// code) is the Authorizer's; these handlers read the form and show what
// it answers.

// Authorizer validates authorization requests and carries out the
// student's decision (oauth.Server).
type Authorizer interface {
	Authorize(r *http.Request) oauth.Answer
	Decide(r *http.Request, requestToken string, approve bool) oauth.Answer
}

// Authorize answers GET /oauth/authorize: the consent page, a redirect, or
// why the request cannot be completed. The route loads the session.
func (a *App) Authorize() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.answerAuthorization(w, r, a.authorizer.Authorize(r))
	})
}

// Decide answers POST /oauth/authorize, the consent form. The route loads
// the session and parses the form.
func (a *App) Decide() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := r.PostForm.Get(session.CSRFField)
		if token == "" {
			a.authorizationProblem(w, r, http.StatusForbidden, "The approval form is missing its security token. Go back to the app and start connecting again.")
			return
		}
		// The decision is checked before the pending request is taken, so
		// that a post without one leaves the request to be answered.
		decision := r.PostForm.Get("decision")
		if decision != "approve" && decision != "deny" {
			a.authorizationProblem(w, r, http.StatusBadRequest, "Choose Approve or Deny.")
			return
		}
		a.answerAuthorization(w, r, a.authorizer.Decide(r, token, decision == "approve"))
	})
}

// answerAuthorization shows what the authorization endpoint answered.
func (a *App) answerAuthorization(w http.ResponseWriter, r *http.Request, answer oauth.Answer) {
	switch {
	case answer.Err != nil:
		respond.LogServerError(a.logger, r, answer.Err)
		a.authorizationProblem(w, r, http.StatusInternalServerError, respond.ServerErrorText)
	case answer.Redirect != "":
		http.Redirect(w, r, answer.Redirect, http.StatusSeeOther)
	case answer.Consent != nil:
		c := answer.Consent
		respond.HTML(a.logger, w, r, http.StatusOK, templates.Consent(templates.ConsentProps{
			Page:         templates.PageProps{Title: "Connect an app to Studyloop", SignedIn: true},
			ClientName:   c.ClientName,
			ClientID:     c.ClientID,
			ClientHost:   c.ClientHost,
			RedirectHost: c.RedirectHost,
			RedirectURI:  c.RedirectURI,
			Loopback:     c.Loopback,
			Email:        c.Email,
			RequestToken: c.RequestToken,
		}))
	default:
		if answer.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfterSeconds(answer.RetryAfter)))
		}
		a.authorizationProblem(w, r, answer.Status, answer.Problem)
	}
}

// authorizationProblem shows why a connection request cannot be completed.
func (a *App) authorizationProblem(w http.ResponseWriter, r *http.Request, status int, message string) {
	_, signedIn := a.sessions.UserID(r.Context())
	respond.HTML(a.logger, w, r, status, templates.OAuthError(templates.OAuthErrorProps{
		Page:    templates.PageProps{Title: "This connection request cannot be completed", SignedIn: signedIn},
		Message: message,
	}))
}

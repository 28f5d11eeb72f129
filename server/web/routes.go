package web

import (
	"net/http"

	"github.com/studyloop/studyloop/server/mcp"
	"github.com/studyloop/studyloop/server/oauth"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/webapp"
)

// addRoutes lists every route of the service, each behind one of the
// middleware chains below. It only connects what Deps holds.
func addRoutes(mux *http.ServeMux, d Deps) {
	sessions, app, auth, mcpRoutes := d.Sessions, d.Pages, d.OAuth, d.MCP
	// Only routes wrapped in sessions.Load or sessions.RequireUser read the
	// session cookie. Pages handling credentials, consent or a student's
	// data are wrapped in session.Sensitive: never framed, cached or sent
	// as a referrer. Every form body is capped and parsed (formBody)
	// before any session or CSRF check looks at it.
	//
	// page: a signed-out page that knows whether someone is signed in.
	page := func(h http.Handler) http.Handler { return session.Sensitive(sessions.Load(h)) }
	pageForm := func(h http.Handler) http.Handler { return formBody(smallFormBody, page(h)) }
	// anonymous: a page that never reads the session (password reset by
	// email).
	anonymous := session.Sensitive
	anonymousForm := func(h http.Handler) http.Handler { return formBody(smallFormBody, anonymous(h)) }
	// signedIn: a page of the web app; its forms carry the session's CSRF
	// token.
	signedIn := func(h http.Handler) http.Handler { return session.Sensitive(sessions.RequireUser(h)) }
	signedInForm := func(h http.Handler) http.Handler {
		return formBody(smallFormBody, signedIn(sessions.RequireCSRF(h)))
	}
	studyForm := func(h http.Handler) http.Handler {
		return formBody(studyFormBody, signedIn(sessions.RequireCSRF(h)))
	}
	// upload: a declared length over the cap is refused before the session
	// is looked at; ParseUpload checks the CSRF token (header or first
	// part) before it lifts the read deadline and parses the capped body.
	upload := func(h http.Handler) http.Handler {
		return limitBody(webapp.MaxUploadBody, handleBodyTooLarge(webapp.MaxUploadBody), signedIn(app.ParseUpload(sessions.RequireCSRF(h))))
	}
	// api: the OAuth endpoints and metadata, open to every origin (no
	// cookies); they answer preflights with preflight.
	api, preflight := oauth.CORS, oauth.Preflight()
	// mcpPost: the MCP endpoint behind the Host/Origin guard (DNS
	// rebinding, 403), its body cap (413 in JSON-RPC form) and the bearer
	// check.
	mcpPost := func(h http.Handler) http.Handler {
		return mcpRoutes.Guard(limitBody(mcp.MaxBodyBytes, mcp.HandleTooLarge(), oauth.RequireToken(auth, d.Config, d.Logger)(h)))
	}

	mux.Handle("GET /api/health", handleHealth())

	// Accounts and the OAuth 2.1 authorization server.
	mux.Handle("GET /signup", page(app.SignUpPage()))
	mux.Handle("POST /signup", pageForm(app.SignUp()))
	mux.Handle("GET /signin", page(app.SignInPage()))
	mux.Handle("POST /signin", pageForm(app.SignIn()))
	mux.Handle("GET /signout", page(app.SignOutPage()))
	mux.Handle("POST /signout", pageForm(app.SignOut()))
	if d.Config.SMTPURL != "" {
		mux.Handle("GET /signin/forgot", anonymous(app.ForgotPage()))
		mux.Handle("POST /signin/forgot", anonymousForm(app.Forgot()))
	}
	// A reset link works wherever it came from (email or the operator's
	// command), so these pages are there without SMTP_URL too.
	mux.Handle("GET /reset", page(app.ResetPage()))
	mux.Handle("POST /reset", pageForm(app.Reset()))
	mux.Handle("GET /oauth/authorize", page(app.Authorize()))
	mux.Handle("POST /oauth/authorize", pageForm(app.Decide()))
	// POST-only endpoints answer a GET with 405 rather than the GET /
	// fallback's 404.
	for _, path := range []string{"/oauth/register", "/oauth/token", "/oauth/revoke", "/app/studies", "/app/studies/pdf", "/app/studies/photos", "/app/account/password", "/app/account/delete"} {
		mux.Handle("GET "+path, handleMethodNotAllowed("POST"))
	}
	mux.Handle("POST /oauth/register", api(auth.HandleRegister()))
	mux.Handle("OPTIONS /oauth/register", preflight)
	mux.Handle("POST /oauth/token", api(auth.HandleToken()))
	mux.Handle("OPTIONS /oauth/token", preflight)
	mux.Handle("POST /oauth/revoke", api(auth.HandleRevoke()))
	mux.Handle("OPTIONS /oauth/revoke", preflight)
	mux.Handle("GET /.well-known/oauth-authorization-server", api(auth.HandleAuthorizationServerMetadata()))
	mux.Handle("OPTIONS /.well-known/oauth-authorization-server", preflight)
	mux.Handle("GET /.well-known/oauth-authorization-server/mcp", api(auth.HandleAuthorizationServerMetadata()))
	mux.Handle("OPTIONS /.well-known/oauth-authorization-server/mcp", preflight)
	mux.Handle("GET /.well-known/oauth-protected-resource", api(auth.HandleProtectedResourceMetadata()))
	mux.Handle("OPTIONS /.well-known/oauth-protected-resource", preflight)
	mux.Handle("GET /.well-known/oauth-protected-resource/mcp", api(auth.HandleProtectedResourceMetadata()))
	mux.Handle("OPTIONS /.well-known/oauth-protected-resource/mcp", preflight)
	// The web app: a student's studies, mastery and practice. Signed-in
	// pages only; their forms carry the session's CSRF token.
	mux.Handle("GET /app", signedIn(app.Home()))
	mux.Handle("POST /app/studies", studyForm(app.CreateStudy()))
	mux.Handle("POST /app/studies/pdf", upload(app.CreateFromPDF()))
	mux.Handle("POST /app/studies/photos", upload(app.CreateFromPhotos()))
	mux.Handle("GET /app/studies/{id}", signedIn(app.Study()))
	mux.Handle("POST /app/studies/{id}/rename", signedInForm(app.RenameStudy()))
	mux.Handle("POST /app/studies/{id}/settings", signedInForm(app.StudySettings()))
	mux.Handle("GET /app/studies/{id}/delete", signedIn(app.ConfirmDeleteStudy()))
	mux.Handle("POST /app/studies/{id}/delete", signedInForm(app.DeleteStudy()))
	mux.Handle("GET /app/studies/{id}/export.csv", signedIn(app.ExportCSV()))
	mux.Handle("GET /app/studies/{id}/export.apkg", signedIn(app.ExportAnki()))
	mux.Handle("GET /app/studies/{id}/questions", signedIn(app.Questions()))
	mux.Handle("GET /app/studies/{id}/questions/{qid}", signedIn(app.EditQuestionPage()))
	mux.Handle("POST /app/studies/{id}/questions/{qid}", signedInForm(app.EditQuestion()))
	mux.Handle("POST /app/studies/{id}/questions/{qid}/suspend", signedInForm(app.SuspendQuestion()))
	mux.Handle("POST /app/studies/{id}/questions/{qid}/delete", signedInForm(app.DeleteQuestion()))
	// Practice: one study (?topic= one topic), or every study at /app/practice.
	mux.Handle("GET /app/studies/{id}/practice", signedIn(app.Practice()))
	mux.Handle("POST /app/studies/{id}/practice/check", signedInForm(app.Check()))
	mux.Handle("POST /app/studies/{id}/practice", signedInForm(app.Rate()))
	mux.Handle("GET /app/practice", signedIn(app.Practice()))
	mux.Handle("POST /app/practice/check", signedInForm(app.Check()))
	mux.Handle("POST /app/practice", signedInForm(app.Rate()))
	mux.Handle("GET /app/account", signedIn(app.Account()))
	mux.Handle("POST /app/account/password", signedInForm(app.ChangePassword()))
	mux.Handle("POST /app/account/delete", signedInForm(app.DeleteAccount()))
	mux.Handle("GET /app/assistants", signedIn(app.Assistants()))
	mux.Handle("POST /app/assistants/{id}/revoke", signedInForm(app.RevokeAssistant()))
	// The web app in German: /de/app/… is passed on to the routes above as
	// /app/…, in German.
	german := handleGermanApp(mux)
	mux.Handle("GET /de/app", german)
	mux.Handle("GET /de/app/", german)
	mux.Handle("POST /de/app/", german)
	// The MCP server: stateless Streamable HTTP at /mcp. The guard answers
	// CORS preflights before any token check; POST needs a bearer access
	// token. GET /mcp answers 405 to a client asking for the SSE stream and
	// the negotiated connect page (never 406) to everyone else.
	mux.Handle("POST /mcp", mcpPost(mcpRoutes.Endpoint))
	mux.Handle("OPTIONS /mcp", mcpRoutes.Guard(nil))
	mux.Handle("DELETE /mcp", mcpRoutes.Guard(mcp.HandleMethodNotAllowed()))
	mux.Handle("GET /mcp", mcp.HandleGet(handleConnectPage(d.Site.files)))
	mux.Handle("GET /mcp/server-card", mcpRoutes.ServerCard)
	mux.Handle("OPTIONS /mcp/server-card", mcpRoutes.ServerCard)
	mux.Handle("GET /.well-known/ai-catalog.json", mcpRoutes.AICatalog)
	mux.Handle("OPTIONS /.well-known/ai-catalog.json", mcpRoutes.AICatalog)
	// GET / is the fallback: every built file from memory, negotiated
	// content pages, /de/x.md redirects, the 404 page. Register other
	// routes with a method ("POST /x") so they win over it without conflict.
	mux.Handle("GET /", handleSite(d.Site.files))
}

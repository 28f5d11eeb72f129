package web

import (
	"net/http"

	"github.com/studyloop/studyloop/server/account"
	"github.com/studyloop/studyloop/server/compress"
	"github.com/studyloop/studyloop/server/mail"
	"github.com/studyloop/studyloop/server/mcp"
	"github.com/studyloop/studyloop/server/oauth"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/study"
	"github.com/studyloop/studyloop/server/webapp"
)

// addRoutes lists every route of the service.
func addRoutes(mux *http.ServeMux, d Deps) error {
	site, err := newSiteFiles(d.Site, d.Config.BaseURL)
	if err != nil {
		return err
	}
	mux.Handle("GET /api/health", handleHealth())

	// Accounts and the OAuth 2.1 authorization server. Only these routes
	// (and others wrapped in sessions.Load or sessions.RequireUser) read the
	// session cookie. Pages handling credentials or consent are wrapped in
	// session.Sensitive: never framed, cached or sent as a referrer.
	sessions := session.New(d.DB.Sessions(), &session.Options{Secure: d.Config.Secure(), Logger: d.Logger})
	accounts := account.NewService(d.DB, nil)
	// One study service for the web app and /mcp, sharing its mastery cache.
	studyService := study.New(d.DB)
	authServer := oauth.New(d.DB, sessions, d.Config, &oauth.Options{Logger: d.Logger, ClientMetadataTestRoots: d.ClientMetadataTestRoots})
	var sender webapp.Mailer
	if d.Config.SMTPURL != "" {
		s, err := mail.New(d.Config.SMTPURL, d.Config.MailFrom)
		if err != nil {
			return err
		}
		sender = s
	}
	app := webapp.New(d.DB, studyService, sessions, d.Logger, &webapp.Options{Notify: d.NotifyWorkers, Extractor: d.Extractor, Accounts: accounts,
		SignUpsPerHour: d.Config.SignUpRateLimit, Mail: sender, BaseURL: d.Config.BaseURL})
	mux.Handle("GET /signup", session.Sensitive(sessions.Load(app.SignUpPage())))
	mux.Handle("POST /signup", formBody(smallFormBody, session.Sensitive(sessions.Load(app.SignUp()))))
	mux.Handle("GET /signin", session.Sensitive(sessions.Load(app.SignInPage())))
	mux.Handle("POST /signin", formBody(smallFormBody, session.Sensitive(sessions.Load(app.SignIn()))))
	mux.Handle("GET /signout", session.Sensitive(sessions.Load(app.SignOutPage())))
	mux.Handle("POST /signout", formBody(smallFormBody, session.Sensitive(sessions.Load(app.SignOut()))))
	if d.Config.SMTPURL != "" {
		mux.Handle("GET /signin/forgot", session.Sensitive(app.ForgotPage()))
		mux.Handle("POST /signin/forgot", formBody(smallFormBody, session.Sensitive(app.Forgot())))
	}
	// A reset link works wherever it came from (email or the operator's
	// command), so these pages are there without SMTP_URL too.
	mux.Handle("GET /reset", session.Sensitive(sessions.Load(app.ResetPage())))
	mux.Handle("POST /reset", formBody(smallFormBody, session.Sensitive(sessions.Load(app.Reset()))))
	mux.Handle("GET /oauth/authorize", session.Sensitive(sessions.Load(authServer.HandleAuthorize())))
	mux.Handle("POST /oauth/authorize", formBody(smallFormBody, session.Sensitive(sessions.Load(authServer.HandleDecision()))))
	// POST-only endpoints answer a GET with 405 rather than the GET /
	// fallback's 404.
	for _, path := range []string{"/oauth/register", "/oauth/token", "/oauth/revoke", "/app/studies", "/app/studies/pdf", "/app/studies/photos", "/app/account/password", "/app/account/delete"} {
		mux.Handle("GET "+path, handleMethodNotAllowed("POST"))
	}
	mux.Handle("POST /oauth/register", oauth.CORS(authServer.HandleRegister()))
	mux.Handle("OPTIONS /oauth/register", oauth.Preflight())
	mux.Handle("POST /oauth/token", oauth.CORS(authServer.HandleToken()))
	mux.Handle("OPTIONS /oauth/token", oauth.Preflight())
	mux.Handle("POST /oauth/revoke", oauth.CORS(authServer.HandleRevoke()))
	mux.Handle("OPTIONS /oauth/revoke", oauth.Preflight())
	mux.Handle("GET /.well-known/oauth-authorization-server", oauth.CORS(authServer.HandleAuthorizationServerMetadata()))
	mux.Handle("OPTIONS /.well-known/oauth-authorization-server", oauth.Preflight())
	mux.Handle("GET /.well-known/oauth-authorization-server/mcp", oauth.CORS(authServer.HandleAuthorizationServerMetadata()))
	mux.Handle("OPTIONS /.well-known/oauth-authorization-server/mcp", oauth.Preflight())
	mux.Handle("GET /.well-known/oauth-protected-resource", oauth.CORS(authServer.HandleProtectedResourceMetadata()))
	mux.Handle("OPTIONS /.well-known/oauth-protected-resource", oauth.Preflight())
	mux.Handle("GET /.well-known/oauth-protected-resource/mcp", oauth.CORS(authServer.HandleProtectedResourceMetadata()))
	mux.Handle("OPTIONS /.well-known/oauth-protected-resource/mcp", oauth.Preflight())
	// The web app: a student's studies, mastery and practice. Signed-in
	// pages only; their forms carry the session's CSRF token.
	mux.Handle("GET /app", session.Sensitive(sessions.RequireUser(app.Home())))
	mux.Handle("POST /app/studies", formBody(studyFormBody, session.Sensitive(sessions.RequireUser(sessions.RequireCSRF(app.CreateStudy())))))
	// Uploads: a declared length over the cap is refused before the session
	// is looked at; ParseUpload checks the CSRF token (header or first part)
	// before it lifts the read deadline and parses the capped body.
	mux.Handle("POST /app/studies/pdf", limitBody(webapp.MaxUploadBody, handleBodyTooLarge(webapp.MaxUploadBody), session.Sensitive(sessions.RequireUser(app.ParseUpload(sessions.RequireCSRF(app.CreateFromPDF()))))))
	mux.Handle("POST /app/studies/photos", limitBody(webapp.MaxUploadBody, handleBodyTooLarge(webapp.MaxUploadBody), session.Sensitive(sessions.RequireUser(app.ParseUpload(sessions.RequireCSRF(app.CreateFromPhotos()))))))
	mux.Handle("GET /app/studies/{id}", session.Sensitive(sessions.RequireUser(app.Study())))
	mux.Handle("POST /app/studies/{id}/rename", formBody(smallFormBody, session.Sensitive(sessions.RequireUser(sessions.RequireCSRF(app.RenameStudy())))))
	mux.Handle("POST /app/studies/{id}/settings", formBody(smallFormBody, session.Sensitive(sessions.RequireUser(sessions.RequireCSRF(app.StudySettings())))))
	mux.Handle("GET /app/studies/{id}/delete", session.Sensitive(sessions.RequireUser(app.ConfirmDeleteStudy())))
	mux.Handle("POST /app/studies/{id}/delete", formBody(smallFormBody, session.Sensitive(sessions.RequireUser(sessions.RequireCSRF(app.DeleteStudy())))))
	mux.Handle("GET /app/studies/{id}/export.csv", session.Sensitive(sessions.RequireUser(app.ExportCSV())))
	mux.Handle("GET /app/studies/{id}/export.apkg", session.Sensitive(sessions.RequireUser(app.ExportAnki())))
	mux.Handle("GET /app/studies/{id}/questions", session.Sensitive(sessions.RequireUser(app.Questions())))
	mux.Handle("GET /app/studies/{id}/questions/{qid}", session.Sensitive(sessions.RequireUser(app.EditQuestionPage())))
	mux.Handle("POST /app/studies/{id}/questions/{qid}", formBody(smallFormBody, session.Sensitive(sessions.RequireUser(sessions.RequireCSRF(app.EditQuestion())))))
	mux.Handle("POST /app/studies/{id}/questions/{qid}/suspend", formBody(smallFormBody, session.Sensitive(sessions.RequireUser(sessions.RequireCSRF(app.SuspendQuestion())))))
	mux.Handle("POST /app/studies/{id}/questions/{qid}/delete", formBody(smallFormBody, session.Sensitive(sessions.RequireUser(sessions.RequireCSRF(app.DeleteQuestion())))))
	// Practice: one study (?topic= one topic), or every study at /app/practice.
	mux.Handle("GET /app/studies/{id}/practice", session.Sensitive(sessions.RequireUser(app.Practice())))
	mux.Handle("POST /app/studies/{id}/practice/check", formBody(smallFormBody, session.Sensitive(sessions.RequireUser(sessions.RequireCSRF(app.Check())))))
	mux.Handle("POST /app/studies/{id}/practice", formBody(smallFormBody, session.Sensitive(sessions.RequireUser(sessions.RequireCSRF(app.Rate())))))
	mux.Handle("GET /app/practice", session.Sensitive(sessions.RequireUser(app.Practice())))
	mux.Handle("POST /app/practice/check", formBody(smallFormBody, session.Sensitive(sessions.RequireUser(sessions.RequireCSRF(app.Check())))))
	mux.Handle("POST /app/practice", formBody(smallFormBody, session.Sensitive(sessions.RequireUser(sessions.RequireCSRF(app.Rate())))))
	mux.Handle("GET /app/account", session.Sensitive(sessions.RequireUser(app.Account())))
	mux.Handle("POST /app/account/password", formBody(smallFormBody, session.Sensitive(sessions.RequireUser(sessions.RequireCSRF(app.ChangePassword())))))
	mux.Handle("POST /app/account/delete", formBody(smallFormBody, session.Sensitive(sessions.RequireUser(sessions.RequireCSRF(app.DeleteAccount())))))
	mux.Handle("GET /app/assistants", session.Sensitive(sessions.RequireUser(app.Assistants())))
	mux.Handle("POST /app/assistants/{id}/revoke", formBody(smallFormBody, session.Sensitive(sessions.RequireUser(sessions.RequireCSRF(app.RevokeAssistant())))))
	// The web app in German: /de/app/… is passed on to the routes above as
	// /app/…, in German.
	german := handleGermanApp(mux)
	mux.Handle("GET /de/app", german)
	mux.Handle("GET /de/app/", german)
	mux.Handle("POST /de/app/", german)
	// The MCP server: stateless Streamable HTTP at /mcp. The guard refuses a
	// foreign Host or Origin (DNS rebinding, 403) and answers CORS
	// preflights before any token check; POST needs a bearer access token.
	// GET /mcp answers 405 to a client asking for the SSE stream and the
	// negotiated connect page (never 406) to everyone else. Answers of
	// 1400 bytes or more go out compressed when the client accepts zstd
	// or gzip.
	mcpRoutes, err := newMCPHandlers(d, site.site, studyService)
	if err != nil {
		return err
	}
	compressed, err := compress.Responses()
	if err != nil {
		return err
	}
	mux.Handle("POST /mcp", mcpRoutes.guard(limitBody(mcp.MaxBodyBytes, mcp.HandleTooLarge(), oauth.RequireToken(authServer, d.Config, d.Logger)(compressed(mcpRoutes.endpoint)))))
	mux.Handle("OPTIONS /mcp", mcpRoutes.guard(nil))
	mux.Handle("DELETE /mcp", mcpRoutes.guard(mcp.HandleMethodNotAllowed()))
	mux.Handle("GET /mcp", mcp.HandleGet(handleConnectPage(site)))
	mux.Handle("GET /mcp/server-card", mcpRoutes.serverCard)
	mux.Handle("OPTIONS /mcp/server-card", mcpRoutes.serverCard)
	mux.Handle("GET /.well-known/ai-catalog.json", mcpRoutes.aiCatalog)
	mux.Handle("OPTIONS /.well-known/ai-catalog.json", mcpRoutes.aiCatalog)
	// GET / is the fallback: every built file from memory, negotiated
	// content pages, /de/x.md redirects, the 404 page. Register other
	// routes with a method ("POST /x") so they win over it without conflict.
	mux.Handle("GET /", handleSite(site))
	return nil
}

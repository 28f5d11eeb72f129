package oauth

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/studyloop/studyloop/server/clientaddr"
	"github.com/studyloop/studyloop/server/randtoken"
	"github.com/studyloop/studyloop/server/ratelimit"
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/templates"
)

// The authorization endpoint, OAuth 2.1 §4.1.1-§4.1.2, with PKCE (S256
// only), RFC 8707 resource indicators and the RFC 9207 iss parameter.

// pendingKey is the session key of the authorization requests waiting for
// the student's decision; maxPending bounds how many one session keeps.
// maxStateChars bounds the client's state, which a pending request keeps in
// the session and every answer sends back.
const (
	pendingKey    = "oauth_pending"
	maxPending    = 4
	maxStateChars = 2048
)

// pendingRequest is a validated authorization request shown on the consent
// page. Its key in the session is the CSRF token of the consent form.
type pendingRequest struct {
	ClientID    string    `json:"client_id"`
	RedirectURI string    `json:"redirect_uri"`
	Challenge   string    `json:"code_challenge"`
	State       string    `json:"state,omitempty"`
	HasState    bool      `json:"has_state,omitempty"`
	Audience    string    `json:"audience"`
	UserID      int64     `json:"user_id"`
	Created     time.Time `json:"created"`
}

// authorizeParams are the parameters of the authorization endpoint; any
// other is ignored.
var authorizeParams = []string{"client_id", "redirect_uri", "response_type", "code_challenge", "code_challenge_method", "state", "scope", "resource"}

// HandleAuthorize answers GET /oauth/authorize. It must be wrapped in the
// session's Load and in session.Sensitive.
func (s *Server) HandleAuthorize() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		// client_id and redirect_uri first: until both are known good,
		// errors are shown here and never redirected (no open redirector).
		for _, k := range []string{"client_id", "redirect_uri"} {
			if len(q[k]) > 1 {
				s.errorPage(w, r, http.StatusBadRequest, "The request names more than one "+k+".")
				return
			}
		}
		clientID, redirectURI := q.Get("client_id"), q.Get("redirect_uri")
		if clientID == "" {
			s.errorPage(w, r, http.StatusBadRequest, "The request does not say which app is connecting (client_id is missing).")
			return
		}
		client, err := s.client(r, clientID)
		if err != nil {
			s.clientErrorPage(w, r, clientID, err)
			return
		}
		if redirectURI == "" {
			s.errorPage(w, r, http.StatusBadRequest, "The request does not say where to send the answer (redirect_uri is missing).")
			return
		}
		if !matchRedirectURI(client.RedirectURIs, redirectURI) {
			s.errorPage(w, r, http.StatusBadRequest, "The address the answer would go to (redirect_uri) is not one the app registered.")
			return
		}

		state, hasState := q.Get("state"), q.Has("state")
		fail := func(code, description string) {
			s.redirectError(w, r, redirectURI, state, hasState, code, description)
		}
		for _, k := range authorizeParams {
			if len(q[k]) > 1 {
				fail("invalid_request", "The parameter "+k+" is repeated.")
				return
			}
		}
		switch {
		case utf8.RuneCountInString(state) > maxStateChars:
			fail("invalid_request", "state must be at most "+strconv.Itoa(maxStateChars)+" characters.")
			return
		case q.Get("response_type") != "code":
			fail("invalid_request", "response_type must be code.")
			return
		case q.Get("code_challenge") == "":
			fail("invalid_request", "PKCE is required: send code_challenge and code_challenge_method=S256.")
			return
		case !validPKCEString(q.Get("code_challenge")):
			fail("invalid_request", "code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.")
			return
		case q.Get("code_challenge_method") != "S256":
			fail("invalid_request", "code_challenge_method must be S256.")
			return
		}
		// Audiences are stored canonical, as RequireToken compares them.
		audience := s.audiences[0]
		if q.Has("resource") {
			audience = s.audienceFor(q.Get("resource"))
			if audience == "" {
				fail("invalid_target", "resource must name this MCP server, "+s.cfg.MCPResource()+".")
				return
			}
		}
		// scope: the scheme defines none, so any value is ignored and the
		// granted scope is empty.

		userID, ok := s.sessions.UserID(r.Context())
		if !ok {
			http.Redirect(w, r, session.SignInURL(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		user, err := s.store.UserByID(r.Context(), userID)
		if err != nil {
			s.internalErrorPage(w, r, err)
			return
		}
		token := randtoken.New()
		s.addPending(r, token, pendingRequest{
			ClientID: client.ID, RedirectURI: redirectURI, Challenge: q.Get("code_challenge"),
			State: state, HasState: hasState, Audience: audience, UserID: userID, Created: s.now(),
		})
		u, _ := url.Parse(redirectURI)
		respond.HTML(s.logger, w, r, http.StatusOK, templates.Consent(templates.ConsentProps{
			Page:         templates.PageProps{Title: "Connect an app to Studyloop", SignedIn: true},
			ClientName:   client.Name,
			ClientID:     client.ID,
			ClientHost:   clientHost(client.ID),
			RedirectHost: u.Host,
			RedirectURI:  redirectURI,
			Loopback:     isLoopbackRedirect(redirectURI),
			Email:        user.Email,
			RequestToken: token,
		}))
	})
}

// HandleDecision answers POST /oauth/authorize, the consent form. It must be
// wrapped in the session's Load and in session.Sensitive.
func (s *Server) HandleDecision() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil {
			s.errorPage(w, r, http.StatusBadRequest, "The form could not be read.")
			return
		}
		token := r.PostForm.Get(session.CSRFField)
		if token == "" {
			s.errorPage(w, r, http.StatusForbidden, "The approval form is missing its security token. Go back to the app and start connecting again.")
			return
		}
		// Check the decision before taking the pending request, so that a
		// post without one leaves the request to be answered.
		decision := r.PostForm.Get("decision")
		if decision != "approve" && decision != "deny" {
			s.errorPage(w, r, http.StatusBadRequest, "Choose Approve or Deny.")
			return
		}
		p, ok := s.takePending(r, token)
		if !ok {
			s.errorPage(w, r, http.StatusForbidden, "This approval form is not valid any more (it was already used, it expired, or it belongs to another request). Go back to the app and start connecting again.")
			return
		}
		if userID, signedIn := s.sessions.UserID(r.Context()); !signedIn || userID != p.UserID {
			s.errorPage(w, r, http.StatusForbidden, "You are no longer signed in as the student who opened this approval form. Go back to the app and start connecting again.")
			return
		}
		// The client may have been removed, or its document changed,
		// since the form was shown.
		client, err := s.client(r, p.ClientID)
		if err != nil {
			s.clientErrorPage(w, r, p.ClientID, err)
			return
		}
		if !matchRedirectURI(client.RedirectURIs, p.RedirectURI) {
			s.errorPage(w, r, http.StatusBadRequest, "The app that asked for access no longer lists the address the answer would go to (redirect_uri).")
			return
		}
		if decision == "deny" {
			s.redirectError(w, r, p.RedirectURI, p.State, p.HasState, "access_denied", "The student denied access.")
			return
		}
		code := "slac_" + randtoken.New()
		now := s.now()
		err = s.store.CreateAuthorizationCode(r.Context(), &studyloop.AuthorizationCode{
			Hash:          hashSecret(code),
			ClientID:      p.ClientID,
			UserID:        p.UserID,
			RedirectURI:   p.RedirectURI,
			CodeChallenge: p.Challenge,
			Audience:      p.Audience,
			FamilyID:      randtoken.New(),
			CreatedAt:     now,
			ExpiresAt:     now.Add(s.codeTTL),
		})
		if err != nil {
			respond.LogServerError(s.logger, r, err)
			s.redirectError(w, r, p.RedirectURI, p.State, p.HasState, "server_error", "The authorization could not be stored.")
			return
		}
		params := url.Values{"code": {code}, "iss": {s.issuer()}}
		if p.HasState {
			params.Set("state", p.State)
		}
		http.Redirect(w, r, withParams(p.RedirectURI, params), http.StatusSeeOther)
	})
}

// client returns the client clientID names: the one its Client ID Metadata
// Document describes when it is a URL (the fetches counted against r's
// sender), else a registered one.
func (s *Server) client(r *http.Request, clientID string) (*studyloop.OAuthClient, error) {
	if isClientIDURL(clientID) {
		return s.metadataClient(r.Context(), clientaddr.Key(r), clientID)
	}
	return s.store.OAuthClient(r.Context(), clientID)
}

// clientErrorPage explains why the client could not be found.
func (s *Server) clientErrorPage(w http.ResponseWriter, r *http.Request, clientID string, err error) {
	var derr *documentError
	switch {
	case errors.As(err, &derr) && derr.retryAfter > 0:
		w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfterSeconds(derr.retryAfter)))
		s.errorPage(w, r, http.StatusTooManyRequests, "Studyloop cannot check the app that sent you here just now: "+derr.problem+".")
	case errors.As(err, &derr):
		s.errorPage(w, r, http.StatusBadRequest, "The app that sent you here describes itself at "+truncate(clientID, 200)+", but that description cannot be used: "+derr.problem+".")
	case studyloop.ErrorCode(err) == studyloop.ENOTFOUND:
		s.errorPage(w, r, http.StatusBadRequest, "The app that sent you here is not registered with Studyloop (unknown client_id).")
	default:
		s.internalErrorPage(w, r, err)
	}
}

// audienceFor returns the audience a resource parameter names, or "" when it
// does not name this MCP server (BASE_URL/mcp or BASE_URL itself).
func (s *Server) audienceFor(resource string) string {
	c := canonicalResource(resource)
	if c != "" && slices.Contains(s.audiences, c) {
		return c
	}
	return ""
}

// redirectError sends the student back to the client with an error
// (OAuth 2.1 §4.1.2.1), always with iss.
func (s *Server) redirectError(w http.ResponseWriter, r *http.Request, redirectURI, state string, hasState bool, code, description string) {
	params := url.Values{"error": {code}, "error_description": {description}, "iss": {s.issuer()}}
	if hasState {
		params.Set("state", state)
	}
	http.Redirect(w, r, withParams(redirectURI, params), http.StatusSeeOther)
}

// addPending remembers a pending request under token, keeping the newest
// maxPending unexpired ones.
func (s *Server) addPending(r *http.Request, token string, p pendingRequest) {
	pending := s.loadPending(r)
	pending[token] = p
	for len(pending) > maxPending {
		var oldest string
		for k, v := range pending {
			if oldest == "" || v.Created.Before(pending[oldest].Created) {
				oldest = k
			}
		}
		delete(pending, oldest)
	}
	s.savePending(r, pending)
}

// takePending removes and returns the pending request whose token matches,
// comparing in constant time; expired requests never match.
func (s *Server) takePending(r *http.Request, token string) (pendingRequest, bool) {
	pending := s.loadPending(r)
	var found pendingRequest
	var ok bool
	for k, v := range pending {
		if subtle.ConstantTimeCompare([]byte(k), []byte(token)) == 1 {
			found, ok = v, true
			delete(pending, k)
		}
	}
	if ok {
		s.savePending(r, pending)
	}
	return found, ok
}

// loadPending returns the session's unexpired pending requests.
func (s *Server) loadPending(r *http.Request) map[string]pendingRequest {
	pending := map[string]pendingRequest{}
	if raw := s.sessions.GetString(r.Context(), pendingKey); raw != "" {
		json.Unmarshal([]byte(raw), &pending) //nolint:errcheck // a damaged entry is as good as none
	}
	for k, v := range pending {
		if s.now().Sub(v.Created) > s.codeTTL {
			delete(pending, k)
		}
	}
	return pending
}

func (s *Server) savePending(r *http.Request, pending map[string]pendingRequest) {
	b, _ := json.Marshal(pending)
	s.sessions.PutString(r.Context(), pendingKey, string(b))
}

// validPKCEString reports whether v is 43 to 128 unreserved characters
// (RFC 7636 §4.1), the syntax of code verifiers and S256 challenges.
func validPKCEString(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, status int, message string) {
	_, signedIn := s.sessions.UserID(r.Context())
	respond.HTML(s.logger, w, r, status, templates.OAuthError(templates.OAuthErrorProps{
		Page:    templates.PageProps{Title: "This connection request cannot be completed", SignedIn: signedIn},
		Message: message,
	}))
}

func (s *Server) internalErrorPage(w http.ResponseWriter, r *http.Request, err error) {
	respond.LogServerError(s.logger, r, err)
	s.errorPage(w, r, http.StatusInternalServerError, respond.ServerErrorText)
}

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
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/studyloop"
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

// Answer is how to answer a browser at the authorization endpoint; the
// pages (webapp) show it. Exactly one of Redirect, Consent, Problem and
// Err is set.
type Answer struct {
	// Redirect is where to send the browser (303 See Other).
	Redirect string
	// Consent asks the signed-in student to approve the client.
	Consent *Consent
	// Problem says, on a page of its own answered with Status, why the
	// request cannot be completed; a 429 comes with RetryAfter.
	Problem    string
	Status     int
	RetryAfter time.Duration
	// Err is an internal failure: log it and answer 500.
	Err error
}

// Consent is what the consent page shows: the client asking, where the
// answer goes, the student's address, and the token of the pending
// request, which the form sends back to Decide.
type Consent struct {
	ClientName   string
	ClientID     string
	ClientHost   string // the host of a metadata document URL client_id, else ""
	RedirectHost string
	RedirectURI  string
	Loopback     bool // the answer goes to a program on the student's machine
	Email        string
	RequestToken string
}

func problem(status int, message string) Answer { return Answer{Status: status, Problem: message} }

// authorizeParams are the parameters of the authorization endpoint; any
// other is ignored.
var authorizeParams = []string{"client_id", "redirect_uri", "response_type", "code_challenge", "code_challenge_method", "state", "scope", "resource"}

// Authorize validates a request to the authorization endpoint (GET
// /oauth/authorize, in a browser whose session is loaded) and says how to
// answer it: a consent page for the signed-in student, a redirect (to the
// client with an error, or to sign in first), or a problem page. A
// pending request waits in the session for Decide.
func (s *Server) Authorize(r *http.Request) Answer {
	q := r.URL.Query()
	// client_id and redirect_uri first: until both are known good,
	// errors are shown here and never redirected (no open redirector).
	for _, k := range []string{"client_id", "redirect_uri"} {
		if len(q[k]) > 1 {
			return problem(http.StatusBadRequest, "The request names more than one "+k+".")
		}
	}
	clientID, redirectURI := q.Get("client_id"), q.Get("redirect_uri")
	if clientID == "" {
		return problem(http.StatusBadRequest, "The request does not say which app is connecting (client_id is missing).")
	}
	client, err := s.client(r, clientID)
	if err != nil {
		return s.clientProblem(clientID, err)
	}
	if redirectURI == "" {
		return problem(http.StatusBadRequest, "The request does not say where to send the answer (redirect_uri is missing).")
	}
	if !matchRedirectURI(client.RedirectURIs, redirectURI) {
		return problem(http.StatusBadRequest, "The address the answer would go to (redirect_uri) is not one the app registered.")
	}

	state, hasState := q.Get("state"), q.Has("state")
	fail := func(code, description string) Answer {
		return Answer{Redirect: s.errorRedirect(redirectURI, state, hasState, code, description)}
	}
	for _, k := range authorizeParams {
		if len(q[k]) > 1 {
			return fail("invalid_request", "The parameter "+k+" is repeated.")
		}
	}
	switch {
	case utf8.RuneCountInString(state) > maxStateChars:
		return fail("invalid_request", "state must be at most "+strconv.Itoa(maxStateChars)+" characters.")
	case q.Get("response_type") != "code":
		return fail("invalid_request", "response_type must be code.")
	case q.Get("code_challenge") == "":
		return fail("invalid_request", "PKCE is required: send code_challenge and code_challenge_method=S256.")
	case !validPKCEString(q.Get("code_challenge")):
		return fail("invalid_request", "code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.")
	case q.Get("code_challenge_method") != "S256":
		return fail("invalid_request", "code_challenge_method must be S256.")
	}
	// Audiences are stored canonical, as RequireToken compares them.
	audience := s.audiences[0]
	if q.Has("resource") {
		audience = s.audienceFor(q.Get("resource"))
		if audience == "" {
			return fail("invalid_target", "resource must name this MCP server, "+s.cfg.MCPResource()+".")
		}
	}
	// scope: the scheme defines none, so any value is ignored and the
	// granted scope is empty.

	userID, ok := s.sessions.UserID(r.Context())
	if !ok {
		return Answer{Redirect: session.SignInURL(r.URL.RequestURI())}
	}
	user, err := s.store.UserByID(r.Context(), userID)
	if err != nil {
		return Answer{Err: err}
	}
	token := randtoken.New()
	s.addPending(r, token, pendingRequest{
		ClientID: client.ID, RedirectURI: redirectURI, Challenge: q.Get("code_challenge"),
		State: state, HasState: hasState, Audience: audience, UserID: userID, Created: s.now(),
	})
	u, _ := url.Parse(redirectURI)
	return Answer{Consent: &Consent{
		ClientName:   client.Name,
		ClientID:     client.ID,
		ClientHost:   clientHost(client.ID),
		RedirectHost: u.Host,
		RedirectURI:  redirectURI,
		Loopback:     isLoopbackRedirect(redirectURI),
		Email:        user.Email,
		RequestToken: token,
	}}
}

// Decide carries out the student's decision on the pending request that
// requestToken (the consent form's token) names: a redirect to the client
// with a code (approve) or access_denied, or a problem page when the form
// no longer matches a request of this student.
func (s *Server) Decide(r *http.Request, requestToken string, approve bool) Answer {
	p, ok := s.takePending(r, requestToken)
	if !ok {
		return problem(http.StatusForbidden, "This approval form is not valid any more (it was already used, it expired, or it belongs to another request). Go back to the app and start connecting again.")
	}
	if userID, signedIn := s.sessions.UserID(r.Context()); !signedIn || userID != p.UserID {
		return problem(http.StatusForbidden, "You are no longer signed in as the student who opened this approval form. Go back to the app and start connecting again.")
	}
	// The client may have been removed, or its document changed,
	// since the form was shown.
	client, err := s.client(r, p.ClientID)
	if err != nil {
		return s.clientProblem(p.ClientID, err)
	}
	if !matchRedirectURI(client.RedirectURIs, p.RedirectURI) {
		return problem(http.StatusBadRequest, "The app that asked for access no longer lists the address the answer would go to (redirect_uri).")
	}
	if !approve {
		return Answer{Redirect: s.errorRedirect(p.RedirectURI, p.State, p.HasState, "access_denied", "The student denied access.")}
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
		return Answer{Redirect: s.errorRedirect(p.RedirectURI, p.State, p.HasState, "server_error", "The authorization could not be stored.")}
	}
	params := url.Values{"code": {code}, "iss": {s.issuer()}}
	if p.HasState {
		params.Set("state", p.State)
	}
	return Answer{Redirect: withParams(p.RedirectURI, params)}
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

// clientProblem explains why the client could not be found.
func (s *Server) clientProblem(clientID string, err error) Answer {
	var derr *documentError
	switch {
	case errors.As(err, &derr) && derr.retryAfter > 0:
		a := problem(http.StatusTooManyRequests, "Studyloop cannot check the app that sent you here just now: "+derr.problem+".")
		a.RetryAfter = derr.retryAfter
		return a
	case errors.As(err, &derr):
		return problem(http.StatusBadRequest, "The app that sent you here describes itself at "+truncate(clientID, 200)+", but that description cannot be used: "+derr.problem+".")
	case studyloop.ErrorCode(err) == studyloop.ENOTFOUND:
		return problem(http.StatusBadRequest, "The app that sent you here is not registered with Studyloop (unknown client_id).")
	}
	return Answer{Err: err}
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

// errorRedirect is the address that sends the student back to the client
// with an error (OAuth 2.1 §4.1.2.1), always with iss.
func (s *Server) errorRedirect(redirectURI, state string, hasState bool, code, description string) string {
	params := url.Values{"error": {code}, "error_description": {description}, "iss": {s.issuer()}}
	if hasState {
		params.Set("state", state)
	}
	return withParams(redirectURI, params)
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

package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/studyloop/studyloop/server/randtoken"
	"github.com/studyloop/studyloop/server/ratelimit"
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/studyloop"
)

// The token endpoint, OAuth 2.1 §3.2 and §4.1.3 (authorization code with
// PKCE) and §4.3 (refresh token, rotated with reuse detection as RFC 9700
// §4.14.2 asks).

// RefreshRetryWindow is how long after a refresh token was rotated it may be
// presented again without counting as reuse: a client that sent the same
// refresh twice at once (two tabs, a retry after a timeout) gets
// invalid_grant for the late request and keeps the tokens the first one
// received. Presented again later, a rotated token is a replay and revokes
// its whole family (RFC 9700 §4.14.2). The loser of a rotation race that
// read the token before it was rotated is likewise refused without
// revoking anything.
const RefreshRetryWindow = 2 * time.Second

// maxTokenRequestBytes caps a token request body.
const maxTokenRequestBytes = 64 << 10

// tokenResponse is a successful token response (OAuth 2.1 §3.2.3).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// tokenError is a failed token request: an HTTP status and OAuth error.
type tokenError struct {
	status      int
	code        string
	description string
	retryAfter  time.Duration // with status 429
	cause       error         // with status 500, for the log
}

func (e *tokenError) Error() string { return e.code + ": " + e.description }

func invalidRequest(d string) *tokenError {
	return &tokenError{status: http.StatusBadRequest, code: "invalid_request", description: d}
}
func invalidGrant(d string) *tokenError {
	return &tokenError{status: http.StatusBadRequest, code: "invalid_grant", description: d}
}

// errRefreshJustRotated answers a refresh token that another request
// rotated a moment ago; nothing is revoked.
var errRefreshJustRotated = invalidGrant("The refresh token was just used by another request; use the tokens that request received.")

var errInvalidClient = &tokenError{status: http.StatusUnauthorized, code: "invalid_client", description: "The client is not registered."}

// HandleToken answers POST /oauth/token.
func (s *Server) HandleToken() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, terr := s.grant(w, r)
		if terr == nil {
			writeJSON(w, http.StatusOK, res)
			return
		}
		if terr.cause != nil {
			respond.LogServerError(s.logger, r, terr.cause)
		}
		if terr.status == http.StatusUnauthorized && r.Header.Get("Authorization") != "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="studyloop"`)
		}
		if terr.retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfterSeconds(terr.retryAfter)))
		}
		writeError(w, terr.status, terr.code, terr.description)
	})
}

// grant reads a token request and carries out its grant.
func (s *Server) grant(w http.ResponseWriter, r *http.Request) (*tokenResponse, *tokenError) {
	form, terr := readTokenForm(w, r)
	if terr != nil {
		return nil, terr
	}
	switch form.Get("grant_type") {
	case "authorization_code":
		return s.exchangeCode(r, form)
	case "refresh_token":
		return s.refresh(r, form)
	case "":
		return nil, invalidRequest("grant_type is required.")
	}
	return nil, &tokenError{status: http.StatusBadRequest, code: "unsupported_grant_type", description: "grant_type must be authorization_code or refresh_token."}
}

// readTokenForm reads a form-encoded token request in which no parameter
// repeats.
func readTokenForm(w http.ResponseWriter, r *http.Request) (url.Values, *tokenError) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/x-www-form-urlencoded" {
		return nil, invalidRequest("The request must be application/x-www-form-urlencoded.")
	}
	if r.Header.Get("Authorization") != "" {
		// Clients here are public: they authenticate with client_id only.
		return nil, &tokenError{status: http.StatusUnauthorized, code: "invalid_client", description: "Clients are public here: send client_id in the body and no Authorization header."}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxTokenRequestBytes))
	if err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			return nil, &tokenError{status: http.StatusRequestEntityTooLarge, code: "invalid_request", description: "The request body is larger than 64 KiB."}
		}
		return nil, invalidRequest("The request body could not be read.")
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, invalidRequest("The request body is not valid form encoding.")
	}
	for k, vs := range form {
		if len(vs) > 1 {
			return nil, invalidRequest("The parameter " + truncate(k, 50) + " is repeated.")
		}
	}
	return form, nil
}

// exchangeCode redeems an authorization code. Failed checks leave the code
// unused; a replay that is otherwise valid revokes every token issued from
// the code (OAuth 2.1 §4.1.3).
func (s *Server) exchangeCode(r *http.Request, form url.Values) (*tokenResponse, *tokenError) {
	ctx := r.Context()
	for _, k := range []string{"client_id", "code", "code_verifier", "redirect_uri"} {
		if form.Get(k) == "" {
			return nil, invalidRequest(k + " is required.")
		}
	}
	verifier := form.Get("code_verifier")
	if !validPKCEString(verifier) {
		return nil, invalidRequest("code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.")
	}
	if terr := s.checkResource(form); terr != nil {
		return nil, terr
	}
	client, terr := s.tokenClient(r, form.Get("client_id"))
	if terr != nil {
		return nil, terr
	}
	code, err := s.store.AuthorizationCode(ctx, hashSecret(form.Get("code")))
	switch {
	case studyloop.ErrorCode(err) == studyloop.ENOTFOUND:
		return nil, invalidGrant("The authorization code is not valid.")
	case err != nil:
		return nil, internal(err)
	case code.ClientID != form.Get("client_id"):
		return nil, invalidGrant("The authorization code was issued to another client.")
	case code.RedirectURI != form.Get("redirect_uri"):
		return nil, invalidGrant("redirect_uri does not match the one sent to the authorization endpoint.")
	case !matchRedirectURI(client.RedirectURIs, code.RedirectURI):
		return nil, invalidGrant("redirect_uri is no longer one of the client's redirect URIs.")
	case !verifyS256(verifier, code.CodeChallenge):
		return nil, invalidGrant("code_verifier does not match the code_challenge.")
	}
	now := s.now()
	if !code.UsedAt.IsZero() {
		return nil, s.replayed(ctx, code.FamilyID, "The authorization code was already used; the tokens issued from it are revoked.")
	}
	if !now.Before(code.ExpiresAt) {
		return nil, invalidGrant("The authorization code has expired.")
	}
	access, refresh, res := s.newTokens(code.FamilyID, code.ClientID, code.UserID, code.Audience, code.Scope, now, now.Add(s.cfg.RefreshTokenTTL))
	err = s.store.RedeemAuthorizationCode(ctx, code.Hash, now, access, refresh)
	if studyloop.ErrorCode(err) == studyloop.ECONFLICT {
		// Used (or expired) between our read and the redemption.
		return nil, s.replayed(ctx, code.FamilyID, "The authorization code was already used; the tokens issued from it are revoked.")
	} else if err != nil {
		return nil, internal(err)
	}
	return res, nil
}

// refresh rotates a refresh token: the presented token is spent and a new
// access and refresh token issued. Presenting a spent token revokes the
// whole family, unless it was spent less than RefreshRetryWindow ago.
func (s *Server) refresh(r *http.Request, form url.Values) (*tokenResponse, *tokenError) {
	ctx := r.Context()
	presented := form.Get("refresh_token")
	if presented == "" {
		return nil, invalidRequest("refresh_token is required.")
	}
	if terr := s.checkResource(form); terr != nil {
		return nil, terr
	}
	clientID := form.Get("client_id")
	if clientID != "" {
		if _, terr := s.tokenClient(r, clientID); terr != nil {
			return nil, terr
		}
	}
	tok, err := s.store.OAuthToken(ctx, hashSecret(presented))
	now := s.now()
	switch {
	case studyloop.ErrorCode(err) == studyloop.ENOTFOUND || (err == nil && tok.Kind != studyloop.RefreshToken):
		return nil, invalidGrant("The refresh token is not valid.")
	case err != nil:
		return nil, internal(err)
	case clientID != "" && clientID != tok.ClientID:
		return nil, invalidGrant("The refresh token was issued to another client.")
	case !tok.RevokedAt.IsZero():
		return nil, invalidGrant("The refresh token has been revoked.")
	case !tok.RotatedAt.IsZero() && now.Sub(tok.RotatedAt) < RefreshRetryWindow:
		return nil, errRefreshJustRotated
	case !tok.RotatedAt.IsZero():
		return nil, s.replayed(ctx, tok.FamilyID, "The refresh token was already used; every token of this grant is revoked.")
	case !now.Before(tok.ExpiresAt):
		return nil, invalidGrant("The refresh token has expired.")
	}
	if clientID == "" && isClientIDURL(tok.ClientID) {
		// The client's document must still be usable, named or not.
		if _, terr := s.tokenClient(r, tok.ClientID); terr != nil {
			return nil, terr
		}
	}
	access, refresh, res := s.newTokens(tok.FamilyID, tok.ClientID, tok.UserID, tok.Audience, tok.Scope, now, tok.ExpiresAt)
	err = s.store.RotateRefreshToken(ctx, tok.Hash, now, access, refresh)
	if studyloop.ErrorCode(err) == studyloop.ECONFLICT {
		// Another request rotated (or revoked) it since we read it: a
		// concurrent refresh with the same token won. Its tokens stand.
		return nil, errRefreshJustRotated
	} else if err != nil {
		return nil, internal(err)
	}
	return res, nil
}

// checkResource rejects a resource parameter (RFC 8707 §2.2) that does not
// name this MCP server. The tokens stay bound to the audience of the grant.
func (s *Server) checkResource(form url.Values) *tokenError {
	if form.Has("resource") && s.audienceFor(form.Get("resource")) == "" {
		return &tokenError{status: http.StatusBadRequest, code: "invalid_target", description: "resource must name this MCP server, " + s.cfg.MCPResource() + "."}
	}
	return nil
}

// tokenClient returns the client a token request names: a registered one,
// or the one a Client ID Metadata Document describes (fetched unless
// cached). A document that cannot be used makes the client unknown.
func (s *Server) tokenClient(r *http.Request, clientID string) (*studyloop.OAuthClient, *tokenError) {
	client, err := s.client(r, clientID)
	var derr *documentError
	switch {
	case errors.As(err, &derr) && derr.retryAfter > 0:
		return nil, &tokenError{status: http.StatusTooManyRequests, code: "too_many_requests", description: "Client metadata documents: " + derr.problem + ".", retryAfter: derr.retryAfter}
	case errors.As(err, &derr):
		return nil, &tokenError{status: http.StatusUnauthorized, code: "invalid_client", description: "The client metadata document at client_id cannot be used: " + derr.problem + "."}
	case studyloop.ErrorCode(err) == studyloop.ENOTFOUND:
		return nil, errInvalidClient
	case err != nil:
		return nil, internal(err)
	}
	return client, nil
}

// checkClient rejects an unknown client_id without fetching anything: a
// client named by its metadata document is known once it was fetched.
func (s *Server) checkClient(ctx context.Context, clientID string) *tokenError {
	_, err := s.store.OAuthClient(ctx, clientID)
	switch {
	case studyloop.ErrorCode(err) == studyloop.ENOTFOUND:
		return errInvalidClient
	case err != nil:
		return internal(err)
	}
	return nil
}

// replayed revokes a token family after a code or refresh token was
// presented again, and returns the invalid_grant to answer with.
func (s *Server) replayed(ctx context.Context, familyID, description string) *tokenError {
	n, err := s.store.RevokeTokenFamily(ctx, familyID, s.now())
	if err != nil {
		return internal(err)
	}
	s.logger.Warn("oauth: grant replayed, token family revoked", "revoked", n)
	return invalidGrant(description)
}

// newTokens makes a new access and refresh token of the family, whose grant
// ends at grantEnds: the refresh token expires then, and the access token
// then at the latest. A grant ends REFRESH_TOKEN_TTL after consent; rotation
// hands the end on unchanged, so that a refresh token, stolen or not, does
// not keep a grant alive for ever.
func (s *Server) newTokens(familyID, clientID string, userID int64, audience, scope string, now, grantEnds time.Time) (access, refresh *studyloop.OAuthToken, res *tokenResponse) {
	accessToken, refreshToken := "slat_"+randtoken.New(), "slrt_"+randtoken.New()
	base := studyloop.OAuthToken{FamilyID: familyID, ClientID: clientID, UserID: userID, Audience: audience, Scope: scope, CreatedAt: now}
	a, rt := base, base
	a.Hash, a.Kind, a.ExpiresAt = hashSecret(accessToken), studyloop.AccessToken, minTime(now.Add(s.cfg.AccessTokenTTL), grantEnds)
	rt.Hash, rt.Kind, rt.ExpiresAt = hashSecret(refreshToken), studyloop.RefreshToken, grantEnds
	return &a, &rt, &tokenResponse{
		AccessToken:  accessToken,
		TokenType:    "Bearer",
		ExpiresIn:    int64(a.ExpiresAt.Sub(now).Round(time.Second) / time.Second),
		RefreshToken: refreshToken,
		Scope:        scope,
	}
}

// verifyS256 reports whether BASE64URL(SHA256(verifier)) equals the
// challenge (RFC 7636 §4.6), in constant time.
func verifyS256(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	return challenge != "" && subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}

func internal(err error) *tokenError {
	return &tokenError{status: http.StatusInternalServerError, code: "server_error", description: respond.ServerErrorText, cause: err}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

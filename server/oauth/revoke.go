package oauth

import (
	"context"
	"net/http"

	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/studyloop"
)

// Token revocation, RFC 7009.

// HandleRevoke answers POST /oauth/revoke. A public client names itself by
// client_id (optional, as at the token endpoint; when given, it must be the
// client the token was issued to). Revoking either kind of token ends its
// whole grant: the refresh token family and every access token issued from
// it (RFC 7009 §2.1 allows ending the grant for an access token too). An
// unknown, expired or already revoked token answers 200 as well, since
// there is nothing left for the client to do (§2.2). token_type_hint is
// ignored: tokens are found by their hash whatever their kind.
func (s *Server) HandleRevoke() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		terr := s.revoke(w, r)
		if terr == nil {
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusOK)
			return
		}
		if terr.cause != nil {
			respond.LogServerError(s.logger, r, terr.cause)
		}
		writeError(w, terr.status, terr.code, terr.description)
	})
}

// revoke reads a revocation request and ends the grant its token belongs to.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) *tokenError {
	form, terr := readTokenForm(w, r)
	if terr != nil {
		return terr
	}
	presented := form.Get("token")
	if presented == "" {
		return invalidRequest("token is required.")
	}
	return s.revokeToken(r.Context(), form.Get("client_id"), presented)
}

// revokeToken ends the grant of the presented token, on behalf of clientID
// when it is not empty.
func (s *Server) revokeToken(ctx context.Context, clientID, presented string) *tokenError {
	if clientID != "" {
		if terr := s.checkClient(ctx, clientID); terr != nil {
			return terr
		}
	}
	tok, err := s.store.OAuthToken(ctx, hashSecret(presented))
	switch {
	case studyloop.ErrorCode(err) == studyloop.ENOTFOUND:
		return nil
	case err != nil:
		return internal(err)
	case clientID != "" && clientID != tok.ClientID:
		return invalidGrant("The token was issued to another client.")
	}
	if _, err := s.store.RevokeTokenFamily(ctx, tok.FamilyID, s.now()); err != nil {
		return internal(err)
	}
	return nil
}

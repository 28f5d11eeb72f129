package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/studyloop"
)

// Bearer tokens on the protected resource, RFC 6750 §2.1 and §3, with the
// resource_metadata challenge parameter of RFC 9728 §5.1.

// TokenInfo is what a valid access token grants.
type TokenInfo struct {
	UserID    int64
	ClientID  string
	Audience  string // the resource the token is bound to (RFC 8707)
	Scope     string
	ExpiresAt time.Time
}

// Verifier resolves an access token. *Server is one.
type Verifier interface {
	// VerifyAccessToken returns the token's grant, ErrInvalidToken for an
	// unknown, expired, revoked or non-access token, or another error when
	// the check itself failed.
	VerifyAccessToken(ctx context.Context, token string) (*TokenInfo, error)
}

// ErrInvalidToken is returned by VerifyAccessToken for a token that grants
// nothing.
var ErrInvalidToken = errors.New("oauth: invalid access token")

// VerifyAccessToken looks the token up by its hash: one primary-key read.
func (s *Server) VerifyAccessToken(ctx context.Context, token string) (*TokenInfo, error) {
	tok, err := s.store.OAuthToken(ctx, hashSecret(token))
	switch {
	case studyloop.ErrorCode(err) == studyloop.ENOTFOUND:
		return nil, ErrInvalidToken
	case err != nil:
		return nil, err
	case tok.Kind != studyloop.AccessToken, !tok.RevokedAt.IsZero(), !s.now().Before(tok.ExpiresAt):
		return nil, ErrInvalidToken
	}
	return &TokenInfo{UserID: tok.UserID, ClientID: tok.ClientID, Audience: tok.Audience, Scope: tok.Scope, ExpiresAt: tok.ExpiresAt}, nil
}

type tokenInfoKey struct{}

// TokenInfoFromContext returns the grant of the request's access token, put
// there by RequireToken, or nil.
func TokenInfoFromContext(ctx context.Context) *TokenInfo {
	info, _ := ctx.Value(tokenInfoKey{}).(*TokenInfo)
	return info
}

// RequireToken protects the MCP resource: requests need an access token
// bound to this server (cfg.MCPResource() or the bare cfg.BaseURL) in an
// "Authorization: Bearer" header. The handler behind it finds the user with
// studyloop.UserIDFromContext and the grant with TokenInfoFromContext.
//
// Without a token the answer is 401 with
// WWW-Authenticate: Bearer resource_metadata="<BASE_URL>/.well-known/oauth-protected-resource";
// with an invalid, expired, revoked or wrong-audience token the same
// challenge also carries error="invalid_token".
//
// A failure of the check itself is logged to logger and answered 500.
func RequireToken(v Verifier, cfg config.Config, logger *slog.Logger) func(http.Handler) http.Handler {
	metadata := cfg.BaseURL + "/.well-known/oauth-protected-resource"
	audiences := audiences(cfg)
	challenge := func(w http.ResponseWriter, errCode, description string) {
		value := fmt.Sprintf(`Bearer resource_metadata="%s"`, metadata)
		if errCode != "" {
			value += fmt.Sprintf(`, error="%s", error_description="%s"`, errCode, description)
		}
		w.Header().Set("WWW-Authenticate", value)
		body := errorResponse{Error: errCode, Description: description}
		if errCode == "" {
			body = errorResponse{Error: "unauthorized", Description: "An access token is required."}
		}
		writeJSON(w, http.StatusUnauthorized, body)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
			if !strings.EqualFold(scheme, "Bearer") {
				challenge(w, "", "")
				return
			}
			token = strings.TrimSpace(token)
			if token == "" {
				challenge(w, "invalid_token", "The bearer token is empty.")
				return
			}
			info, err := v.VerifyAccessToken(r.Context(), token)
			if errors.Is(err, ErrInvalidToken) {
				challenge(w, "invalid_token", "The access token is invalid, expired or revoked.")
				return
			} else if err != nil {
				respond.LogServerError(logger, r, err)
				writeError(w, http.StatusInternalServerError, "server_error", "The access token could not be checked.")
				return
			}
			if !slices.Contains(audiences, info.Audience) {
				challenge(w, "invalid_token", "The access token was not issued for this resource.")
				return
			}
			ctx := studyloop.ContextWithUserID(r.Context(), info.UserID)
			ctx = context.WithValue(ctx, tokenInfoKey{}, info)
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

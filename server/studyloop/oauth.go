package studyloop

import "time"

// OAuthClient is a public OAuth client that registered itself through
// dynamic client registration (RFC 7591). It has no secret.
type OAuthClient struct {
	ID           string
	Name         string // as the client named itself; unverified
	RedirectURIs []string
	CreatedAt    time.Time
	// GrantedAt is when a student first completed a grant for the client;
	// zero until then (clients that never do are pruned).
	GrantedAt time.Time
}

// AuthorizationCode is a pending grant: a student approved a client, and the
// client may exchange the code once, within its lifetime, for tokens. The
// code itself is never stored, only its SHA-256 hash.
type AuthorizationCode struct {
	Hash          string // hex SHA-256 of the code
	ClientID      string
	UserID        int64
	RedirectURI   string // exactly as sent to the authorization endpoint
	CodeChallenge string // PKCE S256 challenge
	Audience      string // the resource the tokens will be bound to
	Scope         string
	FamilyID      string // shared by every token issued from this code
	CreatedAt     time.Time
	ExpiresAt     time.Time
	UsedAt        time.Time // zero until exchanged
}

// TokenKind tells access tokens from refresh tokens.
type TokenKind string

// The two kinds of OAuth token.
const (
	AccessToken  TokenKind = "access"
	RefreshToken TokenKind = "refresh"
)

// OAuthToken is an issued access or refresh token. The token itself is never
// stored, only its SHA-256 hash. Tokens descending from one authorization
// code form a family, revoked together when a code or refresh token is
// replayed.
type OAuthToken struct {
	Hash      string // hex SHA-256 of the token
	Kind      TokenKind
	FamilyID  string
	ClientID  string
	UserID    int64
	Audience  string
	Scope     string
	CreatedAt time.Time
	ExpiresAt time.Time
	RotatedAt time.Time // refresh tokens: when exchanged for a successor
	RevokedAt time.Time
}

// OAuthGrant is a student's live connection of one client: the token
// family issued from one approval, while its refresh token is live.
type OAuthGrant struct {
	ID        string // the token family
	Client    OAuthClient
	FirstUsed time.Time // when the code was exchanged for the first tokens
	LastUsed  time.Time // when the client last received tokens (a refresh)
}

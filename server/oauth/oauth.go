// Package oauth is Studyloop's OAuth 2.1 authorization server for the MCP
// endpoint, and the bearer-token check that protects it.
//
// Its clients are public: they register themselves (RFC 7591) or name
// their Client ID Metadata Document by URL (clientdoc.go). It implements
// the authorization code grant with PKCE S256 only and refresh token
// rotation with reuse detection (OAuth 2.1, RFC 9700), resource indicators
// (RFC 8707), the iss authorization response parameter (RFC 9207),
// authorization server metadata (RFC 8414), protected resource metadata
// (RFC 9728) and bearer tokens (RFC 6750). Codes and tokens are opaque
// random strings of 256 bits; only their SHA-256 hashes are stored.
package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"log/slog"
	"time"

	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/ratelimit"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/studyloop"
)

// Store is the storage the authorization server needs (store.DB
// implements it). Lookups of codes and tokens are by SHA-256 hash.
type Store interface {
	UserByID(ctx context.Context, id int64) (*studyloop.User, error)
	CreateOAuthClient(ctx context.Context, c *studyloop.OAuthClient) error
	OAuthClient(ctx context.Context, id string) (*studyloop.OAuthClient, error)
	// SaveOAuthClient stores a client described by a metadata document,
	// replacing an earlier copy.
	SaveOAuthClient(ctx context.Context, c *studyloop.OAuthClient) error
	CreateAuthorizationCode(ctx context.Context, c *studyloop.AuthorizationCode) error
	AuthorizationCode(ctx context.Context, hash string) (*studyloop.AuthorizationCode, error)
	// RedeemAuthorizationCode and RotateRefreshToken return an ECONFLICT
	// error, changing nothing, when the code or token is no longer live.
	RedeemAuthorizationCode(ctx context.Context, hash string, at time.Time, tokens ...*studyloop.OAuthToken) error
	OAuthToken(ctx context.Context, hash string) (*studyloop.OAuthToken, error)
	RotateRefreshToken(ctx context.Context, hash string, at time.Time, successors ...*studyloop.OAuthToken) error
	RevokeTokenFamily(ctx context.Context, familyID string, at time.Time) (int64, error)
}

// Options tunes the server. A nil *Options, or a zero field, means the
// default written beside the field.
type Options struct {
	// CodeTTL is the lifetime of authorization codes (default and maximum
	// 10 minutes).
	CodeTTL time.Duration
	// RegisterBurst is how many registrations one client may make at once
	// before the hourly rate applies (default registerBurst).
	RegisterBurst int
	// Logger receives internal errors (default slog.Default()).
	Logger *slog.Logger
	// ClientMetadataTestRoots is for tests only: when set, Client ID
	// Metadata Documents are fetched trusting these roots only, and from
	// loopback addresses as well, so that a test can serve them from
	// httptest.NewTLSServer. Nil, as in production, trusts the system's
	// roots and refuses loopback like every other special address.
	ClientMetadataTestRoots *x509.CertPool
}

// Server is the authorization server. Its handlers are listed in
// server/web/routes.go.
type Server struct {
	store     Store
	sessions  *session.Manager
	cfg       config.Config
	codeTTL   time.Duration
	logger    *slog.Logger
	registers *ratelimit.PerKey
	// Client ID Metadata Documents (clientdoc.go).
	fetcher         *docFetcher
	documents       *documentCache
	documentFetches *ratelimit.PerKey
	audiences       []string // see audiences
	now             func() time.Time
}

// New returns the authorization server. cfg supplies the issuer (BaseURL),
// the token lifetimes and the registration rate (RegisterRateLimit per hour
// per client, keyed by clientaddr.Key; 0 turns the limit off). The limit is
// kept in memory, per process.
func New(store Store, sessions *session.Manager, cfg config.Config, opts *Options) *Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.CodeTTL <= 0 || o.CodeTTL > 10*time.Minute {
		o.CodeTTL = 10 * time.Minute
	}
	if o.RegisterBurst <= 0 {
		o.RegisterBurst = registerBurst(cfg.RegisterRateLimit)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Server{
		store:           store,
		sessions:        sessions,
		cfg:             cfg,
		codeTTL:         o.CodeTTL,
		logger:          o.Logger,
		registers:       ratelimit.New(cfg.RegisterRateLimit, o.RegisterBurst),
		fetcher:         newDocFetcher(o.ClientMetadataTestRoots, fetchTimeout),
		documents:       &documentCache{},
		documentFetches: ratelimit.New(documentFetchesPerHour, documentFetchBurst),
		audiences:       audiences(cfg),
		now:             time.Now,
	}
}

// issuer is the authorization server's identifier (RFC 8414 §2), the base
// URL without a trailing slash.
func (s *Server) issuer() string { return s.cfg.BaseURL }

// audiences are the canonical resources (canonicalResource) that name this
// MCP server: cfg.MCPResource() first, the default audience of a grant, and
// the bare cfg.BaseURL. Tokens are issued for and accepted with these only.
func audiences(cfg config.Config) []string {
	return []string{canonicalResource(cfg.MCPResource()), canonicalResource(cfg.BaseURL)}
}

// hashSecret is how codes and tokens are stored and looked up.
func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

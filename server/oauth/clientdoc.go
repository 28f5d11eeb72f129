package oauth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/studyloop/studyloop/server/ratelimit"
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/studyloop"
)

// OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document,
// the client registration the MCP 2026-07-28 authorization spec prefers): a
// client_id that is an https URL names a JSON document of the client's
// metadata, which the server fetches (fetch.go) when the client asks for
// authorization or tokens, instead of the client registering first.

// How long a fetched document is used before it is fetched again: its
// freshness lifetime from its HTTP caching headers, within these bounds,
// or defaultDocumentTTL without one; no-store is honoured (the document is
// fetched each time it is needed). maxCachedDocuments bounds the cache,
// which each process keeps for itself.
const (
	minDocumentTTL     = time.Minute
	defaultDocumentTTL = 10 * time.Minute
	maxDocumentTTL     = 24 * time.Hour
	maxCachedDocuments = 1000
)

// Document fetches one requester (clientaddr.Key) may cause, those
// the cache answers not counted: documentFetchBurst at once, then
// documentFetchesPerHour. Enough for a person trying several apps, or a
// hosted client's users (its document is cached), and too few to use the
// server to probe other hosts.
const (
	documentFetchBurst     = 30
	documentFetchesPerHour = 120
)

// maxClientIDURLBytes bounds a client_id URL.
const maxClientIDURLBytes = 2000

// documentError is why a client's metadata document cannot be used, in
// words fit to show the student or the client.
type documentError struct {
	problem string
	// retryAfter is set when the requester reached its fetch limit.
	retryAfter time.Duration
}

func (e *documentError) Error() string { return e.problem }

// isClientIDURL reports whether clientID is meant as the URL of a metadata
// document rather than the id of a registered client (those start slc_).
// http URLs count, to be refused with a clear reason.
func isClientIDURL(clientID string) bool {
	lower := strings.ToLower(clientID)
	return strings.HasPrefix(lower, "https:") || strings.HasPrefix(lower, "http:")
}

// checkClientIDURL returns what is wrong with a client_id URL, or "": it
// must be https, with a host and a path, without user information, fragment
// or dot segments (the draft's rules for client identifier URLs).
func checkClientIDURL(raw string) string {
	if len(raw) > maxClientIDURLBytes {
		return fmt.Sprintf("the client_id URL is longer than %d bytes", maxClientIDURLBytes)
	}
	if !strings.HasPrefix(raw, "https://") {
		return "a client_id URL must start with https://"
	}
	if hasUnsafeURIChars(raw) {
		return "a client_id URL may not contain spaces, control or non-ASCII characters"
	}
	if strings.Contains(raw, "#") {
		return "a client_id URL may not contain a fragment"
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.Hostname() == "":
		return "the client_id URL has no valid host"
	case u.User != nil:
		return "a client_id URL may not contain user information"
	case u.Path == "" || u.Path == "/":
		return "a client_id URL must have a path naming the document"
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return "a client_id URL may not contain . or .. path segments"
		}
	}
	return ""
}

// clientDocument is a metadata document: client metadata, its own URL as
// client_id, and no secret (a public client has none, and a published one
// would be no secret).
type clientDocument struct {
	clientMetadata
	ClientID              string `json:"client_id"`
	ClientSecret          any    `json:"client_secret"`
	ClientSecretExpiresAt any    `json:"client_secret_expires_at"`
}

// parseClientDocument checks the document fetched from clientID and returns
// the client it describes.
func parseClientDocument(clientID string, body []byte) (*studyloop.OAuthClient, string) {
	var doc clientDocument
	if err := respond.UnmarshalOne(body, &doc); err != nil {
		return nil, "it " + metadataProblem(err)
	}
	switch {
	case doc.ClientID != clientID:
		return nil, fmt.Sprintf("its client_id %q is not the document's own URL", truncate(doc.ClientID, 200))
	case doc.ClientSecret != nil || doc.ClientSecretExpiresAt != nil:
		return nil, "it contains a client secret, which a public client must not have"
	}
	if _, problem := doc.problem(); problem != "" {
		return nil, problem
	}
	return &studyloop.OAuthClient{
		ID:           clientID,
		Name:         doc.ClientName,
		RedirectURIs: slices.Compact(slices.Clone(doc.RedirectURIs)),
	}, ""
}

// documentTTL is how long a document answered at now with header h may be
// used: 0 for no-store, else its freshness lifetime (RFC 9111 §4.2.1:
// Cache-Control max-age, else Expires less Date) within the bounds, or
// defaultDocumentTTL when neither says.
func documentTTL(h http.Header, now time.Time) time.Duration {
	ttl, stated := defaultDocumentTTL, false
	for _, directive := range strings.Split(strings.Join(h.Values("Cache-Control"), ","), ",") {
		name, value, _ := strings.Cut(strings.ToLower(strings.TrimSpace(directive)), "=")
		switch name {
		case "no-store":
			return 0
		case "no-cache":
			ttl, stated = minDocumentTTL, true
		case "max-age":
			if seconds, err := strconv.ParseInt(strings.Trim(value, `"`), 10, 64); err == nil && seconds >= 0 {
				ttl, stated = time.Duration(min(seconds, int64(maxDocumentTTL/time.Second)))*time.Second, true
			}
		}
	}
	if expires := h.Get("Expires"); !stated && expires != "" {
		ttl = 0 // an invalid date means already expired
		if at, err := http.ParseTime(expires); err == nil {
			date, err := http.ParseTime(h.Get("Date"))
			if err != nil {
				date = now
			}
			ttl = at.Sub(date)
		}
	}
	return min(max(ttl, minDocumentTTL), maxDocumentTTL)
}

// documentCache keeps checked clients by URL until their documents expire.
type documentCache struct {
	mu      sync.Mutex
	entries map[string]cachedClient
}

type cachedClient struct {
	client  studyloop.OAuthClient
	expires time.Time
}

func (c *documentCache) get(clientID string, now time.Time) (*studyloop.OAuthClient, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[clientID]
	if !ok || !now.Before(e.expires) {
		return nil, false
	}
	client := e.client
	client.RedirectURIs = slices.Clone(client.RedirectURIs)
	return &client, true
}

// put keeps the client until expires, first dropping expired entries and,
// when the cache is still full, the entry that expires soonest.
func (c *documentCache) put(client studyloop.OAuthClient, now, expires time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]cachedClient{}
	}
	if len(c.entries) >= maxCachedDocuments {
		var soonest string
		for id, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, id)
			} else if soonest == "" || e.expires.Before(c.entries[soonest].expires) {
				soonest = id
			}
		}
		if len(c.entries) >= maxCachedDocuments {
			delete(c.entries, soonest)
		}
	}
	c.entries[client.ID] = cachedClient{client: client, expires: expires}
}

// metadataClient returns the client whose metadata document clientID
// names: from the cache while it is fresh, else fetched (counted against
// requester's limit), checked and saved, so that grants can refer to it and
// the student's list of connected assistants can name it. CreatedAt of the
// saved client is when the document was last fetched.
func (s *Server) metadataClient(ctx context.Context, requester, clientID string) (*studyloop.OAuthClient, error) {
	if problem := checkClientIDURL(clientID); problem != "" {
		return nil, &documentError{problem: problem}
	}
	now := s.now()
	if c, ok := s.documents.get(clientID, now); ok {
		return c, nil
	}
	if ok, wait := s.documentFetches.Allow(requester, now); !ok {
		return nil, &documentError{
			problem:    fmt.Sprintf("too many client metadata documents were fetched for this address; try again in %d seconds", ratelimit.RetryAfterSeconds(wait)),
			retryAfter: wait,
		}
	}
	body, header, ferr := s.fetcher.fetch(ctx, clientID)
	if ferr != nil {
		return nil, s.refuseDocument(clientID, ferr.problem)
	}
	client, problem := parseClientDocument(clientID, body)
	if problem != "" {
		return nil, s.refuseDocument(clientID, problem)
	}
	client.CreatedAt = now
	if err := s.store.SaveOAuthClient(ctx, client); err != nil {
		return nil, err
	}
	if ttl := documentTTL(header, now); ttl > 0 {
		s.documents.put(*client, now, now.Add(ttl))
	}
	return client, nil
}

// refuseDocument logs why a fetched document cannot be used, for the
// operator whom an app's developer asks, and returns the error.
func (s *Server) refuseDocument(clientID, problem string) *documentError {
	s.logger.Info("oauth: client metadata document refused", "client_id", truncate(clientID, 200), "problem", problem)
	return &documentError{problem: problem}
}

// clientHost is the host of a client_id URL, shown to the student as who
// the client is; "" for registered clients.
func clientHost(clientID string) string {
	if !isClientIDURL(clientID) {
		return ""
	}
	u, err := url.Parse(clientID)
	if err != nil {
		return ""
	}
	return u.Host
}

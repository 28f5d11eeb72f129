package mcp

// Serving the discovery documents: the MCP Server Card (SEP-2127,
// experimental-ext-server-card docs/discovery.md: CORS MUST, caching
// SHOULD) and the AI Catalog (Agent-Card/ai-catalog
// specification/ai-catalog.md). Hugo builds both from site/data; these
// handlers add what the static files lack: open CORS and an hour of
// caching with a strong ETag.

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
)

// AICatalogPath is where the built site holds the AI Catalog.
const AICatalogPath = ".well-known/ai-catalog.json"

// Media types of the discovery documents.
const (
	ServerCardType = "application/mcp-server-card+json"
	AICatalogType  = "application/ai-catalog+json"
)

// DiscoveryOptions says where the built documents are and how to finish
// them.
type DiscoveryOptions struct {
	// Site is the built site (build.Site()).
	Site fs.FS
	// BaseURL replaces Placeholder in the documents.
	BaseURL string
	// Placeholder is the origin the site was built with (build.Placeholder).
	Placeholder string
}

// HandleServerCard answers GET and OPTIONS /mcp/server-card.
func HandleServerCard(opts DiscoveryOptions) (http.Handler, error) {
	return discoveryDocument(opts, ServerCardPath, ServerCardType)
}

// HandleAICatalog answers GET and OPTIONS /.well-known/ai-catalog.json.
func HandleAICatalog(opts DiscoveryOptions) (http.Handler, error) {
	return discoveryDocument(opts, AICatalogPath, AICatalogType)
}

// discoveryDocument serves one built JSON document with its media type,
// CORS open to every origin, Cache-Control public for an hour and a strong
// ETag answered with 304.
func discoveryDocument(opts DiscoveryOptions, path, mediaType string) (http.Handler, error) {
	data, err := fs.ReadFile(opts.Site, path)
	if err != nil {
		return nil, fmt.Errorf("mcp: discovery document: %w (run make site)", err)
	}
	if opts.Placeholder != "" {
		data = bytes.ReplaceAll(data, []byte(opts.Placeholder), []byte(opts.BaseURL))
	}
	sum := sha256.Sum256(data)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	length := strconv.Itoa(len(data))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET")
		h.Set("Access-Control-Allow-Headers", "Content-Type, If-None-Match")
		h.Set("Access-Control-Expose-Headers", "ETag")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Cache-Control", "public, max-age=3600")
		h.Set("ETag", etag)
		if etagMatches(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Type", mediaType)
		h.Set("Content-Length", length)
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			w.Write(data) //nolint:errcheck // the client went away
		}
	}), nil
}

// etagMatches applies If-None-Match (RFC 9110 §13.1.2, weak comparison).
func etagMatches(header, etag string) bool {
	for _, candidate := range strings.Split(header, ",") {
		candidate = strings.TrimPrefix(strings.TrimSpace(candidate), "W/")
		if candidate == "*" || candidate == etag {
			return true
		}
	}
	return false
}

package mcp

// Serving the discovery documents: the MCP Server Card (SEP-2127,
// experimental-ext-server-card docs/discovery.md: CORS MUST, caching
// SHOULD) and the AI Catalog (Agent-Card/ai-catalog
// specification/ai-catalog.md). Hugo builds both from site/data and
// static.Load prepares them (public origin, media type, ETag); these
// handlers add what the static files lack: open CORS and an hour of
// caching, with the ETag answered by 304.

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/studyloop/studyloop/server/static"
)

// AICatalogPath is where the built site holds the AI Catalog.
const AICatalogPath = ".well-known/ai-catalog.json"

// Media types of the discovery documents, as static.Load gives them.
const (
	ServerCardType = "application/mcp-server-card+json"
	AICatalogType  = "application/ai-catalog+json"
)

// HandleServerCard answers GET and OPTIONS /mcp/server-card from the loaded
// site.
func HandleServerCard(site *static.Site) (http.Handler, error) {
	return discoveryDocument(site, ServerCardPath)
}

// HandleAICatalog answers GET and OPTIONS /.well-known/ai-catalog.json
// from the loaded site.
func HandleAICatalog(site *static.Site) (http.Handler, error) {
	return discoveryDocument(site, AICatalogPath)
}

// discoveryDocument serves one built JSON document with its media type,
// CORS open to every origin, Cache-Control public for an hour and its
// strong ETag answered with 304.
func discoveryDocument(site *static.Site, path string) (http.Handler, error) {
	e, ok := site.Lookup("/" + path)
	if !ok {
		return nil, fmt.Errorf("mcp: discovery document %s is not in the built site (run make site)", path)
	}
	doc := e.File
	length := strconv.Itoa(len(doc.Body))
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
		h.Set("ETag", doc.ETag)
		if static.ETagMatches(r.Header["If-None-Match"], doc.ETag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Type", doc.ContentType)
		h.Set("Content-Length", length)
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			w.Write(doc.Body) //nolint:errcheck // the client went away
		}
	}), nil
}

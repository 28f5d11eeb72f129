package oauth

import (
	"net/http"

	"github.com/studyloop/studyloop/server/respond"
)

// errorResponse is the error body of the registration (RFC 7591 §3.2.2)
// and token (OAuth 2.1 §3.2.4) endpoints.
type errorResponse struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

// writeJSON writes v with the given status; OAuth responses are never
// cached.
func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	respond.JSON(w, status, v)
}

func writeError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, errorResponse{Error: code, Description: description})
}

// CORS lets browser-based clients read the metadata documents and call the
// registration and token endpoints from any origin; none of them uses
// cookies, so the wildcard origin is safe. It answers preflight OPTIONS
// requests itself.
func CORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "WWW-Authenticate, Retry-After")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Preflight answers CORS preflight OPTIONS requests for the routes wrapped
// in CORS.
func Preflight() http.Handler { return CORS(http.NotFoundHandler()) }

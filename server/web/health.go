package web

import (
	"net/http"
	"time"
)

// handleHealth answers GET /api/health while the server is up.
func handleHealth() http.Handler {
	type response struct {
		Status    string `json:"status"`
		Timestamp string `json:"timestamp"`
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		encode(w, http.StatusOK, response{Status: "ok", Timestamp: time.Now().UTC().Format(time.RFC3339)})
	})
}

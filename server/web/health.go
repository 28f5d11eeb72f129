package web

import (
	"net/http"
	"time"

	"github.com/studyloop/studyloop/server/respond"
)

// handleHealth answers GET /api/health while the server is up.
func handleHealth() http.Handler {
	type response struct {
		Status    string `json:"status"`
		Timestamp string `json:"timestamp"`
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		respond.JSON(w, http.StatusOK, response{Status: "ok", Timestamp: time.Now().UTC().Format(time.RFC3339)})
	})
}

// handleMethodNotAllowed answers 405 naming the methods a route takes.
func handleMethodNotAllowed(allow string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		http.Error(w, "405 Method Not Allowed: this URL takes "+allow+".", http.StatusMethodNotAllowed)
	})
}

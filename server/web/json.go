package web

import (
	"encoding/json"
	"net/http"
)

// encode writes v as a JSON response with the given status.
func encode(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v) //nolint:errcheck // the client went away
}

// handleMethodNotAllowed answers 405 naming the methods a route takes.
func handleMethodNotAllowed(allow string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		http.Error(w, "405 Method Not Allowed: this URL takes "+allow+".", http.StatusMethodNotAllowed)
	})
}

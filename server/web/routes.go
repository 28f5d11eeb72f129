package web

import "net/http"

// addRoutes lists every route of the service.
func addRoutes(mux *http.ServeMux, d Deps) error {
	mux.Handle("GET /api/health", handleHealth())
	return nil
}

package web

import (
	"errors"
	"fmt"
	"mime"
	"net/http"

	"github.com/studyloop/studyloop/server/studyloop"
)

// Form body limits. routes.go wraps every form route in formBody with one
// of them, so a body is capped and parsed before any session or CSRF check
// looks at it. The upload routes (webapp.ParseUpload, which reads the CSRF
// token before the rest) and /mcp are wrapped in limitBody, which refuses
// a declared length over their limits before any session or token check;
// they and the OAuth endpoints cap an undeclared body at their first read,
// with errors in their own formats (an upload page, a JSON-RPC error, an
// RFC 6749 error).
const (
	// smallFormBody fits the account, consent, sign-out and answer forms.
	smallFormBody = 64 << 10
	// studyFormBody fits the pasted-text form: 400,000 characters of any
	// script in the Basic Multilingual Plane, percent-encoded (up to nine
	// bytes each), and the other fields.
	studyFormBody = 4 << 20
)

// limitBody refuses a request whose declared body is over limit bytes with
// tooLarge (a 413) before reading any of it, and cuts off an undeclared
// (chunked) body at limit, so no handler behind it reads more.
func limitBody(limit int64, tooLarge, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			tooLarge.ServeHTTP(w, r)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}

// formBody caps a URL-encoded form at limit bytes and parses it before
// next (and any CSRF check in it) runs. It refuses multipart bodies: only
// the upload routes parse those, into temporary files they remove.
func formBody(limit int64, next http.Handler) http.Handler {
	return limitBody(limit, handleBodyTooLarge(limit), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
			w.Header().Set("Connection", "close")
			http.Error(w, "This form takes application/x-www-form-urlencoded bodies; files go to the upload forms.", http.StatusUnsupportedMediaType)
			return
		}
		if err := r.ParseForm(); err != nil {
			if errors.As(err, new(*http.MaxBytesError)) {
				handleBodyTooLarge(limit).ServeHTTP(w, r)
				return
			}
			http.Error(w, "The form could not be read.", http.StatusBadRequest)
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// handleBodyTooLarge answers 413 with a short message and closes the
// connection rather than reading the rest of the body.
func handleBodyTooLarge(limit int64) http.Handler {
	message := fmt.Sprintf("Request body too large: this address takes at most %s bytes.", studyloop.Commas(int(limit)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		http.Error(w, message, http.StatusRequestEntityTooLarge)
	})
}

package web

import (
	"net/http"

	"github.com/studyloop/studyloop/server/config"
)

// contentSecurityPolicy is sent with every response. Every page the
// service has, built or rendered, loads only its own stylesheets, icon and
// (the web app) script file, so everything comes from this origin, nothing is
// inline, and no page may be framed. form-action is left out: the consent
// form's answer redirects to the client's own address, which a form-action
// list would have to name.
const contentSecurityPolicy = "default-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'"

// hstsMaxAge is the Strict-Transport-Security lifetime sent when BASE_URL
// is https: one year, without includeSubDomains (other hosts of the domain
// are not ours to pin) and without preload (a listing is hard to undo;
// operators who want it opt in at their proxy).
const hstsMaxAge = "max-age=31536000"

// Header values shared by every response; len == cap, so a handler's Add
// copies rather than writing into them.
var (
	cspValue     = []string{contentSecurityPolicy}[:1:1]
	nosniffValue = []string{"nosniff"}[:1:1]
	hstsValue    = []string{hstsMaxAge}[:1:1]
)

// securityHeaders sets the headers every response carries before next
// runs: the content security policy, X-Content-Type-Options: nosniff and,
// when BASE_URL is https, Strict-Transport-Security. Handlers set other
// headers by key, so these stay.
func securityHeaders(cfg config.Config, next http.Handler) http.Handler {
	secure := cfg.Secure()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Security-Policy"] = cspValue
		h["X-Content-Type-Options"] = nosniffValue
		if secure {
			h["Strict-Transport-Security"] = hstsValue
		}
		next.ServeHTTP(w, r)
	})
}

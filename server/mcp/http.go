package mcp

// The Streamable HTTP transport, stateless and JSON-only (spec 2025-11-25,
// basic/transports.mdx), with the DNS-rebinding protection of its
// "Security Warning" and CORS for browser-based clients.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/studyloop"
)

// Header names of the transport.
const (
	headerProtocolVersion = "MCP-Protocol-Version"
)

// ServeHTTP answers POST /mcp: one JSON-RPC message in, one JSON answer (or
// 202 with no body) out. It expects the bearer middleware in front of it to
// have put the user id in the request context, and Guard in front of that.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		methodNotAllowed(w)
		return
	}
	uid, ok := studyloop.UserIDFromContext(r.Context())
	if !ok {
		// The route is wired without the bearer middleware: refuse rather
		// than serve anybody's data.
		s.logger.Error("mcp: request without an authenticated user; is the bearer middleware in front of /mcp?")
		writeError(w, http.StatusUnauthorized, nullID, &rpcError{Code: codeInvalidRequest, Message: "Unauthorized: send a bearer access token."})
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, nullID, &rpcError{Code: codeInvalidRequest, Message: "Unsupported media type: send the JSON-RPC message as Content-Type: application/json."})
		return
	}
	if r.ContentLength > MaxBodyBytes {
		writeTooLarge(w)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeTooLarge(w)
			return
		}
		writeError(w, http.StatusBadRequest, nullID, &rpcError{Code: codeParseError, Message: "Could not read the request body."})
		return
	}
	req, replyID, rerr := decodeMessage(body)
	if rerr != nil {
		writeError(w, http.StatusBadRequest, replyID, rerr)
		return
	}
	version := r.Header.Get(headerProtocolVersion)
	if version != "" && !supportedVersion(version) {
		writeError(w, http.StatusBadRequest, orNull(req.ID), unsupportedVersion(version))
		return
	}
	if version == modernVersion {
		s.serveModern(w, r, uid, req)
		return
	}
	if v, ok := metaVersion(req.Params); ok && v != version {
		// A 2026 request without its header, or with a 2025 one.
		writeError(w, http.StatusBadRequest, orNull(req.ID), headerMismatch(headerProtocolVersion, version, v))
		return
	}
	if req.isResponse || req.isNotification() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	result, rerr := s.handle(r.Context(), uid, req)
	data, err := encodeResponse(req.ID, result, rerr)
	if err != nil {
		s.logger.Error("mcp: encode response", "method", req.Method, "err", err)
		data, _ = encodeResponse(req.ID, nil, &rpcError{Code: codeInternalError, Message: "Internal error."})
	}
	respond.EncodedJSON(w, http.StatusOK, data)
}

// orNull is the id to answer a message with: its own, or null for a
// notification.
func orNull(id json.RawMessage) json.RawMessage {
	if id == nil {
		return nullID
	}
	return id
}

// writeError sends a JSON-RPC error with an HTTP status. It is the one
// writer of transport-level errors.
func writeError(w http.ResponseWriter, status int, id json.RawMessage, rerr *rpcError) {
	data, _ := encodeResponse(id, nil, rerr) // an rpcError always encodes
	respond.EncodedJSON(w, status, data)
}

func writeTooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	writeError(w, http.StatusRequestEntityTooLarge, nullID, &rpcError{
		Code:    codeInvalidRequest,
		Message: fmt.Sprintf("Request body too large: the limit is %d bytes (4 MiB). A study text of up to 400,000 characters fits when sent as UTF-8 rather than as \\u escapes.", MaxBodyBytes),
	})
}

// methodNotAllowed answers methods the endpoint does not serve. The
// transport requires 405 for a GET asking for an SSE stream from a server
// that offers none, and allows it for DELETE of a session.
func methodNotAllowed(w http.ResponseWriter) {
	w.Header().Set("Allow", "POST")
	http.Error(w, "Method Not Allowed: this MCP server is stateless; POST one JSON-RPC message per request.", http.StatusMethodNotAllowed)
}

// HandleGet answers GET /mcp: 405 with Allow: POST for an MCP client (one
// asking for the SSE stream of the 2025 revisions, or sending an
// MCP-Protocol-Version header, as 2026 clients do, without naming
// text/html in Accept), and the connect page (HTML, or the markdown twin
// when preferred) for anything else, never 406.
func HandleGet(connectPage http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if transportGet(r) {
			w.Header().Set("Vary", "Accept") // the page answers other Accepts
			methodNotAllowed(w)
			return
		}
		connectPage.ServeHTTP(w, r)
	})
}

// HandleMethodNotAllowed answers DELETE /mcp (there are no sessions to end)
// with 405.
func HandleMethodNotAllowed() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { methodNotAllowed(w) })
}

// HandleTooLarge answers a body over MaxBodyBytes with 413 and a JSON-RPC
// error, for a cap in front of the bearer token check.
func HandleTooLarge() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeTooLarge(w) })
}

// transportGet reports whether a GET comes from an MCP client rather than a
// browser: Accept does not name text/html (with a q above 0), and either
// names text/event-stream (the 2025 server-to-client stream) or the request
// carries an MCP-Protocol-Version header.
func transportGet(r *http.Request) bool {
	var stream, html bool
	for _, line := range r.Header.Values("Accept") {
		for _, part := range strings.Split(line, ",") {
			mt, params, _ := strings.Cut(part, ";")
			mt = strings.ToLower(strings.TrimSpace(mt))
			if mt != "text/event-stream" && mt != "text/html" {
				continue
			}
			if zeroQ(params) {
				continue
			}
			if mt == "text/html" {
				html = true
			} else {
				stream = true
			}
		}
	}
	return !html && (stream || r.Header.Get(headerProtocolVersion) != "")
}

// zeroQ reports whether media-range parameters set q to 0.
func zeroQ(params string) bool {
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(p, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err == nil && q <= 0
	}
	return false
}

// GuardOptions configures Guard.
type GuardOptions struct {
	// BaseURL is the public origin (config.BaseURL); its host is always
	// allowed.
	BaseURL string
	// AllowedHosts are further host names (config.AllowedHosts) that Host
	// and Origin may name. Ports are ignored: rebinding is about names.
	AllowedHosts []string
}

// loopbackNames are the names a server reached on a loopback address
// answers to besides its own: what a local client puts in Host and Origin.
var loopbackNames = map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}

// Guard protects every method of /mcp from DNS rebinding and answers CORS:
// a Host or Origin naming a host other than BaseURL's or an allowed one
// gets 403, except that a request reached on a loopback address may also
// name localhost, 127.0.0.1 or [::1], on any port (a DNS-rebinding attack
// names the attacker's host, which stays refused); a preflight OPTIONS is
// answered here, without authentication; other requests get the CORS
// headers and pass to next. A nil next is allowed for a route that only
// takes preflights.
func Guard(opts GuardOptions) (func(next http.Handler) http.Handler, error) {
	base, err := url.Parse(opts.BaseURL)
	if err != nil || base.Host == "" {
		return nil, fmt.Errorf("mcp: BaseURL %q is not an origin", opts.BaseURL)
	}
	allowed := map[string]bool{hostname(base.Host): true}
	for _, h := range opts.AllowedHosts {
		allowed[hostname(strings.TrimSpace(h))] = true
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			loopback := reachedOnLoopback(r)
			hostAllowed := func(hostport string) bool {
				name := hostname(hostport)
				return allowed[name] || loopback && loopbackNames[name]
			}
			if !hostAllowed(r.Host) {
				forbidden(w, "Host")
				return
			}
			origin := r.Header.Get("Origin")
			if origin != "" {
				u, err := url.Parse(origin)
				if err != nil || u.Host == "" || !hostAllowed(u.Host) {
					forbidden(w, "Origin")
					return
				}
				h := w.Header()
				h.Set("Access-Control-Allow-Origin", origin)
				h.Add("Vary", "Origin")
				h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
			}
			if r.Method == http.MethodOptions {
				h := w.Header()
				h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
				h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
				h.Set("Access-Control-Max-Age", "86400")
				h.Set("Allow", "GET, POST, DELETE, OPTIONS")
				w.WriteHeader(http.StatusNoContent)
				return
			}
			if next == nil {
				methodNotAllowed(w)
				return
			}
			next.ServeHTTP(w, r)
		})
	}, nil
}

// reachedOnLoopback reports whether the request came in on a loopback
// address of this machine.
func reachedOnLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	return ok && addr.IP.IsLoopback()
}

// hostname returns the lower-case host name of a host[:port], without
// brackets around an IPv6 address.
func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		hostport = h
	}
	return strings.ToLower(strings.Trim(hostport, "[]"))
}

// CORS header values for /mcp (spec transports; interop notes in
// shared/reference/mcp.md §7.3).
const (
	corsAllowHeaders  = "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID, Mcp-Method, Mcp-Name"
	corsExposeHeaders = "WWW-Authenticate, MCP-Protocol-Version"
)

// forbidden answers a request from a host that may not reach /mcp.
func forbidden(w http.ResponseWriter, header string) {
	writeError(w, http.StatusForbidden, nullID, &rpcError{
		Code:    codeInvalidRequest,
		Message: fmt.Sprintf("Forbidden: the %s header names a host this server does not answer for.", header),
	})
}

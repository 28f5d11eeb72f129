package web

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/studyloop/studyloop/server/fastsite"
)

// fastAnswers answers, for package fastsite, the requests routeSiteFirst
// answers itself (a GET or HEAD of a built path the mux would give the site
// handler), with the bytes net/http sends for them: the security headers,
// then the prepared response's fields, in net/http's order, and the same
// request log line. Nothing else on the way there acts on those requests:
// recoverPanics has nothing to recover, and clientaddr.Resolve only notes
// the client's address for handlers that ask, which the site handler does
// not (the log line names the peer, RemoteAddr).
type fastAnswers struct {
	files    *siteFiles
	direct   map[string]*siteResource
	security http.Header
	logger   *slog.Logger
	lines    *requestLog // nil: through logger
	// wire holds each prepared response's status line and fields as sent
	// (a []byte per *preparedResponse), made on first use.
	wire sync.Map
}

func newFastAnswers(d Deps, direct map[string]*siteResource) *fastAnswers {
	security := http.Header{}
	securityHeaders(d.Config, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(headerOnly(security), nil)
	f := &fastAnswers{files: d.Site.files, direct: direct, security: security, logger: d.Logger}
	if d.RequestLog != nil {
		f.lines = &requestLog{out: d.RequestLog}
	}
	return f
}

// headerOnly is the http.ResponseWriter securityHeaders is run against to
// learn the fields it sets.
type headerOnly http.Header

func (h headerOnly) Header() http.Header         { return http.Header(h) }
func (h headerOnly) Write(p []byte) (int, error) { return len(p), nil }
func (h headerOnly) WriteHeader(int)             {}

// Answer answers a GET or HEAD of a path routeSiteFirst serves itself.
func (f *fastAnswers) Answer(req *fastsite.Request) (fastsite.Response, bool) {
	res := f.direct[req.Path]
	if res == nil {
		return fastsite.Response{}, false
	}
	p := f.files.answer(res, req.Accept, req.AcceptEncoding, req.IfNoneMatch)
	head := f.header(p)
	if head == nil {
		return fastsite.Response{}, false
	}
	return fastsite.Response{Status: p.status, Header: head, Body: p.body}, true
}

// header returns p's status line and fields as net/http sends them (its
// chunkWriter.writeHeader) for a request from securityHeaders and p.write,
// Date aside, or nil for a response whose fields net/http would complete
// (no Content-Length, or no Content-Type on a body).
func (f *fastAnswers) header(p *preparedResponse) []byte {
	if b, ok := f.wire.Load(p); ok {
		return b.([]byte)
	}
	h := f.security.Clone()
	for _, field := range p.header {
		h[field.key] = field.value
	}
	switch {
	case p.status == http.StatusNotModified:
		// net/http never sends these on a 304.
		h.Del("Content-Type")
		h.Del("Content-Length")
		h.Del("Transfer-Encoding")
	case h.Get("Content-Length") != strconv.Itoa(len(p.body)), h.Get("Content-Type") == "" && len(p.body) > 0,
		h.Get("Transfer-Encoding") != "", h.Get("Connection") != "", h.Get("Date") != "":
		return nil
	}
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 " + strconv.Itoa(p.status) + " " + http.StatusText(p.status) + "\r\n")
	h.Write(&b) //nolint:errcheck // a bytes.Buffer does not fail
	f.wire.Store(p, b.Bytes())
	return b.Bytes()
}

// Log writes the request line logRequests writes.
func (f *fastAnswers) Log(req *fastsite.Request, start time.Time, status int, bytes int64) {
	method := http.MethodGet
	if req.Head {
		method = http.MethodHead
	}
	if f.lines != nil {
		if f.logger.Enabled(context.Background(), slog.LevelInfo) {
			f.lines.write(start, method, req.Path, req.RemoteAddr, status, bytes)
		}
		return
	}
	// A handler may keep the record: the path is copied out of the
	// connection's buffer.
	f.logger.LogAttrs(context.Background(), slog.LevelInfo, "request",
		slog.String("method", method),
		slog.String("path", strings.Clone(req.Path)),
		slog.Int("status", status),
		slog.Int64("bytes", bytes),
		slog.Duration("duration", time.Since(start)),
		slog.String("remote", req.RemoteAddr),
	)
}

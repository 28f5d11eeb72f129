package web

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/respond"
)

// syncBuffer is a bytes.Buffer the server's goroutines may log to.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines returns the JSON log lines written so far, decoded.
func (b *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for line := range strings.Lines(b.buf.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		out = append(out, m)
	}
	b.buf.Reset()
	return out
}

// TestOneLogLinePerRequest serves NewServer over loopback with a JSON log
// and checks that each request, whatever its answer, writes exactly one
// line naming it.
func TestOneLogLinePerRequest(t *testing.T) {
	var logs syncBuffer
	srv := newLoggingTestServer(t, slog.New(slog.NewJSONHandler(&logs, nil)))

	tests := []struct {
		method, path, accept string
		status               int
	}{
		{"GET", "/support/", "text/html", 200},
		{"GET", "/support/", "text/markdown", 200},
		{"HEAD", "/llms.txt", "", 200},
		{"GET", "/support/", "application/json", 406},
		{"GET", "/no-such-page", "", 404},
		{"GET", "/api/health", "", 200},
		{"GET", "/oauth/authorize", "", 400},
		{"GET", "/oauth/register", "", 405},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(tt.method, srv.URL+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tt.accept != "" {
			req.Header.Set("Accept", tt.accept)
		}
		res, err := rawClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != tt.status {
			t.Fatalf("%s %s: status %d, want %d", tt.method, tt.path, res.StatusCode, tt.status)
		}
		// The line is written when the handler returns, which can be just
		// after the client has read a body that went out during Write.
		var requests []map[string]any
		for deadline := time.Now().Add(10 * time.Second); len(requests) == 0 && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			for _, l := range logs.lines(t) {
				if l["msg"] == "request" {
					requests = append(requests, l)
				}
			}
		}
		if len(requests) != 1 {
			t.Fatalf("%s %s: %d request log lines, want 1: %v", tt.method, tt.path, len(requests), requests)
		}
		l := requests[0]
		if l["method"] != tt.method || l["path"] != tt.path || l["status"] != float64(tt.status) || l["level"] != "INFO" {
			t.Errorf("%s %s: log line %v", tt.method, tt.path, l)
		}
		if tt.method == "GET" && l["bytes"] != float64(n) {
			t.Errorf("%s %s: logged %v bytes, sent %d", tt.method, tt.path, l["bytes"], n)
		}
		if _, ok := l["duration"]; !ok {
			t.Errorf("%s %s: no duration in %v", tt.method, tt.path, l)
		}
	}
}

// TestRequestLogMatchesSlog logs the same requests through the logger's
// JSON handler and through the direct writer; the lines must be byte for
// byte the same apart from the time and duration values.
func TestRequestLogMatchesSlog(t *testing.T) {
	variable := regexp.MustCompile(`"time":"[^"]*"|"duration":\d+`)
	paths := []string{
		"/support/",
		`/a"quote\back`,
		"/tab\tnew\nline\rcr\x01\x1f\x7f",
		"/caf\u00e9/\u65e5\u672c",
		"/bad\xffutf8\xc3",
		"/js\u2028\u2029end",
		"/<html>&amp;",
	}
	for _, path := range paths {
		var viaSlog, direct bytes.Buffer
		handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusTeapot)
			w.Write([]byte("short and stout")) //nolint:errcheck // test writer
		})
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.URL.Path = path
		req.RemoteAddr = "[::1]:5000"
		logRequests(slog.New(slog.NewJSONHandler(&viaSlog, nil)), nil, handler).ServeHTTP(httptest.NewRecorder(), req)
		logRequests(slog.New(slog.NewJSONHandler(io.Discard, nil)), &direct, handler).ServeHTTP(httptest.NewRecorder(), req)
		want, got := viaSlog.String(), direct.String()
		if a, b := variable.ReplaceAllString(want, "X"), variable.ReplaceAllString(got, "X"); a != b {
			t.Errorf("path %q:\n slog:   %s direct: %s", path, want, got)
		}
		var line struct {
			Time     string
			Duration int64
		}
		if err := json.Unmarshal(direct.Bytes(), &line); err != nil {
			t.Fatalf("path %q: %v in %s", path, err, got)
		}
		if _, err := time.Parse("2006-01-02T15:04:05.000Z07:00", line.Time); err != nil || line.Duration < 0 {
			t.Errorf("path %q: time %q (%v), duration %d", path, line.Time, err, line.Duration)
		}
	}
}

// TestRequestLogHonoursLevel: above info, the direct writer writes nothing.
func TestRequestLogHonoursLevel(t *testing.T) {
	var direct bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h := logRequests(logger, &direct, http.NotFoundHandler())
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil))
	if direct.Len() != 0 {
		t.Errorf("logged at LOG_LEVEL=warn: %s", direct.String())
	}
}

// BenchmarkRequestLog compares the two ways of writing a request line.
func BenchmarkRequestLog(b *testing.B) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }) //nolint:errcheck // test writer
	req := httptest.NewRequest(http.MethodGet, "/support/", nil)
	req.RemoteAddr = "127.0.0.1:40000"
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	for name, h := range map[string]http.Handler{
		"slog":   logRequests(logger, nil, handler),
		"direct": logRequests(logger, io.Discard, handler),
	} {
		b.Run(name, func(b *testing.B) {
			w := &benchWriter{header: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				w.reset()
				h.ServeHTTP(w, req)
			}
		})
	}
}

// TestRequestLogTime formats a run of times through one requestLog, so
// the once-per-second cache is reused and renewed, against time.Format.
func TestRequestLogTime(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	base := time.Date(2026, 11, 24, 23, 59, 59, 0, time.UTC)
	times := []time.Time{
		base,
		base.Add(7 * time.Millisecond),
		base.Add(999*time.Millisecond + 999*time.Microsecond),
		base.Add(time.Second),             // next second, next day
		base.Add(time.Second).In(berlin),  // same second, another zone
		base.Add(1500 * time.Millisecond), // back in UTC
		base.Add(-time.Hour + time.Millisecond),
	}
	var l requestLog
	for _, tm := range times {
		if got, want := string(l.appendTime(nil, tm)), tm.Format("2006-01-02T15:04:05.000Z07:00"); got != want {
			t.Errorf("appendTime(%v) = %s, want %s", tm, got, want)
		}
	}
}

// countingWriter records each Write it gets, for the LineBuffer tests.
type countingWriter struct {
	mu     sync.Mutex
	writes []string
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

func (w *countingWriter) got() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.writes...)
}

// TestLineBuffer: lines pass on together when the buffer would overflow
// (exactly LineBufferSize bytes stay held), and on Flush; a line longer
// than the buffer goes out on its own, after the lines before it.
func TestLineBuffer(t *testing.T) {
	line := func(n int) string { return strings.Repeat("x", n-1) + "\n" }
	tests := []struct {
		name       string
		lines      []string
		wantWrites []string // before Flush
	}{
		{"one line stays held", []string{line(100)}, nil},
		{"a full buffer stays held", []string{line(LineBufferSize / 2), line(LineBufferSize / 2)}, nil},
		{"one byte more passes on what is held", []string{line(LineBufferSize / 2), line(LineBufferSize / 2), line(1)},
			[]string{line(LineBufferSize/2) + line(LineBufferSize/2)}},
		{"a line longer than the buffer", []string{line(10), line(LineBufferSize + 1), line(20)},
			[]string{line(10), line(LineBufferSize + 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := &countingWriter{}
			b := NewLineBuffer(out)
			for _, l := range tt.lines {
				if n, err := b.Write([]byte(l)); n != len(l) || err != nil {
					t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(l))
				}
			}
			if got := out.got(); !slices.Equal(got, tt.wantWrites) {
				t.Errorf("before Flush: %d writes of %v bytes, want %d of %v", len(got), lengths(got), len(tt.wantWrites), lengths(tt.wantWrites))
			}
			if err := b.Flush(); err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Join(out.got(), ""), strings.Join(tt.lines, ""); got != want {
				t.Errorf("after Flush: %d bytes in order, want %d", len(got), len(want))
			}
		})
	}
}

func lengths(writes []string) []int {
	var n []int
	for _, w := range writes {
		n = append(n, len(w))
	}
	return n
}

// TestLineBufferFlushesInTime: a held line passes on by itself within
// FlushInterval, not before half of it.
func TestLineBufferFlushesInTime(t *testing.T) {
	out := &countingWriter{}
	b := NewLineBuffer(out)
	start := time.Now()
	b.Write([]byte("a line\n")) //nolint:errcheck // held in memory
	for len(out.got()) == 0 {
		if time.Since(start) > 10*FlushInterval {
			t.Fatalf("the line is still held after %v", time.Since(start))
		}
		time.Sleep(FlushInterval / 20)
	}
	if elapsed := time.Since(start); elapsed < FlushInterval/2 {
		t.Errorf("passed on after %v, want about %v", elapsed, FlushInterval)
	}
	if got := out.got(); len(got) != 1 || got[0] != "a line\n" {
		t.Errorf("writes %q, want the one line", got)
	}
}

// TestRecoverPanics: a handler that panics is answered 500 with the one
// generic text, and the panic is logged with the request.
func TestRecoverPanics(t *testing.T) {
	var log bytes.Buffer
	h := recoverPanics(slog.New(slog.NewJSONHandler(&log, nil)), http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("disk on fire")
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/app/studies", nil))
	if w.Code != http.StatusInternalServerError || strings.TrimSpace(w.Body.String()) != respond.ServerErrorText {
		t.Errorf("answer %d %q, want 500 %q", w.Code, w.Body, respond.ServerErrorText)
	}
	for _, want := range []string{`"method":"POST"`, `"path":"/app/studies"`, `panic: disk on fire`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log %q lacks %s", log.String(), want)
		}
	}
}

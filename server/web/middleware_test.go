package web

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
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
		var requests []map[string]any
		for _, l := range logs.lines(t) {
			if l["msg"] == "request" {
				requests = append(requests, l)
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

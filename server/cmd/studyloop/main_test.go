package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/store/storetest"
)

// startServer runs the real program on a free loopback port with a fresh
// database and returns its base URL; the server stops when the test ends.
func startServer(t *testing.T, dialect string, extraEnv map[string]string) string {
	t.Helper()
	base, _ := startStoppableServer(t, dialect, extraEnv)
	return base
}

// startStoppableServer is startServer that also returns stop, which sends
// the shutdown signal (cancels run's context) and returns run's error. When
// the test ends the server is stopped if stop was not called.
func startStoppableServer(t *testing.T, dialect string, extraEnv map[string]string) (base string, stop func() error) {
	t.Helper()
	return startLoggingServer(t, dialect, extraEnv, io.Discard)
}

// startLoggingServer is startStoppableServer writing its log to stderr.
func startLoggingServer(t *testing.T, dialect string, extraEnv map[string]string, stderr io.Writer) (base string, stop func() error) {
	t.Helper()
	env := map[string]string{
		"ADDR":         "127.0.0.1:0",
		"DATABASE_URL": storetest.URL(t, dialect),
		"LOG_LEVEL":    "warn",
	}
	for k, v := range extraEnv {
		env[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, nil, func(k string) string { return env[k] }, strings.NewReader(""), pw, stderr)
		pw.Close()
	}()
	var once sync.Once
	var runErr error
	stop = func() error {
		once.Do(func() { cancel(); runErr = <-done })
		return runErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("run: %v", err)
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		re := regexp.MustCompile(`listening on (\S+)\)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- "http://" + m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		return a, stop
	case err := <-done:
		t.Fatalf("server exited early: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start in 30s")
	}
	return "", nil
}

// TestShutdownLetsInFlightRequestsFinish starts a request, sends the
// shutdown signal while the server is still reading its body, and checks
// that the request completes normally and run returns without error.
func TestShutdownLetsInFlightRequestsFinish(t *testing.T) {
	base, stop := startStoppableServer(t, "sqlite", nil)
	body, bodyWriter := io.Pipe()
	type result struct {
		status int
		err    error
	}
	got := make(chan result, 1)
	go func() {
		res, err := http.Post(base+"/oauth/register", "application/json", body)
		if err != nil {
			got <- result{err: err}
			return
		}
		res.Body.Close()
		got <- result{status: res.StatusCode}
	}()
	io.WriteString(bodyWriter, `{"client_name":"slow client",`)
	time.Sleep(100 * time.Millisecond) // the request is now in flight
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	select {
	case err := <-stopped:
		t.Fatalf("run returned (%v) while a request was still in flight", err)
	case <-time.After(300 * time.Millisecond):
	}
	io.WriteString(bodyWriter, `"redirect_uris":["http://127.0.0.1/callback"]}`)
	bodyWriter.Close()
	r := <-got
	if r.err != nil || r.status != http.StatusCreated {
		t.Fatalf("in-flight request: status=%d err=%v, want 201", r.status, r.err)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("run: %v", err)
	}
	if _, err := http.Get(base + "/api/health"); err == nil {
		t.Fatal("server still answering after shutdown")
	}
}

// TestShutdownClosesIdleSiteConnections: a keep-alive connection whose
// last request was a built page (answered by the fast path unless
// FAST_SITE=off) is closed on shutdown, and run returns at once rather than
// after SHUTDOWN_TIMEOUT.
func TestShutdownClosesIdleSiteConnections(t *testing.T) {
	for _, fastSite := range []string{"on", "off"} {
		t.Run("FAST_SITE="+fastSite, func(t *testing.T) {
			base, stop := startStoppableServer(t, "sqlite", map[string]string{"FAST_SITE": fastSite})
			c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			io.WriteString(c, "GET /llms.txt HTTP/1.1\r\nHost: localhost\r\n\r\n")
			r := bufio.NewReader(c)
			res, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			if res.StatusCode != http.StatusOK || res.Close {
				t.Fatalf("status %d, close %v: want 200 on a kept connection", res.StatusCode, res.Close)
			}
			begun := time.Now()
			if err := stop(); err != nil {
				t.Fatalf("run: %v", err)
			}
			if d := time.Since(begun); d > 5*time.Second {
				t.Fatalf("run returned %v after the stop", d)
			}
			if n, err := r.Read(make([]byte, 1)); n != 0 || err != io.EOF {
				t.Fatalf("the idle connection read %d bytes, %v; want it closed", n, err)
			}
		})
	}
}

// TestRequestLinesOutliveShutdown: the request log is written a few times
// a second, yet a stop right after a burst of requests still leaves one
// line per request on stderr.
func TestRequestLinesOutliveShutdown(t *testing.T) {
	var stderr syncBuffer
	base, stop := startLoggingServer(t, "sqlite", map[string]string{"LOG_LEVEL": "info"}, &stderr)
	const requests = 5
	for range requests {
		res, err := http.Get(base + "/api/health")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	if err := stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if got := strings.Count(stderr.String(), `"msg":"request","method":"GET","path":"/api/health"`); got != requests {
		t.Errorf("%d request lines on stderr after the stop, want %d:\n%s", got, requests, stderr.String())
	}
}

// syncBuffer is a bytes.Buffer the server's goroutines may write to.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestServeAnswersHealthAndStops(t *testing.T) {
	for _, dialect := range storetest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			base := startServer(t, dialect, nil)
			res, err := http.Get(base + "/api/health")
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("status=%d content-type=%q", res.StatusCode, res.Header.Get("Content-Type"))
			}
			var body struct{ Status, Timestamp string }
			if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if body.Status != "ok" {
				t.Fatalf("status=%q", body.Status)
			}
			if _, err := time.Parse(time.RFC3339, body.Timestamp); err != nil {
				t.Fatalf("timestamp %q: %v", body.Timestamp, err)
			}
		})
	}
}

func TestRunRejectsBadConfigAndCommands(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"bad base url", nil, map[string]string{"BASE_URL": "nope"}, "BASE_URL"},
		{"unknown command", []string{"frobnicate"}, nil, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(context.Background(), tt.args, func(k string) string { return tt.env[k] }, strings.NewReader(""), io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err=%v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestMigrateCommand(t *testing.T) {
	url := storetest.URL(t, "sqlite")
	var out strings.Builder
	env := func(k string) string {
		if k == "DATABASE_URL" {
			return url
		}
		return ""
	}
	if err := run(context.Background(), []string{"migrate"}, env, strings.NewReader(""), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "applied") {
		t.Fatalf("first migrate printed %q", out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"migrate"}, env, strings.NewReader(""), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "up to date") {
		t.Fatalf("second migrate printed %q", out.String())
	}
}

// TestServeBuiltSiteUnderBaseURL runs the real program with a public origin
// and checks that the embedded site is served under it and negotiated.
func TestServeBuiltSiteUnderBaseURL(t *testing.T) {
	base := startServer(t, "sqlite", map[string]string{"BASE_URL": "https://study.example"})
	tests := []struct {
		path, accept, ctype, contains string
	}{
		{"/llms.txt", "", "text/plain; charset=utf-8", "https://study.example/mcp"},
		{"/sitemap.xml", "", "application/xml", "<loc>https://study.example/support/</loc>"},
		{"/sitemap-agents.xml", "", "application/xml", "<loc>https://study.example/support.md</loc>"},
		{"/robots.txt", "", "text/plain; charset=utf-8", "Sitemap: https://study.example/sitemap-agents.xml"},
		{"/support/", "text/markdown", "text/markdown; charset=utf-8", "# "},
		{"/support/", "", "text/html; charset=utf-8", `href="https://study.example/support/"`},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(http.MethodGet, base+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tt.accept != "" {
			req.Header.Set("Accept", tt.accept)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != tt.ctype {
			t.Errorf("%s (Accept %q): status=%d Content-Type=%q, want 200 %q", tt.path, tt.accept, res.StatusCode, res.Header.Get("Content-Type"), tt.ctype)
		}
		if !strings.Contains(string(body), tt.contains) || strings.Contains(string(body), "studyloop.invalid") {
			t.Errorf("%s does not contain %q, or still names the build placeholder", tt.path, tt.contains)
		}
	}
}

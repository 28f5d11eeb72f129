package web

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/coalesce"
	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/fastsite"
)

// lockedBuffer is a request log the tests read while servers write it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines returns the lines written since the first from.
func (b *lockedBuffer) lines(from int) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	all := strings.SplitAfter(b.buf.String(), "\n")
	return all[min(from, len(all)-1) : len(all)-1]
}

// settled returns the lines written since the first from once there are
// want of them, or (want < 0) once no line has come for 50 ms; it gives up
// after two seconds.
func (b *lockedBuffer) settled(from, want int) []string {
	lines := b.lines(from)
	for deadline, quiet := time.Now().Add(2*time.Second), time.Now(); time.Now().Before(deadline); {
		if want >= 0 && len(lines) >= want || want < 0 && time.Since(quiet) > 50*time.Millisecond {
			break
		}
		time.Sleep(5 * time.Millisecond)
		if more := b.lines(from); len(more) != len(lines) {
			lines, quiet = more, time.Now()
		}
	}
	return lines
}

// countingAnswers counts the requests the fast path answers.
type countingAnswers struct {
	fastsite.Answerer
	mu sync.Mutex
	n  int
}

func (c *countingAnswers) Answer(req *fastsite.Request) (fastsite.Response, bool) {
	resp, ok := c.Answerer.Answer(req)
	if ok {
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
	}
	return resp, ok
}

func (c *countingAnswers) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// fastAndPlain serves one NewServer handler twice on loopback, as the
// command does: plain through net/http, and with the fast path in front.
type fastAndPlain struct {
	plain, fast string // addresses
	answers     *countingAnswers
	log         *lockedBuffer
}

// Request lines are written to the log directly (Deps.RequestLog), or
// with viaSlog through the logger.
func newFastAndPlain(t testing.TB, viaSlog bool) *fastAndPlain {
	t.Helper()
	cfg, err := config.FromEnv(func(k string) string { return map[string]string{"BASE_URL": testOrigin}[k] })
	if err != nil {
		t.Fatal(err)
	}
	log := &lockedBuffer{}
	deps := NewTestDeps(t, cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)), log)
	if viaSlog {
		deps = NewTestDeps(t, cfg, slog.New(slog.NewJSONHandler(log, nil)), nil)
	}
	h, fast := NewServerAndFastPath(deps)
	s := &fastAndPlain{answers: &countingAnswers{Answerer: fast}, log: log}
	for _, withFast := range []bool{false, true} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, WriteTimeout: time.Minute,
			IdleTimeout: 2 * time.Minute, ConnContext: coalesce.ConnContext, ErrorLog: slog.NewLogLogger(slog.DiscardHandler, slog.LevelWarn)}
		var served net.Listener = ln
		if withFast {
			front := fastsite.New(ln, s.answers, srv)
			served = front
			s.fast = ln.Addr().String()
			t.Cleanup(func() { front.Close() })
		} else {
			s.plain = ln.Addr().String()
		}
		go srv.Serve(coalesce.Listener(served))
		t.Cleanup(func() { srv.Close() })
	}
	return s
}

// exchange sends writes on a new connection to addr, each in its own
// write, and returns the bytes of the answers to the requests made with
// methods, their Date fields masked.
func exchange(t *testing.T, addr string, writes []string, methods []string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	go func() {
		for _, w := range writes {
			if _, err := io.WriteString(c, w); err != nil {
				return // the server answered and closed
			}
			if len(writes) > 1 {
				time.Sleep(time.Millisecond)
			}
		}
	}()
	var raw bytes.Buffer
	r := bufio.NewReader(io.TeeReader(c, &raw))
	for _, m := range methods {
		resp, err := http.ReadResponse(r, &http.Request{Method: m})
		if err != nil {
			t.Fatalf("after %q: %v", raw.String(), err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return dateField.ReplaceAllString(raw.String(), "Date: (date)\r\n")
}

var dateField = regexp.MustCompile(`(?i)\r\nDate: [^\r\n]*\r\n`)

// logFields are the parts of a request line that differ between two
// servers answering the same request.
var logFields = regexp.MustCompile(`"(time|duration|remote)":("[^"]*"|[0-9]+)`)

// TestFastPathAnswersAsNetHTTP sends the same bytes to the handler through
// net/http and through the fast path, and compares the bytes of the
// answers (Date aside) and the request lines logged; it also checks which
// requests the fast path answered itself.
func TestFastPathAnswersAsNetHTTP(t *testing.T) {
	for _, viaSlog := range []bool{false, true} {
		t.Run(fmt.Sprintf("viaSlog=%v", viaSlog), func(t *testing.T) { testFastPathAnswersAsNetHTTP(t, viaSlog) })
	}
}

func testFastPathAnswersAsNetHTTP(t *testing.T, viaSlog bool) {
	s := newFastAndPlain(t, viaSlog)
	const host = "Host: study.example\r\n"
	browser := "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\n"
	get := func(path string, fields ...string) string {
		return "GET " + path + " HTTP/1.1\r\n" + host + strings.Join(fields, "") + "\r\n"
	}
	etagOf := func(path string, fields ...string) string {
		c := strings.Join(fields, "")
		req, _ := http.NewRequest(http.MethodGet, "http://"+s.plain+path, nil)
		for _, f := range strings.Split(strings.TrimSpace(c), "\r\n") {
			if k, v, ok := strings.Cut(f, ": "); ok {
				req.Header.Set(k, v)
			}
		}
		resp, err := rawClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.Header.Get("ETag") == "" {
			t.Fatalf("%s: no ETag", path)
		}
		return resp.Header.Get("ETag")
	}
	mdETag := etagOf("/support/", "Accept: text/markdown\r\n")
	brETag := etagOf("/llms-full.txt", "Accept-Encoding: br\r\n")
	bigCookie := "Cookie: c=" + strings.Repeat("x", 10<<10) + "\r\n"
	tests := []struct {
		name    string
		writes  []string
		methods []string // of the requests answered, in order; GET when nil
		fast    int      // answered on the fast path
	}{
		// Taken by the fast path.
		{"browser", []string{get("/support/", browser, "Accept-Encoding: gzip, deflate, br, zstd\r\n")}, nil, 1},
		{"browser, no compression", []string{get("/support/", browser)}, nil, 1},
		{"agent markdown", []string{get("/support/", "Accept: text/markdown\r\n")}, nil, 1},
		{"agent, Accept in two lines", []string{get("/support/", "Accept: text/markdown;q=0.5\r\n", "Accept: text/html\r\n")}, nil, 1},
		{"no Accept", []string{get("/")}, nil, 1},
		{"not acceptable", []string{get("/support/", "Accept: application/json\r\n")}, nil, 1},
		{"gzip", []string{get("/llms-full.txt", "Accept-Encoding: gzip\r\n")}, nil, 1},
		{"br", []string{get("/llms-full.txt", "Accept-Encoding: br\r\n")}, nil, 1},
		{"zstd", []string{get("/llms-full.txt", "Accept-Encoding: zstd\r\n")}, nil, 1},
		{"q-values", []string{get("/llms-full.txt", "Accept-Encoding: br;q=0.2, gzip;q=0.9, zstd;q=0.5\r\n")}, nil, 1},
		{"br refused", []string{get("/llms-full.txt", "Accept-Encoding: br;q=0, *\r\n")}, nil, 1},
		{"identity only", []string{get("/llms-full.txt", "Accept-Encoding: identity\r\n")}, nil, 1},
		{"identity;q=0", []string{get("/llms-full.txt", "Accept-Encoding: deflate, identity;q=0\r\n")}, nil, 1},
		{"not modified", []string{get("/support/", "Accept: text/markdown\r\n", "If-None-Match: "+mdETag+"\r\n")}, nil, 1},
		{"not modified, br", []string{get("/llms-full.txt", "Accept-Encoding: br\r\n", "If-None-Match: W/\"x\", "+brETag+"\r\n")}, nil, 1},
		{"etag of another coding", []string{get("/llms-full.txt", "Accept-Encoding: gzip\r\n", "If-None-Match: "+brETag+"\r\n")}, nil, 1},
		{"head", []string{"HEAD /support/ HTTP/1.1\r\n" + host + "Accept-Encoding: br\r\n\r\n"}, []string{"HEAD"}, 1},
		{"head, not modified", []string{"HEAD /llms-full.txt HTTP/1.1\r\n" + host + "Accept-Encoding: br\r\nIf-None-Match: " + brETag + "\r\n\r\n"}, []string{"HEAD"}, 1},
		{"keep-alive, Content-Length 0, X-Forwarded-For", []string{get("/llms.txt", "Connection: keep-alive\r\n", "Content-Length: 0\r\n", "X-Forwarded-For: 192.0.2.1\r\n")}, nil, 1},
		{"split into bytes", strings.Split(get("/support/", "Accept: text/markdown\r\n"), ""), nil, 1},
		{"pipelined, fast then slow then fast", []string{get("/support/") + "POST /mcp HTTP/1.1\r\n" + host + "Content-Length: 2\r\n\r\n{}" + get("/llms.txt")}, []string{"GET", "POST", "GET"}, 1},
		// Handed to net/http.
		{"post", []string{"POST /mcp HTTP/1.1\r\n" + host + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"}, nil, 0},
		{"unknown path", []string{get("/no-such-page/")}, nil, 0},
		{"a route of its own", []string{get("/mcp")}, nil, 0},
		{"query", []string{get("/support/?x=1")}, nil, 0},
		{"escaped path", []string{get("/%73upport/")}, nil, 0},
		{"chunked body", []string{"GET /support/ HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"}, nil, 0},
		{"Content-Length body", []string{"GET /support/ HTTP/1.1\r\n" + host + "Content-Length: 2\r\n\r\nhi"}, nil, 0},
		{"Content-Length and Transfer-Encoding", []string{"GET /support/ HTTP/1.1\r\n" + host + "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"}, nil, 0},
		{"obs-fold", []string{get("/support/", "Accept: text/html,\r\n text/markdown\r\n")}, nil, 0},
		{"invalid byte in a value", []string{get("/support/", "X-Note: a\x01b\r\n")}, nil, 0},
		{"header block over the fast path's buffer", []string{get("/support/", bigCookie)}, nil, 0},
		{"HTTP/1.0", []string{"GET /support/ HTTP/1.0\r\n\r\n"}, nil, 0},
		{"Connection: close", []string{get("/support/", "Connection: close\r\n")}, nil, 0},
		{"Expect: 100-continue", []string{"POST /mcp HTTP/1.1\r\n" + host + "Expect: 100-continue\r\nContent-Length: 2\r\n\r\n{}"}, nil, 0},
		{"no Host", []string{"GET /support/ HTTP/1.1\r\n\r\n"}, nil, 0},
		{"two Hosts", []string{get("/support/", host)}, nil, 0},
		{"absolute form", []string{"GET https://study.example/support/ HTTP/1.1\r\n" + host + "\r\n"}, nil, 0},
		{"fast, then a slow one split into bytes", append([]string{get("/llms.txt")}, strings.Split("POST /mcp HTTP/1.1\r\n"+host+"Content-Length: 2\r\n\r\n{}", "")...), []string{"GET", "POST"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			methods := tt.methods
			if methods == nil {
				methods = []string{http.MethodGet}
			}
			from := len(s.log.lines(0))
			want := exchange(t, s.plain, tt.writes, methods)
			// net/http may send the end of an answer before its handler
			// has returned and logged it: wait for the lines to settle.
			wantLines := s.log.settled(from, -1)
			before := s.answers.count()
			from += len(wantLines)
			got := exchange(t, s.fast, tt.writes, methods)
			if got != want {
				t.Fatalf("through the fast path:\n%q\nthrough net/http:\n%q", got, want)
			}
			if n := s.answers.count() - before; n != tt.fast {
				t.Fatalf("%d answered on the fast path, want %d", n, tt.fast)
			}
			gotLines := s.log.settled(from, len(wantLines))
			for i := range gotLines {
				gotLines[i] = logFields.ReplaceAllString(gotLines[i], `"$1":-`)
			}
			for i := range wantLines {
				wantLines[i] = logFields.ReplaceAllString(wantLines[i], `"$1":-`)
			}
			if strings.Join(gotLines, "") != strings.Join(wantLines, "") {
				t.Fatalf("request lines through the fast path:\n%s\nthrough net/http:\n%s", gotLines, wantLines)
			}
		})
	}
}

// FuzzFastPathAnswersAsNetHTTP sends the same bytes on a connection to the
// handler through net/http and through the fast path, ends the sending
// side, and compares everything answered (Date aside) until the server
// closes.
func FuzzFastPathAnswersAsNetHTTP(f *testing.F) {
	for _, seed := range []string{
		"GET /llms.txt HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /support/ HTTP/1.1\r\nHost: a\r\nAccept: text/markdown\r\nAccept-Encoding: gzip, br\r\n\r\nHEAD /llms.txt HTTP/1.1\r\nHost: a:80\r\nContent-Length: 0\r\n\r\n",
		"GET /llms-full.txt HTTP/1.1\r\nHost: [::1]:8080\r\nConnection: keep-alive\r\nIf-None-Match: \"x\"\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /llms.txt HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /llms.txt HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /support/ HTTP/1.1\r\nHost: a\r\n\r\n00",
	} {
		f.Add([]byte(seed))
	}
	s := newFastAndPlain(f, false)
	all := func(t *testing.T, addr string, b []byte) string {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write(b)
		c.(*net.TCPConn).CloseWrite()
		got, err := io.ReadAll(c)
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		return dateField.ReplaceAllString(string(got), "\r\nDate: (date)\r\n")
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := all(t, s.fast, b), all(t, s.plain, b); got != want {
			t.Fatalf("%q\nthrough the fast path:\n%q\nthrough net/http:\n%q", b, got, want)
		}
	})
}

// rawClient1 sends one request again and again on one connection and reads
// each answer, whose length it learns from the first, without allocating.
type rawClient1 struct {
	c   net.Conn
	req []byte
	buf []byte
}

func newRawClient1(tb testing.TB, addr, req string) *rawClient1 {
	tb.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	io.WriteString(c, req)
	var raw bytes.Buffer
	resp, err := http.ReadResponse(bufio.NewReader(io.TeeReader(c, &raw)), nil)
	if err != nil {
		tb.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	return &rawClient1{c: c, req: []byte(req), buf: make([]byte, raw.Len())}
}

func (r *rawClient1) do(tb testing.TB) {
	if _, err := r.c.Write(r.req); err != nil {
		tb.Fatal(err)
	}
	if _, err := io.ReadFull(r.c, r.buf); err != nil {
		tb.Fatal(err)
	}
}

// fastRequests are requests the fast path answers, for the benchmark and
// the allocation test.
var fastRequests = []struct{ name, req string }{
	{"browser-br", "GET /support/ HTTP/1.1\r\nHost: study.example\r\nAccept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\nAccept-Encoding: gzip, deflate, br, zstd\r\n\r\n"},
	{"markdown", "GET /support/ HTTP/1.1\r\nHost: study.example\r\nAccept: text/markdown\r\n\r\n"},
	{"gzip-15KB", "GET /llms-full.txt HTTP/1.1\r\nHost: study.example\r\nAccept-Encoding: gzip\r\n\r\n"},
}

// TestFastPathDoesNotAllocate counts the allocations of the whole process
// (the raw client makes none) while the fast path answers.
func TestFastPathDoesNotAllocate(t *testing.T) {
	s := newFastAndPlain(t, false)
	for _, fr := range fastRequests {
		c := newRawClient1(t, s.fast, fr.req)
		for range 10 {
			c.do(t)
		}
		// The fewest in three runs, so that the odd allocation of another
		// goroutine (the runtime's, the test's log) does not count.
		const n = 500
		fewest := uint64(math.MaxUint64)
		for range 3 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range n {
				c.do(t)
			}
			runtime.ReadMemStats(&after)
			fewest = min(fewest, after.Mallocs-before.Mallocs)
		}
		if perRequest := float64(fewest) / n; perRequest > 0.1 {
			t.Errorf("%s: %.2f allocations per request", fr.name, perRequest)
		}
	}
}

// BenchmarkFastPath answers the same requests over loopback through
// net/http and through the fast path, each on one kept connection (the
// client's work is in both; the ratio is of whole round trips).
func BenchmarkFastPath(b *testing.B) {
	s := newFastAndPlain(b, false)
	for _, fr := range fastRequests {
		for _, server := range []struct{ name, addr string }{{"net-http", s.plain}, {"fastsite", s.fast}} {
			b.Run(fr.name+"/"+server.name, func(b *testing.B) {
				c := newRawClient1(b, server.addr, fr.req)
				b.ReportAllocs()
				b.SetBytes(int64(len(c.buf)))
				for b.Loop() {
					c.do(b)
				}
			})
		}
	}
}

package fastsite

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// answerA answers GET and HEAD of /a with "fast", and counts the requests
// answered and logged.
type answerA struct {
	mu       sync.Mutex
	answered int
	logged   []string
}

func (a *answerA) Answer(req *Request) (Response, bool) {
	if req.Path != "/a" {
		return Response{}, false
	}
	a.mu.Lock()
	a.answered++
	a.mu.Unlock()
	return Response{Status: 200, Header: []byte("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n"), Body: []byte("fast")}, true
}

func (a *answerA) Log(req *Request, _ time.Time, status int, bytes int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.logged = append(a.logged, fmt.Sprintf("%v %s %d %d", req.Head, req.Path, status, bytes))
}

func (a *answerA) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.answered
}

// slowHandler is net/http's side: it answers "slow METHOD PATH BODY".
var slowHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	fmt.Fprintf(w, "slow %s %s %s", r.Method, r.URL.RequestURI(), body)
})

// start serves a on a loopback listener with srv behind it, and returns
// the listener.
func start(t *testing.T, a Answerer, srv *http.Server) *Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if srv.Handler == nil {
		srv.Handler = slowHandler
	}
	front := New(ln, a, srv)
	served := make(chan struct{})
	go func() { srv.Serve(front); close(served) }()
	t.Cleanup(func() {
		srv.Close()
		front.Shutdown(context.Background())
		<-served
	})
	return front
}

func dial(t *testing.T, l *Listener) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c
}

// bodies reads n responses to GETs (HEADs when head) from r and returns
// their bodies.
func bodies(t *testing.T, r *bufio.Reader, n int, head ...bool) []string {
	t.Helper()
	req := &http.Request{Method: http.MethodGet}
	if len(head) > 0 && head[0] {
		req.Method = http.MethodHead
	}
	var got []string
	for range n {
		resp, err := http.ReadResponse(r, req)
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	return got
}

const getA = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"

func TestConnections(t *testing.T) {
	bigHeader := "X-Big: " + strings.Repeat("b", bufferSize) + "\r\n"
	tests := []struct {
		name string
		// writes are sent one after the other, each in its own write.
		writes []string
		want   []string
		// fast is how many the fast path answers.
		fast int
	}{
		{"fast", []string{getA}, []string{"fast"}, 1},
		{"head", []string{"HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n"}, []string{""}, 1},
		{"pipelined, in order", []string{getA + getA + "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi" + getA}, []string{"fast", "fast", "slow POST /a hi", "slow GET /a "}, 2},
		{"fast, then slow, then net/http keeps the connection", []string{getA, "GET /b HTTP/1.1\r\nHost: x\r\n\r\n", getA}, []string{"fast", "slow GET /b ", "slow GET /a "}, 1},
		{"one byte at a time", strings.Split(getA, ""), []string{"fast"}, 1},
		{"a header block larger than the buffer", []string{"GET /a HTTP/1.1\r\nHost: x\r\n" + bigHeader + "\r\n"}, []string{"slow GET /a "}, 0},
		{"after a fast answer, a header block filling the buffer", []string{getA + "GET /a HTTP/1.1\r\nHost: x\r\n" + bigHeader + "\r\n"}, []string{"fast", "slow GET /a "}, 1},
		{"query", []string{"GET /a?q=1 HTTP/1.1\r\nHost: x\r\n\r\n"}, []string{"slow GET /a?q=1 "}, 0},
		{"chunked", []string{"GET /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"}, []string{"slow GET /a hi"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &answerA{}
			l := start(t, a, &http.Server{})
			c := dial(t, l)
			for _, w := range tt.writes {
				if _, err := io.WriteString(c, w); err != nil {
					t.Fatal(err)
				}
				if len(tt.writes) > 1 {
					time.Sleep(time.Millisecond)
				}
			}
			got := bodies(t, bufio.NewReader(c), len(tt.want), strings.HasPrefix(tt.writes[0], "HEAD"))
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("bodies %q, want %q", got, tt.want)
			}
			if n := a.count(); n != tt.fast {
				t.Fatalf("%d answered on the fast path, want %d", n, tt.fast)
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			if len(a.logged) != tt.fast {
				t.Fatalf("%d log lines (%q), want %d", len(a.logged), a.logged, tt.fast)
			}
		})
	}
}

// TestConnectionEndsMidRequest: a client that ends its side of the
// connection in the middle of a request gets what net/http alone gives
// it: after an answer, nothing for fewer than four bytes (net/http waits
// for four between requests) and a 400 for more.
func TestConnectionEndsMidRequest(t *testing.T) {
	tests := []struct {
		name, sent string
		want       []int // the statuses answered
	}{
		{"one byte after an answer", getA + "G", []int{200}},
		{"three bytes after an answer", getA + "GET", []int{200}},
		{"four bytes after an answer", getA + "GET ", []int{200, 400}},
		{"a request begun after an answer", getA + "GET /a HTTP/1.1\r\nHo", []int{200, 400}},
		{"garbage after an answer", getA + "00", []int{200}},
		{"one byte first", "G", []int{400}},
		{"a request begun first", "GET /a HTTP/1.1\r\nHo", []int{400}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, fast := range []bool{false, true} {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				srv := &http.Server{Handler: slowHandler}
				var served net.Listener = ln
				if fast {
					served = New(ln, &answerA{}, srv)
				}
				go srv.Serve(served)
				defer srv.Close()
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				io.WriteString(c, tt.sent)
				c.(*net.TCPConn).CloseWrite()
				var got []int
				for r := bufio.NewReader(c); ; {
					resp, err := http.ReadResponse(r, nil)
					if err != nil {
						break
					}
					io.Copy(io.Discard, resp.Body)
					got = append(got, resp.StatusCode)
				}
				if fmt.Sprint(got) != fmt.Sprint(tt.want) {
					t.Fatalf("fast path %v: statuses %v, want %v", fast, got, tt.want)
				}
			}
		})
	}
}

// closedWithin reports whether the server closes c within d, having sent
// nothing.
func closedWithin(t *testing.T, c net.Conn, d time.Duration) bool {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	n, err := c.Read(make([]byte, 1))
	if n > 0 {
		t.Fatalf("the server answered")
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return true
}

func TestTimeouts(t *testing.T) {
	const timeout = 300 * time.Millisecond
	// The server's timeouts take effect up to deadlineStep late.
	const late = timeout + deadlineStep + 100*time.Millisecond
	tests := []struct {
		name string
		srv  *http.Server
		// before is sent and answered first; then partial is sent, after
		// pause the rest of the request.
		before, partial, rest string
		pause                 time.Duration
		// within is the longest the connection may stay open after partial.
		within time.Duration
	}{
		{"header too slow", &http.Server{ReadHeaderTimeout: timeout}, "", "GET /a HTTP/1.1\r\nHost", ": x\r\n\r\n", late, late},
		{"header too slow, ReadTimeout as net/http falls back to it", &http.Server{ReadTimeout: timeout}, "", "GET /a HTTP/1.1\r\nHost", ": x\r\n\r\n", late, late},
		{"idle too long", &http.Server{IdleTimeout: timeout}, getA, "", getA, late, late},
		// Without the fast path's header deadline kept, net/http would
		// allow a whole second from the handing over.
		{"header too slow after handing over, counted from the request's start", &http.Server{ReadHeaderTimeout: time.Second}, "",
			"GET /a HTTP/1.1\r\nHost: x\r\n", "Expect: 100-continue\r\n", 900 * time.Millisecond, time.Second + deadlineStep + 100*time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := start(t, &answerA{}, tt.srv)
			c := dial(t, l)
			r := bufio.NewReader(c)
			if tt.before != "" {
				io.WriteString(c, tt.before)
				bodies(t, r, 1)
			}
			begun := time.Now()
			io.WriteString(c, tt.partial)
			time.Sleep(tt.pause)
			io.WriteString(c, tt.rest) // fails once the server has closed
			if !closedWithin(t, c, tt.within) {
				t.Fatalf("the connection is open %v after the request began", time.Since(begun))
			}
			if d := time.Since(begun); d > tt.within+50*time.Millisecond {
				t.Fatalf("closed after %v, want at most %v", d, tt.within)
			}
		})
	}
}

func TestShutdown(t *testing.T) {
	a := &answerA{}
	srv := &http.Server{}
	l := start(t, a, srv)
	idle := dial(t, l)
	io.WriteString(idle, getA)
	bodies(t, bufio.NewReader(idle), 1)
	// A request begun and not complete is not waited for, as net/http
	// does not wait for one.
	partial := dial(t, l)
	io.WriteString(partial, "GET /a HTTP/1.1\r\n")
	time.Sleep(20 * time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- errors.Join(srv.Shutdown(ctx), l.Shutdown(ctx)) }()
	for name, c := range map[string]net.Conn{"an idle connection": idle, "a request not complete": partial} {
		if !closedWithin(t, c, time.Second) {
			t.Fatalf("%s stays open after Shutdown", name)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if c, err := net.Dial("tcp", l.Addr().String()); err == nil {
		c.Close()
		t.Fatal("the listener accepts after Shutdown")
	}
}

// TestShutdownWhileNetHTTPIsBusy: http.Server.Shutdown closes the fast
// path's connections waiting for a request at once, as it closes its own
// idle ones, even while it waits for a request of its own under way (the
// command calls Listener.Shutdown only once it returns).
func TestShutdownWhileNetHTTPIsBusy(t *testing.T) {
	tests := []struct {
		name string
		// sent is sent on the fast path's connection before the shutdown;
		// answered is how many answers to read first.
		sent     string
		answered int
	}{
		{"idle after an answer", getA, 1},
		{"a request begun", getA + "GET /a HTTP/1.1\r\n", 1},
		{"nothing sent yet", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release })}
			l := start(t, &answerA{}, srv)
			c := dial(t, l)
			io.WriteString(c, tt.sent)
			bodies(t, bufio.NewReader(c), tt.answered)
			busy := dial(t, l)
			io.WriteString(busy, "GET /busy HTTP/1.1\r\nHost: x\r\n\r\n")
			time.Sleep(20 * time.Millisecond)

			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			go srv.Shutdown(ctx)
			if !closedWithin(t, c, time.Second) {
				t.Fatal("the fast path's connection stays open while net/http shuts down")
			}
		})
	}
}

// TestHandedConnection: however net/http's side reads a connection handed
// over, the bytes the fast path had read and not answered come first.
func TestHandedConnection(t *testing.T) {
	const rest = "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"
	tests := []struct {
		name string
		read func(net.Conn) ([]byte, error)
	}{
		{"Read", func(c net.Conn) ([]byte, error) { return io.ReadAll(struct{ io.Reader }{c}) }},
		{"WriteTo, as io.Copy reads", func(c net.Conn) ([]byte, error) {
			var b bytes.Buffer
			_, err := io.Copy(&b, c)
			return b.Bytes(), err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			l := New(ln, &answerA{}, &http.Server{})
			defer l.Shutdown(context.Background())
			c := dial(t, l)
			io.WriteString(c, getA+rest)
			c.(*net.TCPConn).CloseWrite()
			h, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			h.SetDeadline(time.Now().Add(5 * time.Second))
			got, err := tt.read(h)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != rest {
				t.Fatalf("read %q, want %q", got, rest)
			}
		})
	}
}

// FuzzConnection sends arbitrary bytes on a connection, then ends it, and
// checks that the fast path answers whole requests from the start and
// hands every byte after them to net/http as it was sent.
func FuzzConnection(f *testing.F) {
	for _, seed := range []string{
		getA,
		getA + getA + "POST /a HTTP/1.1\r\nHost: x\r\n\r\n",
		getA + "GET /a HTTP/1.1\r\nHost: x\r\nX: \x00\r\n\r\n",
		getA + "GET /a HTTP/1.1\r\nHo",
		"HEAD /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\n\r\n",
		getA + strings.Repeat("GET /a HTTP/1.1\r\nHost: x\r\nX: "+strings.Repeat("y", 3000)+"\r\n\r\n", 4),
		getA + "GET /a HTTP/1.1\r\nHost: x\r\nX: " + strings.Repeat("y", bufferSize) + "\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	a := &answerA{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	l := New(ln, a, &http.Server{})
	defer l.Close()
	f.Fuzz(func(t *testing.T, b []byte) {
		// What the fast path should answer: the complete requests for /a
		// at the start, each within the buffer.
		answered, rest := 0, b
		for {
			got := parseAll(rest)
			if got.state != complete || got.path != "/a" || got.length > bufferSize {
				break
			}
			answered++
			rest = rest[got.length:]
		}
		// After an answer, fewer than four bytes are not handed over: the
		// connection closes on them, as net/http's does.
		if answered > 0 && len(rest) < 4 {
			rest = rest[:0]
		}
		before := a.count()
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		responses := make(chan []byte, 1)
		go func() {
			b, err := io.ReadAll(c)
			if err != nil {
				t.Errorf("reading the answers: %v", err)
			}
			responses <- b
		}()
		c.Write(b)
		c.(*net.TCPConn).CloseWrite()
		var handed []byte
		if len(rest) > 0 {
			accepted := make(chan net.Conn, 1)
			go func() { h, _ := l.Accept(); accepted <- h }()
			var h net.Conn
			select {
			case h = <-accepted:
			case <-time.After(5 * time.Second):
				t.Fatalf("%q: nothing handed over after %d answers, want %q", b, answered, rest)
			}
			h.SetDeadline(time.Now().Add(5 * time.Second))
			handed, err = io.ReadAll(h)
			h.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		got := <-responses
		if n := bytes.Count(got, []byte("HTTP/1.1 200 OK\r\nContent-Length: 4\r\nDate: ")); n != answered {
			t.Fatalf("%d fast answers (%q), want %d", n, got, answered)
		}
		if n := a.count() - before; n != answered {
			t.Fatalf("answered %d, want %d", n, answered)
		}
		if !bytes.Equal(handed, rest) {
			t.Fatalf("handed over %q, want %q", handed, rest)
		}
	})
}

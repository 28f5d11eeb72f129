package coalesce_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/coalesce"
)

// countingListener counts the writes on the connections it accepts, below
// coalesce's.
type countingListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

func (c countingConn) CloseWrite() error { return c.Conn.(*net.TCPConn).CloseWrite() }

// serve starts a real HTTP server on loopback whose handler writes a body
// of ?size= bytes, holding the response when ?hold=1, and returns its URL
// and the count of writes on its connections.
func serve(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	writes := new(atomic.Int64)
	srv := &http.Server{
		ConnContext: coalesce.ConnContext,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			size, _ := strconv.Atoi(r.URL.Query().Get("size"))
			if r.URL.Query().Get("hold") == "1" {
				coalesce.Hold(r.Context())
			}
			w.Header().Set("Content-Length", strconv.Itoa(size))
			w.Write(body(size)) //nolint:errcheck // the client reports it
		}),
	}
	go srv.Serve(coalesce.Listener(countingListener{ln, writes})) //nolint:errcheck // ends with Close
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String(), writes
}

func body(size int) []byte {
	return bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
}

// TestHeldResponseLeavesInOneWrite: a held response of any size up to
// MaxHeld goes out, headers and body, in one write; an unheld one of more
// than net/http's 4 KiB buffer does not, and neither does a held one
// larger than MaxHeld. Requests follow each other on one kept-alive
// connection, so each response must have gone out whole before the next
// request is read.
func TestHeldResponseLeavesInOneWrite(t *testing.T) {
	url, writes := serve(t)
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1, DisableCompression: true}}
	tests := []struct {
		method string
		size   int
		hold   bool
		writes func(int64) bool
		want   string
	}{
		{"GET", 100, true, func(n int64) bool { return n == 1 }, "1"},
		{"GET", 15_000, true, func(n int64) bool { return n == 1 }, "1"},
		{"GET", coalesce.MaxHeld - 1000, true, func(n int64) bool { return n == 1 }, "1"},
		{"HEAD", 15_000, true, func(n int64) bool { return n == 1 }, "1"},
		{"GET", 15_000, false, func(n int64) bool { return n > 1 }, "more than 1"},
		{"GET", coalesce.MaxHeld + 1, true, func(n int64) bool { return n > 1 }, "more than 1"},
		{"GET", 7_000, true, func(n int64) bool { return n == 1 }, "1"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %d hold=%v", tt.method, tt.size, tt.hold), func(t *testing.T) {
			hold := 0
			if tt.hold {
				hold = 1
			}
			req, err := http.NewRequest(tt.method, fmt.Sprintf("%s/?size=%d&hold=%d", url, tt.size, hold), nil)
			if err != nil {
				t.Fatal(err)
			}
			before := writes.Load()
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			want := body(tt.size)
			if tt.method == "HEAD" {
				want = []byte{}
			}
			if resp.StatusCode != http.StatusOK || !bytes.Equal(got, want) {
				t.Fatalf("status %d, %d bytes; want 200 and the %d bytes written", resp.StatusCode, len(got), len(want))
			}
			if n := writes.Load() - before; !tt.writes(n) {
				t.Errorf("%d writes on the connection, want %s", n, tt.want)
			}
		})
	}
}

// TestHeldResponseBeforeClose: a held response to a request that closes
// the connection arrives whole before the connection ends.
func TestHeldResponseBeforeClose(t *testing.T) {
	url, _ := serve(t)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
	for range 3 {
		resp, err := client.Get(url + "/?size=20000&hold=1")
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(got, body(20000)) {
			t.Fatalf("%d bytes, %v; want the 20000 bytes written", len(got), err)
		}
	}
}

// TestHoldWithoutListener: under a server whose connections did not come
// from Listener (httptest, tests of handlers), Hold does nothing.
func TestHoldWithoutListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ConnContext: coalesce.ConnContext, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		coalesce.Hold(r.Context())
		w.Write(body(10_000)) //nolint:errcheck // the client reports it
	})}
	go srv.Serve(ln) //nolint:errcheck // ends with Close
	defer srv.Close()
	resp, err := http.Get("http://" + ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(got, body(10_000)) {
		t.Fatalf("%d bytes, %v; want the 10000 bytes written", len(got), err)
	}
}

// BenchmarkServe serves a response of each size over loopback from an
// http.Server with the production timeouts (ReadHeaderTimeout 10s,
// ReadTimeout and WriteTimeout 60s, IdleTimeout 120s), through a plain
// listener and through Listener with the handler holding (HoldBody), alternating in
// batches on one kept-alive connection each; a raw client writes a request
// and reads the answer by its Content-Length. It reports each one's time
// per request and the median ratio of plain to coalesced time per batch.
func BenchmarkServe(b *testing.B) {
	for _, size := range []int{1_000, 3_000, 15_000} {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			plain := benchClient(b, size, false)
			held := benchClient(b, size, true)
			const batch = 64
			var ratios []float64
			var plainTime, heldTime time.Duration
			for done := 0; done < b.N; done += batch {
				n := min(batch, b.N-done)
				p, h := plain(n), held(n)
				plainTime += p
				heldTime += h
				ratios = append(ratios, float64(p)/float64(h))
			}
			slices.Sort(ratios)
			b.ReportMetric(float64(plainTime.Nanoseconds())/float64(b.N), "plain-ns/op")
			b.ReportMetric(float64(heldTime.Nanoseconds())/float64(b.N), "coalesced-ns/op")
			b.ReportMetric(ratios[len(ratios)/2], "ratio")
		})
	}
}

// benchClient starts a server answering size bytes, through Listener and
// holding when coalesced, and returns a function that makes n requests on
// one connection and times them.
func benchClient(b *testing.B, size int, coalesced bool) func(n int) time.Duration {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	payload := body(size)
	length := []string{strconv.Itoa(size)}
	srv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			coalesce.HoldBody(r.Context(), payload)
			w.Header()["Content-Length"] = length
			w.Write(payload) //nolint:errcheck // the client reports it
		}),
	}
	served := ln
	if coalesced {
		srv.ConnContext = coalesce.ConnContext
		served = coalesce.Listener(ln)
	}
	go srv.Serve(served) //nolint:errcheck // ends with Close
	b.Cleanup(func() { srv.Close() })
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	request := []byte("GET / HTTP/1.1\r\nHost: bench\r\nAccept: */*\r\n\r\n")
	r := bufio.NewReaderSize(c, 64<<10)
	return func(n int) time.Duration {
		start := time.Now()
		for range n {
			if _, err := c.Write(request); err != nil {
				b.Fatal(err)
			}
			tp := textproto.NewReader(r)
			if _, err := tp.ReadLine(); err != nil {
				b.Fatal(err)
			}
			h, err := tp.ReadMIMEHeader()
			if err != nil {
				b.Fatal(err)
			}
			length, _ := strconv.Atoi(h.Get("Content-Length"))
			if _, err := r.Discard(length); err != nil || length != size {
				b.Fatalf("read %d of %d bytes: %v", length, size, err)
			}
		}
		return time.Since(start)
	}
}

// pair returns the two ends of a loopback TCP connection, the server's
// from Listener.
func pair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := coalesce.Listener(ln).Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	return server, client
}

// TestDeadlines: a deadline set while nothing reads or writes still
// applies to the next read or write, no earlier than asked and at most
// DeadlineStep (plus scheduling) later; one already past fails at once,
// without consuming what the peer sent; one in the past stops a read
// under way in another goroutine, as net/http stops its background read.
func TestDeadlines(t *testing.T) {
	const wait = 150 * time.Millisecond
	isTimeout := func(err error) bool {
		var ne net.Error
		return errors.As(err, &ne) && ne.Timeout()
	}
	tests := []struct {
		name string
		run  func(server, client net.Conn) error
		// min and max bound how long run takes.
		min, max time.Duration
	}{
		{"read deadline ahead", func(server, client net.Conn) error {
			server.SetReadDeadline(time.Now().Add(wait))
			_, err := server.Read(make([]byte, 1))
			return err
		}, wait, wait + coalesce.DeadlineStep + 200*time.Millisecond},
		{"write deadline ahead, peer not reading", func(server, client net.Conn) error {
			server.SetWriteDeadline(time.Now().Add(wait))
			chunk := make([]byte, 1<<20)
			for {
				if _, err := server.Write(chunk); err != nil {
					return err
				}
			}
		}, wait, wait + coalesce.DeadlineStep + 500*time.Millisecond},
		{"read deadline past, data waiting", func(server, client net.Conn) error {
			client.Write([]byte("x"))
			time.Sleep(20 * time.Millisecond)
			server.SetReadDeadline(time.Now().Add(-time.Second))
			_, err := server.Read(make([]byte, 1))
			server.SetReadDeadline(time.Time{})
			if got := make([]byte, 1); err != nil {
				if n, _ := server.Read(got); n != 1 || got[0] != 'x' {
					return fmt.Errorf("after the timeout, read %q, want the byte sent", got[:n])
				}
			}
			return err
		}, 20 * time.Millisecond, 20*time.Millisecond + 200*time.Millisecond},
		{"read stopped from another goroutine", func(server, client net.Conn) error {
			server.SetReadDeadline(time.Time{})
			go func() {
				time.Sleep(wait)
				server.SetReadDeadline(time.Unix(1, 0))
			}()
			_, err := server.Read(make([]byte, 1))
			return err
		}, wait, wait + 200*time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server, client := pair(t)
			// A deadline that never takes effect fails the test instead of
			// hanging it.
			guard := time.AfterFunc(3*time.Second, func() { server.Close() })
			defer guard.Stop()
			start := time.Now()
			err := tt.run(server, client)
			took := time.Since(start)
			if !isTimeout(err) {
				t.Fatalf("err = %v, want a timeout", err)
			}
			if took < tt.min || took > tt.max {
				t.Errorf("timed out after %v, want between %v and %v", took, tt.min, tt.max)
			}
		})
	}
}

// TestIdleTimeout: a server's IdleTimeout still closes a kept-alive
// connection from Listener that sends nothing more.
func TestIdleTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	const idle = 200 * time.Millisecond
	srv := &http.Server{IdleTimeout: idle, ConnContext: coalesce.ConnContext, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		coalesce.Hold(r.Context())
		w.Write(body(5000)) //nolint:errcheck // the client reports it
	})}
	go srv.Serve(coalesce.Listener(ln)) //nolint:errcheck // ends with Close
	defer srv.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: idle\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body) //nolint:errcheck // only the close matters
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := c.Read(make([]byte, 1))
	took := time.Since(start)
	if n != 0 || err != io.EOF {
		t.Fatalf("read %d bytes, %v; want the server to close the connection", n, err)
	}
	if took < idle-50*time.Millisecond || took > idle+coalesce.DeadlineStep+time.Second {
		t.Errorf("closed after %v idle, want about %v", took, idle)
	}
}

// TestHoldBody: under HoldBody, a write of the end of the named body is
// sent from the body itself after the bytes held before it (a change made
// to the body before the response goes out shows), any other write is
// copied as under Hold, and a write after the body's end sends everything
// in order (the body's end at once) and ends holding.
func TestHoldBody(t *testing.T) {
	tests := []struct {
		name   string
		writes func(body []byte) [][]byte
		want   func(body []byte) string // what the client reads, after body[0] and body[len-1] are changed
	}{
		{"end of the body, sent from it",
			func(body []byte) [][]byte { return [][]byte{[]byte("head "), body[4:]} },
			func(body []byte) string { return "head " + string(body[4:]) }},
		{"the whole body, sent from it",
			func(body []byte) [][]byte { return [][]byte{[]byte("head "), body} },
			func(body []byte) string { return "head " + string(body) }},
		{"a part that is not the end, copied",
			func(body []byte) [][]byte { return [][]byte{[]byte("head "), body[:6]} },
			func([]byte) string { return "head 012345" }},
		{"a copy of the end, copied",
			func(body []byte) [][]byte { return [][]byte{[]byte("head "), bytes.Clone(body[4:])} },
			func([]byte) string { return "head 456789abcdef" }},
		{"something after the end, in order",
			func(body []byte) [][]byte { return [][]byte{[]byte("head "), body[4:], []byte(" after")} },
			func([]byte) string { return "head 456789abcdef after" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server, client := pair(t)
			body := []byte("0123456789abcdef")
			coalesce.HoldBody(coalesce.ConnContext(context.Background(), server), body)
			for _, p := range tt.writes(body) {
				if n, err := server.Write(p); n != len(p) || err != nil {
					t.Fatalf("Write: %d of %d bytes, %v", n, len(p), err)
				}
			}
			body[0], body[len(body)-1] = 'X', 'Y'
			if err := server.SetWriteDeadline(time.Time{}); err != nil { // net/http's signal that the response is complete
				t.Fatal(err)
			}
			want := tt.want(body)
			got := make([]byte, len(want))
			client.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := io.ReadFull(client, got); err != nil || string(got) != want {
				t.Errorf("client read %q (%v), want %q", got, err, want)
			}
		})
	}
}

package coalesce_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

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

package mcp_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/mcp"
)

// publicListener hands out connections that report a public local
// address, as if the server had been reached on the internet rather than
// on loopback.
type publicListener struct{ net.Listener }

func (l publicListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return publicConn{c}, nil
}

type publicConn struct{ net.Conn }

func (publicConn) LocalAddr() net.Addr {
	return &net.TCPAddr{IP: net.ParseIP("203.0.113.7"), Port: 443}
}

// startGuarded serves POST /mcp behind Guard for BASE_URL
// https://studyloop.example and ALLOWED_HOSTS mcp.studyloop.example, on
// loopback or, with public set, seemingly on a public address.
func startGuarded(t *testing.T, public bool) string {
	t.Helper()
	guard, err := mcp.Guard(mcp.GuardOptions{BaseURL: "https://studyloop.example", AllowedHosts: []string{"mcp.studyloop.example"}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /mcp", guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })))
	ts := httptest.NewUnstartedServer(mux)
	if public {
		ts.Listener = publicListener{ts.Listener}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// TestGuardHosts checks the DNS-rebinding rules: on loopback, localhost,
// 127.0.0.1 and [::1] on any port besides BASE_URL's host and
// ALLOWED_HOSTS; elsewhere only the latter two; 403 for everything else.
func TestGuardHosts(t *testing.T) {
	urls := map[bool]string{false: startGuarded(t, false), true: startGuarded(t, true)}
	tests := []struct {
		name         string
		public       bool
		host, origin string
		want         int
	}{
		{"loopback: localhost with a port", false, "localhost:51234", "", 200},
		{"loopback: localhost without a port", false, "localhost", "", 200},
		{"loopback: LOCALHOST", false, "LOCALHOST:80", "", 200},
		{"loopback: 127.0.0.1", false, "127.0.0.1:9", "", 200},
		{"loopback: [::1]", false, "[::1]:3000", "", 200},
		{"loopback: BASE_URL's host", false, "studyloop.example", "", 200},
		{"loopback: an allowed host", false, "mcp.studyloop.example:8443", "", 200},
		{"loopback: Origin localhost", false, "localhost:8080", "http://localhost:3000", 200},
		{"loopback: Origin [::1]", false, "localhost:8080", "http://[::1]:3000", 200},
		{"loopback: Origin 127.0.0.1", false, "127.0.0.1:8080", "http://127.0.0.1", 200},
		{"loopback: Origin of BASE_URL", false, "localhost:8080", "https://studyloop.example", 200},
		{"loopback: a rebound Host", false, "evil.example.com", "", 403},
		{"loopback: a rebound Host with a port", false, "evil.example.com:8080", "", 403},
		{"loopback: a name ending in localhost", false, "localhost.evil.example", "", 403},
		{"loopback: another loopback address", false, "127.0.0.2", "", 403},
		{"loopback: a rebound Origin", false, "localhost:8080", "http://evil.example.com", 403},
		{"loopback: Origin null", false, "localhost:8080", "null", 403},
		{"public: BASE_URL's host", true, "studyloop.example", "", 200},
		{"public: an allowed host", true, "mcp.studyloop.example", "https://mcp.studyloop.example", 200},
		{"public: localhost", true, "localhost:8080", "", 403},
		{"public: 127.0.0.1", true, "127.0.0.1", "", 403},
		{"public: [::1]", true, "[::1]:8080", "", 403},
		{"public: Origin localhost", true, "studyloop.example", "http://localhost:3000", 403},
		{"public: a rebound Host", true, "evil.example.com", "", 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, urls[tt.public], strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			req.Host = tt.host
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tt.want {
				t.Errorf("status %d, want %d", res.StatusCode, tt.want)
			}
		})
	}
}

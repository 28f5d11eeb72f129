package oauth

import (
	"context"
	"crypto/x509"
	"encoding/binary"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

func TestAddrKind(t *testing.T) {
	tests := []struct {
		addr string
		want string // "" for an address documents may be fetched from
	}{
		{"93.184.215.14", ""},
		{"8.8.8.8", ""},
		{"2606:4700:4700::1111", ""},
		{"2a00:1450:4001:80b::200e", ""},
		{"::ffff:8.8.8.8", ""},            // IPv4-mapped public
		{"64:ff9b::808:808", ""},          // NAT64 of 8.8.8.8
		{"0.0.0.0", "unspecified"},        // IPv4 unspecified
		{"::", "unspecified"},             // IPv6 unspecified
		{"0.1.2.3", "reserved"},           // "this network"
		{"127.0.0.1", "loopback"},         // IPv4 loopback
		{"127.255.255.254", "loopback"},   // the whole 127/8
		{"::1", "loopback"},               // IPv6 loopback
		{"::ffff:127.0.0.1", "loopback"},  // IPv4-mapped loopback
		{"::127.0.0.1", "loopback"},       // IPv4-compatible loopback
		{"64:ff9b::7f00:1", "loopback"},   // NAT64 of loopback
		{"10.0.0.1", "private"},           // RFC 1918
		{"10.255.255.255", "private"},     // its last address
		{"172.16.0.1", "private"},         // RFC 1918, first of 172.16/12
		{"172.31.255.255", "private"},     // last of 172.16/12
		{"172.15.255.255", ""},            // just below 172.16/12
		{"172.32.0.0", ""},                // just above it
		{"192.168.1.1", "private"},        // RFC 1918
		{"::ffff:10.1.2.3", "private"},    // IPv4-mapped private
		{"::ffff:192.168.0.1", "private"}, // IPv4-mapped private
		{"fc00::1", "private"},            // unique local
		{"fd12:3456:789a::1", "private"},  // unique local
		{"fec0::1", "private"},            // site-local (deprecated)
		{"100.64.0.1", "shared (carrier-grade NAT)"},
		{"100.127.255.255", "shared (carrier-grade NAT)"},
		{"100.63.255.255", ""},               // just below the CGNAT block
		{"100.128.0.0", ""},                  // just above it
		{"169.254.169.254", "link-local"},    // cloud metadata services
		{"fe80::1", "link-local"},            // IPv6 link-local
		{"fe80::1%eth0", "link-local"},       // with a zone
		{"::ffff:169.254.0.1", "link-local"}, // IPv4-mapped link-local
		{"224.0.0.1", "multicast"},           // IPv4 multicast
		{"239.255.255.250", "multicast"},     // SSDP
		{"ff02::1", "multicast"},             // IPv6 multicast
		{"255.255.255.255", "broadcast"},
		{"240.0.0.1", "reserved"},         // class E
		{"192.0.0.8", "reserved"},         // IETF protocol assignments
		{"192.0.2.1", "documentation"},    // TEST-NET-1
		{"198.51.100.1", "documentation"}, // TEST-NET-2
		{"203.0.113.1", "documentation"},  // TEST-NET-3
		{"198.18.0.1", "benchmarking"},
		{"2001:db8::1", "documentation"},
		{"3fff::1", "documentation"},
		{"2001::1", "reserved"},         // Teredo
		{"2002:7f00:1::1", "reserved"},  // 6to4 (of 127.0.0.1)
		{"64:ff9b:1::1", "reserved"},    // local-use NAT64
		{"::8.8.8.8", "reserved"},       // IPv4-compatible, even of a public address
		{"::ffff:0:7f00:1", "reserved"}, // IPv4-translated, outside 2000::/3
		{"4000::1", "reserved"},         // outside global unicast
	}
	for _, tt := range tests {
		if got := addrKind(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("addrKind(%s) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}

// countingTLSServer is an HTTPS server on loopback that counts the
// connections made to it.
func countingTLSServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are the point
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &conns
}

func testRoots(srv *httptest.Server) *x509.CertPool {
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	return roots
}

// TestFetchRefusesWithoutConnecting: the production fetcher refuses every
// special address, loopback included, before it connects; a test server
// on loopback sees no connection.
func TestFetchRefusesWithoutConnecting(t *testing.T) {
	srv, conns := countingTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("{}"))
	}))
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	f := newDocFetcher(nil, time.Second)
	tests := []struct{ url, want string }{
		{srv.URL + "/client.json", "resolves to 127.0.0.1, which is not a public address (loopback)"},
		{"https://localhost:" + strconv.Itoa(port) + "/client.json", "(loopback)"},
		{"https://[::1]:" + strconv.Itoa(port) + "/client.json", "resolves to ::1, which is not a public address (loopback)"},
		{"https://[::ffff:127.0.0.1]:" + strconv.Itoa(port) + "/client.json", "resolves to 127.0.0.1, which is not a public address (loopback)"},
		{"https://10.0.0.1/client.json", "(private)"},
		{"https://169.254.169.254/latest/meta-data", "(link-local)"},
		{"https://[fd00::1]/client.json", "(private)"},
		{"https://0.0.0.0:" + strconv.Itoa(port) + "/client.json", "(unspecified)"},
		{"https://224.0.0.1/client.json", "(multicast)"},
		{"https://100.64.0.1/client.json", "(shared (carrier-grade NAT))"},
		{"http://127.0.0.1:" + strconv.Itoa(port) + "/client.json", "only https"},
	}
	for _, tt := range tests {
		_, _, err := f.fetch(context.Background(), tt.url)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("fetch(%s): %v, want an error saying %q", tt.url, err, tt.want)
		}
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the loopback server saw %d connections, want 0", n)
	}
}

// stubResolver is a resolver whose DNS server, in memory, answers A and
// AAAA questions from hosts (names with the final dot).
func stubResolver(t *testing.T, hosts map[string][]netip.Addr) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		client, server := net.Pipe()
		go serveStubDNS(t, server, hosts)
		return client, nil
	}}
}

// serveStubDNS answers the queries on conn, which carries DNS over a
// stream (each message after its 2-byte length, as over TCP).
func serveStubDNS(t *testing.T, conn net.Conn, hosts map[string][]netip.Addr) {
	defer conn.Close()
	for {
		var size [2]byte
		if _, err := io.ReadFull(conn, size[:]); err != nil {
			return
		}
		msg := make([]byte, binary.BigEndian.Uint16(size[:]))
		if _, err := io.ReadFull(conn, msg); err != nil {
			return
		}
		var p dnsmessage.Parser
		h, err := p.Start(msg)
		if err != nil {
			return
		}
		q, err := p.Question()
		if err != nil {
			return
		}
		b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
		b.EnableCompression()
		b.StartQuestions()
		b.Question(q)
		b.StartAnswers()
		rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}
		for _, a := range hosts[q.Name.String()] {
			switch {
			case q.Type == dnsmessage.TypeA && a.Is4():
				b.AResource(rh, dnsmessage.AResource{A: a.As4()})
			case q.Type == dnsmessage.TypeAAAA && a.Is6():
				b.AAAAResource(rh, dnsmessage.AAAAResource{AAAA: a.As16()})
			}
		}
		answer, err := b.Finish()
		if err != nil {
			t.Error(err)
			return
		}
		binary.BigEndian.PutUint16(size[:], uint16(len(answer)))
		if _, err := conn.Write(append(size[:], answer...)); err != nil {
			return
		}
	}
}

// TestFetchResolvesFirst: a host name is resolved and refused when any of
// its addresses is special, even beside a public one (as a rebinding
// attacker's DNS might answer); the connection goes to the checked address,
// while TLS still verifies the name.
func TestFetchResolvesFirst(t *testing.T) {
	srv, conns := countingTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("{}"))
	}))
	port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	addrs := func(s ...string) []netip.Addr {
		var out []netip.Addr
		for _, a := range s {
			out = append(out, netip.MustParseAddr(a))
		}
		return out
	}
	resolver := stubResolver(t, map[string][]netip.Addr{
		"mixed.test.":    addrs("93.184.215.14", "10.1.2.3"),
		"mixed6.test.":   addrs("2606:4700:4700::1111", "::1"),
		"mapped.test.":   addrs("::ffff:192.168.0.10"),
		"loopback.test.": addrs("127.0.0.1"),
		"example.com.":   addrs("127.0.0.1"), // a name in the test server's certificate
	})
	production := newDocFetcher(nil, time.Second)
	production.resolver = resolver
	tests := []struct{ host, want string }{
		{"mixed.test", "resolves to 10.1.2.3, which is not a public address (private)"},
		{"mixed6.test", "resolves to ::1, which is not a public address (loopback)"},
		{"mapped.test", "resolves to 192.168.0.10, which is not a public address (private)"},
		{"loopback.test", "resolves to 127.0.0.1, which is not a public address (loopback)"},
		{"nowhere.test", "could not be resolved"},
	}
	for _, tt := range tests {
		_, _, err := production.fetch(context.Background(), "https://"+tt.host+":"+port+"/client.json")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error saying %q", tt.host, err, tt.want)
		}
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the loopback server saw %d connections, want 0", n)
	}

	test := newDocFetcher(testRoots(srv), time.Second)
	test.resolver = resolver
	if body, _, err := test.fetch(context.Background(), "https://example.com:"+port+"/client.json"); err != nil || string(body) != "{}" {
		t.Fatalf("test fetcher, a name resolving to loopback: %q, %v", body, err)
	}
	if _, _, err := test.fetch(context.Background(), "https://loopback.test:"+port+"/client.json"); err == nil || !strings.Contains(err.Error(), "TLS certificate") {
		t.Fatalf("a name the certificate does not cover: %v", err)
	}
}

// TestControlRefusesSpecialAddresses: the check made on every socket just
// before it connects.
func TestControlRefusesSpecialAddresses(t *testing.T) {
	f := newDocFetcher(nil, time.Second)
	for _, tt := range []struct {
		address string
		ok      bool
	}{
		{"93.184.215.14:443", true},
		{"[2606:4700:4700::1111]:443", true},
		{"127.0.0.1:443", false},
		{"[::ffff:10.0.0.1]:443", false},
		{"[fe80::1%eth0]:443", false},
		{"not an address", false},
	} {
		if err := f.control("tcp", tt.address, nil); (err == nil) != tt.ok {
			t.Errorf("control(%s) = %v, want ok %v", tt.address, err, tt.ok)
		}
	}
}

// TestFetch runs the test fetcher (test CA, loopback allowed) against a
// real HTTPS server: sizes at the cap, redirects, statuses, slowness and an
// untrusted certificate.
func TestFetch(t *testing.T) {
	const timeout = 300 * time.Millisecond
	exact := strings.Repeat("x", maxDocumentBytes)
	srv, _ := countingTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			w.Header().Set("Cache-Control", "max-age=60")
			w.Write([]byte(`{"client_id":"x"}`))
		case "/exact":
			w.Write([]byte(exact))
		case "/over":
			w.Header().Set("Content-Length", strconv.Itoa(maxDocumentBytes+1)) // refused before reading
			w.Write([]byte(exact + "x"))
		case "/over-chunked":
			w.Write([]byte(exact))
			w.(http.Flusher).Flush() // no Content-Length: the cap applies while reading
			w.Write([]byte("x"))
		case "/redirect":
			http.Redirect(w, r, "/ok", http.StatusFound)
		case "/missing":
			http.NotFound(w, r)
		case "/slow":
			time.Sleep(2 * timeout)
			w.Write([]byte("{}"))
		case "/slow-body":
			w.Write([]byte("{"))
			w.(http.Flusher).Flush()
			time.Sleep(2 * timeout)
			w.Write([]byte("}"))
		}
	}))
	f := newDocFetcher(testRoots(srv), timeout)
	tests := []struct {
		path    string
		bytes   int
		problem string // "" for success
	}{
		{"/ok", 17, ""},
		{"/exact", maxDocumentBytes, ""},
		{"/over", 0, "larger than 64 KiB"},
		{"/over-chunked", 0, "larger than 64 KiB"},
		{"/redirect", 0, "redirects are not followed"},
		{"/missing", 0, "HTTP 404"},
		{"/slow", 0, "not fetched within 300ms"},
		{"/slow-body", 0, "not fetched within 300ms"},
	}
	for _, tt := range tests {
		body, header, err := f.fetch(context.Background(), srv.URL+tt.path)
		switch {
		case tt.problem == "" && (err != nil || len(body) != tt.bytes):
			t.Errorf("%s: %d bytes, %v; want %d bytes", tt.path, len(body), err, tt.bytes)
		case tt.problem != "" && (err == nil || !strings.Contains(err.Error(), tt.problem)):
			t.Errorf("%s: %v, want an error saying %q", tt.path, err, tt.problem)
		case tt.path == "/ok" && header.Get("Cache-Control") != "max-age=60":
			t.Errorf("%s: header %v", tt.path, header)
		}
	}

	// Nothing listening on the port.
	closed := httptest.NewUnstartedServer(http.NotFoundHandler())
	closedURL := "https://" + closed.Listener.Addr().String() + "/client.json"
	closed.Listener.Close()
	if _, _, err := f.fetch(context.Background(), closedURL); err == nil || !strings.Contains(err.Error(), "did not accept a connection") {
		t.Fatalf("closed port: %v", err)
	}

	// A fetcher that trusts no CA at all.
	if _, _, err := newDocFetcher(x509.NewCertPool(), timeout).fetch(context.Background(), srv.URL+"/ok"); err == nil || !strings.Contains(err.Error(), "TLS certificate") {
		t.Fatalf("untrusted certificate: %v", err)
	}
}

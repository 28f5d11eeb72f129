package clientaddr

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestAddrKey(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"203.0.113.7", "203.0.113.7"},
		{"203.0.113.8", "203.0.113.8"},
		{"::ffff:203.0.113.7", "203.0.113.7"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{"::1", "::/64"},
		{"fe80::1%eth0", "fe80::/64"},
	}
	for _, tt := range tests {
		if got := AddrKey(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("AddrKey(%s) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}

// TestKeyBehindResolve: the key of each request as handlers behind
// Resolve see it.
func TestKeyBehindResolve(t *testing.T) {
	tests := []struct {
		name    string
		trusted string // one trusted range
		peer    string // RemoteAddr
		xff     []string
		want    string // Key
	}{
		{"no proxy", "", "198.51.100.1:5000", nil, "198.51.100.1"},
		{"IPv6 peer keyed by /64", "", "[2001:db8:a:b:c::1]:5000", nil, "2001:db8:a:b::/64"},
		{"spoofed header, no trusted proxies", "", "198.51.100.1:5000", []string{"192.0.2.9"}, "198.51.100.1"},
		{"spoofed header from an untrusted peer", "10.0.0.0/8", "198.51.100.1:5000", []string{"192.0.2.9"}, "198.51.100.1"},
		{"untrusted peer forging a trusted hop", "10.0.0.0/8", "198.51.100.1:5000", []string{"192.0.2.9, 10.0.0.3"}, "198.51.100.1"},
		{"trusted proxy", "10.0.0.0/8", "10.0.0.2:5000", []string{"192.0.2.9"}, "192.0.2.9"},
		{"client-written entries left of the proxy's are ignored", "10.0.0.0/8", "10.0.0.2:5000", []string{"6.6.6.6, 7.7.7.7, 192.0.2.9"}, "192.0.2.9"},
		{"client forging a trusted hop behind a proxy", "10.0.0.0/8", "10.0.0.2:5000", []string{"6.6.6.6, 10.0.0.9, 192.0.2.9"}, "192.0.2.9"},
		{"two trusted proxies", "10.0.0.0/8", "10.0.0.2:5000", []string{"6.6.6.6, 192.0.2.9, 10.0.0.7"}, "192.0.2.9"},
		{"several header lines", "10.0.0.0/8", "10.0.0.2:5000", []string{"6.6.6.6", "192.0.2.9"}, "192.0.2.9"},
		{"garbage written by the client", "10.0.0.0/8", "10.0.0.2:5000", []string{"not-an-ip, 192.0.2.9"}, "192.0.2.9"},
		{"garbage as the proxy's entry", "10.0.0.0/8", "10.0.0.2:5000", []string{"192.0.2.9, not-an-ip"}, "10.0.0.2"},
		{"empty header", "10.0.0.0/8", "10.0.0.2:5000", []string{""}, "10.0.0.2"},
		{"no header from a trusted proxy", "10.0.0.0/8", "10.0.0.2:5000", nil, "10.0.0.2"},
		{"only trusted hops", "10.0.0.0/8", "10.0.0.2:5000", []string{"10.0.0.5, 10.0.0.6"}, "10.0.0.5"},
		{"entry with a port", "10.0.0.0/8", "10.0.0.2:5000", []string{"192.0.2.9:4711"}, "192.0.2.9"},
		{"IPv6 client behind a proxy", "10.0.0.0/8", "10.0.0.2:5000", []string{"[2001:db8:a:b::99]:4711"}, "2001:db8:a:b::/64"},
		{"IPv4-mapped peer", "10.0.0.0/8", "[::ffff:10.0.0.2]:5000", []string{"192.0.2.9"}, "192.0.2.9"},
		{"IPv6 trusted range", "fd00::/8", "[fd00::2]:5000", []string{"192.0.2.9"}, "192.0.2.9"},
		{"single trusted address", "10.0.0.2/32", "10.0.0.3:5000", []string{"192.0.2.9"}, "10.0.0.3"},
		{"remote address without port", "", "198.51.100.1", nil, "198.51.100.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var trusted []netip.Prefix
			if tt.trusted != "" {
				trusted = []netip.Prefix{netip.MustParsePrefix(tt.trusted)}
			}
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.peer
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			var got string
			Resolve(trusted, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = Key(r)
			})).ServeHTTP(httptest.NewRecorder(), r)
			if got != tt.want {
				t.Fatalf("Key = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestKeyWithoutResolve: a request that did not pass Resolve is keyed by
// its peer, whatever X-Forwarded-For says.
func TestKeyWithoutResolve(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.2:5000"
	r.Header.Set("X-Forwarded-For", "192.0.2.9")
	if got := Key(r); got != "10.0.0.2" {
		t.Fatalf("Key = %q, want the peer 10.0.0.2", got)
	}
}

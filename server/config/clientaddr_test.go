package config

import (
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

func TestClientAddr(t *testing.T) {
	tests := []struct {
		name    string
		trusted string // TRUSTED_PROXIES
		peer    string // RemoteAddr
		xff     []string
		want    string // ClientKey
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
		{"single trusted address", "10.0.0.2", "10.0.0.3:5000", []string{"192.0.2.9"}, "10.0.0.3"},
		{"remote address without port", "", "198.51.100.1", nil, "198.51.100.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := FromEnv(env(map[string]string{"TRUSTED_PROXIES": tt.trusted}))
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.peer
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := c.ClientKey(r); got != tt.want {
				t.Fatalf("ClientKey = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTrustedProxies(t *testing.T) {
	tests := []struct {
		v    string
		want []string // nil: an error
	}{
		{"10.0.0.0/8", []string{"10.0.0.0/8"}},
		{" 10.1.2.3/8 , fd00::/8,", []string{"10.0.0.0/8", "fd00::/8"}},
		{"192.0.2.1", []string{"192.0.2.1/32"}},
		{"2001:db8::1", []string{"2001:db8::1/128"}},
		{"::ffff:10.0.0.0/104", []string{"10.0.0.0/8"}},
		{"10.0.0.0/33", nil},
		{"proxy.example", nil},
		{"10.0.0.0/8,nope", nil},
	}
	for _, tt := range tests {
		c, err := FromEnv(env(map[string]string{"TRUSTED_PROXIES": tt.v}))
		if tt.want == nil {
			if err == nil {
				t.Errorf("TRUSTED_PROXIES=%q: no error", tt.v)
			}
			continue
		}
		if err != nil {
			t.Errorf("TRUSTED_PROXIES=%q: %v", tt.v, err)
			continue
		}
		var got []string
		for _, p := range c.TrustedProxies {
			got = append(got, p.String())
		}
		if len(got) != len(tt.want) {
			t.Errorf("TRUSTED_PROXIES=%q: %v, want %v", tt.v, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("TRUSTED_PROXIES=%q: %v, want %v", tt.v, got, tt.want)
			}
		}
	}
}

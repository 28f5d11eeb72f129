package config

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientAddr is the address of the client that sent r. It is the direct
// peer (r.RemoteAddr), unless the peer is in TrustedProxies: then it is the
// rightmost X-Forwarded-For entry that is not in TrustedProxies (each
// trusted proxy appends the address it received the request from, so
// entries left of that one were written by the client and are ignored). An
// entry that is no address stops the walk at the trusted hop that wrote
// it; when every entry is trusted, the leftmost is the client. Without
// trusted proxies X-Forwarded-For is ignored, since anyone can send it.
// The result is invalid only when RemoteAddr is no address.
func (c Config) ClientAddr(r *http.Request) netip.Addr {
	peer := parseAddr(r.RemoteAddr)
	if !peer.IsValid() || !c.trusted(peer) {
		return peer
	}
	var entries []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		entries = append(entries, strings.Split(v, ",")...)
	}
	client := peer
	for i := len(entries) - 1; i >= 0; i-- {
		a := parseAddr(strings.TrimSpace(entries[i]))
		if !a.IsValid() {
			break
		}
		client = a
		if !c.trusted(a) {
			break
		}
	}
	return client
}

// ClientKey is the key per-client limits count r under: AddrKey of
// ClientAddr, or RemoteAddr as it is when that is no address.
func (c Config) ClientKey(r *http.Request) string {
	a := c.ClientAddr(r)
	if !a.IsValid() {
		return r.RemoteAddr
	}
	return AddrKey(a)
}

// AddrKey is the key of a client address for per-client limits: an IPv4
// address as it is, an IPv6 address by its /64 prefix (one subscriber
// commonly holds a whole /64, so counting single IPv6 addresses would let
// one client count as billions). IPv4-mapped IPv6 addresses count as IPv4.
func AddrKey(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return a.String()
	}
	return p.String()
}

// trusted reports whether a is in TrustedProxies.
func (c Config) trusted(a netip.Addr) bool {
	for _, p := range c.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseAddr parses an address with or without a port ("192.0.2.1",
// "192.0.2.1:80", "2001:db8::1", "[2001:db8::1]:80"), unmapped and without
// zone; invalid when s is none of these.
func parseAddr(s string) netip.Addr {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}

// parsePrefixes parses TRUSTED_PROXIES: comma-separated CIDR ranges; a
// bare address stands for itself alone.
func parsePrefixes(v string) ([]netip.Prefix, bool) {
	var out []netip.Prefix
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil || a.Zone() != "" {
				return nil, false
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if p.Addr().Is4In6() {
			// ::ffff:10.0.0.0/104 and the like: compare as IPv4, as
			// addresses are unmapped before they are compared.
			if p.Bits() < 96 {
				return nil, false
			}
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, true
}

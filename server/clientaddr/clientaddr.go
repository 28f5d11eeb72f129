// Package clientaddr finds the address of the client behind a request, for
// per-client limits: the direct peer, or the client a trusted reverse proxy
// names in X-Forwarded-For. Resolve does it once at the edge; handlers ask
// Key (or Addr) of the request.
package clientaddr

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// addrKey is the context key of the address Resolve found.
type addrKey struct{}

// Resolve finds the client address of each request for next (see Addr)
// behind the reverse proxies in trusted. A request without X-Forwarded-For,
// or any request when nothing is trusted, is the peer's own and passes as
// it is, so a direct connection costs nothing here.
func Resolve(trusted []netip.Prefix, next http.Handler) http.Handler {
	if len(trusted) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.Header.Values("X-Forwarded-For")) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		a := behindProxies(r, trusted)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), addrKey{}, a)))
	})
}

// Addr is the address of the client that sent r: the direct peer
// (r.RemoteAddr), unless Resolve found a client behind a trusted proxy.
// That is the rightmost X-Forwarded-For entry that is not a trusted proxy
// (each trusted proxy appends the address it received the request from, so
// entries left of that one were written by the client and are ignored). An
// entry that is no address stops the walk at the trusted hop that wrote
// it; when every entry is trusted, the leftmost is the client. Without
// trusted proxies X-Forwarded-For is ignored, since anyone can send it.
// The result is invalid only when RemoteAddr is no address.
func Addr(r *http.Request) netip.Addr {
	if a, ok := r.Context().Value(addrKey{}).(netip.Addr); ok {
		return a
	}
	return parseAddr(r.RemoteAddr)
}

// Key is the key per-client limits count r under: AddrKey of Addr, or
// RemoteAddr as it is when that is no address.
func Key(r *http.Request) string {
	a := Addr(r)
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

// behindProxies walks X-Forwarded-For from the right while the hops are
// trusted; see Addr.
func behindProxies(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer := parseAddr(r.RemoteAddr)
	if !peer.IsValid() || !isTrusted(peer, trusted) {
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
		if !isTrusted(a, trusted) {
			break
		}
	}
	return client
}

// isTrusted reports whether a is in one of the trusted ranges.
func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
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

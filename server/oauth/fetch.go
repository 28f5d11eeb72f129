package oauth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// The guarded fetcher of Client ID Metadata Documents. Their URLs come from
// whoever sends an authorization or token request, so the server must not
// become a way to reach what only it can reach (server-side request
// forgery; draft-ietf-oauth-client-id-metadata-document, Security
// Considerations): the host is resolved first and refused when any of its
// addresses is not a public unicast address, the connection goes to a
// checked address only, and the answer is bounded in time and size.

// maxDocumentBytes caps a document; fetchTimeout bounds a whole fetch,
// from resolving the host to reading the last byte.
const (
	maxDocumentBytes = 64 << 10
	fetchTimeout     = 5 * time.Second
)

// fetchError is why a document could not be fetched, in words fit to show
// the student or the client.
type fetchError struct{ problem string }

func (e *fetchError) Error() string { return e.problem }

func fetchErrorf(format string, args ...any) *fetchError {
	return &fetchError{fmt.Sprintf(format, args...)}
}

// docFetcher fetches documents over https from public addresses.
type docFetcher struct {
	client        *http.Client
	resolver      *net.Resolver
	allowLoopback bool
	timeout       time.Duration
}

// newDocFetcher returns the fetcher. testRoots nil is the production
// fetcher: the system's trusted roots, loopback refused like every other
// special address. A test passes its test CA's roots, which also allows
// loopback addresses, so that it can serve documents from
// httptest.NewTLSServer.
func newDocFetcher(testRoots *x509.CertPool, timeout time.Duration) *docFetcher {
	f := &docFetcher{resolver: net.DefaultResolver, allowLoopback: testRoots != nil, timeout: timeout}
	f.client = &http.Client{
		Transport: &http.Transport{
			Proxy:                  nil, // never through a proxy from the environment: it would connect, not us
			DialContext:            f.dial,
			TLSClientConfig:        &tls.Config{RootCAs: testRoots, MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout:    timeout,
			ResponseHeaderTimeout:  timeout,
			MaxResponseHeaderBytes: 16 << 10,
			DisableKeepAlives:      true,
		},
		// Redirects are not followed: the answer is the 3xx itself.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       timeout,
	}
	return f
}

// fetch GETs an https URL and returns the body of a 200 answer (at most
// maxDocumentBytes) and its header.
func (f *docFetcher) fetch(ctx context.Context, rawURL string) ([]byte, http.Header, *fetchError) {
	if !strings.HasPrefix(rawURL, "https://") {
		return nil, nil, fetchErrorf("only https documents are fetched")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, nil, fetchErrorf("the address is not a valid URL")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "Studyloop (OAuth client metadata)")
	res, err := f.client.Do(req)
	if err != nil {
		return nil, nil, f.describe(err)
	}
	defer res.Body.Close()
	switch {
	case res.StatusCode >= 300 && res.StatusCode < 400:
		return nil, nil, fetchErrorf("it answered with a redirect (HTTP %d), and redirects are not followed", res.StatusCode)
	case res.StatusCode != http.StatusOK:
		return nil, nil, fetchErrorf("it answered HTTP %d instead of 200", res.StatusCode)
	case res.ContentLength > maxDocumentBytes:
		return nil, nil, fetchErrorf("it is larger than %d KiB", maxDocumentBytes>>10)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxDocumentBytes+1))
	if err != nil {
		return nil, nil, f.describe(err)
	}
	if len(body) > maxDocumentBytes {
		return nil, nil, fetchErrorf("it is larger than %d KiB", maxDocumentBytes>>10)
	}
	return body, res.Header, nil
}

// describe turns a failed request into a fetchError.
func (f *docFetcher) describe(err error) *fetchError {
	var fe *fetchError
	var certErr *tls.CertificateVerificationError
	var netErr net.Error
	var opErr *net.OpError
	switch {
	case errors.As(err, &fe):
		return fe
	case errors.As(err, &certErr):
		return fetchErrorf("its TLS certificate could not be verified")
	case errors.As(err, &netErr) && netErr.Timeout():
		return fetchErrorf("it was not fetched within %v", f.timeout)
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return fetchErrorf("its host did not accept a connection")
	}
	return fetchErrorf("it could not be fetched")
}

// dial resolves the host, refuses it unless every address is allowed, and
// connects to the checked addresses only, in the resolver's order.
func (f *docFetcher) dial(ctx context.Context, network, hostport string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, fetchErrorf("the address has no valid host")
	}
	addrs, err := f.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return nil, fetchErrorf("its host %s could not be resolved", host)
	}
	for _, a := range addrs {
		if kind := f.refusal(a); kind != "" {
			return nil, fetchErrorf("its host %s resolves to %s, which is not a public address (%s)", host, a.Unmap(), kind)
		}
	}
	d := net.Dialer{Control: f.control}
	var firstErr error
	for _, a := range addrs {
		conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(a.Unmap().String(), portText))
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

// control checks the address of every socket just before it connects, so
// that no path to connect can skip the check.
func (f *docFetcher) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fetchErrorf("refused to connect to %s", address)
	}
	if kind := f.refusal(ap.Addr()); kind != "" {
		return fetchErrorf("refused to connect to %s, which is not a public address (%s)", ap.Addr().Unmap(), kind)
	}
	return nil
}

// refusal is addrKind, except that a test fetcher allows loopback.
func (f *docFetcher) refusal(a netip.Addr) string {
	kind := addrKind(a)
	if kind == "loopback" && f.allowLoopback {
		return ""
	}
	return kind
}

// specialPrefixes are the address blocks a document is never fetched from,
// with what each is, after IANA's IPv4 and IPv6 Special-Purpose Address
// Registries (RFC 6890 and updates). The first match counts.
var specialPrefixes = []struct {
	prefix netip.Prefix
	kind   string
}{
	{netip.MustParsePrefix("0.0.0.0/32"), "unspecified"},
	{netip.MustParsePrefix("0.0.0.0/8"), "reserved"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "reserved"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("255.255.255.255/32"), "broadcast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "reserved"},
	{netip.MustParsePrefix("fc00::/7"), "private"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "private"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("2001::/23"), "reserved"}, // Teredo, benchmarking, ORCHID and other protocol assignments
	{netip.MustParsePrefix("2002::/16"), "reserved"}, // 6to4
}

// Blocks whose last 32 bits are an IPv4 address: IPv4-compatible (deprecated)
// and the NAT64 well-known prefix (RFC 6052). Outside them, IPv6 must be
// global unicast (2000::/3).
var (
	compatIPv6    = netip.MustParsePrefix("::/96")
	nat64IPv6     = netip.MustParsePrefix("64:ff9b::/96")
	globalUnicast = netip.MustParsePrefix("2000::/3")
)

// addrKind returns what kind of special address a is ("loopback",
// "private", …), or "" for a public unicast address. IPv4-mapped IPv6
// addresses count as their IPv4 address, as do NAT64 ones; IPv4-compatible
// ones are refused whatever they embed.
func addrKind(a netip.Addr) string {
	if a.Zone() != "" {
		return "link-local"
	}
	a = a.Unmap()
	for _, p := range specialPrefixes {
		if p.prefix.Contains(a) {
			return p.kind
		}
	}
	switch {
	case nat64IPv6.Contains(a):
		return addrKind(embeddedIPv4(a))
	case compatIPv6.Contains(a):
		if kind := addrKind(embeddedIPv4(a)); kind != "" {
			return kind
		}
		return "reserved"
	case a.Is6() && !globalUnicast.Contains(a):
		return "reserved"
	}
	return ""
}

// embeddedIPv4 is the IPv4 address in the last 32 bits of a.
func embeddedIPv4(a netip.Addr) netip.Addr {
	b := a.As16()
	return netip.AddrFrom4([4]byte(b[12:]))
}

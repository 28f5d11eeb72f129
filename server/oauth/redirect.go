package oauth

import (
	"net/url"
	"strings"
)

// Redirect URI rules: OAuth 2.1 §2.3.1 and §7.5.1 (https, or http on a
// loopback host), RFC 8252 §7.3 (loopback redirects match on any port).

// maxRedirectURIs and maxRedirectURIBytes bound a registration.
const (
	maxRedirectURIs     = 10
	maxRedirectURIBytes = 2000
)

// checkRedirectURI returns a description of what is wrong with a redirect
// URI offered at registration, or "" when it is acceptable.
func checkRedirectURI(raw string) string {
	if raw == "" || len(raw) > maxRedirectURIBytes {
		return "each redirect URI must be a non-empty string of at most 2000 bytes"
	}
	// URIs are ASCII (RFC 3986); a non-ASCII host could pass for another
	// on the consent page, bidi controls could reorder what it shows.
	if hasUnsafeURIChars(raw) {
		return "redirect URIs may not contain spaces, control or non-ASCII characters (write international host names in their xn-- form)"
	}
	if strings.Contains(raw, "#") {
		return "redirect URIs may not contain a fragment"
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Opaque != "" || u.Host == "" {
		return "redirect URIs must be absolute URIs with a host"
	}
	if u.User != nil {
		return "redirect URIs may not contain user information"
	}
	switch u.Scheme {
	case "https":
		return ""
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return ""
		}
		return "http redirect URIs are allowed only on a loopback host (127.0.0.1, [::1] or localhost); use https"
	}
	return "redirect URIs must use https, or http on a loopback host"
}

// hasUnsafeURIChars reports whether raw has a space, control or non-ASCII
// character.
func hasUnsafeURIChars(raw string) bool {
	return strings.ContainsFunc(raw, func(r rune) bool { return r <= ' ' || r >= 0x7f })
}

// isLoopbackHost reports whether host (without port or brackets) names this
// computer.
func isLoopbackHost(host string) bool {
	switch strings.ToLower(host) {
	case "127.0.0.1", "::1", "localhost":
		return true
	}
	return false
}

// isLoopbackRedirect reports whether raw is an http URI on a loopback host.
func isLoopbackRedirect(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Scheme == "http" && isLoopbackHost(u.Hostname())
}

// matchRedirectURI reports whether the redirect URI presented at the
// authorization endpoint is one registered for the client: the same string,
// or, for loopback URIs, the same but for the port.
func matchRedirectURI(registered []string, presented string) bool {
	for _, r := range registered {
		if r == presented {
			return true
		}
	}
	if checkRedirectURI(presented) != "" || !isLoopbackRedirect(presented) {
		return false
	}
	p, _ := url.Parse(presented)
	for _, r := range registered {
		if !isLoopbackRedirect(r) {
			continue
		}
		u, _ := url.Parse(r)
		if u.Scheme == p.Scheme && u.Hostname() == p.Hostname() && u.EscapedPath() == p.EscapedPath() && u.RawQuery == p.RawQuery {
			return true
		}
	}
	return false
}

// withParams returns the redirect URI with the parameters added to its
// query, keeping any query it already has.
func withParams(redirectURI string, params url.Values) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI
	}
	q := u.Query()
	for k, vs := range params {
		for _, v := range vs {
			q.Add(k, v)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// canonicalResource normalises a resource indicator (RFC 8707) for
// comparison: scheme and host in lower case, default port and trailing
// slashes removed. It returns "" for anything that is not an absolute URI
// without fragment.
func canonicalResource(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" || u.User != nil || u.Fragment != "" || strings.Contains(raw, "#") {
		return ""
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if (scheme == "https" && strings.HasSuffix(host, ":443")) || (scheme == "http" && strings.HasSuffix(host, ":80")) {
		host = host[:strings.LastIndexByte(host, ':')]
	}
	s := scheme + "://" + host + strings.TrimRight(u.EscapedPath(), "/")
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return s
}

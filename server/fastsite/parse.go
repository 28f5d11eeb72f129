package fastsite

import (
	"bytes"
	"strings"
)

// What parser.feed found.
const (
	needMore = iota // the header block is not complete yet; read on
	complete        // a request the fast path understands is complete
	handOver        // something it does not understand: net/http decides
)

// Limits of what the fast path takes; a request beyond any of them goes to
// net/http, which applies its own (http.Server.MaxHeaderBytes).
const (
	// maxFieldLines is the most field lines of each of Accept,
	// Accept-Encoding and If-None-Match.
	maxFieldLines = 8
	// maxLines is the most header lines, the request line included.
	maxLines = 64
)

// The field lines the site's answer depends on, in Request order.
const (
	fieldAccept = iota
	fieldAcceptEncoding
	fieldIfNoneMatch
	fieldCount
)

// span is a part of the request, as offsets from its first byte: the
// buffer holding it may move between reads, the request's bytes within it
// stay in order.
type span struct{ start, end int }

// parser reads one request's header block strictly (RFC 9112 §2-§5): every
// line ends in CRLF; the request line is "GET" or "HEAD", one space, an
// origin-form path of plain characters (no query, no percent escape), one
// space and "HTTP/1.1"; each field line is a token, a colon and a value of
// visible characters, spaces, tabs and obs-text, as net/http accepts them.
// Exactly one Host, with a plain host name or address. Anything else, and
// any field that changes how the message is framed or the connection is
// used (Transfer-Encoding, a Content-Length other than 0, Connection other
// than keep-alive, Upgrade, Expect, TE, Trailer, HTTP2-Settings,
// Proxy-Connection), makes it hand the request over. It takes a request
// only when net/http would read the same bytes as the same request; the
// fuzz test holds it to that.
//
// feed is given the request's bytes so far each time more arrive, and
// resumes at the first line it has not read, so a request sent a byte at a
// time costs no more than one sent whole.
type parser struct {
	next   int // offset of the first line not yet read
	lines  int
	head   bool
	path   span
	hosts  int
	length bool // Content-Length: 0 seen
	fields [fieldCount]fieldLines
}

type fieldLines struct {
	n     int
	spans [maxFieldLines]span
}

// feed reads the complete lines of b, the request's bytes so far, that it
// has not read. It returns complete and the length of the header block
// when the block is complete and understood, handOver as soon as a line is
// not, and needMore otherwise.
func (p *parser) feed(b []byte) (state, length int) {
	for {
		i := bytes.IndexByte(b[p.next:], '\n')
		if i < 0 {
			if p.lines == 0 && !methodPrefix(b) {
				return handOver, 0
			}
			return needMore, 0
		}
		start, end := p.next, p.next+i // the line is b[start:end], without its LF
		p.next = end + 1
		if end == start || b[end-1] != '\r' {
			return handOver, 0 // a bare LF
		}
		line := b[start : end-1]
		p.lines++
		if p.lines > maxLines {
			return handOver, 0
		}
		if p.lines == 1 {
			if !p.requestLine(line, start) {
				return handOver, 0
			}
			continue
		}
		if len(line) == 0 {
			if p.hosts != 1 {
				return handOver, 0
			}
			return complete, p.next
		}
		if !p.fieldLine(line, start) {
			return handOver, 0
		}
	}
}

// methodPrefix reports whether b could still begin "GET " or "HEAD ".
func methodPrefix(b []byte) bool {
	for _, m := range []string{"GET ", "HEAD "} {
		n := min(len(b), len(m))
		if string(b[:n]) == m[:n] {
			return true
		}
	}
	return false
}

// requestLine reads the request line, which starts at offset start.
func (p *parser) requestLine(line []byte, start int) bool {
	var rest []byte
	switch {
	case bytes.HasPrefix(line, []byte("GET ")):
		rest = line[len("GET "):]
	case bytes.HasPrefix(line, []byte("HEAD ")):
		p.head = true
		rest = line[len("HEAD "):]
	default:
		return false
	}
	sp := bytes.IndexByte(rest, ' ')
	if sp < 1 || string(rest[sp+1:]) != "HTTP/1.1" || rest[0] != '/' {
		return false
	}
	for _, c := range rest[:sp] {
		if !isPathByte(c) {
			return false
		}
	}
	off := start + len(line) - len(rest)
	p.path = span{off, off + sp}
	return true
}

// fieldLine reads a header field line, which starts at offset start.
func (p *parser) fieldLine(line []byte, start int) bool {
	colon := bytes.IndexByte(line, ':')
	if colon < 1 {
		return false // no name, or obs-fold (a line starting with a space or tab has no token before its colon)
	}
	name := line[:colon]
	for _, c := range name {
		if !isTokenByte(c) {
			return false
		}
	}
	raw := line[colon+1:]
	for _, c := range raw {
		if !isValueByte(c) {
			return false
		}
	}
	// The value without the spaces and tabs around it, as net/http keeps it.
	vs, ve := colon+1, len(line)
	for vs < ve && (line[vs] == ' ' || line[vs] == '\t') {
		vs++
	}
	for ve > vs && (line[ve-1] == ' ' || line[ve-1] == '\t') {
		ve--
	}
	value := line[vs:ve]
	switch {
	case equalFold(name, "host"):
		p.hosts++
		if p.hosts > 1 || len(value) == 0 {
			return false
		}
		for _, c := range value {
			if !isHostByte(c) {
				return false
			}
		}
	case equalFold(name, "content-length"):
		if p.length || string(value) != "0" {
			return false
		}
		p.length = true
	case equalFold(name, "connection"):
		if !equalFold(value, "keep-alive") {
			return false
		}
	case equalFold(name, "accept"):
		return p.fields[fieldAccept].add(span{start + vs, start + ve})
	case equalFold(name, "accept-encoding"):
		return p.fields[fieldAcceptEncoding].add(span{start + vs, start + ve})
	case equalFold(name, "if-none-match"):
		return p.fields[fieldIfNoneMatch].add(span{start + vs, start + ve})
	case equalFold(name, "transfer-encoding"), equalFold(name, "upgrade"), equalFold(name, "expect"),
		equalFold(name, "te"), equalFold(name, "trailer"), equalFold(name, "http2-settings"),
		equalFold(name, "proxy-connection"):
		return false
	}
	return true
}

func (f *fieldLines) add(s span) bool {
	if f.n == maxFieldLines {
		return false
	}
	f.spans[f.n] = s
	f.n++
	return true
}

// equalFold reports whether b is s, ASCII letters compared without case;
// s is lower case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// isTokenByte reports whether c is a tchar (RFC 9110 §5.6.2).
func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return c != 0 && strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// isValueByte reports whether c may appear in a field value: a visible
// character, a space, a tab or obs-text, as net/http's check
// (httpguts.ValidHeaderFieldValue) allows.
func isValueByte(c byte) bool {
	return c == '\t' || (c >= ' ' && c != 0x7f)
}

// isPathByte reports whether c may appear in a path the fast path takes:
// unreserved characters, sub-delims, ':', '@' and '/' (RFC 3986 §3.3),
// without '%' (so nothing is escaped), '?' and '#', and without the
// sub-delims net/url escapes in a path ("!'()*": net/http would keep such a
// path's form in URL.RawPath).
func isPathByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return c != 0 && strings.IndexByte("-._~$&+,;=:@/", c) >= 0
}

// isHostByte reports whether c may appear in a Host the fast path takes: a
// host name, an IPv4 or bracketed IPv6 address, and a port.
func isHostByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return c == '.' || c == '-' || c == ':' || c == '[' || c == ']'
}

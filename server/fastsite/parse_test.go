package fastsite

import (
	"bufio"
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/http/httpguts"
)

// parsed is what parse found in one request, for comparing.
type parsed struct {
	state  int
	length int
	head   bool
	path   string
	fields [fieldCount][]string
}

// parseAll feeds b to a parser in pieces split at the offsets cuts (each
// piece appended to the bytes before, as a connection receives them) and
// returns what it found after the last piece or at the first answer other
// than needMore.
func parseAll(b []byte, cuts ...int) parsed {
	var p parser
	var got parsed
	for _, end := range append(cuts, len(b)) {
		end = min(max(end, 0), len(b))
		got.state, got.length = p.feed(b[:end])
		if got.state != needMore {
			break
		}
	}
	if got.state == complete {
		got.head = p.head
		got.path = string(b[p.path.start:p.path.end])
		for i, f := range p.fields {
			for _, s := range f.spans[:f.n] {
				got.fields[i] = append(got.fields[i], string(b[s.start:s.end]))
			}
		}
	}
	return got
}

func TestParse(t *testing.T) {
	const host = "Host: example.org\r\n"
	tests := []struct {
		name    string
		request string
		want    int
		path    string
		accept  []string
	}{
		{"get", "GET /a/ HTTP/1.1\r\n" + host + "\r\n", complete, "/a/", nil},
		{"head", "HEAD /a HTTP/1.1\r\n" + host + "\r\n", complete, "/a", nil},
		{"fields in any case, values trimmed, lines kept apart", "GET /a HTTP/1.1\r\n" + host + "ACCEPT:  text/html \t\r\naccept: text/markdown\r\n\r\n", complete, "/a", []string{"text/html", "text/markdown"}},
		{"empty value", "GET /a HTTP/1.1\r\n" + host + "Accept:\r\n\r\n", complete, "/a", []string{""}},
		{"content-length 0", "GET /a HTTP/1.1\r\n" + host + "Content-Length: 0\r\n\r\n", complete, "/a", nil},
		{"keep-alive", "GET /a HTTP/1.1\r\n" + host + "Connection: Keep-Alive\r\n\r\n", complete, "/a", nil},
		{"obs-text in a value", "GET /a HTTP/1.1\r\n" + host + "User-Agent: caf\xc3\xa9\r\n\r\n", complete, "/a", nil},
		{"not complete", "GET /a HTTP/1.1\r\n" + host, needMore, "", nil},
		{"method begun", "HEA", needMore, "", nil},
		{"post", "POST /a HTTP/1.1\r\n" + host + "\r\n", handOver, "", nil},
		{"post, at its first byte", "P", handOver, "", nil},
		{"lower-case method", "get /a HTTP/1.1\r\n" + host + "\r\n", handOver, "", nil},
		{"HTTP/1.0", "GET /a HTTP/1.0\r\n" + host + "\r\n", handOver, "", nil},
		{"HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", handOver, "", nil},
		{"query", "GET /a?x=1 HTTP/1.1\r\n" + host + "\r\n", handOver, "", nil},
		{"escape", "GET /%61 HTTP/1.1\r\n" + host + "\r\n", handOver, "", nil},
		{"a sub-delim net/url escapes", "GET /a(1) HTTP/1.1\r\n" + host + "\r\n", handOver, "", nil},
		{"sub-delims net/url keeps", "GET /a$&+,;=:@b HTTP/1.1\r\n" + host + "\r\n", complete, "/a$&+,;=:@b", nil},
		{"fragment", "GET /a#x HTTP/1.1\r\n" + host + "\r\n", handOver, "", nil},
		{"absolute form", "GET http://example.org/a HTTP/1.1\r\n" + host + "\r\n", handOver, "", nil},
		{"asterisk", "GET * HTTP/1.1\r\n" + host + "\r\n", handOver, "", nil},
		{"two spaces", "GET  /a HTTP/1.1\r\n" + host + "\r\n", handOver, "", nil},
		{"space in target", "GET /a b HTTP/1.1\r\n" + host + "\r\n", handOver, "", nil},
		{"no host", "GET /a HTTP/1.1\r\n\r\n", handOver, "", nil},
		{"two hosts", "GET /a HTTP/1.1\r\n" + host + host + "\r\n", handOver, "", nil},
		{"empty host", "GET /a HTTP/1.1\r\nHost:\r\n\r\n", handOver, "", nil},
		{"host with userinfo", "GET /a HTTP/1.1\r\nHost: u@example.org\r\n\r\n", handOver, "", nil},
		{"bare LF in the request line", "GET /a HTTP/1.1\n" + host + "\r\n", handOver, "", nil},
		{"bare LF ending the block", "GET /a HTTP/1.1\r\n" + host + "\n", handOver, "", nil},
		{"bare CR in a value", "GET /a HTTP/1.1\r\n" + host + "X: a\rb\r\n\r\n", handOver, "", nil},
		{"control byte in a value", "GET /a HTTP/1.1\r\n" + host + "X: a\x01b\r\n\r\n", handOver, "", nil},
		{"DEL in a value", "GET /a HTTP/1.1\r\n" + host + "X: a\x7fb\r\n\r\n", handOver, "", nil},
		{"obs-fold", "GET /a HTTP/1.1\r\n" + host + "Accept: text/html\r\n text/markdown\r\n\r\n", handOver, "", nil},
		{"space before colon", "GET /a HTTP/1.1\r\n" + host + "Accept : text/html\r\n\r\n", handOver, "", nil},
		{"no colon", "GET /a HTTP/1.1\r\n" + host + "Accept\r\n\r\n", handOver, "", nil},
		{"empty name", "GET /a HTTP/1.1\r\n" + host + ": x\r\n\r\n", handOver, "", nil},
		{"chunked", "GET /a HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", handOver, "", nil},
		{"content-length", "GET /a HTTP/1.1\r\n" + host + "Content-Length: 5\r\n\r\nhello", handOver, "", nil},
		{"content-length twice", "GET /a HTTP/1.1\r\n" + host + "Content-Length: 0\r\nContent-Length: 0\r\n\r\n", handOver, "", nil},
		{"content-length 00", "GET /a HTTP/1.1\r\n" + host + "Content-Length: 00\r\n\r\n", handOver, "", nil},
		{"connection close", "GET /a HTTP/1.1\r\n" + host + "Connection: close\r\n\r\n", handOver, "", nil},
		{"upgrade", "GET /a HTTP/1.1\r\n" + host + "Connection: keep-alive\r\nUpgrade: h2c\r\n\r\n", handOver, "", nil},
		{"expect", "GET /a HTTP/1.1\r\n" + host + "Expect: 100-continue\r\n\r\n", handOver, "", nil},
		{"te", "GET /a HTTP/1.1\r\n" + host + "TE: trailers\r\n\r\n", handOver, "", nil},
		{"trailer", "GET /a HTTP/1.1\r\n" + host + "Trailer: X\r\n\r\n", handOver, "", nil},
		{"too many accept lines", "GET /a HTTP/1.1\r\n" + host + strings.Repeat("Accept: */*\r\n", maxFieldLines+1) + "\r\n", handOver, "", nil},
		{"too many lines", "GET /a HTTP/1.1\r\n" + host + strings.Repeat("X: y\r\n", maxLines) + "\r\n", handOver, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := []byte(tt.request)
			whole := parseAll(b)
			if whole.state != tt.want {
				t.Fatalf("state=%d, want %d", whole.state, tt.want)
			}
			if tt.want == complete {
				if whole.length != len(b) || whole.path != tt.path || !slices.Equal(whole.fields[fieldAccept], tt.accept) {
					t.Fatalf("length=%d path=%q accept=%q, want %d, %q, %q", whole.length, whole.path, whole.fields[fieldAccept], len(b), tt.path, tt.accept)
				}
			}
			// Byte by byte, the same.
			var cuts []int
			for i := range b {
				cuts = append(cuts, i)
			}
			if got := parseAll(b, cuts...); !equalParsed(got, whole) {
				t.Fatalf("byte by byte: %+v, whole: %+v", got, whole)
			}
		})
	}
}

func equalParsed(a, b parsed) bool {
	if a.state != b.state || a.length != b.length || a.head != b.head || a.path != b.path {
		return false
	}
	for i := range a.fields {
		if !slices.Equal(a.fields[i], b.fields[i]) {
			return false
		}
	}
	return true
}

// FuzzParse holds the parser to net/http: a request it takes is one
// net/http reads the same way (and its server accepts), and feeding it in
// two pieces changes nothing.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
		"HEAD /x/y.md HTTP/1.1\r\nHost: a:80\r\nAccept: text/markdown\r\nAccept-Encoding: gzip;q=0.5, br\r\nIf-None-Match: \"x\"\r\n\r\nGET",
		"GET /a HTTP/1.1\r\nHost: [::1]:8080\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n",
		"GET /a HTTP/1.1\r\nhost: a\r\nX-Forwarded-For: 1.2.3.4\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n",
	} {
		f.Add([]byte(seed), 5)
	}
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		whole := parseAll(b)
		if got := parseAll(b, cut); !equalParsed(got, whole) {
			t.Fatalf("in two pieces at %d: %+v, whole: %+v", cut, got, whole)
		}
		if whole.state != complete {
			return
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(b[:whole.length])))
		if err != nil {
			t.Fatalf("taken, but net/http reads %q as: %v", b[:whole.length], err)
		}
		wantMethod := http.MethodGet
		if whole.head {
			wantMethod = http.MethodHead
		}
		if req.Method != wantMethod || req.URL.Path != whole.path || req.URL.RawPath != "" || req.URL.RawQuery != "" || req.RequestURI != whole.path {
			t.Fatalf("net/http reads %s %q (raw %q, query %q), the parser %s %q", req.Method, req.URL.Path, req.URL.RawPath, req.URL.RawQuery, wantMethod, whole.path)
		}
		if req.ProtoMajor != 1 || req.ProtoMinor != 1 || req.ContentLength != 0 || len(req.TransferEncoding) > 0 || req.Close || req.Host == "" {
			t.Fatalf("net/http reads %s, length %d, transfer-encoding %q, close %v, host %q", req.Proto, req.ContentLength, req.TransferEncoding, req.Close, req.Host)
		}
		// What http.Server checks after reading the request.
		if hosts := req.Header["Host"]; len(hosts) != 0 || !httpguts.ValidHostHeader(req.Host) {
			t.Fatalf("Host %q (fields %q): net/http's server refuses it", req.Host, hosts)
		}
		for k, vv := range req.Header {
			if !httpguts.ValidHeaderFieldName(k) {
				t.Fatalf("field name %q: net/http's server refuses it", k)
			}
			for _, v := range vv {
				if !httpguts.ValidHeaderFieldValue(v) {
					t.Fatalf("field value %q: net/http's server refuses it", v)
				}
			}
		}
		for i, name := range []string{"Accept", "Accept-Encoding", "If-None-Match"} {
			if !slices.Equal(req.Header[name], whole.fields[i]) {
				t.Fatalf("%s: net/http reads %q, the parser %q", name, req.Header[name], whole.fields[i])
			}
		}
		for _, name := range []string{"Transfer-Encoding", "Upgrade", "Expect", "Te", "Trailer"} {
			if len(req.Header[name]) > 0 {
				t.Fatalf("taken with %s: %q", name, req.Header[name])
			}
		}
	})
}

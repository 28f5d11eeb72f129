package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// decode undoes a Content-Encoding with a decoder independent of the one
// that encoded (the standard library's gzip).
func decode(t *testing.T, coding, body string) string {
	t.Helper()
	var r io.Reader
	switch coding {
	case "":
		return body
	case "br":
		r = brotli.NewReader(strings.NewReader(body))
	case "gzip":
		gz, err := gzip.NewReader(strings.NewReader(body))
		if err != nil {
			t.Fatalf("gzip: %v", err)
		}
		r = gz
	case "zstd":
		d, err := zstd.NewReader(strings.NewReader(body))
		if err != nil {
			t.Fatalf("zstd: %v", err)
		}
		defer d.Close()
		r = d
	default:
		t.Fatalf("unknown Content-Encoding %q", coding)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", coding, err)
	}
	return string(out)
}

func TestContentCodings(t *testing.T) {
	srv := newTestServer(t)
	const chrome = "gzip, deflate, br, zstd"
	tests := []struct {
		name, path, accept, acceptEncoding string
		status                             int
		coding                             string // Content-Encoding sent
		vary                               string
	}{
		{"browser gets brotli", "/support/", "text/html", chrome, 200, "br", varyNegotiated},
		{"agent markdown in brotli", "/support/", "text/markdown", chrome, 200, "br", varyNegotiated},
		{"gzip only", "/support/", "text/html", "gzip", 200, "gzip", varyNegotiated},
		{"x-gzip", "/support/", "text/html", "x-gzip", 200, "gzip", varyNegotiated},
		{"zstd only", "/support/", "text/html", "zstd", 200, "zstd", varyNegotiated},
		{"q prefers gzip", "/support/", "text/html", "br;q=0.5, zstd;q=0.5, gzip", 200, "gzip", varyNegotiated},
		{"no Accept-Encoding: identity", "/support/", "text/html", "", 200, "", varyNegotiated},
		{"unknown codings: identity", "/support/", "text/html", "deflate, compress", 200, "", varyNegotiated},
		{"br and gzip refused, wildcard", "/support/", "text/html", "br;q=0, gzip;q=0, *", 200, "zstd", varyNegotiated},
		{"identity refused, gzip kept", "/support/", "text/html", "gzip, identity;q=0", 200, "gzip", varyNegotiated},
		{"malformed: identity", "/support/", "text/html", "br;q=2", 200, "", varyNegotiated},
		{"nothing acceptable", "/support/", "text/html", "deflate, identity;q=0", 406, "", "Accept-Encoding"},
		{"everything refused", "/support/", "text/html", "*;q=0", 406, "", "Accept-Encoding"},
		{"connect page never 406", "/mcp", "application/json", "*;q=0", 200, "", varyNegotiated},
		{"agent file", "/llms-full.txt", "", chrome, 200, "br", "Accept-Encoding"},
		{"openapi.json", "/openapi.json", "", "gzip", 200, "gzip", "Accept-Encoding"},
		{"stylesheet", "/css/site.css", "", "zstd", 200, "zstd", "Accept-Encoding"},
		{"file under 1 KiB stays identity", "/robots.txt", "", chrome, 200, "", ""},
		{"file under 1 KiB, identity refused", "/robots.txt", "", "br, identity;q=0", 406, "", "Accept-Encoding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := map[string]string{"Accept": tt.accept, "Accept-Encoding": tt.acceptEncoding}
			res, body := fetch(t, http.MethodGet, srv.URL+tt.path, hdr)
			if res.StatusCode != tt.status || res.Header.Get("Content-Encoding") != tt.coding || res.Header.Get("Vary") != tt.vary {
				t.Fatalf("status=%d Content-Encoding=%q Vary=%q, want %d %q %q",
					res.StatusCode, res.Header.Get("Content-Encoding"), res.Header.Get("Vary"), tt.status, tt.coding, tt.vary)
			}
			if res.StatusCode == 406 {
				if !strings.Contains(body, "identity") {
					t.Errorf("406 body does not say what to accept: %q", body)
				}
				return
			}
			if got := res.Header.Get("Content-Length"); got != strconv.Itoa(len(body)) {
				t.Errorf("Content-Length=%s, body %d bytes", got, len(body))
			}
			delete(hdr, "Accept-Encoding")
			plain, identity := fetch(t, http.MethodGet, srv.URL+tt.path, hdr)
			if decoded := decode(t, tt.coding, body); decoded != identity {
				t.Fatalf("decoded %s body (%d bytes) differs from identity (%d bytes)", tt.coding, len(decoded), len(identity))
			}
			etag, plainETag := res.Header.Get("ETag"), plain.Header.Get("ETag")
			if tt.coding == "" && etag != plainETag {
				t.Errorf("identity ETag %s differs from %s", etag, plainETag)
			}
			if tt.coding != "" {
				if len(body)*10 > len(identity)*9 {
					t.Errorf("%s body is %d bytes of %d, more than 90%%", tt.coding, len(body), len(identity))
				}
				if want := strings.TrimSuffix(plainETag, `"`) + "." + tt.coding + `"`; etag != want {
					t.Errorf("ETag %s, want %s", etag, want)
				}
			}
		})
	}
}

// TestContentCodingsRevalidate checks that each coding's ETag validates
// that coding only, and that HEAD describes the coding GET would send.
func TestContentCodingsRevalidate(t *testing.T) {
	srv := newTestServer(t)
	get := func(method, acceptEncoding, ifNoneMatch string) (*http.Response, string) {
		return fetch(t, method, srv.URL+"/support/", map[string]string{"Accept": "text/markdown", "Accept-Encoding": acceptEncoding, "If-None-Match": ifNoneMatch})
	}
	br, brBody := get(http.MethodGet, "br", "")
	brETag := br.Header.Get("ETag")
	tests := []struct {
		name, acceptEncoding, ifNoneMatch string
		status                            int
		coding                            string
	}{
		{"same coding: 304", "br", brETag, 304, ""},
		{"weak comparison: 304", "gzip, br", "W/" + brETag, 304, ""},
		{"other coding: 200", "gzip", brETag, 200, "gzip"},
		{"identity: 200", "", brETag, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := get(http.MethodGet, tt.acceptEncoding, tt.ifNoneMatch)
			if res.StatusCode != tt.status || res.Header.Get("Content-Encoding") != tt.coding {
				t.Fatalf("status=%d Content-Encoding=%q, want %d %q", res.StatusCode, res.Header.Get("Content-Encoding"), tt.status, tt.coding)
			}
			if tt.status == 304 && (body != "" || res.Header.Get("ETag") != brETag || res.Header.Get("Vary") != varyNegotiated) {
				t.Errorf("304: body %d bytes, ETag %s, Vary %q", len(body), res.Header.Get("ETag"), res.Header.Get("Vary"))
			}
		})
	}
	head, headBody := get(http.MethodHead, "br", "")
	if head.StatusCode != 200 || headBody != "" || head.Header.Get("Content-Encoding") != "br" ||
		head.ContentLength != int64(len(brBody)) || head.Header.Get("ETag") != brETag {
		t.Errorf("HEAD: status=%d body=%d Content-Encoding=%q Content-Length=%d ETag=%s, want GET's (%d bytes, %s)",
			head.StatusCode, len(headBody), head.Header.Get("Content-Encoding"), head.ContentLength, head.Header.Get("ETag"), len(brBody), brETag)
	}
}

// TestSmallestCodingWinsTies fetches every coding of each agent file and
// checks that a client accepting all of them equally gets the smallest,
// and that brotli beats gzip (zstd's best level does not, on files this
// small).
func TestSmallestCodingWinsTies(t *testing.T) {
	srv := newTestServer(t)
	for _, path := range []string{"/support/", "/llms-full.txt", "/llms.txt", "/openapi.json"} {
		sizes := map[string]int{}
		for _, coding := range []string{"br", "zstd", "gzip"} {
			res, body := fetch(t, http.MethodGet, srv.URL+path, map[string]string{"Accept-Encoding": coding})
			if res.Header.Get("Content-Encoding") != coding {
				t.Fatalf("%s: Content-Encoding %q, want %s", path, res.Header.Get("Content-Encoding"), coding)
			}
			sizes[coding] = len(body)
		}
		res, body := fetch(t, http.MethodGet, srv.URL+path, map[string]string{"Accept-Encoding": "*"})
		if smallest := min(sizes["br"], sizes["zstd"], sizes["gzip"]); len(body) != smallest || sizes[res.Header.Get("Content-Encoding")] != smallest {
			t.Errorf("%s: * got %s (%d bytes), sizes %v", path, res.Header.Get("Content-Encoding"), len(body), sizes)
		}
		if sizes["br"] >= sizes["gzip"] {
			t.Errorf("%s: sizes %v, want brotli under gzip", path, sizes)
		}
	}
}

// TestCompressedOnce asks for a file from many goroutines at once, before
// any of them has compressed it; all must get the same bytes.
func TestCompressedOnce(t *testing.T) {
	srv := newTestServer(t)
	bodies := make(chan string, 8)
	for range cap(bodies) {
		go func() {
			_, body := fetch(t, http.MethodGet, srv.URL+"/developers/", map[string]string{"Accept-Encoding": "br"})
			bodies <- body
		}()
	}
	first := <-bodies
	for range cap(bodies) - 1 {
		if b := <-bodies; !bytes.Equal([]byte(b), []byte(first)) || len(b) == 0 {
			t.Fatalf("concurrent first requests got different bodies (%d and %d bytes)", len(first), len(b))
		}
	}
}

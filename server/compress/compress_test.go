package compress

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// text returns n bytes of markdown-like text, which compresses well.
func text(n int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString("## Topic ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n\nSpaced repetition schedules each question by how well it was recalled.\n\n")
	}
	return []byte(b.String()[:n])
}

// noise returns n random bytes, which do not compress.
func noise(n int) []byte {
	r := rand.NewChaCha8([32]byte{1})
	b := make([]byte, n)
	r.Read(b)
	return b
}

func decodeBrotli(t *testing.T, b []byte) []byte {
	t.Helper()
	out, err := io.ReadAll(brotli.NewReader(bytes.NewReader(b)))
	if err != nil {
		t.Fatalf("brotli: %v", err)
	}
	return out
}

func decodeZstd(t *testing.T, b []byte) []byte {
	t.Helper()
	d, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out, err := d.DecodeAll(b, nil)
	if err != nil {
		t.Fatalf("zstd: %v", err)
	}
	return out
}

func decodeGzip(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	return out
}

func TestCompress(t *testing.T) {
	tests := []struct {
		name     string
		body     []byte
		wantSome bool
	}{
		{"empty", nil, false},
		{"one byte under MinSize", text(MinSize - 1), false},
		{"exactly MinSize", text(MinSize), true},
		{"a page", text(40 << 10), true},
		{"random bytes do not pay", noise(8 << 10), false},
	}
	var c Compressor
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := c.Compress(tt.body)
			if !tt.wantSome {
				if f.Brotli != nil || f.Zstd != nil || f.Gzip != nil {
					t.Fatalf("got forms of %d, %d, %d bytes, want none", len(f.Brotli), len(f.Zstd), len(f.Gzip))
				}
				return
			}
			for name, form := range map[string][]byte{"br": f.Brotli, "zstd": f.Zstd, "gzip": f.Gzip} {
				if form == nil {
					t.Fatalf("%s form missing", name)
				}
				if len(form)*100 > len(tt.body)*keepPercent {
					t.Errorf("%s form is %d bytes of %d, over %d%%", name, len(form), len(tt.body), keepPercent)
				}
			}
			for name, got := range map[string][]byte{
				"br": decodeBrotli(t, f.Brotli), "zstd": decodeZstd(t, f.Zstd), "gzip": decodeGzip(t, f.Gzip),
			} {
				if !bytes.Equal(got, tt.body) {
					t.Errorf("%s form decodes to %d bytes that differ from the %d of the body", name, len(got), len(tt.body))
				}
			}
		})
	}
}

func TestKeepAtTheLimit(t *testing.T) {
	body := make([]byte, 100)
	tests := []struct {
		compressed int
		kept       bool
	}{{89, true}, {90, true}, {91, false}, {100, false}}
	for _, tt := range tests {
		if got := keep(body, make([]byte, tt.compressed)) != nil; got != tt.kept {
			t.Errorf("keep(100 bytes, %d compressed) = %v, want %v", tt.compressed, got, tt.kept)
		}
	}
}

// TestCompressConcurrently shares one Compressor, as the site does when
// several files are first asked for at once; each result must match its
// own input (run with -race to check the sharing).
func TestCompressConcurrently(t *testing.T) {
	var c Compressor
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			body := text(2000 + 1000*i)
			f := c.Compress(body)
			if !bytes.Equal(decodeGzip(t, f.Gzip), body) || !bytes.Equal(decodeBrotli(t, f.Brotli), body) {
				t.Errorf("body %d: a form decodes to another body", i)
			}
		})
	}
	wg.Wait()
}

func TestResponses(t *testing.T) {
	wrap, err := Responses()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		n := DynamicMinSize
		if r.URL.Query().Has("small") {
			n--
		}
		w.Write(text(n)) //nolint:errcheck // test server
	})))
	defer srv.Close()
	// The client must not ask for or decode gzip by itself.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	tests := []struct {
		name, path, acceptEncoding, want string
	}{
		{"no Accept-Encoding", "/", "", ""},
		{"gzip", "/", "gzip", "gzip"},
		{"zstd", "/", "zstd", "zstd"},
		{"both: zstd", "/", "gzip, zstd", "zstd"},
		{"gzip preferred by q", "/", "gzip, zstd;q=0.5", "gzip"},
		{"only codings it lacks", "/", "br, deflate", ""},
		{"one byte under the minimum", "/?small", "gzip, zstd", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.acceptEncoding != "" {
				req.Header.Set("Accept-Encoding", tt.acceptEncoding)
			}
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Header.Get("Content-Encoding"); got != tt.want {
				t.Fatalf("Content-Encoding %q, want %q", got, tt.want)
			}
			if got := res.Header.Get("Vary"); got != "Accept-Encoding" {
				t.Errorf("Vary %q, want Accept-Encoding", got)
			}
			switch tt.want {
			case "gzip":
				body = decodeGzip(t, body)
			case "zstd":
				body = decodeZstd(t, body)
			}
			want := DynamicMinSize
			if strings.Contains(tt.path, "small") {
				want--
			}
			if !bytes.Equal(body, text(want)) {
				t.Errorf("decoded body of %d bytes differs from the %d written", len(body), want)
			}
		})
	}
}

// TestCompressorReleasesEncoders: encoders are kept between files of a
// burst and dropped once releaseAfter has passed without compression.
func TestCompressorReleasesEncoders(t *testing.T) {
	var c Compressor
	idle := func() int {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.idle)
	}
	c.Compress(text(4096))
	first := c.idle[0]
	c.Compress(text(8192))
	if idle() != 1 || c.idle[0] != first {
		t.Fatalf("second file: %d idle encoder sets, reused %v; want the first one kept", idle(), idle() == 1 && c.idle[0] == first)
	}
	deadline := time.Now().Add(5 * releaseAfter)
	for idle() != 0 && time.Now().Before(deadline) {
		time.Sleep(releaseAfter / 10)
	}
	if n := idle(); n != 0 {
		t.Fatalf("%d idle encoder sets kept after %v", n, 5*releaseAfter)
	}
	// After the release, compressing still works.
	if f := c.Compress(text(4096)); !bytes.Equal(decodeGzip(t, f.Gzip), text(4096)) {
		t.Fatal("compressing after the release gave a wrong gzip form")
	}
}

package web

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/config"
)

// benchWriter is a reusable ResponseWriter that keeps what a connection
// would: the header map, the status and a copy of the body. With
// freshHeader it starts each response with a new header map, as net/http
// does; otherwise it clears and reuses one, so that only the handler's own
// work and allocations are measured.
type benchWriter struct {
	header      http.Header
	freshHeader bool
	status      int
	body        []byte
}

func (w *benchWriter) Header() http.Header         { return w.header }
func (w *benchWriter) WriteHeader(status int)      { w.status = status }
func (w *benchWriter) Write(p []byte) (int, error) { w.body = append(w.body, p...); return len(p), nil }

func (w *benchWriter) reset() {
	if w.freshHeader {
		w.header = http.Header{}
	} else {
		clear(w.header)
	}
	w.status = 0
	w.body = w.body[:0]
}

// copyHandler is the baseline: it writes a fixed response (the same header
// values and body bytes) from memory, with no lookup and no negotiation.
func copyHandler(status int, header http.Header, body []byte) http.Handler {
	fields := make([]headerField, 0, len(header))
	for k, v := range header {
		fields = append(fields, headerField{k, v[:len(v):len(v)]})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for _, f := range fields {
			h[f.key] = f.value
		}
		w.WriteHeader(status)
		w.Write(body) //nolint:errcheck // benchWriter does not fail
	})
}

var benchRequests = []struct {
	name, path string
	header     map[string]string
	status     int
}{
	{"markdown/claude-code", "/support/", map[string]string{"Accept": "text/markdown, text/html, */*"}, 200},
	{"html/browser", "/support/", map[string]string{"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"}, 200},
	{"html/no-accept", "/", nil, 200},
	{"not-modified", "/support/", map[string]string{"Accept": "text/markdown", "If-None-Match": "(etag)"}, 304},
	{"not-acceptable", "/support/", map[string]string{"Accept": "application/json"}, 406},
	{"plain-file", "/llms.txt", map[string]string{"Accept": "*/*"}, 200},
	{"html/browser-br", "/support/", map[string]string{"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8", "Accept-Encoding": "gzip, deflate, br, zstd"}, 200},
	{"markdown/claude-code-gzip", "/support/", map[string]string{"Accept": "text/markdown, text/html, */*", "Accept-Encoding": "gzip"}, 200},
	{"not-modified-br", "/support/", map[string]string{"Accept": "text/markdown", "Accept-Encoding": "br", "If-None-Match": "(etag)"}, 304},
	{"plain-file-br", "/llms-full.txt", map[string]string{"Accept-Encoding": "gzip, deflate, br, zstd"}, 200},
	{"plain-file-zstd", "/llms-full.txt", map[string]string{"Accept-Encoding": "zstd"}, 200},
	{"no-coding-acceptable", "/llms-full.txt", map[string]string{"Accept-Encoding": "deflate, identity;q=0"}, 406},
}

// TestSiteServesWithoutAllocating serves every kind of answer of the
// benchmarks, compressed forms included once made, and fails on any
// allocation in the handler.
func TestSiteServesWithoutAllocating(t *testing.T) {
	site := handleSite(newBenchSite(t))
	for _, br := range benchRequests {
		req, want := newBenchRequest(t, site, br.path, br.header, br.status)
		w := &benchWriter{header: http.Header{}}
		allocs := testing.AllocsPerRun(100, func() {
			w.reset()
			site.ServeHTTP(w, req)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per request", br.name, allocs)
		}
		if w.status != br.status || !bytes.Equal(w.body, want.Body.Bytes()) {
			t.Errorf("%s: status %d and %d bytes, want %d and %d", br.name, w.status, len(w.body), br.status, want.Body.Len())
		}
	}
}

func newBenchSite(b testing.TB) *siteFiles {
	b.Helper()
	site, err := newSiteFiles(builtSite(b), "https://study.example")
	if err != nil {
		b.Fatal(err)
	}
	return site
}

// newBenchRequest builds the request and the response the site gives it.
func newBenchRequest(b testing.TB, site http.Handler, path string, header map[string]string, status int) (*http.Request, *httptest.ResponseRecorder) {
	b.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	// "(etag)" stands for the ETag of the answer to the other headers.
	for k, v := range header {
		if v == "(etag)" {
			req.Header.Del(k)
			rec := httptest.NewRecorder()
			site.ServeHTTP(rec, req)
			req.Header.Set(k, rec.Header().Get("ETag"))
		}
	}
	rec := httptest.NewRecorder()
	site.ServeHTTP(rec, req)
	if rec.Code != status {
		b.Fatalf("%s: status %d, want %d", path, rec.Code, status)
	}
	return req, rec
}

// BenchmarkSiteResponses measures each kind of answer of the site handler,
// and the baseline that copies a fixed response from memory.
func BenchmarkSiteResponses(b *testing.B) {
	site := handleSite(newBenchSite(b))
	for _, br := range benchRequests {
		req, want := newBenchRequest(b, site, br.path, br.header, br.status)
		for _, h := range []struct {
			name    string
			handler http.Handler
		}{
			{"site", site},
			{"baseline", copyHandler(want.Code, want.Header(), want.Body.Bytes())},
		} {
			b.Run(br.name+"/"+h.name, func(b *testing.B) {
				w := &benchWriter{header: http.Header{}}
				b.ReportAllocs()
				b.SetBytes(int64(want.Body.Len()))
				for b.Loop() {
					w.reset()
					h.handler.ServeHTTP(w, req)
				}
				if w.status != br.status || len(w.body) != want.Body.Len() {
					b.Fatalf("status=%d body=%d bytes, want %d and %d", w.status, len(w.body), br.status, want.Body.Len())
				}
			})
		}
	}
}

// BenchmarkNegotiatedPageRatio serves a negotiated page and, in the same
// run, the baseline that writes the same response from memory. The two
// alternate in batches so that load from other processes falls on both
// alike. It reports the site's ns/op, the baseline's, and the ratio of
// baseline time to site time (1 = as fast as copying; the target is at
// least 0.9) as the median over batches, which a burst of load on a shared
// machine does not sway. "reused-header" clears one header map between
// responses, so the handlers alone are compared; "fresh-header" gives each
// response a new map as net/http does. Allocations per request are in
// BenchmarkSiteResponses.
func BenchmarkNegotiatedPageRatio(b *testing.B) {
	site := handleSite(newBenchSite(b))
	for _, br := range benchRequests[:3] {
		for _, fresh := range []bool{false, true} {
			name := br.name + "/reused-header"
			if fresh {
				name = br.name + "/fresh-header"
			}
			b.Run(name, func(b *testing.B) {
				benchmarkRatio(b, site, br.path, br.header, br.status, fresh)
			})
		}
	}
}

func benchmarkRatio(b *testing.B, site http.Handler, path string, header map[string]string, status int, freshHeader bool) {
	req, want := newBenchRequest(b, site, path, header, status)
	baseline := copyHandler(want.Code, want.Header(), want.Body.Bytes())
	w := &benchWriter{header: http.Header{}, freshHeader: freshHeader}
	serve := func(h http.Handler, n int) time.Duration {
		start := time.Now()
		for range n {
			w.reset()
			h.ServeHTTP(w, req)
		}
		return time.Since(start)
	}
	const batch = 128
	var siteTime, baseTime time.Duration
	ratios := make([]float64, 0, b.N/batch+1)
	for done := 0; done < b.N; done += batch {
		n := min(batch, b.N-done)
		var s, c time.Duration
		if done/batch%2 == 0 {
			s = serve(site, n)
			c = serve(baseline, n)
		} else {
			c = serve(baseline, n)
			s = serve(site, n)
		}
		siteTime += s
		baseTime += c
		ratios = append(ratios, float64(c)/float64(s))
	}
	slices.Sort(ratios)
	b.ReportMetric(float64(siteTime.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(float64(baseTime.Nanoseconds())/float64(b.N), "baseline-ns/op")
	b.ReportMetric(ratios[len(ratios)/2], "ratio")
}

// BenchmarkNegotiatedPageOverHTTP compares the two as a client sees them:
// each handler behind its own net/http server on loopback, the same
// keep-alive client, requests alternating in batches. It reports the
// ratio of baseline time to site time (target: at least 0.9) as the
// median over batches.
func BenchmarkNegotiatedPageOverHTTP(b *testing.B) {
	site := handleSite(newBenchSite(b))
	for _, br := range benchRequests[:3] {
		b.Run(br.name, func(b *testing.B) {
			_, want := newBenchRequest(b, site, br.path, br.header, br.status)
			siteSrv := httptest.NewServer(site)
			defer siteSrv.Close()
			baseSrv := httptest.NewServer(copyHandler(want.Code, want.Header(), want.Body.Bytes()))
			defer baseSrv.Close()
			// The client sends only the benchmark's headers: no Accept-Encoding of
			// its own, which would compress the site's answer and not the baseline's.
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
			newReq := func(base string) *http.Request {
				req, err := http.NewRequest(http.MethodGet, base+br.path, nil)
				if err != nil {
					b.Fatal(err)
				}
				for k, v := range br.header {
					req.Header.Set(k, v)
				}
				return req
			}
			siteReq, baseReq := newReq(siteSrv.URL), newReq(baseSrv.URL)
			buf := make([]byte, 64<<10)
			serve := func(req *http.Request, n int) time.Duration {
				start := time.Now()
				for range n {
					res, err := client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					for {
						if _, err := res.Body.Read(buf); err != nil {
							break
						}
					}
					res.Body.Close()
					if res.StatusCode != br.status {
						b.Fatalf("status %d, want %d", res.StatusCode, br.status)
					}
				}
				return time.Since(start)
			}
			const batch = 32
			var ratios []float64
			var siteTime time.Duration
			for done := 0; done < b.N; done += batch {
				n := min(batch, b.N-done)
				var s, c time.Duration
				if done/batch%2 == 0 {
					s, c = serve(siteReq, n), serve(baseReq, n)
				} else {
					c, s = serve(baseReq, n), serve(siteReq, n)
				}
				siteTime += s
				ratios = append(ratios, float64(c)/float64(s))
			}
			slices.Sort(ratios)
			b.ReportMetric(float64(siteTime.Nanoseconds())/float64(b.N), "site-ns/op")
			b.ReportMetric(ratios[len(ratios)/2], "ratio")
		})
	}
}

// BenchmarkSiteFullStack serves the site through NewServer, with the
// middleware around every route and the request log written directly as
// in production (to io.Discard), so the cost of the middleware shows
// beside the handler's.
func BenchmarkSiteFullStack(b *testing.B) {
	cfg, err := config.FromEnv(func(k string) string { return map[string]string{"BASE_URL": testOrigin}[k] })
	if err != nil {
		b.Fatal(err)
	}
	h := NewServer(NewTestDeps(b, cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)), io.Discard))
	for _, br := range benchRequests {
		b.Run(br.name, func(b *testing.B) {
			req, want := newBenchRequest(b, h, br.path, br.header, br.status)
			req.RemoteAddr = "127.0.0.1:40000"
			w := &benchWriter{header: http.Header{}, freshHeader: true}
			b.ReportAllocs()
			b.SetBytes(int64(want.Body.Len()))
			for b.Loop() {
				w.reset()
				h.ServeHTTP(w, req)
			}
			if w.status != br.status {
				b.Fatalf("status %d, want %d", w.status, br.status)
			}
		})
	}
}

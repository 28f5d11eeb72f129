package web

import (
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/build"
	"github.com/studyloop/studyloop/server/config"
)

// testOrigin is the public origin the test servers run under; the built
// files name it in place of the build's placeholder.
const testOrigin = "https://study.example"

// contentPages are the nine negotiated pages of the contract, by their
// canonical URL and their twin.
var contentPages = []struct{ path, twin string }{
	{"/", "/index.md"},
	{"/support/", "/support.md"},
	{"/developers/", "/developers.md"},
	{"/mcp", "/mcp.md"},
	{"/pdf-to-flashcards/", "/pdf-to-flashcards.md"},
	{"/notes-to-quiz/", "/notes-to-quiz.md"},
	{"/image-to-flashcards/", "/image-to-flashcards.md"},
	{"/ai-quiz-generator/", "/ai-quiz-generator.md"},
	{"/spaced-repetition-study-app/", "/spaced-repetition-study-app.md"},
}

// builtSite returns the real Hugo output embedded by package build.
func builtSite(t testing.TB) fs.FS {
	t.Helper()
	site := build.Site()
	if _, err := fs.Stat(site, "index.html"); err != nil {
		t.Fatal("build/site holds no built site: run make site (make test does)")
	}
	return site
}

// newTestServer serves NewServer over real HTTP on loopback, with the real
// built site and a fresh SQLite database.
func newTestServer(t testing.TB) *httptest.Server {
	t.Helper()
	return newLoggingTestServer(t, slog.New(slog.DiscardHandler))
}

// newLoggingTestServer is newTestServer logging to logger.
func newLoggingTestServer(t testing.TB, logger *slog.Logger) *httptest.Server {
	t.Helper()
	cfg, err := config.FromEnv(func(k string) string {
		return map[string]string{"BASE_URL": testOrigin}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(NewServer(NewTestDeps(t, cfg, logger, nil)))
	t.Cleanup(srv.Close)
	return srv
}

// fetch sends one request without following redirects.
// rawClient sends exactly the headers a test sets, without the
// Accept-Encoding: gzip that Go's transport would add (and then decode),
// and does not follow redirects.
var rawClient = &http.Client{
	Transport:     &http.Transport{DisableCompression: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

func fetch(t *testing.T, method, url string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

const (
	typeHTML     = "text/html; charset=utf-8"
	typeMarkdown = "text/markdown; charset=utf-8"
	// varyNegotiated is the Vary of every 200 and 304 of a negotiated page.
	varyNegotiated = "Accept, Accept-Encoding"
)

func TestAcceptHeadersThroughHTTP(t *testing.T) {
	srv := newTestServer(t)
	tests := []struct {
		name   string
		accept []string // each a field line; nil sends none
		want   int      // 200 HTML, 200 markdown or 406
		ctype  string
	}{
		{"claude code", []string{"text/markdown, text/html, */*"}, 200, typeMarkdown},
		{"cursor", []string{"text/markdown, text/plain;q=0.9, */*;q=0.8"}, 200, typeMarkdown},
		{"openclaw", []string{"text/markdown, text/html;q=0.9, */*;q=0.1"}, 200, typeMarkdown},
		{"browser default", []string{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}, 200, typeHTML},
		{"firefox", []string{"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"}, 200, typeHTML},
		{"any", []string{"*/*"}, 200, typeHTML},
		{"no accept", nil, 200, typeHTML},
		{"empty accept", []string{""}, 200, typeHTML},
		{"markdown only", []string{"text/markdown"}, 200, typeMarkdown},
		{"html only", []string{"text/html"}, 200, typeHTML},
		{"html demoted", []string{"text/html;q=0.5, text/markdown"}, 200, typeMarkdown},
		{"markdown refused, wildcard", []string{"text/markdown;q=0, */*"}, 200, typeHTML},
		{"html refused, wildcard", []string{"text/html;q=0, */*"}, 200, typeMarkdown},
		{"both refused", []string{"text/html;q=0, text/markdown;q=0, */*"}, 406, "text/plain; charset=utf-8"},
		{"json", []string{"application/json"}, 406, "text/plain; charset=utf-8"},
		{"plain text", []string{"text/plain"}, 406, "text/plain; charset=utf-8"},
		{"event stream", []string{"text/event-stream"}, 406, "text/plain; charset=utf-8"},
		{"nothing at all", []string{"*/*;q=0"}, 406, "text/plain; charset=utf-8"},
		{"text wildcard", []string{"text/*"}, 200, typeHTML},
		{"specific beats text wildcard", []string{"text/*;q=0.9, text/markdown;q=0.5"}, 200, typeHTML},
		{"equal q, markdown first", []string{"text/markdown;q=0.5, text/html;q=0.5"}, 200, typeMarkdown},
		{"equal q, html first", []string{"text/html;q=0.5, text/markdown;q=0.5"}, 200, typeHTML},
		{"upper case", []string{"TEXT/MARKDOWN, TEXT/HTML;Q=0.1"}, 200, typeMarkdown},
		{"two lines", []string{"text/markdown", "text/html"}, 200, typeMarkdown},
		{"two lines, html first", []string{"text/html", "text/markdown"}, 200, typeHTML},
		{"markdown with parameters", []string{"text/markdown;charset=utf-8;variant=GFM"}, 200, typeMarkdown},
		{"malformed is ignored", []string{"text/markdown;q=2"}, 200, typeHTML},
		{"malformed garbage", []string{"$$$"}, 200, typeHTML},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, srv.URL+"/support/", nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range tt.accept {
				req.Header.Add("Accept", line)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tt.want || res.Header.Get("Content-Type") != tt.ctype {
				t.Fatalf("status=%d Content-Type=%q, want %d %q", res.StatusCode, res.Header.Get("Content-Type"), tt.want, tt.ctype)
			}
			wantVary := "Accept, Accept-Encoding"
			if tt.want == 406 {
				wantVary = "Accept"
			}
			if got := res.Header.Get("Vary"); got != wantVary {
				t.Errorf("Vary=%q, want %q", got, wantVary)
			}
			switch tt.ctype {
			case typeMarkdown:
				if !strings.HasPrefix(string(body), "# ") {
					t.Errorf("markdown body starts %q", body[:min(len(body), 40)])
				}
			case typeHTML:
				if !strings.Contains(string(body), "<html") {
					t.Errorf("HTML body lacks <html")
				}
			default:
				if !strings.Contains(string(body), "text/markdown") || !strings.Contains(string(body), "/support.md") {
					t.Errorf("406 body does not list what is available: %q", body)
				}
			}
		})
	}
}

func TestContentPagesNegotiate(t *testing.T) {
	srv := newTestServer(t)
	for _, page := range contentPages {
		// Every page answers with and without its trailing slash, and
		// in German under /de/ (the English twin: twins are English only).
		paths := []string{page.path}
		switch page.path {
		case "/":
			paths = append(paths, "/de/", "/de")
		case "/mcp":
			paths = append(paths, "/mcp/", "/de/mcp/", "/de/mcp")
		default:
			paths = append(paths, strings.TrimSuffix(page.path, "/"), "/de"+page.path, "/de"+strings.TrimSuffix(page.path, "/"))
		}
		_, twin := fetch(t, http.MethodGet, srv.URL+page.twin, nil)
		for _, p := range paths {
			t.Run(p, func(t *testing.T) {
				res, html := fetch(t, http.MethodGet, srv.URL+p, map[string]string{"Accept": "text/html"})
				if res.StatusCode != 200 || res.Header.Get("Content-Type") != typeHTML {
					t.Fatalf("HTML: status=%d Content-Type=%q", res.StatusCode, res.Header.Get("Content-Type"))
				}
				wantLink := "<" + page.twin + `>; rel="alternate"; type="text/markdown"`
				if res.Header.Get("Link") != wantLink || res.Header.Get("Vary") != varyNegotiated {
					t.Errorf("HTML: Link=%q Vary=%q, want %q and Accept, Accept-Encoding", res.Header.Get("Link"), res.Header.Get("Vary"), wantLink)
				}
				if res.Header.Get("Content-Location") != "" {
					t.Errorf("HTML: Content-Location=%q, want none", res.Header.Get("Content-Location"))
				}
				if !strings.Contains(html, `type="text/markdown" href="`+page.twin+`"`) {
					t.Errorf("HTML head lacks the <link> to %s", page.twin)
				}
				htmlETag := res.Header.Get("ETag")

				res, md := fetch(t, http.MethodGet, srv.URL+p, map[string]string{"Accept": "text/markdown"})
				if res.StatusCode != 200 || res.Header.Get("Content-Type") != typeMarkdown || md != twin {
					t.Fatalf("markdown: status=%d Content-Type=%q, body is the twin: %v", res.StatusCode, res.Header.Get("Content-Type"), md == twin)
				}
				if res.Header.Get("Content-Location") != page.twin || res.Header.Get("Vary") != varyNegotiated {
					t.Errorf("markdown: Content-Location=%q Vary=%q", res.Header.Get("Content-Location"), res.Header.Get("Vary"))
				}
				if german := strings.HasPrefix(p, "/de/") || p == "/de"; german != (res.Header.Get("Content-Language") == "en") {
					t.Errorf("markdown: Content-Language=%q", res.Header.Get("Content-Language"))
				}
				if mdETag := res.Header.Get("ETag"); mdETag == "" || mdETag == htmlETag {
					t.Errorf("ETags of HTML %s and markdown %s must differ", htmlETag, mdETag)
				}

				res, _ = fetch(t, http.MethodGet, srv.URL+p, map[string]string{"Accept": "application/json"})
				if p == "/mcp" || p == "/mcp/" {
					// The connect page never answers 406.
					if res.StatusCode != 200 || res.Header.Get("Content-Type") != typeHTML || res.Header.Get("Vary") != varyNegotiated {
						t.Errorf("/mcp with Accept: application/json: status=%d Content-Type=%q Vary=%q", res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Vary"))
					}
				} else if res.StatusCode != 406 || res.Header.Get("Vary") != "Accept" {
					t.Errorf("Accept: application/json: status=%d Vary=%q, want 406 Accept", res.StatusCode, res.Header.Get("Vary"))
				}
			})
		}
	}
}

func TestConditionalAndHeadRequests(t *testing.T) {
	srv := newTestServer(t)
	tests := []struct {
		path, accept string
		negotiated   bool
	}{
		{"/support/", "text/html", true},
		{"/support/", "text/markdown", true},
		// An Accept /mcp cannot satisfy gets the page; one asking for the
		// SSE stream gets 405 instead (server/mcp tests that).
		{"/mcp", "application/json", true},
		{"/llms.txt", "", false},
		{"/support.md", "", false},
		{"/css/site.css", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+tt.accept, func(t *testing.T) {
			hdr := map[string]string{"Accept": tt.accept}
			res, body := fetch(t, http.MethodGet, srv.URL+tt.path, hdr)
			etag := res.Header.Get("ETag")
			if res.StatusCode != 200 || !strings.HasPrefix(etag, `"`) {
				t.Fatalf("status=%d ETag=%q", res.StatusCode, etag)
			}
			if res.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.HasPrefix(res.Header.Get("Cache-Control"), "public, max-age=") {
				t.Errorf("X-Content-Type-Options=%q Cache-Control=%q", res.Header.Get("X-Content-Type-Options"), res.Header.Get("Cache-Control"))
			}
			if got := res.Header.Get("Vary") == varyNegotiated; got != tt.negotiated {
				t.Errorf("Vary=%q on a negotiated=%v response", res.Header.Get("Vary"), tt.negotiated)
			}

			head, headBody := fetch(t, http.MethodHead, srv.URL+tt.path, hdr)
			if head.StatusCode != 200 || headBody != "" || head.Header.Get("ETag") != etag ||
				head.Header.Get("Content-Type") != res.Header.Get("Content-Type") || head.ContentLength != int64(len(body)) {
				t.Errorf("HEAD: status=%d body=%d bytes ETag=%q Content-Type=%q Content-Length=%d, want GET's (%d bytes)",
					head.StatusCode, len(headBody), head.Header.Get("ETag"), head.Header.Get("Content-Type"), head.ContentLength, len(body))
			}

			for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
				hdr["If-None-Match"] = inm
				res, body := fetch(t, http.MethodGet, srv.URL+tt.path, hdr)
				if res.StatusCode != 304 || body != "" || res.Header.Get("ETag") != etag {
					t.Errorf("If-None-Match %s: status=%d body=%d bytes ETag=%q, want 304", inm, res.StatusCode, len(body), res.Header.Get("ETag"))
				}
				if got := res.Header.Get("Vary") == varyNegotiated; got != tt.negotiated {
					t.Errorf("If-None-Match %s: Vary=%q", inm, res.Header.Get("Vary"))
				}
			}
			hdr["If-None-Match"] = `"stale"`
			if res, _ := fetch(t, http.MethodGet, srv.URL+tt.path, hdr); res.StatusCode != 200 {
				t.Errorf("stale If-None-Match: status=%d, want 200", res.StatusCode)
			}
		})
	}

	// The ETag of one representation does not validate the other.
	res, _ := fetch(t, http.MethodGet, srv.URL+"/support/", map[string]string{"Accept": "text/html"})
	res, _ = fetch(t, http.MethodGet, srv.URL+"/support/", map[string]string{"Accept": "text/markdown", "If-None-Match": res.Header.Get("ETag")})
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != typeMarkdown {
		t.Errorf("HTML ETag with Accept: text/markdown: status=%d Content-Type=%q, want the markdown 200", res.StatusCode, res.Header.Get("Content-Type"))
	}
	// A 406 carries Vary too, and If-None-Match does not turn it into 304.
	res, _ = fetch(t, http.MethodGet, srv.URL+"/support/", map[string]string{"Accept": "image/png", "If-None-Match": "*"})
	if res.StatusCode != 406 || res.Header.Get("Vary") != "Accept" {
		t.Errorf("406 with If-None-Match: status=%d Vary=%q", res.StatusCode, res.Header.Get("Vary"))
	}
}

// TestAgentFilesAndHealth walks the contract's agent-file and health tables.
func TestAgentFilesAndHealth(t *testing.T) {
	srv := newTestServer(t)
	tests := []struct{ path, ctype string }{
		{"/llms.txt", "text/plain; charset=utf-8"},
		{"/llms-full.txt", "text/plain; charset=utf-8"},
		{"/openapi.json", "application/json"},
		{"/sitemap-agents.xml", "application/xml"},
		{"/sitemap.xml", "application/xml"},
		{"/robots.txt", "text/plain; charset=utf-8"},
		{"/mcp/server-card", "application/mcp-server-card+json"},
		{"/.well-known/ai-catalog.json", "application/ai-catalog+json"},
		{"/api/health", "application/json"},
	}
	for _, page := range contentPages {
		tests = append(tests, struct{ path, ctype string }{page.twin, typeMarkdown})
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			// Agents send all sorts of Accept headers; files that are not
			// negotiated answer whatever they send.
			res, body := fetch(t, http.MethodGet, srv.URL+tt.path, map[string]string{"Accept": "text/markdown, text/html, */*"})
			if res.StatusCode != 200 || res.Header.Get("Content-Type") != tt.ctype || body == "" {
				t.Fatalf("status=%d Content-Type=%q body=%d bytes, want 200 %q", res.StatusCode, res.Header.Get("Content-Type"), len(body), tt.ctype)
			}
		})
	}
}

func TestLocaleTwinsRedirect(t *testing.T) {
	srv := newTestServer(t)
	for _, page := range contentPages {
		res, _ := fetch(t, http.MethodGet, srv.URL+"/de"+page.twin, nil)
		if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != page.twin {
			t.Errorf("/de%s: status=%d Location=%q, want 301 %s", page.twin, res.StatusCode, res.Header.Get("Location"), page.twin)
		}
	}
}

func TestUnknownPathsGetTheNotFoundPage(t *testing.T) {
	srv := newTestServer(t)
	tests := []struct{ path, lang string }{
		{"/no-such-page", "en"},
		{"/support/deeper", "en"},
		{"/support.md/", "en"},
		{"/404.html", "en"},
		{"/.keep", "en"},
		{"/de/keine-seite", "de"},
	}
	for _, tt := range tests {
		res, body := fetch(t, http.MethodGet, srv.URL+tt.path, map[string]string{"Accept": "text/markdown"})
		if res.StatusCode != 404 || res.Header.Get("Content-Type") != typeHTML || !strings.Contains(body, `lang="`+tt.lang) {
			t.Errorf("%s: status=%d Content-Type=%q, want 404 with the %s 404 page", tt.path, res.StatusCode, res.Header.Get("Content-Type"), tt.lang)
		}
	}
	res, _ := fetch(t, http.MethodPost, srv.URL+"/support/", nil)
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /support/: status=%d, want 405", res.StatusCode)
	}
}

func TestBuiltFilesUseTheBaseURL(t *testing.T) {
	srv := newTestServer(t)
	for _, p := range []string{"/llms.txt", "/llms-full.txt", "/sitemap.xml", "/sitemap-agents.xml", "/robots.txt", "/openapi.json", "/mcp/server-card", "/.well-known/ai-catalog.json", "/", "/index.md", "/de/support/"} {
		_, body := fetch(t, http.MethodGet, srv.URL+p, nil)
		if strings.Contains(body, "studyloop.invalid") || !strings.Contains(body, testOrigin) {
			t.Errorf("%s does not use BASE_URL %s throughout", p, testOrigin)
		}
	}
}

// postOnly are URLs the agent files name that take only POST: a GET gets
// 405 with Allow: POST. signedIn are pages that send a stranger to sign in.
// Every other URL must answer GET with 200.
var (
	postOnly = map[string]bool{"/oauth/register": true, "/oauth/token": true, "/oauth/revoke": true}
	signedIn = map[string]bool{"/app": true}
)

func TestEveryAdvertisedURLAnswers(t *testing.T) {
	srv := newTestServer(t)
	url := regexp.MustCompile(regexp.QuoteMeta(testOrigin) + `(/[^\s"'<>()\[\]` + "`" + `]*)?`)
	for _, doc := range []string{"/llms.txt", "/sitemap.xml", "/sitemap-agents.xml"} {
		_, body := fetch(t, http.MethodGet, srv.URL+doc, nil)
		paths := map[string]bool{}
		for _, m := range url.FindAllStringSubmatch(body, -1) {
			p := strings.TrimRight(m[1], ".,;:")
			if p == "" {
				p = "/"
			}
			paths[p] = true
		}
		if len(paths) < 5 {
			t.Fatalf("%s names only %d URLs", doc, len(paths))
		}
		for p := range paths {
			res, _ := fetch(t, http.MethodGet, srv.URL+p, nil)
			switch {
			case postOnly[p]:
				if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "POST" {
					t.Errorf("%s names %s (POST only): GET answers %d Allow=%q, want 405 Allow=POST", doc, p, res.StatusCode, res.Header.Get("Allow"))
				}
			case signedIn[p]:
				if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/signin?") {
					t.Errorf("%s names %s (signed-in page): answers %d Location=%q, want 303 to /signin", doc, p, res.StatusCode, res.Header.Get("Location"))
				}
			case res.StatusCode != 200:
				t.Errorf("%s names %s, which answers %d", doc, p, res.StatusCode)
			}
		}
	}
}

// TestRouteSiteFirst checks that a request answered by routeSiteFirst
// without the mux gets the answer the mux gives it, and that the paths a
// more specific route or a redirect claims still go through the mux.
func TestRouteSiteFirst(t *testing.T) {
	site := newBenchSite(t)
	mux := http.NewServeMux()
	mux.Handle("GET /mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "route") }))
	mux.Handle(sitePattern, handleSite(site))
	first := routeSiteFirst(mux, site)
	direct := directSitePaths(mux, site)
	if direct["/support/"] == nil || direct["/llms-full.txt"] == nil || direct["/mcp"] != nil || len(direct) != len(site.resources)-1 {
		t.Errorf("%d of %d paths served first, /support/ %t, /llms-full.txt %t, /mcp %t; want all but /mcp",
			len(direct), len(site.resources), direct["/support/"] != nil, direct["/llms-full.txt"] != nil, direct["/mcp"] != nil)
	}
	for _, tc := range []struct {
		method, target string
		accept         string
		wantStatus     int
		wantRoute      bool // the GET /mcp route answers
	}{
		{http.MethodGet, "/support/", "", http.StatusOK, false},
		{http.MethodGet, "/support/", "text/markdown", http.StatusOK, false},
		{http.MethodHead, "/support/", "", http.StatusOK, false},
		{http.MethodGet, "/support", "", http.StatusOK, false},
		{http.MethodGet, "/llms-full.txt", "", http.StatusOK, false},
		{http.MethodGet, "/mcp", "", http.StatusOK, true},
		{http.MethodGet, "/%73upport/", "", http.StatusOK, false},
		{http.MethodGet, "/x/../support/", "", http.StatusTemporaryRedirect, false},
		{http.MethodGet, "//support/", "", http.StatusTemporaryRedirect, false},
		{http.MethodGet, "/no-such-page/", "", http.StatusNotFound, false},
		{http.MethodPost, "/support/", "", http.StatusMethodNotAllowed, false},
	} {
		t.Run(tc.method+" "+tc.target+" "+tc.accept, func(t *testing.T) {
			answer := func(h http.Handler) *httptest.ResponseRecorder {
				req := httptest.NewRequest(tc.method, tc.target, nil)
				if tc.accept != "" {
					req.Header.Set("Accept", tc.accept)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec
			}
			got, want := answer(first), answer(mux)
			if got.Code != tc.wantStatus || want.Code != tc.wantStatus {
				t.Fatalf("status %d (mux alone %d), want %d", got.Code, want.Code, tc.wantStatus)
			}
			if got.Body.String() != want.Body.String() || !reflect.DeepEqual(got.Header(), want.Header()) {
				t.Errorf("answer differs from the mux's:\n%v\n%v", got.Header(), want.Header())
			}
			if isRoute := got.Body.String() == "route"; isRoute != tc.wantRoute {
				t.Errorf("answered by the GET /mcp route: %v, want %v", isRoute, tc.wantRoute)
			}
		})
	}
}

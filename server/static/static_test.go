package static

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// builtSite is a small build shaped like Hugo's output: English pages with
// twins, German translations without, a page without a twin, assets,
// agent files and a file named like a page directory.
func builtSite() fstest.MapFS {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	return fstest.MapFS{
		".keep":                       file(""),
		"index.html":                  file(`<a href="http://studyloop.invalid/support/">Support</a>`),
		"index.md":                    file("# Home\nSee http://studyloop.invalid/llms.txt\n"),
		"support/index.html":          file("<h1>Support</h1>"),
		"support.md":                  file("# Support\n"),
		"mcp/index.html":              file("<h1>Connect</h1>"),
		"mcp/server-card":             file(`{"url":"http://studyloop.invalid/mcp"}`),
		"mcp.md":                      file("# Connect\n"),
		"about/index.html":            file("<h1>About, no twin</h1>"),
		"faq/index.html":              file("<h1>Not a locale: no translated page with a twin</h1>"),
		"faq/extra/index.html":        file("<h1>FAQ extra</h1>"),
		"de/index.html":               file("<h1>Start</h1>"),
		"de/support/index.html":       file("<h1>Hilfe</h1>"),
		"de/404.html":                 file("<h1>Nicht gefunden</h1>"),
		"404.html":                    file("<h1>Not found</h1>"),
		"llms.txt":                    file("# Studyloop\n- [Support](http://studyloop.invalid/support.md)\n"),
		"robots.txt":                  file("Sitemap: http://studyloop.invalid/sitemap.xml\n"),
		"sitemap.xml":                 file("<loc>http://studyloop.invalid/</loc>"),
		"openapi.json":                file(`{"servers":[{"url":"http://studyloop.invalid"}]}`),
		".well-known/ai-catalog.json": file(`{"url":"http://studyloop.invalid/mcp/server-card"}`),
		"css/site.css":                file("body{background:url(http://studyloop.invalid/bg.png)}"),
		"icon.svg":                    file("<svg/>"),
		"logo.png":                    file("http://studyloop.invalid is binary here"),
	}
}

// builtOrigin is the placeholder origin builtSite was built with.
const builtOrigin = "http://studyloop.invalid"

// mustLoad loads builtSite with opts, replacing builtOrigin.
func mustLoad(t *testing.T, opts *Options) *Site {
	t.Helper()
	withOrigin := Options{Placeholder: builtOrigin}
	if opts != nil {
		withOrigin.BaseURL = opts.BaseURL
	}
	s, err := Load(builtSite(), &withOrigin)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLoadMapsPathsToFilesAndTwins(t *testing.T) {
	s := mustLoad(t, nil)
	tests := []struct {
		path, file, twin, locale string
	}{
		{"/", "index.html", "/index.md", ""},
		{"/support/", "support/index.html", "/support.md", ""},
		{"/support", "support/index.html", "/support.md", ""},
		{"/mcp", "mcp/index.html", "/mcp.md", ""},
		{"/mcp/", "mcp/index.html", "/mcp.md", ""},
		{"/mcp/server-card", "mcp/server-card", "", ""},
		{"/about/", "about/index.html", "", ""},
		{"/faq/", "faq/index.html", "", ""},
		{"/faq/extra/", "faq/extra/index.html", "", ""},
		{"/de/", "de/index.html", "/index.md", "de"},
		{"/de", "de/index.html", "/index.md", "de"},
		{"/de/support/", "de/support/index.html", "/support.md", "de"},
		{"/support.md", "support.md", "", ""},
		{"/llms.txt", "llms.txt", "", ""},
		{"/.well-known/ai-catalog.json", ".well-known/ai-catalog.json", "", ""},
	}
	for _, tt := range tests {
		e, ok := s.Lookup(tt.path)
		if !ok {
			t.Errorf("Lookup(%q) found nothing", tt.path)
			continue
		}
		if e.File.Name != tt.file || e.TwinURL != tt.twin || e.Locale != tt.locale || (e.Twin == nil) != (tt.twin == "") {
			t.Errorf("Lookup(%q) = file %q twin %q locale %q, want %q %q %q", tt.path, e.File.Name, e.TwinURL, e.Locale, tt.file, tt.twin, tt.locale)
		}
	}
	for _, p := range []string{"/404.html", "/de/404.html", "/.keep", "/missing", "/index.html/"} {
		if _, ok := s.Lookup(p); ok {
			t.Errorf("Lookup(%q) found a file, want none", p)
		}
	}
}

func TestLoadRedirectsLocaleTwins(t *testing.T) {
	got := mustLoad(t, nil).Redirects()
	want := map[string]string{
		"/de/index.md":   "/index.md",
		"/de/support.md": "/support.md",
		"/de/mcp.md":     "/mcp.md",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Redirects() = %v, want %v", got, want)
	}
}

func TestNotFoundPagePerLocale(t *testing.T) {
	s := mustLoad(t, nil)
	tests := map[string]string{
		"/nope":         "404.html",
		"/de/nope":      "de/404.html",
		"/de/":          "de/404.html",
		"/fr/nope":      "404.html",
		"/faq/whatever": "404.html",
	}
	for p, want := range tests {
		if got := s.NotFound(p); got == nil || got.Name != want {
			t.Errorf("NotFound(%q) = %v, want %s", p, got, want)
		}
	}
	s, err := Load(fstest.MapFS{"a.txt": {Data: []byte("a")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f := s.NotFound("/x"); f != nil {
		t.Fatalf("NotFound without a 404 page = %s, want nil", f.Name)
	}
}

func TestContentTypesAndCaching(t *testing.T) {
	s := mustLoad(t, nil)
	tests := []struct{ path, ctype, cache string }{
		{"/", "text/html; charset=utf-8", CachePage},
		{"/support.md", "text/markdown; charset=utf-8", CachePage},
		{"/llms.txt", "text/plain; charset=utf-8", CachePage},
		{"/robots.txt", "text/plain; charset=utf-8", CachePage},
		{"/sitemap.xml", "application/xml", CachePage},
		{"/openapi.json", "application/json", CachePage},
		{"/mcp/server-card", "application/mcp-server-card+json", CachePage},
		{"/.well-known/ai-catalog.json", "application/ai-catalog+json", CachePage},
		{"/css/site.css", "text/css; charset=utf-8", CacheAsset},
		{"/icon.svg", "image/svg+xml", CacheAsset},
		{"/logo.png", "image/png", CacheAsset},
	}
	for _, tt := range tests {
		e, ok := s.Lookup(tt.path)
		if !ok {
			t.Fatalf("Lookup(%q) found nothing", tt.path)
		}
		if e.File.ContentType != tt.ctype || e.File.CacheControl != tt.cache {
			t.Errorf("%s: Content-Type %q Cache-Control %q, want %q %q", tt.path, e.File.ContentType, e.File.CacheControl, tt.ctype, tt.cache)
		}
	}
}

func TestLoadReplacesPlaceholderInTextFiles(t *testing.T) {
	s := mustLoad(t, &Options{BaseURL: "https://study.example/"})
	for _, p := range s.Paths() {
		e, _ := s.Lookup(p)
		body := e.File.Body
		if p == "/logo.png" {
			if !bytes.Contains(body, []byte(builtOrigin)) {
				t.Errorf("binary %s was rewritten: %q", p, body)
			}
			continue
		}
		if bytes.Contains(body, []byte("studyloop.invalid")) {
			t.Errorf("%s still names the placeholder: %q", p, body)
		}
	}
	for p, want := range map[string]string{
		"/llms.txt":                    "https://study.example/support.md",
		"/sitemap.xml":                 "<loc>https://study.example/</loc>",
		"/mcp/server-card":             `"url":"https://study.example/mcp"`,
		"/openapi.json":                `"url":"https://study.example"`,
		"/css/site.css":                "https://study.example/bg.png",
		"/":                            `href="https://study.example/support/"`,
		"/de/support/":                 "<h1>Hilfe</h1>",
		"/robots.txt":                  "Sitemap: https://study.example/sitemap.xml",
		"/support.md":                  "# Support",
		"/mcp/":                        "Connect",
		"/faq/extra/":                  "FAQ extra",
		"/index.md":                    "https://study.example/llms.txt",
		"/.well-known/ai-catalog.json": "https://study.example/mcp/server-card",
	} {
		e, ok := s.Lookup(p)
		if !ok || !strings.Contains(string(e.File.Body), want) {
			t.Errorf("%s does not contain %q", p, want)
		}
	}
}

// TestLoadWithoutPlaceholderReplacesNothing: a site loaded without its
// placeholder origin is served as built.
func TestLoadWithoutPlaceholderReplacesNothing(t *testing.T) {
	s, err := Load(builtSite(), &Options{BaseURL: "https://study.example"})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range builtSite() {
		if e, ok := s.Lookup("/" + name); ok && e.File.Name == name && !bytes.Equal(e.File.Body, f.Data) {
			t.Errorf("%s was rewritten: %q", name, e.File.Body)
		}
	}
}

func TestETagsAreStrongAndFollowContent(t *testing.T) {
	a := mustLoad(t, &Options{BaseURL: "https://a.example"})
	b := mustLoad(t, &Options{BaseURL: "https://b.example"})
	seen := map[string]string{}
	for _, p := range a.Paths() {
		e, _ := a.Lookup(p)
		etag := e.File.ETag
		if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || strings.HasPrefix(etag, "W/") || len(etag) < 20 {
			t.Errorf("%s: ETag %s is not a strong entity tag", p, etag)
		}
		if other, dup := seen[etag]; dup && other != e.File.Name {
			t.Errorf("%s and %s share ETag %s", e.File.Name, other, etag)
		}
		seen[etag] = e.File.Name
	}
	// The same build under another origin has other bytes, so other tags.
	ea, _ := a.Lookup("/llms.txt")
	eb, _ := b.Lookup("/llms.txt")
	if ea.File.ETag == eb.File.ETag {
		t.Errorf("llms.txt under two origins has one ETag %s", ea.File.ETag)
	}
}

func TestLoadRejectsBadInput(t *testing.T) {
	tests := []struct {
		name string
		site fstest.MapFS
		base string
		want string
	}{
		{"empty site", fstest.MapFS{".keep": {}}, "", "empty"},
		{"base with path", builtSite(), "https://study.example/app", "base URL"},
		{"base with quote", builtSite(), `https://study.example"><script>`, "base URL"},
		{"base without scheme", builtSite(), "study.example", "base URL"},
		{"ftp base", builtSite(), "ftp://study.example", "base URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.site, &Options{BaseURL: tt.base, Placeholder: builtOrigin})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load: err=%v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestETagMatches(t *testing.T) {
	const etag = `"abc"`
	tests := []struct {
		lines []string
		want  bool
	}{
		{nil, false},
		{[]string{`"abc"`}, true},
		{[]string{`W/"abc"`}, true},
		{[]string{`*`}, true},
		{[]string{`"x", "abc"`}, true},
		{[]string{`"x"`, `"abc"`}, true},
		{[]string{`"x"`}, false},
		{[]string{`"ab"`}, false},
		{[]string{`abc`}, false},
		{[]string{`"x", abc, "abc"`}, false},
		{[]string{`"abc`}, false},
	}
	for _, tt := range tests {
		if got := ETagMatches(tt.lines, etag); got != tt.want {
			t.Errorf("ETagMatches(%q) = %v, want %v", tt.lines, got, tt.want)
		}
	}
}

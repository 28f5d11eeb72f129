package build

import (
	"encoding/xml"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// pages are the nine content pages: their HTML path and markdown twin.
var pages = []struct{ html, twin string }{
	{"/", "/index.md"},
	{"/support/", "/support.md"},
	{"/developers/", "/developers.md"},
	{"/mcp/", "/mcp.md"},
	{"/pdf-to-flashcards/", "/pdf-to-flashcards.md"},
	{"/notes-to-quiz/", "/notes-to-quiz.md"},
	{"/image-to-flashcards/", "/image-to-flashcards.md"},
	{"/ai-quiz-generator/", "/ai-quiz-generator.md"},
	{"/spaced-repetition-study-app/", "/spaced-repetition-study-app.md"},
}

// dynamicRoutes are served by the Go server, not by files in the build.
var dynamicRoutes = []string{
	"/mcp",
	"/api/health",
	"/app",
	"/app/assistants",
	"/de/app",
	"/de/app/assistants",
	"/signin",
	"/.well-known/oauth-authorization-server",
	"/.well-known/oauth-authorization-server/mcp",
	"/.well-known/oauth-protected-resource",
	"/.well-known/oauth-protected-resource/mcp",
}

// site returns the built site, stopping the test when Hugo has not run.
func site(t *testing.T) fs.FS {
	t.Helper()
	s := Site()
	if _, err := fs.Stat(s, "index.html"); err != nil {
		t.Fatalf("build/site holds no built site (run make site): %v", err)
	}
	return s
}

func readFile(t *testing.T, s fs.FS, name string) string {
	t.Helper()
	b, err := fs.ReadFile(s, name)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return string(b)
}

// fileFor maps a URL path to the built file that serves it, following the
// server's rules: "/x/" and "/x" serve "x/index.html", other paths their
// own file.
func fileFor(s fs.FS, urlPath string) (string, bool) {
	name := strings.TrimPrefix(urlPath, "/")
	candidates := []string{path.Join(name, "index.html")}
	if name != "" && !strings.HasSuffix(name, "/") {
		candidates = append([]string{name}, candidates...)
	}
	for _, c := range candidates {
		if fi, err := fs.Stat(s, c); err == nil && !fi.IsDir() {
			return c, true
		}
	}
	return "", false
}

// resolves reports whether a URL path is served by a built file or by a
// known route of the Go server.
func resolves(s fs.FS, urlPath string) bool {
	if slices.Contains(dynamicRoutes, urlPath) || strings.HasPrefix(urlPath, "/oauth/") {
		return true
	}
	_, ok := fileFor(s, urlPath)
	return ok
}

// sitePath returns the path of an absolute URL on this site, or false when
// the URL points elsewhere.
func sitePath(rawURL string) (string, bool) {
	rest, ok := strings.CutPrefix(rawURL, Placeholder)
	if !ok || (rest != "" && rest[0] != '/') {
		return "", false
	}
	if rest == "" {
		rest = "/"
	}
	return rest, true
}

func TestSiteHasEveryOutput(t *testing.T) {
	s := site(t)
	want := []string{
		"llms.txt", "llms-full.txt", "sitemap.xml", "sitemap-agents.xml", "robots.txt",
		"openapi.json", "mcp/server-card", ".well-known/ai-catalog.json",
		"css/site.css", "icon.svg", "404.html", "de/404.html",
	}
	for _, p := range pages {
		want = append(want, strings.TrimPrefix(p.twin, "/"))
		html, _ := strings.CutPrefix(path.Join(p.html, "index.html"), "/")
		want = append(want, html, path.Join("de", html))
	}
	for _, name := range want {
		fi, err := fs.Stat(s, name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fi.Size() == 0 {
			t.Errorf("%s is empty", name)
		}
	}
	for _, name := range []string{"de/index.md", "de/support.md", "de/llms.txt", "en/sitemap.xml", "de/sitemap.xml", "index.xml"} {
		if _, err := fs.Stat(s, name); err == nil {
			t.Errorf("%s exists; twins, llms files and the sitemap are built once, in English at the root", name)
		}
	}
}

func TestTwinsStartWithTitleAndSummary(t *testing.T) {
	s := site(t)
	for _, p := range pages {
		twin := readFile(t, s, strings.TrimPrefix(p.twin, "/"))
		lines := strings.SplitN(twin, "\n", 4)
		if len(lines) < 4 || !strings.HasPrefix(lines[0], "# ") || lines[1] != "" || !strings.HasPrefix(lines[2], "> ") {
			t.Errorf("%s does not start with an H1 and a blockquote summary:\n%.200s", p.twin, twin)
		}
		if strings.Contains(twin, "{{") || strings.Contains(twin, "<!--") {
			t.Errorf("%s holds unrendered template or shortcode syntax", p.twin)
		}
	}
}

var (
	linkAttr     = regexp.MustCompile(`(?:href|src)="([^"]*)"`)
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// TestLinksResolve checks every link in the agent files, both sitemaps, the
// HTML pages and the twins: links on this site must reach a built file or a
// route of the Go server.
func TestLinksResolve(t *testing.T) {
	s := site(t)
	type link struct{ from, url string }
	var links []link
	add := func(from string, urls ...string) {
		for _, u := range urls {
			links = append(links, link{from, u})
		}
	}

	llms := parseLLMSTxt(t, readFile(t, s, "llms.txt"))
	for _, sec := range llms.sections {
		for _, l := range sec.links {
			add("llms.txt", l.url)
		}
	}
	for _, name := range []string{"sitemap.xml", "sitemap-agents.xml"} {
		set := parseSitemap(t, readFile(t, s, name))
		for _, u := range set.URLs {
			add(name, u.Loc)
			for _, alt := range u.Alternates {
				add(name, alt.Href)
			}
		}
	}
	for _, line := range strings.Split(readFile(t, s, "robots.txt"), "\n") {
		if u, ok := strings.CutPrefix(line, "Sitemap: "); ok {
			add("robots.txt", u)
		}
	}
	err := fs.WalkDir(s, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch path.Ext(name) {
		case ".html":
			for _, m := range linkAttr.FindAllStringSubmatch(readFile(t, s, name), -1) {
				add(name, m[1])
			}
		case ".md":
			for _, m := range markdownLink.FindAllStringSubmatch(readFile(t, s, name), -1) {
				add(name, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	if len(links) < 100 {
		t.Fatalf("found only %d links; the extraction is broken", len(links))
	}
	checked := 0
	for _, l := range links {
		u, err := url.Parse(l.url)
		if err != nil {
			t.Errorf("%s: bad URL %q: %v", l.from, l.url, err)
			continue
		}
		var p string
		switch {
		case u.Scheme == "" && u.Host == "" && strings.HasPrefix(u.Path, "/"):
			p = u.Path
		case u.Scheme != "":
			var ok bool
			if p, ok = sitePath(l.url); !ok {
				continue // another site
			}
			p = strings.SplitN(p, "#", 2)[0]
		default:
			if u.Path == "" { // a fragment on the same page
				continue
			}
			t.Errorf("%s: relative link %q; use a root-relative or absolute one", l.from, l.url)
			continue
		}
		checked++
		if !resolves(s, p) {
			t.Errorf("%s links to %s, which no file or route serves", l.from, l.url)
		}
	}
	t.Logf("%d links checked", checked)
}

// TestAbsoluteURLsUseThePlaceholder enforces that every absolute URL naming
// this site uses the placeholder origin (which the server replaces) and
// that no other origin of ours slips into the build.
func TestAbsoluteURLsUseThePlaceholder(t *testing.T) {
	s := site(t)
	external := []string{"modelcontextprotocol.io", "static.modelcontextprotocol.io", "www.sitemaps.org", "www.w3.org"}
	absURL := regexp.MustCompile(`https?://[^\s"'<>)\]\\]+`)
	err := fs.WalkDir(s, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == ".keep" {
			return err
		}
		body := readFile(t, s, name)
		for _, raw := range absURL.FindAllString(body, -1) {
			if _, ok := sitePath(raw); ok {
				continue
			}
			u, err := url.Parse(raw)
			if err != nil || !slices.Contains(external, u.Host) {
				t.Errorf("%s: absolute URL %q is neither on the placeholder origin nor a known external site", name, raw)
			}
		}
		if strings.Count(body, "studyloop.invalid") != strings.Count(body, Placeholder) {
			t.Errorf("%s names studyloop.invalid without the exact placeholder origin %s", name, Placeholder)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestHTMLHeadAlternates(t *testing.T) {
	s := site(t)
	for _, p := range pages {
		for _, lang := range []string{"en", "de"} {
			prefix := ""
			if lang == "de" {
				prefix = "/de"
			}
			htmlPath := prefix + p.html
			name, ok := fileFor(s, htmlPath)
			if !ok {
				t.Errorf("%s: not built", htmlPath)
				continue
			}
			page := readFile(t, s, name)
			want := []string{
				`<html lang="` + lang + `"`,
				`<link rel="alternate" type="text/markdown" href="` + p.twin + `">`,
				`<link rel="alternate" hreflang="en" href="` + Placeholder + p.html + `">`,
				`<link rel="alternate" hreflang="de" href="` + Placeholder + "/de" + p.html + `">`,
				`<link rel="alternate" hreflang="x-default" href="` + Placeholder + p.html + `">`,
				`<link rel="canonical" href="` + Placeholder + htmlPath + `">`,
				`<link rel="stylesheet" href="/css/site.css">`,
			}
			for _, w := range want {
				if !strings.Contains(page, w) {
					t.Errorf("%s lacks %s", htmlPath, w)
				}
			}
		}
	}
}

type sitemap struct {
	URLs []struct {
		Loc        string `xml:"loc"`
		Alternates []struct {
			Rel      string `xml:"rel,attr"`
			Hreflang string `xml:"hreflang,attr"`
			Href     string `xml:"href,attr"`
		} `xml:"http://www.w3.org/1999/xhtml link"`
	} `xml:"url"`
}

func parseSitemap(t *testing.T, body string) sitemap {
	t.Helper()
	var set sitemap
	if err := xml.Unmarshal([]byte(body), &set); err != nil {
		t.Fatalf("sitemap is not well-formed XML: %v", err)
	}
	return set
}

func TestSitemapHasEveryPageWithReciprocalAlternates(t *testing.T) {
	s := site(t)
	set := parseSitemap(t, readFile(t, s, "sitemap.xml"))
	alternates := map[string]map[string]string{} // loc -> hreflang -> href
	for _, u := range set.URLs {
		alternates[u.Loc] = map[string]string{}
		for _, a := range u.Alternates {
			if a.Rel != "alternate" {
				t.Errorf("%s: link rel %q", u.Loc, a.Rel)
			}
			alternates[u.Loc][a.Hreflang] = a.Href
		}
	}
	if got, want := len(set.URLs), 2*len(pages); got != want {
		t.Errorf("sitemap.xml lists %d URLs, want %d", got, want)
	}
	for _, p := range pages {
		en, de := Placeholder+p.html, Placeholder+"/de"+p.html
		for _, loc := range []string{en, de} {
			alt, ok := alternates[loc]
			if !ok {
				t.Errorf("sitemap.xml lacks %s", loc)
				continue
			}
			want := map[string]string{"en": en, "de": de, "x-default": en}
			for lang, href := range want {
				if alt[lang] != href {
					t.Errorf("%s: hreflang %s = %q, want %q", loc, lang, alt[lang], href)
				}
			}
		}
	}
}

func TestAgentSitemapListsTheAgentSurface(t *testing.T) {
	s := site(t)
	set := parseSitemap(t, readFile(t, s, "sitemap-agents.xml"))
	var got []string
	for _, u := range set.URLs {
		got = append(got, u.Loc)
	}
	want := []string{
		"/llms.txt", "/llms-full.txt", "/openapi.json", "/mcp/server-card", "/.well-known/ai-catalog.json",
		"/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/mcp",
		"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
		"/mcp", "/api/health",
	}
	for _, p := range pages {
		want = append(want, p.twin)
	}
	for _, w := range want {
		if !slices.Contains(got, Placeholder+w) {
			t.Errorf("sitemap-agents.xml lacks %s", w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("sitemap-agents.xml lists %d URLs, want %d: %v", len(got), len(want), got)
	}
}

func TestRobotsNamesBothSitemaps(t *testing.T) {
	robots := readFile(t, site(t), "robots.txt")
	for _, w := range []string{"Sitemap: " + Placeholder + "/sitemap.xml\n", "Sitemap: " + Placeholder + "/sitemap-agents.xml\n", "User-agent: *\n"} {
		if !strings.Contains(robots, w) {
			t.Errorf("robots.txt lacks %q", w)
		}
	}
}

func TestLLMSFullHoldsEveryPage(t *testing.T) {
	s := site(t)
	full := readFile(t, s, "llms-full.txt")
	brief := readFile(t, s, "llms.txt")
	briefIntro, _, _ := strings.Cut(brief, "\n## ")
	if !strings.HasPrefix(full, briefIntro) {
		t.Error("llms-full.txt does not start with the brief of llms.txt")
	}
	for _, p := range pages {
		twin := readFile(t, s, strings.TrimPrefix(p.twin, "/"))
		body, _, _ := strings.Cut(twin, "\n---\n")
		if !strings.Contains(full, strings.TrimSpace(body)) {
			t.Errorf("llms-full.txt lacks the full text of %s", p.twin)
		}
		if !strings.Contains(full, "URL: "+Placeholder+p.twin+"\n") {
			t.Errorf("llms-full.txt lacks the heading URL of %s", p.twin)
		}
	}
}

// visibleText returns the text of an HTML page's <main>, without tags.
func visibleText(page string) string {
	_, main, _ := strings.Cut(page, "<main")
	main, _, _ = strings.Cut(main, "</main>")
	return regexp.MustCompile(`<[^>]*>`).ReplaceAllString(main, " ")
}

func wordCounts(text string, words []string) int {
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == 'ä' || r == 'ö' || r == 'ü' || r == 'ß')
	}) {
		if slices.Contains(words, w) {
			n++
		}
	}
	return n
}

// TestGermanPagesAreGerman checks that every German page exists, differs
// from its English original and reads as German: German function words
// clearly outnumber English ones in its main text.
func TestGermanPagesAreGerman(t *testing.T) {
	s := site(t)
	german := []string{"und", "der", "die", "das", "ist", "nicht", "mit", "du", "deine", "dein", "eine", "für", "wird", "oder", "zu"}
	english := []string{"and", "the", "is", "not", "with", "you", "your", "a", "for", "will", "or", "to", "of"}
	for _, p := range pages {
		enFile, _ := fileFor(s, p.html)
		deFile, ok := fileFor(s, "/de"+p.html)
		if !ok {
			t.Errorf("/de%s: not built", p.html)
			continue
		}
		en, de := visibleText(readFile(t, s, enFile)), visibleText(readFile(t, s, deFile))
		if en == de {
			t.Errorf("/de%s has the same text as %s", p.html, p.html)
		}
		g, e := wordCounts(de, german), wordCounts(de, english)
		if g < 20 || g < 3*e {
			t.Errorf("/de%s does not read as German: %d German and %d English function words", p.html, g, e)
		}
		if g, e := wordCounts(en, german), wordCounts(en, english); e < 3*g {
			t.Errorf("%s does not read as English: %d German and %d English function words", p.html, g, e)
		}
	}
}

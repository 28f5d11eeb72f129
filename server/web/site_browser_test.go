package web

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/studyloop/studyloop/server/browsertest"
)

// TestPagesLoadInABrowser opens every content page, English and German, in
// headless Chromium and checks what a person would see go wrong: a style
// sheet or icon that fails to load or is refused (the server sends nosniff,
// so a wrong Content-Type blocks a style sheet), the wrong language, or a
// missing pointer to the markdown twin. Chromium asks for compressed
// content, so the page and its style sheet arrive compressed and must
// decode.
func TestPagesLoadInABrowser(t *testing.T) {
	srv := newTestServer(t)
	ctx := browsertest.New(t, 90*time.Second)
	type pageState struct {
		Lang        string   `json:"lang"`
		Title       string   `json:"title"`
		Twin        string   `json:"twin"`
		StyleSheets int      `json:"styleSheets"`
		StyleRules  int      `json:"styleRules"`
		Failed      []string `json:"failed"`
		// Compressed lists the resources that came smaller than they are.
		Compressed []string `json:"compressed"`
	}
	const inspect = `(() => {
		const twin = document.querySelector('link[rel="alternate"][type="text/markdown"]');
		let rules = 0;
		for (const s of document.styleSheets) { try { rules += s.cssRules.length } catch (e) {} }
		const failed = performance.getEntriesByType("resource")
			.filter(r => r.responseStatus === 0 || r.responseStatus >= 400)
			.map(r => r.name + " " + r.responseStatus);
		const compressed = performance.getEntriesByType("resource")
			.filter(r => r.encodedBodySize > 0 && r.encodedBodySize < r.decodedBodySize)
			.map(r => new URL(r.name).pathname);
		return {lang: document.documentElement.lang, title: document.title,
			twin: twin ? new URL(twin.href).pathname : "",
			styleSheets: document.styleSheets.length, styleRules: rules, failed: failed, compressed: compressed};
	})()`
	for _, page := range contentPages {
		for _, lang := range []string{"en", "de"} {
			path := page.path
			if lang == "de" {
				path = "/de" + page.path
			}
			t.Run(path, func(t *testing.T) {
				res, err := chromedp.Run(ctx, chromedp.NavigateResponse(srv.URL+path))
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != 200 || !strings.HasPrefix(res.MimeType, "text/html") {
					t.Fatalf("status=%d type=%q", res.Status, res.MimeType)
				}
				if coding, _ := res.Headers["Content-Encoding"].(string); coding == "" {
					t.Errorf("the page came uncompressed (headers %v)", res.Headers)
				}
				state, err := chromedp.Run(ctx, chromedp.Evaluate[pageState](inspect))
				if err != nil {
					t.Fatal(err)
				}
				if state.Lang != lang || state.Title == "" || state.Twin != page.twin {
					t.Errorf("lang=%q title=%q twin link=%q, want %q, a title, %q", state.Lang, state.Title, state.Twin, lang, page.twin)
				}
				if state.StyleSheets == 0 || state.StyleRules == 0 {
					t.Errorf("%d style sheets with %d rules: the style sheet did not apply", state.StyleSheets, state.StyleRules)
				}
				if !slices.ContainsFunc(state.Compressed, func(p string) bool { return strings.HasSuffix(p, ".css") }) {
					t.Errorf("the style sheet came uncompressed; compressed: %v", state.Compressed)
				}
				if len(state.Failed) > 0 {
					t.Errorf("failed loads: %s", strings.Join(state.Failed, "; "))
				}
			})
		}
	}
}

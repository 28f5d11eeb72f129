package build

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/studyloop/studyloop/server/browsertest"
)

// TestPagesLookRightInABrowser renders every page, English and German, in
// headless Chromium at a phone and a desktop width and checks what a reader
// would notice: the stylesheet applied, nothing wider than the screen, one
// heading, images with text alternatives, and a skip link to the content.
func TestPagesLookRightInABrowser(t *testing.T) {
	srv := httptest.NewServer(http.FileServerFS(site(t)))
	t.Cleanup(srv.Close)
	ctx := browsertest.New(t, 2*time.Minute)

	type pageState struct {
		Styled       bool     `json:"styled"`
		Overflow     int      `json:"overflow"`
		H1           int      `json:"h1"`
		ImagesNoAlt  int      `json:"imagesNoAlt"`
		SkipTarget   bool     `json:"skipTarget"`
		UnnamedLinks []string `json:"unnamedLinks"`
	}
	const inspect = `(() => {
		const header = document.querySelector(".site-header");
		const unnamed = [...document.querySelectorAll("a")].filter(a => !a.textContent.trim() && !a.getAttribute("aria-label")).map(a => a.href);
		return {
			styled: !!header && getComputedStyle(header).borderBottomStyle === "solid",
			overflow: document.documentElement.scrollWidth - window.innerWidth,
			h1: document.querySelectorAll("h1").length,
			imagesNoAlt: [...document.images].filter(i => !i.hasAttribute("alt")).length,
			skipTarget: !!document.querySelector('a.skip[href="#main"]') && !!document.getElementById("main"),
			unnamedLinks: unnamed,
		};
	})()`
	widths := []int64{360, 1280}
	for _, p := range pages {
		for _, prefix := range []string{"", "/de"} {
			for _, width := range widths {
				err := chromedp.Do(ctx,
					chromedp.EmulateViewport(width, 800),
					chromedp.Navigate(srv.URL+prefix+p.html),
				)
				var got pageState
				if err == nil {
					got, err = chromedp.Run(ctx, chromedp.Evaluate[pageState](inspect))
				}
				if err != nil {
					t.Fatalf("%s%s at %dpx: %v", prefix, p.html, width, err)
				}
				where := prefix + p.html
				if !got.Styled {
					t.Errorf("%s at %dpx: /css/site.css is not applied", where, width)
				}
				if got.Overflow > 0 {
					t.Errorf("%s at %dpx: the page is %dpx wider than the screen", where, width, got.Overflow)
				}
				if got.H1 != 1 {
					t.Errorf("%s: %d h1 headings, want 1", where, got.H1)
				}
				if got.ImagesNoAlt != 0 {
					t.Errorf("%s: %d images without alt", where, got.ImagesNoAlt)
				}
				if !got.SkipTarget {
					t.Errorf("%s: no working skip link to the content", where)
				}
				if len(got.UnnamedLinks) != 0 {
					t.Errorf("%s: links without text: %v", where, got.UnnamedLinks)
				}
			}
		}
	}
}

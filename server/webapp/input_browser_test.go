package webapp_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/extract/extracttest"
)

// pasteNotes puts n characters of notes in lines of 80 (79 letters and a
// line break, which the browser sends as CRLF) into the notes box, as a
// paste does, firing its input event.
func (b *tab) pasteNotes(n int) {
	b.t.Helper()
	js := `(() => {
		const n = ` + strconv.Itoa(n) + `, line = "x".repeat(79) + "\n";
		const box = document.getElementById("text");
		box.value = line.repeat(Math.floor(n / 80)) + "y".repeat(n % 80);
		box.dispatchEvent(new Event("input", {bubbles: true}));
		return true;
	})()`
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](js)); err != nil {
		b.t.Fatalf("paste %d characters: %v", n, err)
	}
}

// TestBrowserInputLimits, at desktop and phone widths: the notes box
// counts live, with line breaks as one character; 399,000 characters in
// lines (sent with CRLF) make a study, 400,001 are refused beside the box
// with the text and title kept; a PDF page range beyond the document is
// refused at upload beside the page field, the selection kept.
func TestBrowserInputLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	x := extract.New(nil)
	if err := x.PDFAvailable(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	var pages []extracttest.Page
	for _, lines := range uploadPages {
		pages = append(pages, extracttest.Page{Lines: lines})
	}
	pdfPath := filepath.Join(t.TempDir(), "handout.pdf")
	if err := os.WriteFile(pdfPath, extracttest.PDF(t, pages, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, v := range viewports {
		t.Run(v.name, func(t *testing.T) {
			base := startApp(t, x)
			b := newTabAt(t, v, 3*time.Minute)
			b.signUpIn(base, "ann@example.com", "ann's password")
			value := func(sel string) string {
				t.Helper()
				s, err := chromedp.Run(b.ctx, chromedp.Value(chromedp.CSS(sel)))
				if err != nil {
					t.Fatal(err)
				}
				return s
			}

			b.do("open the app", chromedp.Navigate(base+"/app"), chromedp.WaitVisible(chromedp.ID("text")))
			b.pasteNotes(399_000)
			b.waitCount("399,000 of 400,000 characters")
			b.loads("create the study", chromedp.SendKeys(chromedp.ID("title"), "Long notes"), chromedp.Submit(chromedp.ID("text")))
			if u := b.location(); !strings.Contains(u, "/app/studies/st_") {
				t.Fatalf("399,000 characters with CRLF line breaks: at %s, %q", u, b.text("main"))
			}

			b.do("open the app", chromedp.Navigate(base+"/app"), chromedp.WaitVisible(chromedp.ID("text")))
			b.pasteNotes(400_001)
			b.waitCount("400,001 of 400,000 characters")
			b.loads("send too much", chromedp.SendKeys(chromedp.ID("title"), "Too long"), chromedp.Submit(chromedp.ID("text")))
			if got := b.text("#text-text-error"); got != "Study text is 400,001 characters long; the limit is 400,000 characters." {
				t.Fatalf("beside the notes: %q", got)
			}
			if n := len([]rune(value("#text"))); n != 400_001 || value("#title") != "Too long" {
				t.Fatalf("kept %d characters and the title %q", n, value("#title"))
			}
			b.noSideScroll("the refused form")
			b.do("scroll to the error", chromedp.ScrollIntoView(chromedp.ID("text-text-error")))
			screenshot(b, "input-too-long-"+v.name)

			b.do("open the PDF tab", chromedp.Navigate(base+"/app"), chromedp.Click(chromedp.CSS(`label[for="tab-pdf"]`)), chromedp.WaitVisible(chromedp.ID("pages")))
			b.loads("upload pages 7-9 of 4",
				chromedp.SetUploadFiles(chromedp.ID("pdf"), []string{pdfPath}),
				chromedp.SendKeys(chromedp.ID("pdf-title"), "Handout"),
				chromedp.SendKeys(chromedp.ID("pages"), "7-9"),
				chromedp.Submit(chromedp.ID("pages")),
			)
			if got := b.text("#pdf-pages-error"); got != "Page 7 is outside the document: the PDF has 4 pages." {
				t.Fatalf("beside the pages: %q", got)
			}
			if value("#pages") != "7-9" || value("#pdf-title") != "Handout" {
				t.Fatalf("kept pages %q and title %q", value("#pages"), value("#pdf-title"))
			}
			b.noSideScroll("the refused PDF form")
			screenshot(b, "input-pages-refused-"+v.name)
		})
	}
}

// waitCount waits until the live character count reads want (the script
// counts after the paste's input event), and fails with what it read.
func (b *tab) waitCount(want string) {
	b.t.Helper()
	js := `(() => { const c = document.getElementById("text-count"); return c !== null && c.textContent.trim() === ` + strconv.Quote(want) + `; })()`
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		b.t.Fatalf("live count %q, want %q: %v", b.text("#text-count"), want, err)
	}
}

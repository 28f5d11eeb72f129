package webapp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/extract/extracttest"
)

// uploadPages are the four pages of the PDF the browser uploads; the test
// picks pages 2-3.
var uploadPages = [][]string{
	{"Photosynthesis is the process by which plants make sugar from light.", "Chlorophyll is the green pigment that absorbs red and blue light."},
	{"Evaporation is the change of liquid water into water vapour.", "Condensation is the change of water vapour back into liquid droplets."},
	{"A tectonic plate is a large slab of the outer shell of the Earth.", "Magma is molten rock that rises from deep below the crust."},
	{"The heart is a muscle that pumps blood around the body.", "Arteries are vessels that carry blood away from the heart."},
}

// uploadPhoto is the text of the photographed notes.
var uploadPhoto = []string{"Osmosis is the movement of water", "across a membrane toward more solute."}

// TestBrowserUploadPractice drives headless Chromium through the real
// server, worker pool and extractor: sign up, upload pages 2-3 of a PDF and
// a photo of notes, wait until both studies are ready, see where their
// topics came from, and practise one question of each.
func TestBrowserUploadPractice(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	x := extract.New(nil)
	for _, err := range []error{x.PDFAvailable(), x.OCRAvailable()} {
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal(err)
			}
			t.Skip(err)
		}
	}
	dir := t.TempDir()
	var pages []extracttest.Page
	for _, lines := range uploadPages {
		pages = append(pages, extracttest.Page{Lines: lines})
	}
	pdfPath, photoPath := filepath.Join(dir, "handout.pdf"), filepath.Join(dir, "notes.jpg")
	if err := os.WriteFile(pdfPath, extracttest.PDF(t, pages, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(photoPath, extracttest.JPEG(t, extracttest.RenderText(t, uploadPhoto)), 0o600); err != nil {
		t.Fatal(err)
	}

	base := startApp(t, x)
	browser := newTab(t, 3*time.Minute)
	location := func() string {
		t.Helper()
		u, err := chromedp.Run(browser.ctx, chromedp.Location())
		if err != nil || !strings.Contains(u, "/app/studies/st_") {
			t.Fatalf("the browser is at %s (%v), not a study", u, err)
		}
		return u
	}

	browser.do("open sign-up", chromedp.Navigate(base+"/signup"), chromedp.WaitVisible(chromedp.ID("email")))
	browser.loads("sign up",
		chromedp.SendKeys(chromedp.ID("email"), "uploader@example.com"),
		chromedp.SendKeys(chromedp.ID("password"), "correct horse battery staple"),
		chromedp.Submit(chromedp.ID("email")),
	)

	// Pages 2-3 of the PDF.
	browser.do("open the PDF tab", chromedp.Navigate(base+"/app"), chromedp.Click(`label[for="tab-pdf"]`), chromedp.WaitVisible(chromedp.ID("pdf")))
	browser.loads("upload PDF",
		chromedp.SetUploadFiles(chromedp.ID("pdf"), []string{pdfPath}),
		chromedp.SendKeys(chromedp.ID("pages"), "2-3"),
		chromedp.Submit(chromedp.ID("pdf")),
	)
	pdfStudy := location()

	// The photo.
	browser.do("open the photos tab", chromedp.Navigate(base+"/app"), chromedp.Click(`label[for="tab-photos"]`), chromedp.WaitVisible(chromedp.ID("photos")))
	browser.loads("upload photo",
		chromedp.SetUploadFiles(chromedp.ID("photos"), []string{photoPath}),
		chromedp.Submit(chromedp.ID("photos")),
	)
	photoStudy := location()

	for _, study := range []struct {
		url     string
		sources []string
	}{{pdfStudy, []string{"Page 2", "Page 3"}}, {photoStudy, []string{"Photo 1"}}} {
		if status := browser.settledStatus(study.url, 2*time.Minute); status != "Ready" {
			t.Fatalf("study %s is %q: %s", study.url, status, browser.text("main"))
		}
		// Every topic names where it came from: only the chosen pages, or the photo.
		from := browser.text("#topics")
		for _, want := range study.sources {
			if !strings.Contains(from, want) {
				t.Errorf("topics of %s do not mention %s: %s", study.url, want, from)
			}
		}
		for _, never := range []string{"Page 1", "Page 4", "Photosynthesis", "heart"} {
			if strings.Contains(from, never) {
				t.Errorf("topics of %s mention %q, which was not chosen: %s", study.url, never, from)
			}
		}

		// Practise one question.
		browser.loads("open practice", chromedp.Click(chromedp.ID("practise")))
		kind, err := chromedp.Run(browser.ctx, chromedp.AttributeValue(chromedp.CSS("#question"), "data-kind"))
		if err != nil || !kind.Exists {
			t.Fatalf("no question to practise in %s: %v", study.url, err)
		}
		prompt := browser.text("#prompt")
		if kind.Value == "choice" {
			browser.do("choose", chromedp.Click(chromedp.ID("choice-0")))
		} else {
			browser.do("type", chromedp.SendKeys(chromedp.ID("answer"), "water"))
		}
		browser.loads("check", chromedp.Click(chromedp.ID("check")))
		if right := browser.text("#right-answer"); right == "" {
			t.Fatalf("after answering %q the page says: %s", prompt, browser.text("main"))
		}
		t.Logf("%s: practised a %s question: %q", study.url, kind.Value, prompt)
	}
}

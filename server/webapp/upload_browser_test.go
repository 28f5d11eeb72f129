package webapp_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/studyloop/studyloop/build"
	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/engine"
	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/extract/extracttest"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/web"
	"github.com/studyloop/studyloop/server/worker"
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
	exe := chromium(t)
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

	db := storetest.Open(t, "sqlite")
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	cfg, err := config.FromEnv(func(k string) string {
		if k == "BASE_URL" {
			return base
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	gen, err := engine.NewOffline(nil)
	if err != nil {
		t.Fatal(err)
	}
	pool := worker.New(db, gen, logger, &worker.Options{PollInterval: 200 * time.Millisecond, Extractor: x})
	ctx, cancel := context.WithCancel(context.Background())
	poolDone := make(chan error, 1)
	go func() { poolDone <- pool.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-poolDone })
	handler, err := web.NewServer(web.Deps{Config: cfg, Logger: logger, DB: db, Site: build.Site(), NotifyWorkers: pool.Notify, Extractor: x})
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: handler}}
	srv.Start()
	t.Cleanup(srv.Close)

	allocCtx, allocCancel := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	t.Cleanup(allocCancel)
	tab, tabCancel := chromedp.NewContext(allocCtx)
	t.Cleanup(tabCancel)
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	browser, timeout := context.WithTimeout(tab, 3*time.Minute)
	t.Cleanup(timeout)

	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(browser, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	loads := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		loaded := chromedp.Events(browser, cdppage.LoadEventFired)
		do(what, actions...)
		for _, err := range loaded {
			if err != nil {
				t.Fatalf("%s: waiting for the page: %v", what, err)
			}
			break
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(browser, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}
	location := func() string {
		t.Helper()
		u, err := chromedp.Run(browser, chromedp.Location())
		if err != nil || !strings.Contains(u, "/app/studies/st_") {
			t.Fatalf("the browser is at %s (%v), not a study", u, err)
		}
		return u
	}

	do("open sign-up", chromedp.Navigate(base+"/signup"), chromedp.WaitVisible(chromedp.ID("email")))
	loads("sign up",
		chromedp.SendKeys(chromedp.ID("email"), "uploader@example.com"),
		chromedp.SendKeys(chromedp.ID("password"), "correct horse battery staple"),
		chromedp.Submit(chromedp.ID("email")),
	)

	// Pages 2-3 of the PDF.
	do("open app", chromedp.Navigate(base+"/app"), chromedp.WaitVisible(chromedp.ID("pdf")))
	loads("upload PDF",
		chromedp.SetUploadFiles(chromedp.ID("pdf"), []string{pdfPath}),
		chromedp.SendKeys(chromedp.ID("pages"), "2-3"),
		chromedp.Submit(chromedp.ID("pdf")),
	)
	pdfStudy := location()

	// The photo.
	do("open app", chromedp.Navigate(base+"/app"), chromedp.WaitVisible(chromedp.ID("photos")))
	loads("upload photo",
		chromedp.SetUploadFiles(chromedp.ID("photos"), []string{photoPath}),
		chromedp.Submit(chromedp.ID("photos")),
	)
	photoStudy := location()

	for _, study := range []struct {
		url     string
		sources []string
	}{{pdfStudy, []string{"Page 2", "Page 3"}}, {photoStudy, []string{"Photo 1"}}} {
		var status string
		for deadline := time.Now().Add(2 * time.Minute); ; {
			do("open study", chromedp.Navigate(study.url), chromedp.WaitVisible(chromedp.ID("study-status")))
			status = text("#study-status")
			if status == "ready" || status == "failed" || time.Now().After(deadline) {
				break
			}
			time.Sleep(300 * time.Millisecond)
		}
		if status != "ready" {
			t.Fatalf("study %s is %q: %s", study.url, status, text("main"))
		}
		// Every topic names where it came from: only the chosen pages, or the photo.
		from := text("#topics")
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
		loads("open practice", chromedp.Click(chromedp.ID("practise")))
		kind, err := chromedp.Run(browser, chromedp.AttributeValue(chromedp.CSS("#question"), "data-kind"))
		if err != nil || !kind.Exists {
			t.Fatalf("no question to practise in %s: %v", study.url, err)
		}
		prompt := text("#prompt")
		switch kind.Value {
		case "choice":
			do("choose", chromedp.Click(chromedp.ID("choice-0")))
			loads("check choice", chromedp.Submit(chromedp.ID("question")))
		case "typed":
			do("type", chromedp.SendKeys(chromedp.ID("answer"), "water"))
			loads("check typed answer", chromedp.Submit(chromedp.ID("question")))
		default:
			do("reveal", chromedp.Click(chromedp.CSS("#reveal summary")), chromedp.WaitVisible(chromedp.ID("revealed-answer")))
			loads("self-grade", chromedp.Click(chromedp.CSS(`button[value="good"]`)))
		}
		if body := text("main"); !strings.Contains(body, "Correct.") && !strings.Contains(body, "Not quite.") && !strings.Contains(body, "Recorded") {
			t.Fatalf("after answering %q the page says: %s", prompt, body)
		}
		t.Logf("%s: practised a %s question: %q", study.url, kind.Value, prompt)
	}
}

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
	"strconv"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/studyloop/studyloop/server/browsertest"
	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/engine"
	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/web"
	"github.com/studyloop/studyloop/server/web/webtest"
	"github.com/studyloop/studyloop/server/worker"
)

// browserNotes is the study a student pastes in the browser test.
const browserNotes = `# Light and optics

## Refraction

Refraction is the bending of light as it passes from one medium into another.
The refractive index of a medium is the ratio of the speed of light in a vacuum to its speed in that medium.
Snell's law relates the angles of incidence and refraction to the refractive indices of the two media.

## Reflection

Reflection is the return of light from a surface.
The angle of incidence equals the angle of reflection for a smooth mirror.
A concave mirror converges parallel rays to a focal point in front of the mirror.

## Colour

- **Dispersion**: the splitting of white light into its colours by a prism.
- **Spectrum**: the band of colours from red to violet produced by dispersion.
- **Wavelength**: the distance between successive crests of a light wave.

Isaac Newton showed with two prisms that white light is a mixture of colours.
Red light has the longest wavelength of the visible colours, and violet light has the shortest.
`

// startApp serves the whole service (web.NewServer) on loopback with a
// worker pool and the offline generator, on a fresh SQLite database, and
// returns its base URL. x reads uploads; nil means the default extractor.
func startApp(t *testing.T, x *extract.Extractor) string {
	t.Helper()
	base, _ := startAppOn(t, x)
	return base
}

// startAppOn is startApp that also returns the database, for tests that
// store what no page can make (an OAuth grant).
func startAppOn(t *testing.T, x *extract.Extractor) (string, *store.DB) {
	t.Helper()
	return startAppWith(t, x, "sqlite", nil)
}

// startAppWith is startAppOn on a database of the dialect, with env
// setting configuration beyond BASE_URL.
func startAppWith(t *testing.T, x *extract.Extractor, dialect string, env map[string]string) (string, *store.DB) {
	t.Helper()
	db := storetest.Open(t, dialect)
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
		return env[k]
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
	handler := web.NewServer(webtest.Deps(t, cfg, db, webtest.Options{Logger: logger, NotifyWorkers: pool.Notify, Extractor: x}))
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: handler}}
	srv.Start()
	t.Cleanup(srv.Close)
	return base, db
}

// tab is a headless Chromium tab whose steps fail the test on any error.
type tab struct {
	t   *testing.T
	ctx context.Context
}

// newTab starts Chromium (see browsertest.New) for a test that must be done
// with it within timeout.
func newTab(t *testing.T, timeout time.Duration) *tab {
	t.Helper()
	return &tab{t: t, ctx: browsertest.New(t, timeout)}
}

// do runs actions; what names the step in a failure.
func (b *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// loads runs actions that make the tab load another page, and waits until
// that page has loaded, so that later queries never see the old one.
func (b *tab) loads(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	loaded := chromedp.Events(b.ctx, cdppage.LoadEventFired)
	b.do(what, actions...)
	for _, err := range loaded {
		if err != nil {
			b.t.Fatalf("%s: waiting for the page: %v", what, err)
		}
		break
	}
}

// text returns the trimmed text of the element sel selects.
func (b *tab) text(sel string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("read %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

// settledStatus opens the study page at url until the study is ready or
// failed, or within has passed, and returns the status it shows last.
func (b *tab) settledStatus(url string, within time.Duration) string {
	b.t.Helper()
	for deadline := time.Now().Add(within); ; {
		b.do("open study", chromedp.Navigate(url), chromedp.WaitVisible(chromedp.ID("study-status")))
		status := b.text("#study-status")
		if status == "Ready" || status == "Could not be processed" || time.Now().After(deadline) {
			return status
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// TestBrowserStudyPractice drives headless Chromium through the real
// server: sign up, paste notes, wait for the study to be ready, answer
// questions, and see the mastery rise.
func TestBrowserStudyPractice(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	browser := newTab(t, 2*time.Minute)
	base := startApp(t, nil)

	attr := func(sel, name string) string {
		t.Helper()
		a, err := chromedp.Run(browser.ctx, chromedp.AttributeValue(chromedp.CSS(sel), name))
		if err != nil || !a.Exists {
			t.Fatalf("read %s[%s]: %v (exists %v)", sel, name, err, a.Exists)
		}
		return a.Value
	}
	masteryPercent := func() int {
		t.Helper()
		n, err := strconv.Atoi(attr("#study-mastery", "value"))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Sign up; the app's study list follows.
	browser.do("open sign-up", chromedp.Navigate(base+"/signup"), chromedp.WaitVisible(chromedp.ID("email")))
	browser.loads("sign up",
		chromedp.SendKeys(chromedp.ID("email"), "student@example.com"),
		chromedp.SendKeys(chromedp.ID("password"), "correct horse battery staple"),
		chromedp.Submit(chromedp.ID("email")),
	)
	if h := browser.text("h1"); h != "Your studies" {
		t.Fatalf("after sign-up the page says %q", h)
	}

	// Paste the notes and create the study.
	browser.loads("create study",
		chromedp.SendKeys(chromedp.ID("title"), "Light"),
		chromedp.SetValue(chromedp.ID("text"), browserNotes),
		chromedp.Submit(chromedp.ID("text")),
	)
	studyURL, err := chromedp.Run(browser.ctx, chromedp.Location())
	if err != nil || !strings.Contains(studyURL, "/app/studies/st_") {
		t.Fatalf("after creating, the browser is at %s (%v)", studyURL, err)
	}

	// Wait until the study is ready (the page also refreshes by itself).
	if status := browser.settledStatus(studyURL, 90*time.Second); status != "Ready" {
		t.Fatalf("study status %q: %s", status, browser.text("main"))
	}
	before := masteryPercent()
	if before != 0 {
		t.Fatalf("mastery before practice %d%%, want 0", before)
	}

	// Answer every question of the session: pick or type an answer (or
	// ask for it), read the feedback, rate; the counter moves on.
	browser.loads("open practice", chromedp.Click(chromedp.ID("practise")))
	kinds := map[string]int{}
	answers := 0
	for ; answers < 30; answers++ {
		if done, _ := chromedp.Run(browser.ctx, chromedp.Nodes(chromedp.CSSAll("#summary, #done"), chromedp.AtLeast(0))); len(done) > 0 {
			break
		}
		if counter := browser.text("#counter"); !strings.HasPrefix(counter, strconv.Itoa(answers+1)+" of ") {
			t.Fatalf("question %d: counter %q", answers+1, counter)
		}
		kind := attr("#question", "data-kind")
		kinds[kind]++
		switch {
		case kind == "choice":
			browser.do("choose", chromedp.Click(chromedp.ID("choice-0")))
			browser.loads("check choice", chromedp.Click(chromedp.ID("check")))
		case kind == "typed" && answers%2 == 0:
			browser.do("type", chromedp.SendKeys(chromedp.ID("answer"), "refraction"))
			browser.loads("check typed answer", chromedp.Click(chromedp.ID("check")))
		case kind == "typed":
			browser.loads("show answer", chromedp.Click(chromedp.ID("reveal")))
		default:
			t.Fatalf("question %d: unknown kind %q", answers, kind)
		}
		if right := browser.text("#right-answer"); right == "" {
			t.Fatal("feedback shows no right answer")
		}
		if interval := browser.text("#rate-good .rating-interval"); interval == "" {
			t.Fatal("the Good button shows no interval")
		}
		browser.loads("rate", chromedp.Click(chromedp.ID("rate-good")))
	}
	t.Logf("answered %d questions: %v", answers, kinds)
	if answers == 0 {
		t.Fatal("the practice asked nothing")
	}
	if got := browser.text("#sum-answered"); got != strconv.Itoa(answers) {
		t.Errorf("summary counts %s answers, want %d", got, answers)
	}
	screenshot(browser, "practice-summary-desktop")

	// The study page shows the answers and a higher mastery.
	browser.do("back to study", chromedp.Navigate(studyURL), chromedp.WaitVisible(chromedp.ID("study-mastery")))
	after := masteryPercent()
	if after <= before {
		t.Fatalf("mastery after %d answers %d%%, want above %d%%", answers, after, before)
	}
	if body := browser.text("main"); !strings.Contains(body, strconv.Itoa(answers)+" answers so far") {
		t.Errorf("study page does not count %d answers: %s", answers, body)
	}
	t.Logf("mastery %d%% -> %d%%", before, after)
}

// screenshot saves a full-page PNG of the tab under the test's name in
// STUDYLOOP_SCREENSHOTS, when that is set, for a person to look at.
func screenshot(b *tab, name string) {
	b.t.Helper()
	dir := os.Getenv("STUDYLOOP_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100)) // 100: PNG, below: JPEG
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

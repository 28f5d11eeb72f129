// Package browsertest starts headless Chromium for the tests that use pages
// the way people do, through chromedp.
//
//	ctx := browsertest.New(t, 2*time.Minute)
//	err := chromedp.Do(ctx, chromedp.Navigate(srv.URL))
//
// Every test gets its own browser with a fresh, empty profile. Without
// Chromium installed the test is skipped, or fails when the CI environment
// variable is set, so that CI never passes without having run it.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// binaries are the names Chromium is installed under, in the order tried
// (Debian's package installs /usr/bin/chromium).
var binaries = []string{"chromium", "chromium-browser", "google-chrome"}

// New starts headless Chromium for the test and returns the context of its
// tab, for chromedp.Do and chromedp.Run. Everything done with the context
// must finish within timeout (the browser's start does not count). The
// browser stops and its profile is removed when the test ends.
func New(tb testing.TB, timeout time.Duration) context.Context {
	tb.Helper()
	path := chromiumPath(tb)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], // headless, no first run, no background networking or sync
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // tests may run as root
		chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(tb.TempDir()),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	// The first run starts the browser and binds its life to the context
	// it is given, so it must not carry the timeout.
	if err := chromedp.Do(tab); err != nil {
		cancelTab()
		cancelAlloc()
		tb.Fatalf("starting Chromium (%s): %v", path, err)
	}
	ctx, cancelTimeout := context.WithTimeout(tab, timeout)
	tb.Cleanup(func() { cancelTimeout(); cancelTab(); cancelAlloc() })
	return ctx
}

// chromiumPath finds Chromium, or skips the test (fails it under CI).
func chromiumPath(tb testing.TB) string {
	tb.Helper()
	for _, name := range binaries {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	const missing = "Chromium is not installed (apt-get install chromium)"
	if os.Getenv("CI") != "" {
		tb.Fatal(missing)
	}
	tb.Skip(missing + "; skipping the browser test")
	return ""
}

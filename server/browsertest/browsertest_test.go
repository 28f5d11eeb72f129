package browsertest_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/studyloop/studyloop/server/browsertest"
)

// TestNewGivesEachTestAFreshBrowser loads a page in two browsers: the first
// leaves a value in the page's local storage, which the second, with its
// own profile, must not see.
func TestNewGivesEachTestAFreshBrowser(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><title>Browser test</title><p>Hello")) //nolint:errcheck
	}))
	t.Cleanup(srv.Close)

	first := browsertest.New(t, time.Minute)
	if err := chromedp.Do(first, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatal(err)
	}
	if title, err := chromedp.Run(first, chromedp.Title()); err != nil || title != "Browser test" {
		t.Fatalf("title %q (%v), want %q", title, err, "Browser test")
	}
	if _, err := chromedp.Run(first, chromedp.Evaluate[bool](`localStorage.setItem("left", "behind"), true`)); err != nil {
		t.Fatal(err)
	}

	second := browsertest.New(t, time.Minute)
	if err := chromedp.Do(second, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatal(err)
	}
	left, err := chromedp.Run(second, chromedp.Evaluate[*string](`localStorage.getItem("left")`))
	if err != nil {
		t.Fatal(err)
	}
	if left != nil {
		t.Fatalf("the second browser sees %q stored by the first: profiles are shared", *left)
	}
}

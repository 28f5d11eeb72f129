package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"golang.org/x/oauth2"

	"github.com/studyloop/studyloop/server/browsertest"
	"github.com/studyloop/studyloop/server/store/storetest"
)

// TestOAuthInChromium has a real browser sign up, sign out, start an
// authorization, sign in on the real pages and approve; the client's
// loopback redirect URI receives the code, which the client exchanges.
func TestOAuthInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)

	// The client: registered for http://127.0.0.1/callback, listening on
	// a port it chose.
	received := make(chan url.Values, 1)
	client := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/callback" {
			select {
			case received <- r.URL.Query():
			default:
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><title>Connected</title><p id=done>Connected. You can close this window.</p>")) //nolint:errcheck
	}))
	defer client.Close()
	conf := s.oauthConfig(s.register(t, "http://127.0.0.1/callback"))
	conf.RedirectURL = client.URL + "/callback"
	authURL, verifier := pkceAuthURL(conf, "chromium-state")

	ctx := browsertest.New(t, 90*time.Second)

	const email, password = "chromium@example.com", "a password typed in Chromium"
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			loc, _ := chromedp.Run(ctx, chromedp.Location())
			t.Fatalf("%s: %v (at %s)", name, err, loc)
		}
	}

	step("sign up",
		chromedp.Navigate(s.base+"/signup"),
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.CSS(`form button[type="submit"]`)),
		// Sign-up leads on to /app, which another part of the service
		// serves; once the form is gone, sign out from the sign-out page.
		chromedp.WaitNotPresent(chromedp.ID("password")),
		chromedp.Navigate(s.base+"/signout"),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/signout"] button`)),
	)
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil || !strings.Contains(text, email) {
		t.Fatalf("the sign-out page does not show the new account (%v): %q", err, text)
	}
	step("sign out",
		chromedp.Click(chromedp.CSS(`form[action="/signout"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`p.flash`)),
	)

	step("authorize, then sign in",
		chromedp.Navigate(authURL),
		chromedp.WaitVisible(chromedp.ID("password")),
	)
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.HasPrefix(loc, s.base+"/signin?next=") {
		t.Fatalf("not sent to sign in: %s", loc)
	}
	step("sign in",
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.CSS(`form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[value="approve"]`)),
	)
	consent, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil || !strings.Contains(consent, "Test agent") || !strings.Contains(consent, "unverified") {
		t.Fatalf("consent page (%v): %q", err, consent)
	}
	step("approve",
		chromedp.Click(chromedp.CSS(`button[value="approve"]`)),
		chromedp.WaitVisible(chromedp.ID("done")),
	)

	var q url.Values
	select {
	case q = <-received:
	case <-time.After(10 * time.Second):
		t.Fatal("the loopback redirect URI received nothing")
	}
	if q.Get("state") != "chromium-state" || q.Get("iss") != s.base || q.Get("code") == "" {
		t.Fatalf("authorization response %v", q)
	}
	tok, err := conf.Exchange(context.Background(), q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	if status, _, _ := s.protected(t, tok.AccessToken); status != http.StatusOK {
		t.Fatalf("the token from the browser flow: %d", status)
	}
}

// TestCIMDConsentInChromium: a client named by its metadata document gets
// a consent page on which a real browser shows its name and, in plain
// sight, the document's host; approving sends the code to its loopback
// redirect URI.
func TestCIMDConsentInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	doc := startDocServer(t)
	s := startAuthServerTrusting(t, storetest.Open(t, "sqlite"), nil, doc.roots())
	received := make(chan url.Values, 1)
	client := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case received <- r.URL.Query():
		default:
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><title>Connected</title><p id=done>Connected.</p>")) //nolint:errcheck
	}))
	defer client.Close()
	conf := s.oauthConfig(doc.clientID)
	conf.RedirectURL = client.URL + "/callback"
	authURL, _ := pkceAuthURL(conf, "cimd-state")

	ctx := browsertest.New(t, 90*time.Second)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(s.base+"/signup"),
		chromedp.SendKeys(chromedp.ID("email"), "cimd-chromium@example.com"),
		chromedp.SendKeys(chromedp.ID("password"), "a password typed in Chromium"),
		chromedp.Click(chromedp.CSS(`form button[type="submit"]`)),
		chromedp.WaitNotPresent(chromedp.ID("password")),
		chromedp.Navigate(authURL),
		chromedp.WaitVisible(chromedp.CSS(`button[value="approve"]`)),
	); err != nil {
		t.Fatalf("sign up and authorize: %v", err)
	}
	host, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".client-host")))
	if err != nil || host != doc.host() {
		t.Fatalf("the document's host as shown: %q (%v), want %q", host, err, doc.host())
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(".client-host"))); err != nil {
		t.Fatalf("the document's host is not visible: %v", err)
	}
	consent, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil || !strings.Contains(consent, "Docs Agent") || strings.Contains(consent, "self-registered") {
		t.Fatalf("consent page (%v): %q", err, consent)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button[value="approve"]`)), chromedp.WaitVisible(chromedp.ID("done"))); err != nil {
		t.Fatalf("approve: %v", err)
	}
	select {
	case q := <-received:
		if q.Get("code") == "" || q.Get("state") != "cimd-state" {
			t.Fatalf("authorization response %v", q)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the loopback redirect URI received nothing")
	}
}

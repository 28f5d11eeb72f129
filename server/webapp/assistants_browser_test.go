package webapp_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/studyloop/studyloop/server/store/storetest"
)

// TestBrowserRevokeAssistant: in Chromium, a student with a connected
// assistant sees it on /app/assistants with its host, presses Revoke and is
// left with none; the grant's tokens are revoked.
func TestBrowserRevokeAssistant(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	browser := newTab(t, time.Minute)
	base, db := startAppOn(t, nil)
	ctx := context.Background()

	browser.do("open sign-up", chromedp.Navigate(base+"/signup"), chromedp.WaitVisible(chromedp.ID("email")))
	browser.loads("sign up",
		chromedp.SendKeys(chromedp.ID("email"), "student@example.com"),
		chromedp.SendKeys(chromedp.ID("password"), "correct horse battery staple"),
		chromedp.Submit(chromedp.ID("email")),
	)
	user, err := db.UserByEmail(ctx, "student@example.com")
	if err != nil {
		t.Fatal(err)
	}
	access, refresh := storetest.Grant(t, db, user.ID, claude, base+"/mcp")

	browser.do("open the assistants page", chromedp.Navigate(base+"/app/assistants"), chromedp.WaitVisible(chromedp.ID("assistants")))
	if h, name, host := browser.text("h1"), browser.text("#assistants .assistant-name"), browser.text("#assistants .assistant-host"); h != "Connected assistants" || name != "Claude" || host != "claude.ai" {
		t.Fatalf("page %q lists %q at %q, want Connected assistants, Claude, claude.ai", h, name, host)
	}
	browser.loads("revoke", chromedp.Click(chromedp.CSS(`#assistants button[aria-label="Revoke Claude"]`)))
	if got := browser.text("#no-assistants"); got != "No assistant is connected." {
		t.Fatalf("after revoking the page says %q", got)
	}
	for _, hash := range []string{access, refresh} {
		if tok, err := db.OAuthToken(ctx, hash); err != nil || tok.RevokedAt.IsZero() {
			t.Fatalf("token %s after revoking: %+v %v", hash, tok, err)
		}
	}
}

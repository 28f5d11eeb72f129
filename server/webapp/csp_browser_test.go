package webapp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// recordViolations is run in every page before its own content: it keeps
// what the content security policy blocked.
const recordViolations = `window.__violations = [];
document.addEventListener("securitypolicyviolation", e => window.__violations.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " at line " + e.lineNumber));`

// TestBrowserPagesKeepTheContentSecurityPolicy: in Chromium, the built
// pages and every kind of page of the web app (a study with nested topics,
// practice, the question list, the account) load without anything the
// content security policy blocks.
func TestBrowserPagesKeepTheContentSecurityPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	browser := newTab(t, time.Minute)
	base, db := startAppOn(t, nil)
	if _, err := chromedp.Call(browser.ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: recordViolations}); err != nil {
		t.Fatal(err)
	}
	browser.do("open sign-up", chromedp.Navigate(base+"/signup"), chromedp.WaitVisible(chromedp.ID("email")))
	browser.loads("sign up",
		chromedp.SendKeys(chromedp.ID("email"), "student@example.com"),
		chromedp.SendKeys(chromedp.ID("password"), "correct horse battery staple"),
		chromedp.Submit(chromedp.ID("email")),
	)
	user, err := db.UserByEmail(context.Background(), "student@example.com")
	if err != nil {
		t.Fatal(err)
	}
	study := nestedStudy(t, db, user.ID)

	pages := []string{
		"/", "/de/", "/developers/", "/mcp", "/no-such-page/",
		"/app", "/app/studies/" + study, "/app/studies/" + study + "/practice", "/app/studies/" + study + "/questions",
		"/app/account", "/app/assistants", "/signout",
	}
	for _, path := range pages {
		browser.do("open "+path, chromedp.Navigate(base+path), chromedp.WaitReady(chromedp.CSS("body")))
		violations, err := chromedp.Run(browser.ctx, chromedp.Evaluate[[]string](`window.__violations`))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(violations) > 0 {
			t.Errorf("%s: the content security policy blocked %s", path, strings.Join(violations, "; "))
		}
	}
}

// nestedStudy stores a ready study of the user whose topics nest three
// deep, and returns its id.
func nestedStudy(t *testing.T, db *store.DB, user int64) string {
	t.Helper()
	ex := studyloop.Extraction{Topics: []studyloop.Topic{{Parent: -1, Title: "Optics"}, {Parent: 0, Title: "Lenses"}, {Parent: 1, Title: "Convex"}}}
	for topic := range ex.Topics {
		ex.Questions = append(ex.Questions, studyloop.Question{Topic: topic, Type: studyloop.QuestionCloze, Prompt: "Light bends in a ____.", Answer: "lens"})
	}
	st, _ := storetest.CompleteStudy(t, db, user, "Optics", "Lenses bend light.", ex)
	return st.ID
}

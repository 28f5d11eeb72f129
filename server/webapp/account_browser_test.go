package webapp_test

import (
	"bytes"
	"context"
	"io"
	"maps"
	"mime/quotedprintable"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/studyloop/studyloop/server/account"
	"github.com/studyloop/studyloop/server/mail/mailtest"
	"github.com/studyloop/studyloop/server/store/storetest"
)

// viewport is a window size the browser tests look at pages in.
type viewport struct {
	name          string
	width, height int64
	phone         bool
}

// viewports are a desktop window and a 390-pixel-wide phone.
var viewports = []viewport{
	{"desktop", 1280, 900, false},
	{"phone", 390, 844, true},
}

// newTabAt starts Chromium (newTab) with its window at v.
func newTabAt(t *testing.T, v viewport, timeout time.Duration) *tab {
	t.Helper()
	b := newTab(t, timeout)
	opts := []chromedp.EmulateViewportOption{chromedp.EmulatePortrait}
	if v.phone {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	b.do("set the window to "+v.name, chromedp.EmulateViewport(v.width, v.height, opts...))
	return b
}

// noSideScroll fails the test when the page is wider than the window.
func (b *tab) noSideScroll(what string) {
	b.t.Helper()
	wider, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
	if err != nil || wider {
		b.t.Errorf("%s scrolls sideways (%v)", what, err)
	}
}

// signUpIn signs up through the form.
func (b *tab) signUpIn(base, email, password string) {
	b.t.Helper()
	b.do("open sign-up", chromedp.Navigate(base+"/signup"), chromedp.WaitVisible(chromedp.ID("email")))
	b.loads("sign up",
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Submit(chromedp.ID("email")),
	)
}

// signIn signs in through the form.
func (b *tab) signIn(base, email, password string) {
	b.t.Helper()
	b.do("open sign-in", chromedp.Navigate(base+"/signin"), chromedp.WaitVisible(chromedp.ID("email")))
	b.loads("sign in",
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Submit(chromedp.ID("email")),
	)
}

// location is the tab's URL.
func (b *tab) location() string {
	b.t.Helper()
	u, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		b.t.Fatal(err)
	}
	return u
}

// openAccountMenu opens the header's account menu.
func (b *tab) openAccountMenu() {
	b.t.Helper()
	b.do("open the account menu", chromedp.Click(chromedp.CSS("#account-menu summary")), chromedp.WaitVisible(chromedp.ID("sign-out")))
}

// TestBrowserAccount, at desktop and phone widths on both databases: the
// header names the student and its menu leads to the account page; a
// wrong current password is refused beside its field; a new password
// signs the other browser out and ends the agent's grant; Sign out in the
// header signs out; deleting the account with its password removes every
// row it had and leaves the other student's.
func TestBrowserAccount(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	for _, dialect := range storetest.Dialects {
		for _, v := range viewports {
			t.Run(dialect+"/"+v.name, func(t *testing.T) {
				base, db := startAppWith(t, nil, dialect, nil)
				ctx := context.Background()
				if _, err := account.NewService(db, nil).SignUp(ctx, "bob@example.com", "bob's password"); err != nil {
					t.Fatal(err)
				}
				before := storetest.TableCounts(t, db)

				laptop := newTabAt(t, v, 2*time.Minute)
				laptop.signUpIn(base, "ann@example.com", "the old password")
				ann, err := db.UserByEmail(ctx, "ann@example.com")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.CreateStudy(ctx, ann.ID, "Optics", browserNotes); err != nil {
					t.Fatal(err)
				}
				_, refresh := storetest.Grant(t, db, ann.ID, claude, base+"/mcp")
				other := newTab(t, 2*time.Minute)
				other.signIn(base, "ann@example.com", "the old password")

				laptop.do("open the app", chromedp.Navigate(base+"/app"), chromedp.WaitVisible(chromedp.ID("account-menu")))
				if got := laptop.text("#account-email"); got != "ann@example.com" {
					t.Fatalf("the header names %q", got)
				}
				laptop.noSideScroll("the app")
				laptop.openAccountMenu()
				screenshot(laptop, "account-menu-"+v.name)
				laptop.loads("open the account page", chromedp.Click(chromedp.ID("menu-account")))
				if h := laptop.text("h1"); h != "Account" {
					t.Fatalf("the menu led to %q", h)
				}
				laptop.noSideScroll("the account page")

				laptop.loads("change with a wrong password",
					chromedp.SendKeys(chromedp.ID("current-password"), "not my password"),
					chromedp.SendKeys(chromedp.ID("new-password"), "a brand new password"),
					chromedp.Submit(chromedp.ID("current-password")),
				)
				if got := laptop.text("#current-password-error"); got != "That is not your current password." {
					t.Fatalf("beside the current password: %q", got)
				}
				screenshot(laptop, "account-password-refused-"+v.name)
				laptop.loads("change the password",
					chromedp.SendKeys(chromedp.ID("current-password"), "the old password"),
					chromedp.SendKeys(chromedp.ID("new-password"), "a brand new password"),
					chromedp.Submit(chromedp.ID("current-password")),
				)
				if got := laptop.text(".flash"); !strings.HasPrefix(got, "Your password is changed.") {
					t.Fatalf("after the change: %q", got)
				}
				screenshot(laptop, "account-password-changed-"+v.name)
				other.do("reopen the app", chromedp.Navigate(base+"/app"), chromedp.WaitVisible(chromedp.ID("email")))
				if u := other.location(); !strings.Contains(u, "/signin?next=") {
					t.Fatalf("the other browser is at %s after the password change", u)
				}
				if tok, err := db.OAuthToken(ctx, refresh); err != nil || tok.RevokedAt.IsZero() {
					t.Fatalf("the agent's grant after the change: %+v %v", tok, err)
				}

				laptop.openAccountMenu()
				laptop.loads("sign out from the header", chromedp.Click(chromedp.ID("sign-out")))
				if got := laptop.text(".flash"); got != "You are signed out." {
					t.Fatalf("after signing out: %q", got)
				}
				screenshot(laptop, "signed-out-"+v.name)
				laptop.do("reopen the app", chromedp.Navigate(base+"/app"), chromedp.WaitVisible(chromedp.ID("email")))
				if u := laptop.location(); !strings.Contains(u, "/signin?next=") {
					t.Fatalf("signed out, the app answers at %s", u)
				}

				laptop.signIn(base, "ann@example.com", "a brand new password")
				laptop.do("open the account page", chromedp.Navigate(base+"/app/account"), chromedp.WaitVisible(chromedp.ID("delete-password")))
				laptop.loads("delete the account",
					chromedp.SendKeys(chromedp.ID("delete-password"), "a brand new password"),
					chromedp.Submit(chromedp.ID("delete-password")),
				)
				if got := laptop.text("#account-deleted"); !strings.HasPrefix(got, "Your account and everything in it are deleted") {
					t.Fatalf("after deleting: %q", got)
				}
				screenshot(laptop, "account-deleted-"+v.name)
				after := storetest.TableCounts(t, db)
				before["oauth_clients"]++ // the agent's registration is not the account's
				if !maps.Equal(after, before) {
					t.Fatalf("rows per table after deleting the account:\n%v\nwant as before it existed:\n%v", after, before)
				}
				if _, err := db.UserByEmail(ctx, "bob@example.com"); err != nil {
					t.Fatalf("the other student: %v", err)
				}
			})
		}
	}
}

// claude is the agent of the browser tests' grants: pages show its name
// and the host of its redirect URI.
var claude = storetest.Agent{Name: "Claude", RedirectURI: "https://claude.ai/api/mcp/auth_callback"}

var resetLink = regexp.MustCompile(`http://\S+/reset\?token=\S+`)

// TestBrowserPasswordReset, at desktop and phone widths: the sign-in page
// offers a reset, the link arrives through a real SMTP server on loopback,
// and opening it lets the student choose a new password and go on in the
// app.
func TestBrowserPasswordReset(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	for _, v := range viewports {
		t.Run(v.name, func(t *testing.T) {
			smtp := mailtest.Start(t)
			base, db := startAppWith(t, nil, "sqlite", map[string]string{"SMTP_URL": smtp.URL})
			if _, err := account.NewService(db, nil).SignUp(context.Background(), "ann@example.com", "forgotten password"); err != nil {
				t.Fatal(err)
			}
			b := newTabAt(t, v, 2*time.Minute)
			b.do("open sign-in", chromedp.Navigate(base+"/signin"), chromedp.WaitVisible(chromedp.ID("forgot")))
			b.loads("forgot the password", chromedp.Click(chromedp.ID("forgot")))
			b.loads("ask for a link", chromedp.SendKeys(chromedp.ID("email"), "ann@example.com"), chromedp.Submit(chromedp.ID("email")))
			if got := b.text("#reset-sent"); !strings.Contains(got, "ann@example.com") {
				t.Fatalf("after asking: %q", got)
			}
			b.noSideScroll("the reset request page")
			screenshot(b, "reset-sent-"+v.name)
			m := smtp.Wait(t, 1, 10*time.Second)[0]
			body, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(m.Body)))
			if err != nil {
				t.Fatal(err)
			}
			link := resetLink.FindString(string(body))
			if link == "" || m.To[0] != "ann@example.com" {
				t.Fatalf("mail to %v without a link: %s", m.To, body)
			}
			b.do("open the link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.ID("password")))
			if got := b.text("#reset-email"); got != "ann@example.com" {
				t.Fatalf("the reset page is for %q", got)
			}
			screenshot(b, "reset-choose-"+v.name)
			b.loads("set the new password", chromedp.SendKeys(chromedp.ID("password"), "remembered password"), chromedp.Submit(chromedp.ID("password")))
			if h := b.text("h1"); h != "Your studies" {
				t.Fatalf("after the reset the page says %q", h)
			}
			if _, err := account.NewService(db, nil).SignIn(context.Background(), "ann@example.com", "remembered password", "192.0.2.1"); err != nil {
				t.Fatalf("the new password: %v", err)
			}
		})
	}
}

// TestBrowserGermanApp, at desktop and phone widths: /de/app is the app in
// German, the header's switch leads to the same page in English and back.
func TestBrowserGermanApp(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	for _, v := range viewports {
		t.Run(v.name, func(t *testing.T) {
			base := startApp(t, nil)
			b := newTabAt(t, v, 2*time.Minute)
			b.signUpIn(base, "anna@example.com", "korrektes Passwort")
			b.do("open the German app", chromedp.Navigate(base+"/de/app"), chromedp.WaitVisible(chromedp.ID("account-menu")))
			lang, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.documentElement.lang`))
			if err != nil || lang != "de" || b.text("h1") != "Deine Lerneinheiten" {
				t.Fatalf("the German app: lang %q (%v), heading %q", lang, err, b.text("h1"))
			}
			if h, count := b.text("#create-heading"), b.text("#text-count"); h != "Neue Lerneinheit" || count != "0 von 400.000 Zeichen" {
				t.Fatalf("the German New study box: %q, count %q", h, count)
			}
			b.noSideScroll("the German app")
			screenshot(b, "german-app-"+v.name)
			b.openAccountMenu()
			b.loads("open the account page", chromedp.Click(chromedp.ID("menu-account")))
			if h, u := b.text("h1"), b.location(); h != "Konto" || !strings.HasSuffix(u, "/de/app/account") {
				t.Fatalf("the German menu led to %q at %s", h, u)
			}
			screenshot(b, "german-account-"+v.name)
			b.loads("switch to English", chromedp.Click(chromedp.ID("switch-language")))
			if h, u := b.text("h1"), b.location(); h != "Account" || !strings.HasSuffix(u, "/app/account") || strings.Contains(u, "/de/") {
				t.Fatalf("the switch led to %q at %s", h, u)
			}
		})
	}
}

package webapp_test

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/studyloop/studyloop/server/anki/ankitest"
	"github.com/studyloop/studyloop/server/store/storetest"
)

// TestBrowserManageStudy drives Chromium at a desktop and a phone width
// through what a student does with a study: rename it, search, edit and
// suspend questions, practise with the keyboard (number keys for choices
// and ratings, Enter to send a typed answer, Space to show the answer),
// override a typed answer marked wrong, read the summary, download the
// Anki export and delete the study after confirming. Every page must fit
// the width without scrolling sideways.
func TestBrowserManageStudy(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	for _, size := range []struct {
		name          string
		width, height int64
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		t.Run(size.name, func(t *testing.T) {
			browser := newTab(t, 3*time.Minute)
			base := startApp(t, nil)
			browser.do("viewport", chromedp.EmulateViewport(size.width, size.height))
			fits := func(page string) {
				t.Helper()
				wide, err := chromedp.Run(browser.ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
				if err != nil {
					t.Fatal(err)
				}
				if wide {
					t.Errorf("%s scrolls sideways at %d pixels", page, size.width)
				}
				screenshot(browser, "manage-"+page+"-"+size.name)
			}
			exists := func(sel string) bool {
				t.Helper()
				nodes, err := chromedp.Run(browser.ctx, chromedp.Nodes(chromedp.CSSAll(sel), chromedp.AtLeast(0)))
				if err != nil {
					t.Fatal(err)
				}
				return len(nodes) > 0
			}

			browser.do("open sign-up", chromedp.Navigate(base+"/signup"), chromedp.WaitVisible(chromedp.ID("email")))
			browser.loads("sign up",
				chromedp.SendKeys(chromedp.ID("email"), "student@example.com"),
				chromedp.SendKeys(chromedp.ID("password"), "correct horse battery staple"),
				chromedp.Submit(chromedp.ID("email")),
			)
			fits("home-empty")
			browser.loads("create study",
				chromedp.SetValue(chromedp.ID("text"), browserNotes),
				chromedp.Submit(chromedp.ID("text")),
			)
			studyURL, err := chromedp.Run(browser.ctx, chromedp.Location())
			if err != nil {
				t.Fatal(err)
			}
			if status := browser.settledStatus(studyURL, 90*time.Second); status != "Ready" {
				t.Fatalf("study status %q", status)
			}
			fits("study")

			// Rename.
			browser.do("open rename", chromedp.Click(chromedp.CSS(".rename summary")), chromedp.WaitVisible(chromedp.ID("new-title")))
			browser.loads("rename", chromedp.SetValue(chromedp.ID("new-title"), "Optics, renamed"), chromedp.Submit(chromedp.ID("new-title")))
			if h := browser.text("h1"); h != "Optics, renamed" {
				t.Fatalf("after renaming the heading is %q", h)
			}

			// Search the questions, edit the first one found, suspend another.
			browser.loads("questions", chromedp.Click(chromedp.ID("questions-link")))
			fits("questions")
			browser.loads("search", chromedp.SendKeys(chromedp.ID("q"), "light"), chromedp.Submit(chromedp.ID("q")))
			if count := browser.text("#question-count"); !strings.Contains(count, "“light”") {
				t.Fatalf("search result: %q", count)
			}
			browser.loads("edit", chromedp.Click(chromedp.CSS("#questions li:first-child a.button")))
			fits("edit")
			browser.do("change the question", chromedp.SetValue(chromedp.ID("prompt"), "Edited: what bends light at a boundary?"))
			browser.loads("save", chromedp.Submit(chromedp.ID("prompt")))
			if list := browser.text("#questions"); !strings.Contains(list, "Edited: what bends light at a boundary?") {
				t.Fatalf("the edit does not show in the list: %s", list)
			}
			browser.loads("all questions", chromedp.Navigate(studyURL+"/questions"))
			suspended := browser.text("#questions li:nth-child(2) .prompt")
			browser.loads("suspend", chromedp.Click(chromedp.CSS("#questions li:nth-child(2) form button")))
			if badge := browser.text("#questions li:nth-child(2) .badge"); badge != "Suspended" {
				t.Fatalf("the suspended question shows %q", badge)
			}

			// Practise with the keyboard.
			browser.loads("practise", chromedp.Navigate(studyURL), chromedp.Click(chromedp.ID("practise")))
			answered, overridden, revealed := 0, false, false
			for ; answered < 30 && !exists("#summary"); answered++ {
				if counter := browser.text("#counter"); !strings.HasPrefix(counter, strconv.Itoa(answered+1)+" of ") {
					t.Fatalf("question %d: counter %q", answered+1, counter)
				}
				if prompt := browser.text("#prompt"); prompt == suspended {
					t.Fatalf("the suspended question was asked: %q", prompt)
				}
				if answered == 0 {
					fits("practice-question")
				}
				kind, err := chromedp.Run(browser.ctx, chromedp.AttributeValue(chromedp.ID("question"), "data-kind"))
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case kind.Value == "choice":
					browser.loads("choose with 1", chromedp.KeyEvent("1"))
				case !revealed:
					revealed = true
					if _, err := chromedp.Run(browser.ctx, chromedp.Evaluate[bool](`document.activeElement.blur(), true`)); err != nil {
						t.Fatal(err)
					}
					browser.loads("show the answer with Space", chromedp.KeyEvent(" "))
					if exists("#verdict") {
						t.Error("showing the answer gave a verdict")
					}
				default:
					browser.do("type a wrong answer", chromedp.SendKeys(chromedp.ID("answer"), "zzzz"))
					browser.loads("send it with Enter", chromedp.KeyEvent("\r"))
				}
				if browser.text("#right-answer") == "" {
					t.Fatal("the feedback shows no right answer")
				}
				if answered == 0 {
					fits("practice-feedback")
				}
				if !overridden && exists("#override") {
					overridden = true
					browser.loads("I was right", chromedp.Click(chromedp.ID("override")))
					continue
				}
				browser.loads("rate Good with 3", chromedp.KeyEvent("3"))
			}
			if !overridden || !revealed {
				t.Errorf("the session never overrode (%v) or showed an answer (%v)", overridden, revealed)
			}
			if got := browser.text("#sum-answered"); got != strconv.Itoa(answered) {
				t.Errorf("summary: %s answered, want %d", got, answered)
			}
			fits("summary")

			// The study list: a card with its mastery and counts; the PDF tab.
			browser.do("home", chromedp.Navigate(base+"/app"), chromedp.WaitVisible(chromedp.ID("studies")))
			if card := browser.text("#studies"); !strings.Contains(card, "Optics, renamed") || !strings.Contains(card, "due now") {
				t.Errorf("study card: %s", card)
			}
			browser.do("PDF tab", chromedp.Click(`label[for="tab-pdf"]`), chromedp.WaitVisible(chromedp.ID("pdf")))
			fits("home")

			// Download the Anki export and read it back.
			browser.do("back to the study", chromedp.Navigate(studyURL), chromedp.WaitVisible(chromedp.ID("export-apkg")))
			encoded, err := chromedp.Run(browser.ctx, chromedp.Evaluate[string](`fetch(document.getElementById("export-apkg").href)
				.then(r => r.arrayBuffer())
				.then(b => { let s = ""; for (const c of new Uint8Array(b)) s += String.fromCharCode(c); return btoa(s); })`, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatal(err)
			}
			data, err := base64.StdEncoding.DecodeString(encoded)
			if err != nil {
				t.Fatal(err)
			}
			pkg := ankitest.Read(t, data)
			if len(pkg.Notes) != answered+1 {
				t.Errorf("the package holds %d notes, want the %d practised and the suspended one", len(pkg.Notes), answered)
			}
			edited := false
			for _, n := range pkg.Notes {
				edited = edited || strings.HasPrefix(n.Fields[0], "Edited: what bends light")
			}
			if !edited {
				t.Error("the package lacks the edited question")
			}

			// Delete, after the confirmation page.
			browser.loads("delete", chromedp.Click(chromedp.ID("delete-study")))
			fits("delete")
			browser.loads("confirm", chromedp.Click(chromedp.ID("confirm-delete")))
			if flash := browser.text(".flash"); flash != "Deleted “Optics, renamed”." || exists("#studies") {
				t.Fatalf("after deleting: flash %q", flash)
			}
		})
	}
}

// TestBrowserChoiceKeys answers multiple-choice questions with the number
// keys and rates them with 1-4, checks that the page still works with
// script off (choosing and rating by clicking), and finishes the session
// in German with a typed gap marked wrong and overridden with I was right.
func TestBrowserChoiceKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	browser := newTab(t, 2*time.Minute)
	base, db := startAppOn(t, nil)
	browser.do("open sign-up", chromedp.Navigate(base+"/signup"), chromedp.WaitVisible(chromedp.ID("email")))
	browser.loads("sign up",
		chromedp.SendKeys(chromedp.ID("email"), "keys@example.com"),
		chromedp.SendKeys(chromedp.ID("password"), "correct horse battery staple"),
		chromedp.Submit(chromedp.ID("email")),
	)
	u, err := db.UserByEmail(context.Background(), "keys@example.com")
	if err != nil {
		t.Fatal(err)
	}
	st, _ := readyStudy(t, db, u.ID, "Colours", 1)
	practice := base + "/app/studies/" + st.ID + "/practice"

	// Question 1 is multiple choice (Blue, Red, Green, Violet; Red is right).
	browser.do("open practice", chromedp.Navigate(practice), chromedp.WaitVisible(chromedp.ID("choice-1")))
	browser.loads("choose Red with 2", chromedp.KeyEvent("2"))
	if verdict := browser.text("#verdict"); verdict != "Right." {
		t.Fatalf("after pressing 2: %q", verdict)
	}
	browser.loads("rate Easy with 4", chromedp.KeyEvent("4"))
	if counter := browser.text("#counter"); counter != "2 of 3" {
		t.Fatalf("after rating: counter %q", counter)
	}
	screenshot(browser, "keys-question-2")

	// Without script: clicking still chooses, checks and rates.
	browser.do("script off", emulateScriptOff(true))
	browser.do("reload", chromedp.Navigate(practice), chromedp.WaitVisible(chromedp.ID("answer")))
	browser.do("type", chromedp.SendKeys(chromedp.ID("answer"), "Refraction"))
	browser.loads("check", chromedp.Click(chromedp.ID("check")))
	browser.loads("rate", chromedp.Click(chromedp.ID("rate-good")))
	if counter := browser.text("#counter"); counter != "3 of 3" {
		t.Fatalf("without script: counter %q", counter)
	}
	m, err := storetest.Service(db).StudyMastery(context.Background(), u.ID, st.ID, time.Now())
	if err != nil || m.Attempts != 2 {
		t.Fatalf("attempts %d (%v), want 2", m.Attempts, err)
	}

	// The same pages in German, links kept under /de/app.
	browser.do("script on", emulateScriptOff(false))
	browser.do("German study page", chromedp.Navigate(base+"/de/app/studies/"+st.ID), chromedp.WaitVisible(chromedp.ID("mastery-heading")))
	if h := browser.text("#mastery-heading"); h != "Lernstand" {
		t.Errorf("German study page: heading %q", h)
	}
	screenshot(browser, "keys-study-de")
	browser.loads("German practice", chromedp.Click(chromedp.ID("practise")))
	if counter, check := browser.text("#counter"), browser.text("#check"); counter != "3 von 3" || check != "Prüfen" {
		t.Errorf("German practice: counter %q, button %q", counter, check)
	}
	if loc, err := chromedp.Run(browser.ctx, chromedp.Location()); err != nil || !strings.Contains(loc, "/de/app/studies/") {
		t.Errorf("the German practice link led to %s (%v)", loc, err)
	}
	screenshot(browser, "keys-practice-de")

	// The gap typed wrong, then overridden: the summary counts it right.
	browser.do("type the gap", chromedp.SendKeys(chromedp.ID("answer"), "Strahlen"))
	browser.loads("send", chromedp.KeyEvent("\r"))
	if verdict := browser.text("#verdict"); verdict != "Nicht ganz." {
		t.Fatalf("a wrong gap: %q", verdict)
	}
	screenshot(browser, "keys-wrong-de")
	browser.loads("override", chromedp.Click(chromedp.ID("override")))
	if answered, right := browser.text("#sum-answered"), browser.text("#sum-right"); answered != "3" || right != "3" {
		t.Errorf("summary: %s answered, %s right; want 3 and 3", answered, right)
	}
	screenshot(browser, "keys-summary-de")
}

// emulateScriptOff turns script execution in the page off or on.
func emulateScriptOff(off bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: off})
		return err
	})
}

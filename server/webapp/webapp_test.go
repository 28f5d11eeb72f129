package webapp_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/anki"
	"github.com/studyloop/studyloop/server/anki/ankitest"
	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/server/webapp"
)

// env is a real HTTP server with the web app's routes wired as in
// server/web, on a real database, with a clock the test moves.
type env struct {
	db       *store.DB
	srv      *httptest.Server
	notified atomic.Int32
	mu       sync.Mutex
	now      time.Time
}

func (e *env) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *env) advance(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now = e.now.Add(d)
}

// newEnv is newEnvWith the default extractor.
func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	return newEnvWith(t, db, nil)
}

// newEnvWith serves every route of the web app, wired as in server/web,
// with x reading uploads (nil: extract.New(nil)).
func newEnvWith(t *testing.T, db *store.DB, x *extract.Extractor) *env {
	t.Helper()
	e := &env{db: db, now: time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	sessions := session.New(db.Sessions(), &session.Options{Logger: logger})
	app := webapp.New(db, storetest.Service(db), sessions, logger, &webapp.Options{Notify: func() { e.notified.Add(1) }, Now: e.clock, Extractor: x})
	mux := http.NewServeMux()
	mux.Handle("GET /app", sessions.RequireUser(app.Home()))
	mux.Handle("POST /app/studies", sessions.RequireUser(sessions.RequireCSRF(app.CreateStudy())))
	mux.Handle("POST /app/studies/pdf", sessions.RequireUser(app.ParseUpload(sessions.RequireCSRF(app.CreateFromPDF()))))
	mux.Handle("POST /app/studies/photos", sessions.RequireUser(app.ParseUpload(sessions.RequireCSRF(app.CreateFromPhotos()))))
	mux.Handle("GET /app/studies/{id}", sessions.RequireUser(app.Study()))
	mux.Handle("POST /app/studies/{id}/rename", sessions.RequireUser(sessions.RequireCSRF(app.RenameStudy())))
	mux.Handle("POST /app/studies/{id}/settings", sessions.RequireUser(sessions.RequireCSRF(app.StudySettings())))
	mux.Handle("GET /app/studies/{id}/delete", sessions.RequireUser(app.ConfirmDeleteStudy()))
	mux.Handle("POST /app/studies/{id}/delete", sessions.RequireUser(sessions.RequireCSRF(app.DeleteStudy())))
	mux.Handle("GET /app/studies/{id}/export.csv", sessions.RequireUser(app.ExportCSV()))
	mux.Handle("GET /app/studies/{id}/export.apkg", sessions.RequireUser(app.ExportAnki()))
	mux.Handle("GET /app/studies/{id}/questions", sessions.RequireUser(app.Questions()))
	mux.Handle("GET /app/studies/{id}/questions/{qid}", sessions.RequireUser(app.EditQuestionPage()))
	mux.Handle("POST /app/studies/{id}/questions/{qid}", sessions.RequireUser(sessions.RequireCSRF(app.EditQuestion())))
	mux.Handle("POST /app/studies/{id}/questions/{qid}/suspend", sessions.RequireUser(sessions.RequireCSRF(app.SuspendQuestion())))
	mux.Handle("POST /app/studies/{id}/questions/{qid}/delete", sessions.RequireUser(sessions.RequireCSRF(app.DeleteQuestion())))
	mux.Handle("GET /app/studies/{id}/practice", sessions.RequireUser(app.Practice()))
	mux.Handle("POST /app/studies/{id}/practice/check", sessions.RequireUser(sessions.RequireCSRF(app.Check())))
	mux.Handle("POST /app/studies/{id}/practice", sessions.RequireUser(sessions.RequireCSRF(app.Rate())))
	mux.Handle("GET /app/practice", sessions.RequireUser(app.Practice()))
	mux.Handle("POST /app/practice/check", sessions.RequireUser(sessions.RequireCSRF(app.Check())))
	mux.Handle("POST /app/practice", sessions.RequireUser(sessions.RequireCSRF(app.Rate())))
	// Signing in is another package's page; the test signs in through the
	// same session manager.
	mux.Handle("POST /test/signin", sessions.Load(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(r.FormValue("user"), 10, 64)
		if err := sessions.SignIn(r.Context(), id); err != nil {
			t.Errorf("sign in: %v", err)
		}
	})))
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)
	return e
}

// student is a signed-in browser: a client with its own cookie jar.
type student struct {
	t      *testing.T
	e      *env
	id     int64
	client *http.Client
}

func (e *env) student(t *testing.T, email string) *student {
	t.Helper()
	u := &studyloop.User{Email: email, PasswordHash: "x"}
	if err := e.db.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	s := &student{t: t, e: e, id: u.ID, client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	resp, err := s.client.PostForm(e.srv.URL+"/test/signin", url.Values{"user": {strconv.FormatInt(u.ID, 10)}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return s
}

type page struct {
	status   int
	body     string
	location string
	header   http.Header
}

func (s *student) get(path string) page {
	s.t.Helper()
	resp, err := s.client.Get(s.e.srv.URL + path)
	if err != nil {
		s.t.Fatal(err)
	}
	return readPage(s.t, resp)
}

func (s *student) post(path string, form url.Values) page {
	s.t.Helper()
	resp, err := s.client.PostForm(s.e.srv.URL+path, form)
	if err != nil {
		s.t.Fatal(err)
	}
	return readPage(s.t, resp)
}

// follow gets the page a redirect points to.
func (s *student) follow(p page) page {
	s.t.Helper()
	if p.status != http.StatusSeeOther {
		s.t.Fatalf("status %d, want 303; body: %s", p.status, p.body)
	}
	return s.get(p.location)
}

func readPage(t *testing.T, resp *http.Response) page {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return page{status: resp.StatusCode, body: string(b), location: resp.Header.Get("Location"), header: resp.Header}
}

var csrfRE = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

func (p page) csrf(t *testing.T) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no CSRF token on the page: %s", p.body)
	}
	return m[1]
}

var questionRE = regexp.MustCompile(`name="question_id" value="(\d+)"`)

func (p page) questionID(t *testing.T) int64 {
	t.Helper()
	m := questionRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no question on the page: %s", p.body)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id
}

var progressRE = regexp.MustCompile(`<progress id="study-mastery" max="100" value="(\d+)"`)

func (p page) studyPercent(t *testing.T) int {
	t.Helper()
	m := progressRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no study mastery bar: %s", p.body)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// readyStudy stores a ready study through the worker's calls, with one
// question of each type per topic.
func readyStudy(t *testing.T, db *store.DB, userID int64, title string, topics int) (studyloop.Study, []studyloop.Question) {
	t.Helper()
	var ex studyloop.Extraction
	for i := range topics {
		ex.Topics = append(ex.Topics, studyloop.Topic{Parent: -1, Title: fmt.Sprintf("%s topic %d", title, i)})
		ex.Questions = append(ex.Questions,
			studyloop.Question{Topic: i, Type: studyloop.QuestionMultipleChoice, Prompt: fmt.Sprintf("Which colour %d?", i), Answer: "Red", Choices: []string{"Blue", "Red", "Green", "Violet"}},
			studyloop.Question{Topic: i, Type: studyloop.QuestionTermDefinition, Prompt: fmt.Sprintf("Which term matches this description: bending of light %d?", i), Answer: "Refraction"},
			studyloop.Question{Topic: i, Type: studyloop.QuestionCloze, Prompt: fmt.Sprintf("Light travels in straight ____ %d.", i), Answer: "lines"},
		)
	}
	return storetest.CompleteStudy(t, db, userID, title, "Notes about "+title+".", ex)
}

func TestCreateStudyFromTheForm(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		alice := e.student(t, "alice@example.com")
		home := alice.get("/app")
		if home.status != http.StatusOK || !strings.Contains(home.body, "No studies yet") {
			t.Fatalf("empty home: %d %s", home.status, home.body)
		}
		token := home.csrf(t)

		tests := []struct {
			name       string
			form       url.Values
			status     int
			wantInBody string
		}{
			{"blank text", url.Values{"csrf_token": {token}, "text": {"   "}}, http.StatusUnprocessableEntity, `<p class="field-error" role="alert" id="text-text-error">Study text is empty`},
			{"over the limit", url.Values{"csrf_token": {token}, "title": {"Too long"}, "text": {strings.Repeat("é", studyloop.MaxStudyTextChars+1)}}, http.StatusRequestEntityTooLarge, "400,000"},
			{"without CSRF token", url.Values{"text": {"Some notes."}}, http.StatusForbidden, ""},
			{"with a wrong CSRF token", url.Values{"csrf_token": {token + "x"}, "text": {"Some notes."}}, http.StatusForbidden, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				p := alice.post("/app/studies", tt.form)
				if p.status != tt.status || !strings.Contains(p.body, tt.wantInBody) {
					t.Fatalf("status %d, want %d (containing %q): %.400s", p.status, tt.status, tt.wantInBody, p.body)
				}
				if tt.status == http.StatusRequestEntityTooLarge && !strings.Contains(p.body, `value="Too long"`) {
					t.Error("the form lost the title after an error")
				}
			})
		}
		list, _, err := db.ListStudies(context.Background(), alice.id, studyloop.ListStudiesParams{})
		if err != nil || len(list) != 0 || e.notified.Load() != 0 {
			t.Fatalf("rejected forms stored %d studies (err %v), notified %d", len(list), err, e.notified.Load())
		}

		p := alice.post("/app/studies", url.Values{"csrf_token": {token}, "title": {"Optics"}, "text": {"# Light\n\nLight travels in straight lines."}})
		if p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/app/studies/st_") {
			t.Fatalf("create: %d %q", p.status, p.location)
		}
		if e.notified.Load() != 1 {
			t.Errorf("workers notified %d times, want 1", e.notified.Load())
		}
		studyPage := alice.get(p.location)
		if studyPage.status != http.StatusOK || !strings.Contains(studyPage.body, "<h1>Optics</h1>") ||
			!strings.Contains(studyPage.body, `id="study-status">Waiting to start<`) || studyPage.header.Get("Refresh") == "" {
			t.Fatalf("new study page: %d refresh=%q %s", studyPage.status, studyPage.header.Get("Refresh"), studyPage.body)
		}
		// Practice waits until the study is ready.
		if pr := alice.get(p.location + "/practice"); pr.status != http.StatusSeeOther || pr.location != p.location {
			t.Errorf("practice of an unready study: %d %q", pr.status, pr.location)
		}
		if home := alice.get("/app"); !strings.Contains(home.body, ">Optics</a>") || !strings.Contains(home.body, ">Waiting to start<") {
			t.Errorf("home does not list the new study: %s", home.body)
		}
	})
}

func TestPractice(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		alice := e.student(t, "alice@example.com")
		st, qs := readyStudy(t, db, alice.id, "Optics", 2)
		base := "/app/studies/" + st.ID

		study := alice.get(base)
		if study.status != http.StatusOK || study.studyPercent(t) != 0 || !strings.Contains(study.body, "Optics topic 1") {
			t.Fatalf("fresh study page: %d %s", study.status, study.body)
		}
		if !strings.Contains(study.body, `<strong class="due-now">0</strong> due now`) || !strings.Contains(study.body, `<strong class="new-today">6</strong> new available today`) ||
			!strings.Contains(study.body, "up to 20 new a day") {
			t.Errorf("study page counts: %s", study.body)
		}
		check := func(id int64, form url.Values) page {
			t.Helper()
			form.Set("csrf_token", study.csrf(t))
			form.Set("question_id", fmt.Sprint(id))
			p := alice.post(base+"/practice/check", form)
			if p.status != http.StatusOK {
				t.Fatalf("check %d: status %d %s", id, p.status, p.body)
			}
			return p
		}
		rate := func(id int64, rating string) {
			t.Helper()
			p := alice.post(base+"/practice", url.Values{"csrf_token": {study.csrf(t)}, "question_id": {fmt.Sprint(id)}, "rating": {rating}})
			if p.status != http.StatusSeeOther || p.location != base+"/practice" {
				t.Fatalf("rate %d: status %d %q", id, p.status, p.location)
			}
		}

		// Question 1 of 6: multiple choice, answered right.
		q := alice.get(base + "/practice")
		if got := q.questionID(t); got != qs[0].ID || !strings.Contains(q.body, `type="radio"`) || !strings.Contains(q.body, "Which colour 0?") ||
			!strings.Contains(q.body, `id="counter">1 of 6<`) {
			t.Fatalf("first question %d, want %d: %s", got, qs[0].ID, q.body)
		}
		fb := check(qs[0].ID, url.Values{"answer": {"Red"}})
		for _, want := range []string{"<strong>Right.</strong>", `id="right-answer">Red<`, `<span class="rating-interval">1m</span>`, `<span class="rating-interval">10m</span>`, `rating-good suggested`} {
			if !strings.Contains(fb.body, want) {
				t.Fatalf("feedback after a right answer lacks %q: %s", want, fb.body)
			}
		}
		rate(qs[0].ID, "good")

		// Question 2: typed, wrong, and overridden with "I was right".
		q = alice.get(base + "/practice")
		if got := q.questionID(t); got != qs[1].ID || !strings.Contains(q.body, `id="answer" name="answer"`) || !strings.Contains(q.body, `id="counter">2 of 6<`) {
			t.Fatalf("second question %d, want typed %d: %s", got, qs[1].ID, q.body)
		}
		if err := db.EditQuestion(context.Background(), alice.id, st.ID, qs[1].ID, studyloop.QuestionEdit{Prompt: qs[1].Prompt, Answer: "Refraction", Alternatives: []string{"bending"}}); err != nil {
			t.Fatal(err)
		}
		fb = check(qs[1].ID, url.Values{"answer": {"Reflection"}})
		if !strings.Contains(fb.body, `id="also-accepted">(also accepted: bending)<`) {
			t.Errorf("feedback does not name the accepted alternative: %s", fb.body)
		}
		if !strings.Contains(fb.body, "Not quite.") || !strings.Contains(fb.body, `id="given">Reflection<`) || !strings.Contains(fb.body, `id="override"`) ||
			!strings.Contains(fb.body, `rating-again suggested`) {
			t.Fatalf("feedback after a wrong answer: %s", fb.body)
		}
		rate(qs[1].ID, "good") // the override

		// Question 3: cloze, typed with a typo.
		q = alice.get(base + "/practice")
		if got := q.questionID(t); got != qs[2].ID || !strings.Contains(q.body, `id="answer"`) {
			t.Fatalf("third question %d, want cloze %d: %s", got, qs[2].ID, q.body)
		}
		if fb := check(qs[2].ID, url.Values{"answer": {"lnies"}}); !strings.Contains(fb.body, "with a small typo") {
			t.Fatalf("typo feedback: %s", fb.body)
		}
		// Shown without an answer: no verdict, the answer and the ratings.
		if fb := check(qs[2].ID, url.Values{"reveal": {"1"}}); strings.Contains(fb.body, `id="verdict"`) || !strings.Contains(fb.body, `id="right-answer">lines<`) {
			t.Fatalf("revealed: %s", fb.body)
		}
		rate(qs[2].ID, "again")
		if p := alice.post(base+"/practice", url.Values{"csrf_token": {study.csrf(t)}, "question_id": {fmt.Sprint(qs[3].ID)}, "rating": {"perfect"}}); p.status != http.StatusUnprocessableEntity {
			t.Errorf("bad rating: status %d", p.status)
		}

		// The ratings were recorded as given.
		m, err := storetest.Service(db).StudyMastery(context.Background(), alice.id, st.ID, e.clock())
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Topics[0]; got.Attempts != 3 || got.CurrentStreak != 0 || got.BestStreak != 2 || got.Learning != 3 {
			t.Errorf("topic 0 after good, good, again: %+v", got)
		}
		study = alice.get(base)
		if pct := study.studyPercent(t); pct <= 0 || !strings.Contains(study.body, "3 answers so far") {
			t.Errorf("study page after practice: %d%% %s", pct, study.body)
		}

		// The rest, then the summary.
		for i := 3; i < len(qs); i++ {
			q := alice.get(base + "/practice")
			if want := fmt.Sprintf(`id="counter">%d of 6<`, i+1); !strings.Contains(q.body, want) {
				t.Fatalf("question %d: no %q in %s", i, want, q.body)
			}
			rate(q.questionID(t), "easy")
		}
		e.advance(90 * time.Second) // the Again answer is due after a minute
		q = alice.get(base + "/practice")
		if q.questionID(t) != qs[2].ID || !strings.Contains(q.body, `id="counter">7 of 7<`) {
			t.Fatalf("the lapsed question: %s", q.body)
		}
		rate(qs[2].ID, "good")
		done := alice.get(base + "/practice")
		for _, want := range []string{`id="summary"`, `id="sum-answered">7<`, `id="sum-right">6<`, `id="sum-time">2 minutes<`, "0% →", "Next review in"} {
			if !strings.Contains(done.body, want) {
				t.Fatalf("summary lacks %q: %s", want, done.body)
			}
		}
		// The summary is shown once; then nothing is due.
		if again := alice.get(base + "/practice"); !strings.Contains(again.body, `id="done"`) {
			t.Fatalf("after the summary: %s", again.body)
		}
	})
}

func TestPractiseEverythingAndTopics(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		alice := e.student(t, "alice@example.com")
		one, oneQs := readyStudy(t, db, alice.id, "Optics", 1)
		two, twoQs := readyStudy(t, db, alice.id, "Waves", 2)
		home := alice.get("/app")
		if !strings.Contains(home.body, `<strong class="new-today">9</strong> new available today`) || !strings.Contains(home.body, `id="practise-all"`) {
			t.Fatalf("home counts: %s", home.body)
		}
		// Every study: the older study's questions first, study named.
		q := alice.get("/app/practice")
		if q.questionID(t) != oneQs[0].ID || !strings.Contains(q.body, "Optics ·") || !strings.Contains(q.body, `id="counter">1 of 9<`) {
			t.Fatalf("practise everything: %s", q.body)
		}
		fb := alice.post("/app/practice/check", url.Values{"csrf_token": {home.csrf(t)}, "question_id": {fmt.Sprint(twoQs[5].ID)}, "answer": {"lines"}})
		if fb.status != http.StatusOK || !strings.Contains(fb.body, "Right.") {
			t.Fatalf("check across studies: %d %s", fb.status, fb.body)
		}
		// One topic of the second study.
		topics, err := db.Topics(context.Background(), alice.id, two.ID)
		if err != nil {
			t.Fatal(err)
		}
		topicURL := "/app/studies/" + two.ID + "/practice?topic=" + fmt.Sprint(topics[1].ID)
		q = alice.get(topicURL)
		if q.questionID(t) != twoQs[3].ID || !strings.Contains(q.body, "Waves › Waves topic 1") || !strings.Contains(q.body, `id="counter">1 of 3<`) ||
			!strings.Contains(q.body, `name="topic" value="`+fmt.Sprint(topics[1].ID)+`"`) {
			t.Fatalf("topic practice: %s", q.body)
		}
		p := alice.post("/app/studies/"+two.ID+"/practice", url.Values{"csrf_token": {home.csrf(t)}, "question_id": {fmt.Sprint(twoQs[3].ID)}, "rating": {"easy"}, "topic": {fmt.Sprint(topics[1].ID)}})
		if p.location != topicURL {
			t.Fatalf("after rating in a topic: %q, want %q", p.location, topicURL)
		}
		if p := alice.get("/app/studies/" + one.ID + "/practice?topic=" + fmt.Sprint(topics[1].ID)); p.status != http.StatusNotFound {
			t.Errorf("another study's topic: %d", p.status)
		}
		// The daily limit, set on the study page, bounds what is offered.
		set := alice.post("/app/studies/"+one.ID+"/settings", url.Values{"csrf_token": {home.csrf(t)}, "new_per_day": {"1"}})
		if set.status != http.StatusSeeOther {
			t.Fatalf("settings: %d %s", set.status, set.body)
		}
		if page := alice.get("/app/studies/" + one.ID); !strings.Contains(page.body, `<strong class="new-today">1</strong>`) || !strings.Contains(page.body, "up to 1 new a day") {
			t.Errorf("after the limit: %s", page.body)
		}
		for _, bad := range []string{"-1", "201", "lots", ""} {
			p := alice.post("/app/studies/"+one.ID+"/settings", url.Values{"csrf_token": {home.csrf(t)}, "new_per_day": {bad}})
			if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="new-per-day-error"`) {
				t.Errorf("limit %q: %d", bad, p.status)
			}
		}
	})
}

func TestManageStudy(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		alice := e.student(t, "alice@example.com")
		st, qs := readyStudy(t, db, alice.id, "Optics", 2)
		base := "/app/studies/" + st.ID
		token := alice.get(base).csrf(t)

		// Rename; a blank title is refused beside the form.
		if p := alice.post(base+"/rename", url.Values{"csrf_token": {token}, "title": {" "}}); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="rename-error"`) {
			t.Errorf("blank title: %d", p.status)
		}
		if p := alice.follow(alice.post(base+"/rename", url.Values{"csrf_token": {token}, "title": {"Light"}})); !strings.Contains(p.body, "<h1>Light</h1>") || !strings.Contains(p.body, "Renamed.") {
			t.Errorf("after rename: %s", p.body)
		}

		// The question list, searched.
		list := alice.get(base + "/questions?q=COLOUR+1")
		if list.status != http.StatusOK || !strings.Contains(list.body, "Which colour 1?") || strings.Contains(list.body, "Which colour 0?") || !strings.Contains(list.body, "1 question matches") {
			t.Fatalf("search: %s", list.body)
		}
		// Edit: a refused edit keeps the values; a good one is saved.
		qURL := fmt.Sprintf("%s/questions/%d", base, qs[0].ID)
		if p := alice.get(qURL); !strings.Contains(p.body, `value="Violet"`) {
			t.Fatalf("edit form: %s", p.body)
		}
		bad := alice.post(qURL, url.Values{"csrf_token": {token}, "prompt": {"Which colour is fire?"}, "answer": {"Orange"}, "choice": {"Blue", "Red", "", ""}})
		if bad.status != http.StatusUnprocessableEntity || !regexp.MustCompile(`id="choices-error">[^<]*must be one of the choices`).MatchString(bad.body) || !strings.Contains(bad.body, "Which colour is fire?") {
			t.Errorf("bad edit: %d %s", bad.status, bad.body)
		}
		good := alice.post(qURL, url.Values{"csrf_token": {token}, "prompt": {"Which colour is fire?"}, "answer": {"Orange"}, "choice": {"Blue", "Orange", "Red", ""}, "alternatives": {"amber\r\n\r\nflame orange"}})
		if good.status != http.StatusSeeOther {
			t.Fatalf("edit: %d %s", good.status, good.body)
		}
		q, err := db.PracticeQuestion(context.Background(), alice.id, st.ID, qs[0].ID)
		if err != nil || q.Prompt != "Which colour is fire?" || strings.Join(q.Choices, ",") != "Blue,Orange,Red" || strings.Join(q.Alternatives, ",") != "amber,flame orange" {
			t.Errorf("after edit: %+v %v", q, err)
		}
		// Suspend: never asked.
		for _, id := range []int64{qs[0].ID, qs[1].ID} {
			if p := alice.post(fmt.Sprintf("%s/questions/%d/suspend", base, id), url.Values{"csrf_token": {token}, "suspended": {"true"}}); p.status != http.StatusSeeOther {
				t.Fatalf("suspend: %d", p.status)
			}
		}
		if p := alice.get(base + "/practice"); p.questionID(t) != qs[2].ID || !strings.Contains(p.body, `id="counter">1 of 4<`) {
			t.Errorf("practice with two suspended: %s", p.body)
		}
		if p := alice.get(base + "/questions"); strings.Count(p.body, "Suspended</strong>") != 2 {
			t.Errorf("the list does not mark the suspended questions: %s", p.body)
		}
		// Delete a question.
		if p := alice.post(fmt.Sprintf("%s/questions/%d/delete", base, qs[2].ID), url.Values{"csrf_token": {token}}); p.status != http.StatusSeeOther {
			t.Fatalf("delete question: %d", p.status)
		}
		if _, err := db.PracticeQuestion(context.Background(), alice.id, st.ID, qs[2].ID); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Errorf("deleted question: %v", err)
		}
		// Delete the study: a confirmation first.
		confirm := alice.get(base + "/delete")
		if confirm.status != http.StatusOK || !strings.Contains(confirm.body, "5 questions") || !strings.Contains(confirm.body, `id="confirm-delete"`) {
			t.Fatalf("confirmation: %s", confirm.body)
		}
		gone := alice.follow(alice.post(base+"/delete", url.Values{"csrf_token": {token}}))
		if !strings.Contains(gone.body, "Deleted “Light”.") || strings.Contains(gone.body, base) {
			t.Errorf("after delete: %s", gone.body)
		}
		if p := alice.get(base); p.status != http.StatusNotFound {
			t.Errorf("deleted study: %d", p.status)
		}
	})
}

func TestExport(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		alice := e.student(t, "alice@example.com")
		st, qs := readyStudy(t, db, alice.id, "Optics: light/colour", 2)
		ctx := context.Background()
		if err := db.EditQuestion(ctx, alice.id, st.ID, qs[1].ID, studyloop.QuestionEdit{Prompt: qs[1].Prompt, Answer: "Refraction", Alternatives: []string{"bending", "Brechung"}}); err != nil {
			t.Fatal(err)
		}
		if err := db.SuspendQuestion(ctx, alice.id, st.ID, qs[5].ID, true); err != nil {
			t.Fatal(err)
		}
		if err := db.EditQuestion(ctx, alice.id, st.ID, qs[3].ID, studyloop.QuestionEdit{Prompt: `=HYPERLINK("http://x.invalid","Which colour 1?")`, Answer: "Red", Choices: qs[3].Choices}); err != nil {
			t.Fatal(err)
		}
		base := "/app/studies/" + st.ID

		csvPage := alice.get(base + "/export.csv")
		if csvPage.status != http.StatusOK || csvPage.header.Get("Content-Type") != "text/csv; charset=utf-8" ||
			csvPage.header.Get("Content-Disposition") != `attachment; filename="Optics- light-colour.csv"` {
			t.Fatalf("CSV: %d %v", csvPage.status, csvPage.header)
		}
		rows, err := csv.NewReader(strings.NewReader(csvPage.body)).ReadAll()
		if err != nil || len(rows) != 7 {
			t.Fatalf("CSV rows: %d (%v)", len(rows), err)
		}
		want := [][]string{
			{"topic", "type", "question", "answer", "choices", "also_accepted", "suspended"},
			{"Optics: light/colour topic 0", "multiple_choice", "Which colour 0?", "Red", "Blue | Red | Green | Violet", "", "no"},
			{"Optics: light/colour topic 0", "term_definition", qs[1].Prompt, "Refraction", "", "bending | Brechung", "no"},
		}
		for i, w := range want {
			if strings.Join(rows[i], "\t") != strings.Join(w, "\t") {
				t.Errorf("CSV row %d: %q, want %q", i, rows[i], w)
			}
		}
		if rows[6][6] != "yes" {
			t.Errorf("the suspended question: %q", rows[6])
		}
		if rows[4][2] != `'=HYPERLINK("http://x.invalid","Which colour 1?")` {
			t.Errorf("a formula-like question is exported as %q", rows[4][2])
		}

		apkg := alice.get(base + "/export.apkg")
		if apkg.status != http.StatusOK || apkg.header.Get("Content-Disposition") != `attachment; filename="Optics- light-colour.apkg"` {
			t.Fatalf("apkg: %d %v", apkg.status, apkg.header)
		}
		p := ankitest.Read(t, []byte(apkg.body))
		if len(p.Notes) != 6 || len(p.Cards) != 6 {
			t.Fatalf("%d notes, %d cards, want 6 each", len(p.Notes), len(p.Cards))
		}
		if deck := p.Decks[fmt.Sprint(p.Cards[0].Did)].Name; deck != "Studyloop::Optics: light/colour" {
			t.Errorf("deck %q", deck)
		}
		mc, term, cloze := p.Notes[0], p.Notes[1], p.Notes[2]
		if mc.Mid != anki.BasicModelID || mc.Fields[0] != `Which colour 0?<ol type="A"><li>Blue</li><li>Red</li><li>Green</li><li>Violet</li></ol>` || mc.Fields[1] != "Red" ||
			mc.Tags != " Optics:_light/colour_topic_0 " {
			t.Errorf("multiple choice note: %+v", mc)
		}
		if term.Fields[1] != "Refraction<br>Also accepted: bending; Brechung" {
			t.Errorf("term note: %+v", term)
		}
		if cloze.Mid != anki.ClozeModelID || cloze.Fields[0] != "Light travels in straight {{c1::lines}} 0." {
			t.Errorf("cloze note: %+v", cloze)
		}
		if p.Cards[5].Queue != -1 || p.Cards[4].Queue != 0 {
			t.Errorf("suspension: %+v", p.Cards)
		}
	})
}

func TestPagesArePrivate(t *testing.T) {
	// Every page and form of the web app, asked by another student for
	// Alice's study or question, answers 404 and changes nothing.
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		alice := e.student(t, "alice@example.com")
		mallory := e.student(t, "mallory@example.com")
		st, qs := readyStudy(t, db, alice.id, "Secret optics", 1)
		own, _ := readyStudy(t, db, mallory.id, "Mallory's", 1)
		token := mallory.get("/app").csrf(t)
		her := "/app/studies/" + st.ID
		hers := fmt.Sprintf("%s/questions/%d", her, qs[0].ID)
		herThroughHis := fmt.Sprintf("/app/studies/%s/questions/%d", own.ID, qs[0].ID)
		form := func(kv ...string) url.Values {
			v := url.Values{"csrf_token": {token}, "question_id": {fmt.Sprint(qs[0].ID)}}
			for i := 0; i < len(kv); i += 2 {
				v.Set(kv[i], kv[i+1])
			}
			return v
		}
		edit := form("prompt", "Mine?", "answer", "Blue", "choice", "Blue")
		edit["choice"] = []string{"Blue", "Red"}
		tests := []struct {
			name string
			do   func() page
		}{
			{"study page", func() page { return mallory.get(her) }},
			{"practice page", func() page { return mallory.get(her + "/practice") }},
			{"check in her study", func() page { return mallory.post(her+"/practice/check", form("answer", "Red")) }},
			{"rate in her study", func() page { return mallory.post(her+"/practice", form("rating", "good")) }},
			{"her question through his study", func() page { return mallory.post("/app/studies/"+own.ID+"/practice", form("rating", "good")) }},
			{"her question checked across studies", func() page { return mallory.post("/app/practice/check", form("answer", "Red")) }},
			{"her question rated across studies", func() page { return mallory.post("/app/practice", form("rating", "good")) }},
			{"rename", func() page { return mallory.post(her+"/rename", form("title", "Mine")) }},
			{"settings", func() page { return mallory.post(her+"/settings", form("new_per_day", "3")) }},
			{"delete confirmation", func() page { return mallory.get(her + "/delete") }},
			{"delete", func() page { return mallory.post(her+"/delete", form()) }},
			{"question list", func() page { return mallory.get(her + "/questions") }},
			{"CSV export", func() page { return mallory.get(her + "/export.csv") }},
			{"Anki export", func() page { return mallory.get(her + "/export.apkg") }},
			{"edit form", func() page { return mallory.get(hers) }},
			{"edit", func() page { return mallory.post(hers, edit) }},
			{"edit through his study", func() page { return mallory.post(herThroughHis, edit) }},
			{"suspend", func() page { return mallory.post(hers+"/suspend", form("suspended", "true")) }},
			{"suspend through his study", func() page { return mallory.post(herThroughHis+"/suspend", form("suspended", "true")) }},
			{"delete question", func() page { return mallory.post(hers+"/delete", form()) }},
			{"delete question through his study", func() page { return mallory.post(herThroughHis+"/delete", form()) }},
			{"missing study", func() page { return mallory.get("/app/studies/st_nothing") }},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				p := tt.do()
				if p.status != http.StatusNotFound {
					t.Fatalf("status %d, want 404", p.status)
				}
				if strings.Contains(p.body, "Secret optics") || strings.Contains(p.body, "Which colour") {
					t.Fatalf("the page reveals Alice's study: %s", p.body)
				}
			})
		}
		if home := mallory.get("/app"); strings.Contains(home.body, "Secret optics") || !strings.Contains(home.body, "Mallory&#39;s") {
			t.Errorf("Mallory's list: %s", home.body)
		}
		m, err := storetest.Service(db).StudyMastery(context.Background(), alice.id, st.ID, e.clock())
		if err != nil || m.Attempts != 0 || m.Title != "Secret optics" || m.Questions != len(qs) {
			t.Errorf("Alice's study changed after Mallory's attempts: %+v (err %v)", m, err)
		}
		q, err := db.PracticeQuestion(context.Background(), alice.id, st.ID, qs[0].ID)
		if err != nil || q.Prompt != qs[0].Prompt || q.Suspended {
			t.Errorf("Alice's question changed: %+v %v", q, err)
		}
		// Signed out, every page sends to sign-in.
		anon := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		for _, path := range []string{"/app", her, her + "/practice", "/app/practice", her + "/questions", hers, her + "/delete", her + "/export.csv", her + "/export.apkg"} {
			resp, err := anon.Get(e.srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/signin?") {
				t.Errorf("%s signed out: %d %q", path, resp.StatusCode, loc)
			}
		}
	})
}

func TestFailedStudyShowsItsReason(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		alice := e.student(t, "alice@example.com")
		ctx := context.Background()
		st, err := db.CreateStudy(ctx, alice.id, "Broken", "Some text.")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.ClaimStudy(ctx, "test", time.Minute, store.AnyLane); err != nil {
			t.Fatal(err)
		}
		if err := db.FailStudy(ctx, st.ID, "test", "The text has no sentences to ask about."); err != nil {
			t.Fatal(err)
		}
		p := alice.get("/app/studies/" + st.ID)
		if p.status != http.StatusOK || !strings.Contains(p.body, html.EscapeString("The text has no sentences to ask about.")) ||
			!strings.Contains(p.body, `id="study-status">Could not be processed<`) || !strings.Contains(p.body, `id="failure-reason">The text has no sentences`) || p.header.Get("Refresh") != "" {
			t.Fatalf("failed study page: %d refresh=%q %s", p.status, p.header.Get("Refresh"), p.body)
		}
	})
}

package webapp_test

import (
	"context"
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
	app := webapp.New(db, sessions, logger, &webapp.Options{Notify: func() { e.notified.Add(1) }, Now: e.clock, Extractor: x})
	mux := http.NewServeMux()
	mux.Handle("GET /app", sessions.RequireUser(app.Home()))
	mux.Handle("POST /app/studies", sessions.RequireUser(sessions.RequireCSRF(app.CreateStudy())))
	mux.Handle("POST /app/studies/pdf", sessions.RequireUser(app.ParseUpload(sessions.RequireCSRF(app.CreateFromPDF()))))
	mux.Handle("POST /app/studies/photos", sessions.RequireUser(app.ParseUpload(sessions.RequireCSRF(app.CreateFromPhotos()))))
	mux.Handle("GET /app/studies/{id}", sessions.RequireUser(app.Study()))
	mux.Handle("GET /app/studies/{id}/practice", sessions.RequireUser(app.Practice()))
	mux.Handle("POST /app/studies/{id}/practice", sessions.RequireUser(sessions.RequireCSRF(app.Answer())))
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
	ctx := context.Background()
	st, err := db.CreateStudy(ctx, userID, title, "Notes about "+title+".")
	if err != nil {
		t.Fatal(err)
	}
	if c, ok, err := db.ClaimStudy(ctx, "test", time.Minute); err != nil || !ok || c.Study.ID != st.ID {
		t.Fatalf("claim: %v %v", ok, err)
	}
	var ex studyloop.Extraction
	for i := range topics {
		ex.Topics = append(ex.Topics, studyloop.Topic{Parent: -1, Title: fmt.Sprintf("%s topic %d", title, i)})
		ex.Questions = append(ex.Questions,
			studyloop.Question{Topic: i, Type: studyloop.QuestionMultipleChoice, Prompt: fmt.Sprintf("Which colour %d?", i), Answer: "Red", Choices: []string{"Blue", "Red", "Green", "Violet"}},
			studyloop.Question{Topic: i, Type: studyloop.QuestionTermDefinition, Prompt: fmt.Sprintf("Which term matches this description: bending of light %d?", i), Answer: "Refraction"},
			studyloop.Question{Topic: i, Type: studyloop.QuestionCloze, Prompt: fmt.Sprintf("Light travels in straight ____ %d.", i), Answer: "lines"},
		)
	}
	if err := db.CompleteStudy(ctx, st.ID, "test", ex); err != nil {
		t.Fatal(err)
	}
	qs, err := db.Questions(ctx, userID, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	return st, qs
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
			{"blank text", url.Values{"csrf_token": {token}, "text": {"   "}}, http.StatusUnprocessableEntity, "class=\"error\""},
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
			!strings.Contains(studyPage.body, `id="study-status">uploaded<`) || studyPage.header.Get("Refresh") == "" {
			t.Fatalf("new study page: %d refresh=%q %s", studyPage.status, studyPage.header.Get("Refresh"), studyPage.body)
		}
		// Practice waits until the study is ready.
		if pr := alice.get(p.location + "/practice"); pr.status != http.StatusSeeOther || pr.location != p.location {
			t.Errorf("practice of an unready study: %d %q", pr.status, pr.location)
		}
		if home := alice.get("/app"); !strings.Contains(home.body, ">Optics</a>") || !strings.Contains(home.body, ">uploaded<") {
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

		// Question 1: multiple choice, answered right.
		q := alice.get(base + "/practice")
		if got := q.questionID(t); got != qs[0].ID || !strings.Contains(q.body, `type="radio"`) || !strings.Contains(q.body, "Which colour 0?") {
			t.Fatalf("first question %d, want %d: %s", got, qs[0].ID, q.body)
		}
		token := q.csrf(t)
		fb := alice.follow(alice.post(base+"/practice", url.Values{"csrf_token": {token}, "question_id": {fmt.Sprint(qs[0].ID)}, "answer": {"Red"}}))
		if !strings.Contains(fb.body, "Correct.") || !strings.Contains(fb.body, `id="right-answer">Red<`) || !strings.Contains(fb.body, "comes back in 10 minutes") {
			t.Fatalf("feedback after a right answer: %s", fb.body)
		}

		// Question 2: typed, answered wrong.
		q = alice.get(base + "/practice")
		if got := q.questionID(t); got != qs[1].ID || !strings.Contains(q.body, `id="answer" name="answer"`) {
			t.Fatalf("second question %d, want typed %d: %s", got, qs[1].ID, q.body)
		}
		fb = alice.follow(alice.post(base+"/practice", url.Values{"csrf_token": {token}, "question_id": {fmt.Sprint(qs[1].ID)}, "answer": {"Reflection"}}))
		if !strings.Contains(fb.body, "Not quite.") || !strings.Contains(fb.body, "Your answer: Reflection") || !strings.Contains(fb.body, `id="right-answer">Refraction<`) {
			t.Fatalf("feedback after a wrong answer: %s", fb.body)
		}

		// Question 3: cloze, revealed and self-graded Easy.
		q = alice.get(base + "/practice")
		if got := q.questionID(t); got != qs[2].ID || !strings.Contains(q.body, "<details") || !strings.Contains(q.body, `id="revealed-answer">lines<`) {
			t.Fatalf("third question %d, want cloze %d: %s", got, qs[2].ID, q.body)
		}
		next := alice.follow(alice.post(base+"/practice", url.Values{"csrf_token": {token}, "question_id": {fmt.Sprint(qs[2].ID)}, "rating": {"easy"}}))
		if !strings.Contains(next.body, "Recorded “Easy”") || next.questionID(t) != qs[3].ID {
			t.Fatalf("after a self-grade: %s", next.body)
		}
		// A self-graded question without a rating, and a typed one without an
		// answer, are refused and change nothing.
		if p := alice.post(base+"/practice", url.Values{"csrf_token": {token}, "question_id": {fmt.Sprint(qs[5].ID)}, "rating": {"perfect"}}); p.status != http.StatusUnprocessableEntity {
			t.Errorf("bad rating: status %d", p.status)
		}
		if p := alice.post(base+"/practice", url.Values{"csrf_token": {token}, "question_id": {fmt.Sprint(qs[4].ID)}, "answer": {" "}}); p.status != http.StatusUnprocessableEntity {
			t.Errorf("blank answer: status %d", p.status)
		}

		// The answers were scheduled: right Good, wrong Again, self-graded Easy.
		m, err := db.StudyMastery(context.Background(), alice.id, st.ID, e.clock())
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Topics[0]; got.Attempts != 3 || got.CurrentStreak != 1 || got.BestStreak != 1 || got.Learning != 2 || got.Review != 1 {
			t.Errorf("topic 0 after right, wrong, easy: %+v", got)
		}
		if m.Topics[1].Attempts != 0 {
			t.Errorf("topic 1 attempts %d, want 0", m.Topics[1].Attempts)
		}

		// Mastery on the study page went up.
		study = alice.get(base)
		if pct := study.studyPercent(t); pct <= 0 {
			t.Errorf("mastery after practice %d%%, want above 0", pct)
		}
		if !strings.Contains(study.body, "3 answers so far") {
			t.Errorf("study page does not count the answers: %s", study.body)
		}

		// Answer the rest; then nothing is due until the first comes back.
		for i := 3; i < len(qs); i++ {
			q := alice.get(base + "/practice")
			id := q.questionID(t)
			form := url.Values{"csrf_token": {token}, "question_id": {fmt.Sprint(id)}, "answer": {"Red"}, "rating": {"good"}}
			if p := alice.post(base+"/practice", form); p.status != http.StatusSeeOther {
				t.Fatalf("answer %d: status %d", i, p.status)
			}
			alice.get(base + "/practice") // the feedback or next page
		}
		done := alice.get(base + "/practice")
		if !strings.Contains(done.body, `id="done"`) || !strings.Contains(done.body, "Next review in") {
			t.Fatalf("after every question: %s", done.body)
		}
		// Eleven minutes on, the learning steps are due again.
		e.advance(11 * time.Minute)
		if again := alice.get(base + "/practice"); again.questionID(t) == 0 {
			t.Fatal("nothing due after the learning step")
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
		tests := []struct {
			name   string
			do     func() page
			status int
		}{
			{"study page", func() page { return mallory.get("/app/studies/" + st.ID) }, http.StatusNotFound},
			{"practice page", func() page { return mallory.get("/app/studies/" + st.ID + "/practice") }, http.StatusNotFound},
			{"answer in her study", func() page {
				return mallory.post("/app/studies/"+st.ID+"/practice", url.Values{"csrf_token": {token}, "question_id": {fmt.Sprint(qs[0].ID)}, "answer": {"Red"}})
			}, http.StatusNotFound},
			{"her question through his own study", func() page {
				return mallory.post("/app/studies/"+own.ID+"/practice", url.Values{"csrf_token": {token}, "question_id": {fmt.Sprint(qs[0].ID)}, "answer": {"Red"}})
			}, http.StatusNotFound},
			{"missing study", func() page { return mallory.get("/app/studies/st_nothing") }, http.StatusNotFound},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				p := tt.do()
				if p.status != tt.status {
					t.Fatalf("status %d, want %d", p.status, tt.status)
				}
				if strings.Contains(p.body, "Secret optics") || strings.Contains(p.body, "Which colour") {
					t.Fatalf("the page reveals Alice's study: %s", p.body)
				}
			})
		}
		if home := mallory.get("/app"); strings.Contains(home.body, "Secret optics") || !strings.Contains(home.body, "Mallory&#39;s") {
			t.Errorf("Mallory's list: %s", home.body)
		}
		m, err := db.StudyMastery(context.Background(), alice.id, st.ID, e.clock())
		if err != nil || m.Attempts != 0 {
			t.Errorf("Alice's study has %d answers after Mallory's attempts (err %v)", m.Attempts, err)
		}
		// Signed out, every page sends to sign-in.
		anon := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		for _, path := range []string{"/app", "/app/studies/" + st.ID, "/app/studies/" + st.ID + "/practice"} {
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
		if _, _, err := db.ClaimStudy(ctx, "test", time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := db.FailStudy(ctx, st.ID, "test", "The text has no sentences to ask about."); err != nil {
			t.Fatal(err)
		}
		p := alice.get("/app/studies/" + st.ID)
		if p.status != http.StatusOK || !strings.Contains(p.body, html.EscapeString("The text has no sentences to ask about.")) ||
			!strings.Contains(p.body, ">failed<") || p.header.Get("Refresh") != "" {
			t.Fatalf("failed study page: %d refresh=%q %s", p.status, p.header.Get("Refresh"), p.body)
		}
	})
}

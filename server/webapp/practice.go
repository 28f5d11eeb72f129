package webapp

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/templates"
)

// sessionKey is the session key of the practice session under way: what
// it covers, when it started, how it went so far and the mastery it
// started from.
const sessionKey = "practice_session"

// practiceRun is the practice session under way, kept in the sign-in
// session between questions.
type practiceRun struct {
	Scope    string `json:"s"` // practiceScope.key
	Started  int64  `json:"t"` // unix seconds
	Answered int    `json:"n"`
	Right    int    `json:"r"` // answers rated Hard or better
	Before   int    `json:"b"` // mastery percent at the start
}

// maxGivenChars bounds a typed answer shown back on the feedback page.
const maxGivenChars = 500

// practiceScope is what a practice page covers, read from its URL.
type practiceScope struct {
	store.PracticeScope
	base  string // the practice page; check and rate are posted below it
	label string
	back  string
	topic string // the topic query value, "" for a whole study
}

func (s practiceScope) key() string { return s.base + "?" + s.topic }

// pageURL is the practice page of the scope.
func (s practiceScope) pageURL() string {
	if s.topic == "" {
		return s.base
	}
	return s.base + "?" + url.Values{"topic": {s.topic}}.Encode()
}

// answerKind says how a question of type t is answered on the page.
func answerKind(t studyloop.QuestionType) string {
	if t == studyloop.QuestionMultipleChoice {
		return templates.AnswerChoice
	}
	return templates.AnswerTyped
}

func typeLabel(t studyloop.QuestionType) string {
	switch t {
	case studyloop.QuestionMultipleChoice:
		return "Multiple choice"
	case studyloop.QuestionTermDefinition:
		return "Name the term"
	case studyloop.QuestionCloze:
		return "Fill the gap"
	}
	return "Short answer"
}

// scope reads what the request practises: the study in the path (every
// ready study without one) and the topic in the query or form. A study or
// topic that is not the student's is ENOTFOUND. ready is false for a study
// that is not ready yet.
func (a *App) scope(r *http.Request, user int64) (s practiceScope, ready bool, err error) {
	ctx := r.Context()
	id := r.PathValue("id")
	if id == "" {
		return practiceScope{base: "/app/practice", label: "Everything due, all studies", back: "/app"}, true, nil
	}
	st, err := a.db.GetStudy(ctx, user, id)
	if err != nil {
		return s, false, err
	}
	s = practiceScope{PracticeScope: store.PracticeScope{StudyID: st.ID}, base: practiceURL(st.ID), label: st.Title, back: studyURL(st.ID)}
	if st.Status != studyloop.StatusReady {
		return s, false, nil
	}
	if raw := r.FormValue("topic"); raw != "" {
		topicID, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return s, false, studyloop.Errorf(studyloop.ENOTFOUND, "No such topic in this study.")
		}
		topics, err := a.db.Topics(ctx, user, st.ID)
		if err != nil {
			return s, false, err
		}
		s.TopicID, s.topic = topicID, raw
		s.label = ""
		for _, t := range topics {
			if t.ID == topicID {
				s.label = st.Title + " › " + t.Title
			}
		}
		if s.label == "" {
			return s, false, studyloop.Errorf(studyloop.ENOTFOUND, "No such topic in this study.")
		}
	}
	return s, true, nil
}

// masteryPercent is the student's mastery of the scope at now.
func (a *App) masteryPercent(ctx context.Context, user int64, s practiceScope, now time.Time) (int, error) {
	if s.StudyID == "" {
		sum, err := a.study.MasterySummary(ctx, user, now)
		return masteryBar(sum.Score, "").Percent, err
	}
	m, err := a.study.StudyMastery(ctx, user, s.StudyID, now)
	if err != nil {
		return 0, err
	}
	for _, t := range m.Topics {
		if t.TopicID == s.TopicID {
			return masteryBar(t.Score, "").Percent, nil
		}
	}
	return masteryBar(m.Score, "").Percent, nil
}

// run returns the practice session under way in the scope, or starts one.
func (a *App) run(ctx context.Context, user int64, s practiceScope, now time.Time) (practiceRun, error) {
	var run practiceRun
	if raw := a.sessions.GetString(ctx, sessionKey); raw != "" && json.Unmarshal([]byte(raw), &run) == nil && run.Scope == s.key() {
		return run, nil
	}
	before, err := a.masteryPercent(ctx, user, s, now)
	return practiceRun{Scope: s.key(), Started: now.Unix(), Before: before}, err
}

func (a *App) saveRun(ctx context.Context, run practiceRun) error {
	raw, err := json.Marshal(run)
	if err != nil {
		return err
	}
	a.sessions.PutString(ctx, sessionKey, string(raw))
	return nil
}

// practicePage fills what every state of the practice page shows.
func (a *App) practicePage(ctx context.Context, s practiceScope) templates.PracticeProps {
	return templates.PracticeProps{
		Page:      templates.PageProps{Title: "Practice", SignedIn: true},
		CSRFToken: a.sessions.CSRFToken(ctx),
		Scope:     s.label, BackURL: s.back,
		CheckURL: s.base + "/check", RateURL: s.base,
		TopicValue: s.topic,
	}
}

// counter sets the page's "Position of Total": answers given in the run
// and what the scope can still ask now.
func (a *App) counter(ctx context.Context, user int64, s practiceScope, run practiceRun, now time.Time, p *templates.PracticeProps) error {
	counts, _, err := a.db.PracticeCounts(ctx, user, s.PracticeScope, now)
	p.Position = run.Answered + 1
	p.Total = max(run.Answered+counts.Total(), p.Position)
	return err
}

// Practice asks the scope's next question (due reviews first, then new
// ones within each study's daily limit) with the session's counter, or
// sums up the session when nothing is left, or says that nothing is due.
// GET /app/practice (every study) and GET /app/studies/{id}/practice
// (one study; ?topic= one topic with its subtopics).
func (a *App) Practice() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		s, ready, err := a.scope(r, user)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if !ready {
			http.Redirect(w, r, s.back, http.StatusSeeOther)
			return
		}
		now := a.now()
		run, err := a.run(ctx, user, s, now)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		p := a.practicePage(ctx, s)
		q, found, err := a.db.NextQuestion(ctx, user, s.PracticeScope, now)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if !found {
			if err := a.finish(ctx, user, s, run, now, &p); err != nil {
				a.fail(w, r, err)
				return
			}
			a.render(w, r, http.StatusOK, templates.Practice(p))
			return
		}
		if err := a.counter(ctx, user, s, run, now, &p); err != nil {
			a.fail(w, r, err)
			return
		}
		if err := a.saveRun(ctx, run); err != nil {
			a.fail(w, r, err)
			return
		}
		topics, err := a.db.Topics(ctx, user, q.StudyID)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		pq := &templates.PracticeQuestion{ID: q.ID, Kind: answerKind(q.Type), Label: typeLabel(q.Type), Prompt: q.Prompt}
		for _, t := range topics {
			if t.ID == q.TopicID && !q.NamedBy(t.Title) {
				pq.Topic = t.Title
			}
		}
		if s.StudyID == "" {
			st, err := a.db.GetStudy(ctx, user, q.StudyID)
			if err != nil {
				a.fail(w, r, err)
				return
			}
			pq.Study = st.Title
		}
		if pq.Kind == templates.AnswerChoice {
			pq.Choices = q.Choices
		}
		p.Question = pq
		a.render(w, r, http.StatusOK, templates.Practice(p))
	})
}

// finish fills the end of a session: its summary when questions were
// answered (and forgets the run), else when something is next due.
func (a *App) finish(ctx context.Context, user int64, s practiceScope, run practiceRun, now time.Time, p *templates.PracticeProps) error {
	if run.Answered == 0 {
		next, err := a.nextReview(ctx, user, s, now)
		p.NextReview = next
		return err
	}
	after, err := a.masteryPercent(ctx, user, s, now)
	if err != nil {
		return err
	}
	a.sessions.PopString(ctx, sessionKey)
	sum := &templates.PracticeSummary{
		Answered: run.Answered, Right: run.Right, Before: run.Before, After: after,
		Time: duration(now.Sub(time.Unix(run.Started, 0))),
	}
	if s.StudyID != "" {
		all, _, err := a.db.PracticeCounts(ctx, user, store.PracticeScope{}, now)
		if err != nil {
			return err
		}
		if all.Total() > 0 {
			sum.NextURL, sum.NextLabel = "/app/practice", fmt.Sprintf("Practise everything else due (%d)", all.Total())
		}
	}
	if sum.NextURL == "" {
		if sum.NextReview, err = a.nextReview(ctx, user, s, now); err != nil {
			return err
		}
	}
	p.Summary = sum
	return nil
}

// nextReview says when the scope's studies next have a review due.
func (a *App) nextReview(ctx context.Context, user int64, s practiceScope, now time.Time) (string, error) {
	if s.StudyID == "" {
		sum, err := a.study.MasterySummary(ctx, user, now)
		return until(sum.NextReview, now), err
	}
	m, err := a.study.StudyMastery(ctx, user, s.StudyID, now)
	return until(m.NextReview, now), err
}

// practiceQuestion reads the posted question of the scope.
func (a *App) practiceQuestion(r *http.Request, user int64, s practiceScope) (studyloop.Question, error) {
	qid, err := strconv.ParseInt(r.PostFormValue("question_id"), 10, 64)
	if err != nil {
		return studyloop.Question{}, studyloop.Errorf(studyloop.EINVALID, "The answer names no question.")
	}
	return a.db.PracticeQuestion(r.Context(), user, s.StudyID, qid)
}

// Check grades an answer (or shows the answer when the student asks) and
// shows the feedback: the verdict, the right answer, the passage it came
// from and the four ratings with when each would bring the question back.
// Nothing is recorded until a rating is chosen.
// POST /app/practice/check and /app/studies/{id}/practice/check.
func (a *App) Check() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		s, _, err := a.scope(r, user)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		q, err := a.practiceQuestion(r, user, s)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		now := a.now()
		given := strings.TrimSpace(r.PostFormValue("answer"))
		verdict := templates.VerdictRevealed
		if r.PostFormValue("reveal") == "" && given != "" {
			verdict = grade(given, q)
		}
		previews, err := a.study.PreviewAnswer(ctx, user, q.ID, now)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		source, err := a.db.QuestionSource(ctx, user, q.ID)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		run, err := a.run(ctx, user, s, now)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		p := a.practicePage(ctx, s)
		if err := a.counter(ctx, user, s, run, now, &p); err != nil {
			a.fail(w, r, err)
			return
		}
		f := &templates.PracticeFeedback{
			QuestionID: q.ID, Verdict: verdict, Prompt: q.Prompt, Given: truncate(given, maxGivenChars),
			Answer: q.Answer, Alternatives: q.Alternatives, Source: source, Suggested: "good",
		}
		if verdict == templates.VerdictWrong {
			f.Suggested = "again"
		}
		for rt := fsrs.Again; rt <= fsrs.Easy; rt++ {
			f.Ratings = append(f.Ratings, templates.RatingButton{
				Value: rt.String(), Label: ratingLabels[rt], Key: int(rt), Interval: shortInterval(previews[rt].Sub(now)),
			})
		}
		p.Feedback = f
		a.render(w, r, http.StatusOK, templates.Practice(p))
	})
}

var ratingLabels = map[fsrs.Rating]string{fsrs.Again: "Again", fsrs.Hard: "Hard", fsrs.Good: "Good", fsrs.Easy: "Easy"}

// Rate records the student's rating of an answer, counts it in the
// session and goes on to the next question.
// POST /app/practice and /app/studies/{id}/practice.
func (a *App) Rate() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		s, _, err := a.scope(r, user)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		q, err := a.practiceQuestion(r, user, s)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		rating, err := fsrs.ParseRating(r.PostFormValue("rating"))
		if err != nil {
			a.fail(w, r, studyloop.Errorf(studyloop.EINVALID, "Rate your answer: again, hard, good or easy."))
			return
		}
		now := a.now()
		run, err := a.run(ctx, user, s, now)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if _, err := a.study.RecordAnswer(ctx, user, q.ID, rating, now); err != nil {
			a.fail(w, r, err)
			return
		}
		run.Answered++
		if rating.Passed() {
			run.Right++
		}
		if err := a.saveRun(ctx, run); err != nil {
			a.fail(w, r, err)
			return
		}
		http.Redirect(w, r, s.pageURL(), http.StatusSeeOther)
	})
}

// grade judges a typed or chosen answer against the question's answer and
// its accepted alternatives, ignoring case, spacing, surrounding
// punctuation and a leading article. A typed answer within a small typo of
// one (see typoAllowance) is close; a choice must match.
func grade(given string, q studyloop.Question) string {
	g := normalizeAnswer(given)
	if g == "" {
		return templates.VerdictWrong
	}
	verdict := templates.VerdictWrong
	for _, want := range append([]string{q.Answer}, q.Alternatives...) {
		w := normalizeAnswer(want)
		switch {
		case g == w:
			return templates.VerdictRight
		case q.Type != studyloop.QuestionMultipleChoice && editDistance(g, w) <= typoAllowance(w):
			verdict = templates.VerdictClose
		}
	}
	return verdict
}

// typoAllowance is how many typos (see editDistance) a typed answer may
// have: none below 5 characters, one below 12, then two.
func typoAllowance(want string) int {
	switch n := utf8.RuneCountInString(want); {
	case n < 5:
		return 0
	case n < 12:
		return 1
	}
	return 2
}

// editDistance counts the typos between a and b: characters inserted,
// deleted, replaced, or two neighbours swapped (the optimal string
// alignment distance, in characters).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// articles are the leading words normalizeAnswer drops, in English and
// German, the languages the generator reads.
var articles = []string{"the ", "a ", "an ", "der ", "die ", "das ", "den ", "dem ", "des ", "ein ", "eine ", "einen ", "einem ", "einer "}

// scriptDigits writes subscript and superscript digits as plain ones, so
// that a typed "CO2" is "CO₂".
var scriptDigits = strings.NewReplacer("₀", "0", "₁", "1", "₂", "2", "₃", "3", "₄", "4", "₅", "5", "₆", "6", "₇", "7", "₈", "8", "₉", "9",
	"⁰", "0", "¹", "1", "²", "2", "³", "3", "⁴", "4", "⁵", "5", "⁶", "6", "⁷", "7", "⁸", "8", "⁹", "9")

func normalizeAnswer(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(scriptDigits.Replace(s)), " "))
	s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
	for _, article := range articles {
		if rest, ok := strings.CutPrefix(s, article); ok {
			s = rest
			break
		}
	}
	return s
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// shortInterval writes how long until a question comes back, as on the
// rating buttons: "<1m", "10m", "5h", "3d", "4mo", "1.2y".
func shortInterval(d time.Duration) string {
	d = d.Round(time.Second) // the scheduler's times are stored to the microsecond
	switch {
	case d < time.Minute:
		return "<1m"
	case d < time.Hour:
		return itoa(int(math.Round(d.Minutes()))) + "m"
	case d < 24*time.Hour:
		return itoa(int(math.Round(d.Hours()))) + "h"
	}
	days := d.Hours() / 24
	switch {
	case days < 30:
		return itoa(int(math.Round(days))) + "d"
	case days < 365:
		return itoa(int(math.Round(days/30))) + "mo"
	}
	return strconv.FormatFloat(math.Round(days/36.5)/10, 'f', -1, 64) + "y"
}

// duration writes how long a session took: "40 seconds", "3 minutes".
func duration(d time.Duration) string {
	if d < time.Minute {
		return count(int(max(d.Round(time.Second)/time.Second, 0)), "second")
	}
	return count(int(d.Round(time.Minute)/time.Minute), "minute")
}

// until says when t comes, relative to now, in words: "now", "in 5
// minutes", "in 3 days". It is "" for nil.
func until(t *time.Time, now time.Time) string {
	if t == nil {
		return ""
	}
	d := t.Sub(now)
	minutes, hours := int(d.Round(time.Minute)/time.Minute), int(d.Round(time.Hour)/time.Hour)
	switch {
	case d <= 0:
		return "now"
	case minutes < 1:
		return "in less than a minute"
	case minutes < 60:
		return "in " + count(minutes, "minute")
	case hours < 24:
		return "in " + count(hours, "hour")
	}
	return "in " + count(int(d.Round(24*time.Hour)/(24*time.Hour)), "day")
}

func count(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return itoa(n) + " " + unit + "s"
}

func itoa(n int) string { return strconv.Itoa(n) }

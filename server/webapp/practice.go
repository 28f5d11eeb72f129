package webapp

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/templates"
)

// feedbackKey is the session key under which an answer's outcome waits for
// the next practice page (post, redirect, get).
const feedbackKey = "practice_feedback"

// answerOutcome is what the practice page shows about the last answer.
type answerOutcome struct {
	StudyID    string `json:"s"`
	QuestionID int64  `json:"q"`
	Graded     bool   `json:"g"` // graded automatically; else self-graded
	Correct    bool   `json:"c"`
	Given      string `json:"a,omitempty"`
	Rating     string `json:"r,omitempty"`
	Due        int64  `json:"d"` // unix seconds
}

// maxGivenChars bounds a typed answer kept for the feedback page.
const maxGivenChars = 500

// answerKind says how a question of type t is answered on the page.
func answerKind(t studyloop.QuestionType) string {
	switch t {
	case studyloop.QuestionMultipleChoice:
		return templates.AnswerChoice
	case studyloop.QuestionTermDefinition:
		return templates.AnswerTyped
	}
	return templates.AnswerReveal // cloze and short answers are self-graded
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

// Practice serves the next due question of a study (due reviews first,
// then a bounded number of new ones), or the outcome of the answer just
// given, or says that nothing is due. GET /app/studies/{id}/practice.
func (a *App) Practice() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		st, err := a.db.GetStudy(ctx, user, r.PathValue("id"))
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if st.Status != studyloop.StatusReady {
			http.Redirect(w, r, studyURL(st.ID), http.StatusSeeOther)
			return
		}
		now := a.now()
		p := templates.PracticeProps{
			Page:      templates.PageProps{Title: "Practise: " + st.Title, SignedIn: true},
			CSRFToken: a.sessions.CSRFToken(ctx),
			StudyURL:  studyURL(st.ID),
			ActionURL: practiceURL(st.ID),
		}
		var out answerOutcome
		if raw := a.sessions.PopString(ctx, feedbackKey); raw != "" && json.Unmarshal([]byte(raw), &out) == nil && out.StudyID == st.ID {
			q, err := a.db.PracticeQuestion(ctx, user, st.ID, out.QuestionID)
			if err == nil && out.Graded {
				p.Feedback = &templates.PracticeFeedback{
					Correct: out.Correct, Prompt: q.Prompt, Given: out.Given, Answer: q.Answer,
					NextIn: until(ptr(time.Unix(out.Due, 0)), now),
				}
				a.render(w, r, http.StatusOK, templates.Practice(p))
				return
			}
			if err == nil {
				p.Page.Flash = "Recorded “" + out.Rating + "”. That question comes back " + until(ptr(time.Unix(out.Due, 0)), now) + "."
			}
		}
		q, found, err := a.db.NextQuestion(ctx, user, st.ID, now)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if !found {
			m, err := a.db.StudyMastery(ctx, user, st.ID, now)
			if err != nil {
				a.fail(w, r, err)
				return
			}
			p.NextReview = until(m.NextReview, now)
			a.render(w, r, http.StatusOK, templates.Practice(p))
			return
		}
		topics, err := a.db.Topics(ctx, user, st.ID)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		pq := &templates.PracticeQuestion{
			ID: q.ID, Kind: answerKind(q.Type), Label: typeLabel(q.Type), Prompt: q.Prompt,
		}
		for _, t := range topics {
			if t.ID == q.TopicID {
				pq.Topic = t.Title
			}
		}
		switch pq.Kind {
		case templates.AnswerChoice:
			pq.Choices = q.Choices
		case templates.AnswerReveal:
			pq.Answer = q.Answer
		}
		p.Question = pq
		a.render(w, r, http.StatusOK, templates.Practice(p))
	})
}

// Answer records an answer to a question of the study: a chosen or typed
// answer is graded (right is Good, wrong is Again), a revealed one carries
// the student's own rating. It then sends the student back to the practice
// page, which shows the outcome. POST /app/studies/{id}/practice.
func (a *App) Answer() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		studyID := r.PathValue("id")
		qid, err := strconv.ParseInt(r.PostFormValue("question_id"), 10, 64)
		if err != nil {
			a.fail(w, r, studyloop.Errorf(studyloop.EINVALID, "The answer names no question."))
			return
		}
		q, err := a.db.PracticeQuestion(ctx, user, studyID, qid)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		out := answerOutcome{StudyID: studyID, QuestionID: q.ID}
		var rating fsrs.Rating
		switch answerKind(q.Type) {
		case templates.AnswerChoice, templates.AnswerTyped:
			given := strings.TrimSpace(r.PostFormValue("answer"))
			if given == "" {
				a.fail(w, r, studyloop.Errorf(studyloop.EINVALID, "Give an answer first."))
				return
			}
			out.Graded, out.Correct = true, sameAnswer(given, q.Answer)
			out.Given = truncate(given, maxGivenChars)
			rating = fsrs.Again
			if out.Correct {
				rating = fsrs.Good
			}
		default:
			if rating, err = fsrs.ParseRating(r.PostFormValue("rating")); err != nil {
				a.fail(w, r, studyloop.Errorf(studyloop.EINVALID, "Rate your answer: again, hard, good or easy."))
				return
			}
			out.Rating = strings.ToUpper(rating.String()[:1]) + rating.String()[1:]
		}
		card, err := a.db.RecordAnswer(ctx, user, q.ID, rating, a.now())
		if err != nil {
			a.fail(w, r, err)
			return
		}
		out.Due = card.Due.Unix()
		raw, err := json.Marshal(out)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		a.sessions.PutString(ctx, feedbackKey, string(raw))
		http.Redirect(w, r, practiceURL(studyID), http.StatusSeeOther)
	})
}

// sameAnswer reports whether a typed or chosen answer matches the right
// one, ignoring case, spacing, surrounding punctuation and a leading
// article.
func sameAnswer(given, want string) bool {
	g, w := normalizeAnswer(given), normalizeAnswer(want)
	return g != "" && g == w
}

func normalizeAnswer(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
	for _, article := range []string{"the ", "a ", "an "} {
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

func ptr[T any](v T) *T { return &v }

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

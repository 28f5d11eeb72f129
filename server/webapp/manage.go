package webapp

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/templates"
)

// flashKey is the session key of a one-line confirmation shown on the
// next page (post, redirect, get).
const flashKey = "flash"

// RenameStudy gives a study a new title; a bad title is shown again next
// to the form. POST /app/studies/{id}/rename.
func (a *App) RenameStudy() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		id, title := r.PathValue("id"), r.PostFormValue("title")
		if err := a.db.RenameStudy(ctx, user, id, title); err != nil {
			if studyloop.ErrorCode(err) == studyloop.EINVALID {
				a.renderStudy(w, r, respond.StatusOf(err), studyForm{title: title, renameErr: studyloop.ErrorMessage(err)})
				return
			}
			a.fail(w, r, err)
			return
		}
		a.sessions.PutString(ctx, flashKey, "Renamed.")
		http.Redirect(w, r, studyURL(id), http.StatusSeeOther)
	})
}

// StudySettings sets a study's daily limit of new questions.
// POST /app/studies/{id}/settings.
func (a *App) StudySettings() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		id := r.PathValue("id")
		n, err := strconv.Atoi(strings.TrimSpace(r.PostFormValue("new_per_day")))
		if err != nil {
			n = -1 // refused below with the range
		}
		if err := a.db.SetNewPerDay(ctx, user, id, n); err != nil {
			if studyloop.ErrorCode(err) == studyloop.EINVALID {
				a.renderStudy(w, r, respond.StatusOf(err), studyForm{newPerDayErr: studyloop.ErrorMessage(err)})
				return
			}
			a.fail(w, r, err)
			return
		}
		a.sessions.PutString(ctx, flashKey, "Saved: up to "+itoa(n)+" new questions a day.")
		http.Redirect(w, r, studyURL(id), http.StatusSeeOther)
	})
}

// ConfirmDeleteStudy asks whether to delete a study, saying what goes with
// it. GET /app/studies/{id}/delete.
func (a *App) ConfirmDeleteStudy() http.Handler {
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
		p := templates.DeleteStudyProps{
			Page:      templates.PageProps{Title: "Delete this study?", SignedIn: true},
			CSRFToken: a.sessions.CSRFToken(ctx),
			Title:     st.Title, Questions: st.QuestionCount,
			ActionURL: studyURL(st.ID) + "/delete", CancelURL: studyURL(st.ID),
		}
		if st.Status == studyloop.StatusReady {
			m, err := a.study.StudyMastery(ctx, user, st.ID, a.now())
			if err != nil {
				a.fail(w, r, err)
				return
			}
			p.Attempts = m.Attempts
		}
		a.render(w, r, http.StatusOK, templates.DeleteStudy(p))
	})
}

// DeleteStudy deletes a study with everything in it and returns to the
// study list. POST /app/studies/{id}/delete.
func (a *App) DeleteStudy() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		st, err := a.db.GetStudy(ctx, user, r.PathValue("id"))
		if err == nil {
			err = a.db.DeleteStudy(ctx, user, st.ID)
		}
		if err != nil {
			a.fail(w, r, err)
			return
		}
		a.sessions.PutString(ctx, flashKey, "Deleted “"+st.Title+"”.")
		http.Redirect(w, r, "/app", http.StatusSeeOther)
	})
}

// Questions lists a study's questions, or those whose prompt, answer,
// accepted answers or topic contain the search (case ignored), with edit,
// suspend and delete. GET /app/studies/{id}/questions.
func (a *App) Questions() http.Handler {
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
		topics, err := a.db.Topics(ctx, user, st.ID)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		questions, err := a.db.Questions(ctx, user, st.ID)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		search := strings.TrimSpace(r.URL.Query().Get("q"))
		base := studyURL(st.ID) + "/questions"
		p := templates.QuestionsProps{
			Page:      templates.PageProps{Title: "Questions", SignedIn: true, Flash: a.sessions.PopString(ctx, flashKey)},
			CSRFToken: a.sessions.CSRFToken(ctx),
			StudyURL:  studyURL(st.ID), ListURL: base, Search: search, Total: len(questions),
		}
		needle := strings.ToLower(search)
		for _, q := range questions {
			topic := topics[q.Topic].Title
			haystack := strings.ToLower(strings.Join(append([]string{q.Prompt, q.Answer, topic}, q.Alternatives...), "\n"))
			if needle != "" && !strings.Contains(haystack, needle) {
				continue
			}
			qURL := base + "/" + strconv.FormatInt(q.ID, 10)
			p.Questions = append(p.Questions, templates.QuestionItem{
				ID: q.ID, Topic: topic, Label: typeLabel(q.Type), Prompt: q.Prompt, Answer: q.Answer,
				Alternatives: q.Alternatives, Suspended: q.Suspended,
				EditURL: qURL, SuspendURL: qURL + "/suspend", DeleteURL: qURL + "/delete",
			})
		}
		a.render(w, r, http.StatusOK, templates.Questions(p))
	})
}

// questionParams reads the study and question ids of a question route.
func questionParams(r *http.Request) (string, int64, error) {
	qid, err := strconv.ParseInt(r.PathValue("qid"), 10, 64)
	if err != nil {
		return "", 0, studyloop.Errorf(studyloop.ENOTFOUND, "Question not found.")
	}
	return r.PathValue("id"), qid, nil
}

// EditQuestionPage shows the form that edits a question.
// GET /app/studies/{id}/questions/{qid}.
func (a *App) EditQuestionPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		studyID, qid, err := questionParams(r)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		q, err := a.db.PracticeQuestion(ctx, user, studyID, qid)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		a.renderEditQuestion(w, r, http.StatusOK, q, studyloop.QuestionEdit{Prompt: q.Prompt, Answer: q.Answer, Choices: q.Choices, Alternatives: q.Alternatives}, nil)
	})
}

// renderEditQuestion shows the edit form with e's values and, when the
// edit was refused, why: beside its field, or above the form.
func (a *App) renderEditQuestion(w http.ResponseWriter, r *http.Request, status int, q studyloop.Question, e studyloop.QuestionEdit, refused error) {
	list := studyURL(q.StudyID) + "/questions"
	p := templates.EditQuestionProps{
		Page:      templates.PageProps{Title: "Edit question", SignedIn: true},
		CSRFToken: a.sessions.CSRFToken(r.Context()),
		ActionURL: list + "/" + strconv.FormatInt(q.ID, 10), CancelURL: list,
		Label:  typeLabel(q.Type),
		Prompt: e.Prompt, Answer: e.Answer, Alternatives: strings.Join(e.Alternatives, "\n"),
		MultipleChoice: q.Type == studyloop.QuestionMultipleChoice,
	}
	if refused != nil {
		p.Problem, p.ProblemField = studyloop.ErrorMessage(refused), studyloop.ErrorField(refused)
		if p.ProblemField == "" || (p.ProblemField == "choices" && !p.MultipleChoice) {
			p.Page.Error, p.Problem = p.Problem, ""
		}
	}
	if p.MultipleChoice {
		p.Choices = append(p.Choices, e.Choices...)
		for len(p.Choices) < 6 {
			p.Choices = append(p.Choices, "")
		}
	}
	a.render(w, r, status, templates.EditQuestion(p))
}

// EditQuestion saves an edited question and returns to the list; a
// refused edit is shown again with the reason.
// POST /app/studies/{id}/questions/{qid}.
func (a *App) EditQuestion() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		studyID, qid, err := questionParams(r)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		e := studyloop.QuestionEdit{
			Prompt: r.PostFormValue("prompt"), Answer: r.PostFormValue("answer"),
			Choices: r.PostForm["choice"], Alternatives: strings.Split(r.PostFormValue("alternatives"), "\n"),
		}
		err = a.db.EditQuestion(ctx, user, studyID, qid, e)
		if studyloop.ErrorCode(err) == studyloop.EINVALID {
			q, qerr := a.db.PracticeQuestion(ctx, user, studyID, qid)
			if qerr != nil {
				a.fail(w, r, qerr)
				return
			}
			a.renderEditQuestion(w, r, respond.StatusOf(err), q, e, err)
			return
		}
		if err != nil {
			a.fail(w, r, err)
			return
		}
		a.sessions.PutString(ctx, flashKey, "Question saved.")
		http.Redirect(w, r, studyURL(studyID)+"/questions#question-"+strconv.FormatInt(qid, 10), http.StatusSeeOther)
	})
}

// SuspendQuestion suspends a question (suspended=true) or resumes it.
// POST /app/studies/{id}/questions/{qid}/suspend.
func (a *App) SuspendQuestion() http.Handler {
	return a.questionAction(func(r *http.Request, user int64, studyID string, qid int64) (string, error) {
		suspend := r.PostFormValue("suspended") != "false"
		if err := a.db.SuspendQuestion(r.Context(), user, studyID, qid, suspend); err != nil {
			return "", err
		}
		if suspend {
			return "Suspended: the question will not be asked.", nil
		}
		return "Resumed: the question will be asked again.", nil
	})
}

// DeleteQuestion deletes a question with its answers.
// POST /app/studies/{id}/questions/{qid}/delete.
func (a *App) DeleteQuestion() http.Handler {
	return a.questionAction(func(r *http.Request, user int64, studyID string, qid int64) (string, error) {
		return "Question deleted.", a.db.DeleteQuestion(r.Context(), user, studyID, qid)
	})
}

// questionAction runs a change to one question and returns to the
// question list with its confirmation.
func (a *App) questionAction(change func(r *http.Request, user int64, studyID string, qid int64) (string, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		studyID, qid, err := questionParams(r)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		done, err := change(r, user, studyID, qid)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		a.sessions.PutString(ctx, flashKey, done)
		http.Redirect(w, r, studyURL(studyID)+"/questions", http.StatusSeeOther)
	})
}

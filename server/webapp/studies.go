package webapp

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/studyloop/studyloop/server/ratelimit"
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/templates"
)

// studiesPerPage is how many studies /app lists at a time.
const studiesPerPage = 20

// Home lists the student's studies, newest first, with their status and
// mastery, and offers the form to create a study. GET /app.
func (a *App) Home() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.renderHome(w, r, http.StatusOK, homeForm{})
	})
}

// homeForm is what the create form shows again after an error.
type homeForm struct {
	title, text string
	pages       string // the PDF form's page selection
	err         error
}

// homeTab is the New study tab whose form a request posted.
func homeTab(r *http.Request) string {
	switch r.URL.Path {
	case "/app/studies/pdf":
		return "pdf"
	case "/app/studies/photos":
		return "photos"
	}
	return "text"
}

func (a *App) renderHome(w http.ResponseWriter, r *http.Request, status int, form homeForm) {
	ctx := r.Context()
	user, err := userID(ctx)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	studies, next, err := a.db.ListStudies(ctx, user, studyloop.ListStudiesParams{Limit: studiesPerPage, Cursor: r.URL.Query().Get("cursor")})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	now := a.now()
	summary, err := a.study.MasterySummary(ctx, user, now)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	due, dueBy, err := a.db.PracticeCounts(ctx, user, store.PracticeScope{}, now)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	mastery := make(map[string]studyloop.StudyMastery, len(summary.Studies))
	for _, sm := range summary.Studies {
		mastery[sm.StudyID] = sm
	}
	p := templates.AppHomeProps{
		Page:         templates.PageProps{Title: "Your studies", SignedIn: true, Flash: a.sessions.PopString(ctx, flashKey)},
		CSRFToken:    a.sessions.CSRFToken(ctx),
		Due:          dueCounts(due),
		TitleValue:   form.title,
		TextValue:    form.text,
		MaxTextChars: studyloop.MaxStudyTextChars,
	}
	if form.err != nil {
		p.Tab = homeTab(r)
		if field := studyloop.ErrorField(form.err); field != "" {
			p.FieldErrors = map[string]string{field: studyloop.ErrorMessage(form.err)}
		} else {
			p.FormError = studyloop.ErrorMessage(form.err)
		}
	}
	a.uploadForms(&p, form)
	if len(summary.Studies) > 0 {
		p.Overall = &templates.OverallMastery{
			Bar:        masteryBar(summary.Score, "Overall mastery"),
			Studies:    len(summary.Studies),
			Questions:  summary.Questions,
			NextReview: until(summary.NextReview, now),
		}
	}
	for _, s := range studies {
		item := templates.StudyListItem{
			URL: studyURL(s.ID), DeleteURL: studyURL(s.ID) + "/delete", Title: s.Title,
			Status: statusLabel(s), Failed: s.Status == studyloop.StatusFailed,
			Questions: s.QuestionCount, Created: s.CreatedAt.Format("2 Jan 2006"),
		}
		if item.Failed {
			item.Status += ": " + s.Reason
		}
		if sm, ok := mastery[s.ID]; ok {
			item.Ready = true
			item.Bar = masteryBar(sm.Score, "Mastery of "+s.Title)
			item.Questions = sm.Questions
			item.Due = dueCounts(dueBy[s.ID])
		}
		p.Studies = append(p.Studies, item)
	}
	if next != "" {
		p.MoreURL = "/app?" + url.Values{"cursor": {next}}.Encode()
	}
	a.render(w, r, status, templates.AppHome(p))
}

func dueCounts(c studyloop.PracticeCounts) templates.DueCounts {
	return templates.DueCounts{DueNow: c.DueNow, NewToday: c.NewToday, NewPerDay: c.NewPerDay}
}

// statusLabel says where a study is, in words a student reads.
func statusLabel(s studyloop.Study) string {
	switch s.Status {
	case studyloop.StatusUploaded:
		return "Waiting to start"
	case studyloop.StatusProcessing:
		if s.PagesTotal > 0 && s.PagesDone < s.PagesTotal {
			return fmt.Sprintf("Reading your pages and photos: %d of %d", s.PagesDone, s.PagesTotal)
		}
		return "Reading your material and writing questions"
	case studyloop.StatusFailed:
		return "Could not be processed"
	}
	return "Ready"
}

// formFailed shows /app again with the form's values and the reason it
// was refused, or the error page for internal errors.
func (a *App) formFailed(w http.ResponseWriter, r *http.Request, form homeForm, err error) {
	var quota *studyloop.QuotaError
	if errors.As(err, &quota) && !quota.RetryAt.IsZero() {
		w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfterSeconds(time.Until(quota.RetryAt))))
	}
	if code := studyloop.ErrorCode(err); code == studyloop.EINVALID || code == studyloop.ETOOLARGE || code == studyloop.EQUOTA {
		form.err = err
		a.renderHome(w, r, respond.Status(code), form)
		return
	}
	a.fail(w, r, err)
}

// CreateStudy creates a study from pasted text or markdown, with the same
// validation and limits as the create_study tool, wakes a worker and sends
// the student to the study's page. Invalid text is shown again with the
// reason. POST /app/studies.
func (a *App) CreateStudy() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		title, text := r.PostFormValue("title"), r.PostFormValue("text")
		st, err := a.db.CreateStudy(ctx, user, title, text)
		if err != nil {
			a.formFailed(w, r, homeForm{title: title, text: text}, err)
			return
		}
		a.notify()
		http.Redirect(w, r, studyURL(st.ID), http.StatusSeeOther)
	})
}

// refreshSeconds is how often a study's page reloads while it is being
// processed.
const refreshSeconds = 3

// Study shows one study: while it is processed, its status (the page
// reloads itself); once ready, its mastery topic by topic, what is due and
// the ways to practise, change and export it. GET /app/studies/{id}.
func (a *App) Study() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.renderStudy(w, r, http.StatusOK, studyForm{})
	})
}

// studyForm is what the study page's forms show again after an error.
type studyForm struct {
	title, renameErr string
	newPerDayErr     string
}

func (a *App) renderStudy(w http.ResponseWriter, r *http.Request, status int, form studyForm) {
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
	base := studyURL(st.ID)
	p := templates.StudyPageProps{
		Page:         templates.PageProps{Title: st.Title, SignedIn: true, Flash: a.sessions.PopString(ctx, flashKey)},
		CSRFToken:    a.sessions.CSRFToken(ctx),
		Status:       statusLabel(st),
		Failed:       st.Status == studyloop.StatusFailed,
		Reason:       st.Reason,
		Waiting:      st.Status == studyloop.StatusUploaded || st.Status == studyloop.StatusProcessing,
		PagesDone:    st.PagesDone,
		PagesTotal:   st.PagesTotal,
		Title:        st.Title,
		PracticeURL:  practiceURL(st.ID),
		QuestionsURL: base + "/questions",
		RenameURL:    base + "/rename",
		DeleteURL:    base + "/delete",
		SettingsURL:  base + "/settings",
		ExportURL:    base + "/export",
		MaxNewPerDay: studyloop.MaxNewPerDay,
		RenameError:  form.renameErr,
	}
	if form.title != "" {
		p.Title = form.title
	}
	p.NewPerDayError = form.newPerDayErr
	if p.Waiting {
		w.Header().Set("Refresh", itoa(refreshSeconds))
	}
	if st.Status == studyloop.StatusReady {
		now := a.now()
		m, err := a.study.StudyMastery(ctx, user, st.ID, now)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		due, _, err := a.db.PracticeCounts(ctx, user, store.PracticeScope{StudyID: st.ID}, now)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		fillStudyPage(&p, m, now)
		p.Due = dueCounts(due)
		if err := a.topicSources(ctx, user, st.ID, m, &p); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	a.render(w, r, status, templates.StudyPage(p))
}

func fillStudyPage(p *templates.StudyPageProps, m studyloop.StudyMastery, now time.Time) {
	p.Ready = true
	p.Bar = masteryBar(m.Score, "Mastery of the study")
	p.Questions, p.Attempts = m.Questions, m.Attempts
	p.New, p.Learning, p.Review = m.New, m.Learning, m.Review
	p.NextReview = until(m.NextReview, now)
	depth := make(map[int64]int, len(m.Topics))
	for _, t := range m.Topics {
		d := 0
		if t.ParentID != nil {
			d = depth[*t.ParentID] + 1
		}
		depth[t.TopicID] = d
		p.Topics = append(p.Topics, templates.TopicRow{
			Title: t.Title, Depth: d,
			Bar:       masteryBar(t.Score, "Mastery of "+t.Title),
			Questions: t.Questions, Attempts: t.Attempts,
			CurrentStreak: t.CurrentStreak, BestStreak: t.BestStreak,
			DueNow: t.DueNow, NextReview: until(t.NextReview, now),
			PracticeURL: practiceURL(m.StudyID) + "?" + url.Values{"topic": {strconv.FormatInt(t.TopicID, 10)}}.Encode(),
		})
	}
}

// masteryBar turns a 0..1 score into a whole percentage.
func masteryBar(score float64, label string) templates.MasteryBar {
	return templates.MasteryBar{Percent: int(math.Round(min(max(score, 0), 1) * 100)), Label: label}
}

package webapp

import (
	"encoding/csv"
	"html"
	"mime"
	"net/http"
	"regexp"
	"strings"

	"github.com/studyloop/studyloop/server/anki"
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/studyloop"
)

// studyExport is a study's questions with their topic paths, for export.
type studyExport struct {
	study     studyloop.Study
	questions []studyloop.Question
	paths     [][]string // per topic index: the titles from the top topic down
}

// readExport reads the signed-in student's study named in the path.
func (a *App) readExport(r *http.Request) (studyExport, error) {
	ctx := r.Context()
	user, err := userID(ctx)
	if err != nil {
		return studyExport{}, err
	}
	st, err := a.db.GetStudy(ctx, user, r.PathValue("id"))
	if err != nil {
		return studyExport{}, err
	}
	topics, err := a.db.Topics(ctx, user, st.ID)
	if err != nil {
		return studyExport{}, err
	}
	questions, err := a.db.Questions(ctx, user, st.ID)
	if err != nil {
		return studyExport{}, err
	}
	paths := make([][]string, len(topics))
	for i, t := range topics {
		if t.Parent >= 0 {
			paths[i] = append(paths[i], paths[t.Parent]...)
		}
		paths[i] = append(paths[i], t.Title)
	}
	return studyExport{study: st, questions: questions, paths: paths}, nil
}

// attachment sets the headers of a download named after the study.
func attachment(w http.ResponseWriter, title, ext, contentType string) {
	name := strings.Trim(unsafeFileChars.ReplaceAllString(title, "-"), "-.")
	if name == "" {
		name = "study"
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name + ext}))
	w.Header().Set("Cache-Control", "no-store")
}

var unsafeFileChars = regexp.MustCompile(`[\x00-\x1f\x7f/\\:*?"<>|]+`)

// ExportCSV sends a study's questions as CSV (RFC 4180, UTF-8, a header
// row): topic path, type, question, answer, choices and accepted answers
// (separated by " | "), and whether the question is suspended. A text
// cell that a spreadsheet would run as a formula gets a leading
// apostrophe (see cell).
// GET /app/studies/{id}/export.csv.
func (a *App) ExportCSV() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ex, err := a.readExport(r)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		attachment(w, ex.study.Title, ".csv", "text/csv; charset=utf-8")
		cw := csv.NewWriter(w)
		cw.Write([]string{"topic", "type", "question", "answer", "choices", "also_accepted", "suspended"})
		for _, q := range ex.questions {
			suspended := "no"
			if q.Suspended {
				suspended = "yes"
			}
			cw.Write([]string{
				cell(strings.Join(ex.paths[q.Topic], " > ")), string(q.Type), cell(q.Prompt), cell(q.Answer),
				cell(strings.Join(q.Choices, " | ")), cell(strings.Join(q.Alternatives, " | ")), suspended,
			})
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			respond.LogServerError(a.logger, r, err)
		}
	})
}

// ExportAnki sends a study's questions as an Anki package (package anki):
// fill-the-gap questions as Cloze notes, the others as Basic notes (the
// choices of a multiple-choice question listed under it), each tagged with
// its topic path, suspended questions suspended, in a deck named after the
// study. GET /app/studies/{id}/export.apkg.
func (a *App) ExportAnki() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ex, err := a.readExport(r)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		deck := anki.Deck{Name: "Studyloop::" + strings.ReplaceAll(ex.study.Title, "::", ":")}
		for _, q := range ex.questions {
			deck.Notes = append(deck.Notes, ankiNote(q, ex.paths[q.Topic], ex.study.ID))
		}
		attachment(w, ex.study.Title, ".apkg", "application/octet-stream")
		if err := anki.Write(r.Context(), w, deck, a.now()); err != nil {
			respond.LogServerError(a.logger, r, err)
		}
	})
}

// cell guards a text against formula injection: spreadsheets run a cell
// that starts with =, +, -, @, a tab or a carriage return as a formula, so
// such a text gets a leading apostrophe, which they show as text.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// blankRE finds the gap of a fill-the-gap prompt.
var blankRE = regexp.MustCompile(`_{3,}`)

// ankiNote is a question as an Anki note, its fields in HTML.
func ankiNote(q studyloop.Question, topicPath []string, studyID string) anki.Note {
	n := anki.Note{Kind: anki.Basic, Tags: []string{ankiTag(topicPath)}, Suspended: q.Suspended, Key: studyID + "/" + itoa(int(q.ID))}
	extra := ""
	if len(q.Alternatives) > 0 {
		extra = "Also accepted: " + html.EscapeString(strings.Join(q.Alternatives, "; "))
	}
	prompt, answer := html.EscapeString(q.Prompt), html.EscapeString(q.Answer)
	switch {
	case q.Type == studyloop.QuestionCloze && blankRE.MatchString(prompt):
		done := false
		text := blankRE.ReplaceAllStringFunc(prompt, func(blank string) string {
			if done {
				return blank
			}
			done = true
			return "{{c1::" + answer + "}}"
		})
		n.Kind, n.Fields = anki.Cloze, [2]string{text, extra}
	case q.Type == studyloop.QuestionMultipleChoice:
		var list strings.Builder
		for _, c := range q.Choices {
			list.WriteString("<li>" + html.EscapeString(c) + "</li>")
		}
		n.Fields = [2]string{prompt + "<ol type=\"A\">" + list.String() + "</ol>", answer}
	default:
		n.Fields = [2]string{prompt, answer}
	}
	if n.Kind == anki.Basic && extra != "" {
		n.Fields[1] += "<br>" + extra
	}
	return n
}

// ankiTag makes a tag of a topic path: titles joined with "::" (nested
// tags), whitespace as "_", without the characters Anki refuses in tags.
func ankiTag(path []string) string {
	parts := make([]string, len(path))
	for i, title := range path {
		parts[i] = strings.Join(strings.FieldsFunc(strings.ReplaceAll(title, "::", ":"), func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '"' || r == '\u3000'
		}), "_")
	}
	return strings.Join(parts, "::")
}

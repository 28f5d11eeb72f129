package studyloop

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Study is a body of study material and what was made from it.
type Study struct {
	ID        string // opaque, e.g. "st_..."; never a sequential number
	UserID    int64
	Title     string
	Status    StudyStatus
	Reason    string // why processing failed, in words a person can read
	CreatedAt time.Time
	UpdatedAt time.Time
	// Counts, filled once the study is ready.
	TopicCount    int
	QuestionCount int
	// NewPerDay is how many never-answered questions practice starts in
	// any 24 hours (DefaultNewPerDay unless the student changed it).
	NewPerDay int
	// Reading a study made from uploads: PagesTotal PDF pages and photos
	// to read (0 for pasted text), PagesDone of them read so far.
	PagesDone  int
	PagesTotal int
}

// Limits of one page of a user's studies.
const (
	DefaultStudyListLimit = 20
	MaxStudyListLimit     = 100
)

// ListStudiesParams selects a page of a user's studies, newest first.
type ListStudiesParams struct {
	Status StudyStatus // "" for every status
	Limit  int         // 1 to MaxStudyListLimit; 0 means DefaultStudyListLimit
	Cursor string      // "" for the first page, else the next cursor of the page before
}

// QuestionType is the kind of a practice question.
type QuestionType string

// The question types the generators produce.
const (
	QuestionCloze          QuestionType = "cloze"           // a key sentence with a keyphrase blanked
	QuestionShortAnswer    QuestionType = "short_answer"    // "What is X?" from definitions
	QuestionTermDefinition QuestionType = "term_definition" // pairs from lists and tables
	QuestionMultipleChoice QuestionType = "multiple_choice" // answer plus three distractors
)

// Span is a byte range [Start, End) of a study's source text.
type Span struct {
	Start, End int
}

// Topic is one subject within a study. Topics nest: Parent is the index of
// the parent topic in the same extraction, or -1 for a top-level topic.
type Topic struct {
	ID     int64 // set by storage
	Parent int
	Title  string
	Span   Span
}

// Question is a practice question generated from a study.
type Question struct {
	ID      int64  // set by storage
	StudyID string // set by storage
	Topic   int    // index into Extraction.Topics
	TopicID int64  // set by storage: the stored topic's ID
	Type    QuestionType
	Prompt  string
	Answer  string
	Choices []string // multiple choice only: four options, one equal to Answer
	Source  Span     // where in the text the question came from
	// Alternatives are other answers the student accepts as right.
	Alternatives []string
	// Suspended questions are never asked and count in no figure.
	Suspended bool
}

// NamedBy reports whether a topic's title would give q's answer away if
// shown with it, or hint at it: a word of the answer of four letters or
// more shares its stem with one of the title's or ends one ("The
// Inflammatory Response" over "inflammation", "Connection Pooling" over
// "pool", "MockTransport" over "transport"), the title holds the answer or one of its alternatives
// ("Afterload" over "What is the term for the tension …?"), the answer's
// last word ("How Monopolies Form" over "natural monopoly") or a word of
// a proper name ("The Whig Opposition" over "Whig Party"), or every word
// of the title is a word of the answer ("Termination" over a blank for
// "termination of translation").
func (q Question) NamedBy(title string) bool {
	words := strings.FieldsFunc(strings.ToLower(title), notWordRune)
	if len(words) == 1 && utf8.RuneCountInString(words[0]) == 1 && strings.HasPrefix(strings.ToLower(strings.TrimSpace(q.Answer)), words[0]) {
		return true // a glossary's letter, "X" over "XML"
	}
	for _, a := range append([]string{q.Answer}, q.Alternatives...) {
		if a := strings.FieldsFunc(strings.ToLower(a), notWordRune); len(a) > 0 && holdsRun(words, a) {
			return true
		}
	}
	answer := strings.FieldsFunc(strings.ToLower(q.Answer), notWordRune)
	if n := len(answer); n > 1 && len(answer[n-1]) >= 4 && slices.ContainsFunc(words, func(w string) bool { return sameWord(w, answer[n-1]) }) {
		return true // "Natural Monopoly" over "natural monopolies", "Heart Muscle" over "ventricular muscle"
	}
	if name := strings.Fields(q.Answer); len(name) > 1 && allCapitalised(name) {
		for _, w := range strings.FieldsFunc(strings.ToLower(q.Answer), notWordRune) {
			if len(w) >= 3 && !titleFillers[w] && slices.ContainsFunc(words, func(t string) bool { return sameWord(t, w) }) {
				return true // "The Whig Opposition" over "Whig Party"
			}
		}
	}
	for _, a := range strings.FieldsFunc(strings.ToLower(q.Answer), func(r rune) bool { return notWordRune(r) || r == '-' }) {
		if len(a) >= 4 && !titleFillers[a] && slices.ContainsFunc(words, func(w string) bool { return sharedStem(a, w) || len(a) >= 5 && strings.HasSuffix(w, a) }) {
			return true // "The Adaptive Immune Response" over "adaptive immunity", "Federal Action under Hoover" over "Hoovervilles", "Testing with MockTransport" over "transport"
		}
	}
	named := 0
	for _, w := range words {
		if titleFillers[w] {
			continue
		}
		if !slices.ContainsFunc(answer, func(a string) bool { return sameWord(a, w) }) {
			return false
		}
		named++
	}
	return named > 0
}

// holdsRun reports whether run stands in words, word after word.
func holdsRun(words, run []string) bool {
	for i := 0; i+len(run) <= len(words); i++ {
		if slices.EqualFunc(words[i:i+len(run)], run, sameWord) {
			return true
		}
	}
	return false
}

// titleFillers are the words of a title that name nothing.
var titleFillers = map[string]bool{"the": true, "a": true, "an": true, "of": true, "and": true, "in": true, "on": true, "to": true, "for": true, "its": true}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' }

// sameWord reports whether a and b are one word, perhaps one in the
// plural ("railway", "railways"; "monopoly", "monopolies").
func sameWord(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if strings.HasSuffix(a, "y") && strings.HasSuffix(b, "ies") && a[:len(a)-1] == b[:len(b)-3] {
		return len(a) >= 4
	}
	return a == b || len(a) >= 4 && strings.HasPrefix(b, a) && len(b)-len(a) <= 2
}

// sharedStem reports whether a and b open alike for four letters or more
// and three quarters of the shorter: "pool" and "pooling", "immune" and "immunity",
// "inflammatory" and "inflammation", "Hoover" and "Hoovervilles".
func sharedStem(a, b string) bool {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	if n == 4 {
		return max(len(a), len(b)) <= 7 // "pool" and "pooling", not "cell" and "cellulose"
	}
	return n >= 5 && 4*n >= 3*min(len(a), len(b))
}

// allCapitalised reports whether every word of name opens with a capital:
// a proper name ("Whig Party", "Indian Removal Act").
func allCapitalised(name []string) bool {
	for _, w := range name {
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// Extraction is everything a Generator makes of one study text.
type Extraction struct {
	Topics    []Topic
	Questions []Question
}

// Generator turns study text into topics and questions. The offline
// generator is the default; another (for example a hosted language model)
// can be added behind the same interface.
type Generator interface {
	Generate(ctx context.Context, title, text string) (Extraction, error)
}

type userKey struct{}

// ContextWithUserID returns ctx carrying the id of the signed-in or
// token-authenticated user.
func ContextWithUserID(ctx context.Context, userID int64) context.Context {
	return context.WithValue(ctx, userKey{}, userID)
}

// UserIDFromContext returns the user id stored by ContextWithUserID, or
// false when the request carries no user.
func UserIDFromContext(ctx context.Context) (int64, bool) {
	id, ok := ctx.Value(userKey{}).(int64)
	return id, ok
}

package studyloop

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A study starts at most this many never-answered questions a day unless
// its student sets another number from 0 to MaxNewPerDay.
const (
	DefaultNewPerDay = 20
	MaxNewPerDay     = 200
)

// ValidateNewPerDay checks a study's daily limit of new questions.
func ValidateNewPerDay(n int) error {
	if n < 0 || n > MaxNewPerDay {
		return Errorf(EINVALID, "New questions a day must be a whole number from 0 to %d; got %d.", MaxNewPerDay, n)
	}
	return nil
}

// Limits of a question as a student edits it, in Unicode characters.
const (
	MaxPromptChars      = 1000
	MaxAnswerChars      = 500
	MaxAlternatives     = 10
	MaxAlternativeChars = 200
)

// QuestionEdit is what a student may change in a question: the prompt, the
// right answer, the choices of a multiple-choice question and the other
// answers that count as right.
type QuestionEdit struct {
	Prompt       string
	Answer       string
	Choices      []string // multiple choice only
	Alternatives []string
}

// Clean returns the edit with every text trimmed and inner whitespace of
// answers, choices and alternatives collapsed, blank alternatives and
// repeats dropped, after checking it for a question of type t. It returns
// an *Error with code EINVALID naming the first problem and its field
// (prompt, answer, choices or alternatives): a blank or
// too-long prompt or answer, too many or too long alternatives, invalid
// UTF-8 or control characters, or, for multiple choice, two to six
// different choices that include the answer.
func (e QuestionEdit) Clean(t QuestionType) (QuestionEdit, error) {
	out := QuestionEdit{Prompt: strings.TrimSpace(e.Prompt), Answer: oneLine(e.Answer)}
	if err := checkField("The question", out.Prompt, MaxPromptChars, true); err != nil {
		return QuestionEdit{}, err.In("prompt")
	}
	if err := checkField("The answer", out.Answer, MaxAnswerChars, false); err != nil {
		return QuestionEdit{}, err.In("answer")
	}
	for _, a := range e.Alternatives {
		a = oneLine(a)
		if a == "" || a == out.Answer || slices.Contains(out.Alternatives, a) {
			continue
		}
		if err := checkField("An accepted answer", a, MaxAlternativeChars, false); err != nil {
			return QuestionEdit{}, err.In("alternatives")
		}
		out.Alternatives = append(out.Alternatives, a)
	}
	if len(out.Alternatives) > MaxAlternatives {
		return QuestionEdit{}, Errorf(EINVALID, "At most %d other accepted answers; got %d.", MaxAlternatives, len(out.Alternatives)).In("alternatives")
	}
	if t != QuestionMultipleChoice {
		return out, nil
	}
	for _, c := range e.Choices {
		if c = oneLine(c); c == "" {
			continue
		}
		if err := checkField("A choice", c, MaxAnswerChars, false); err != nil {
			return QuestionEdit{}, err.In("choices")
		}
		if slices.Contains(out.Choices, c) {
			return QuestionEdit{}, Errorf(EINVALID, "The choice %q is listed twice.", c).In("choices")
		}
		out.Choices = append(out.Choices, c)
	}
	switch {
	case len(out.Choices) < 2 || len(out.Choices) > 6:
		return QuestionEdit{}, Errorf(EINVALID, "A multiple-choice question needs 2 to 6 choices; got %d.", len(out.Choices)).In("choices")
	case !slices.Contains(out.Choices, out.Answer):
		return QuestionEdit{}, Errorf(EINVALID, "The answer %q must be one of the choices.", out.Answer).In("choices")
	}
	return out, nil
}

// oneLine trims s and collapses its runs of whitespace to one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// checkField checks one text of a question: not blank, valid UTF-8,
// without control characters (line breaks allowed where multiline), at most
// limit characters.
func checkField(name, s string, limit int, multiline bool) *Error {
	switch {
	case s == "":
		return Errorf(EINVALID, "%s must not be empty.", name)
	case !utf8.ValidString(s):
		return Errorf(EINVALID, "%s is not valid UTF-8.", name)
	case strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) && !(multiline && unicode.IsSpace(r)) }):
		return Errorf(EINVALID, "%s contains control characters.", name)
	}
	if n := utf8.RuneCountInString(s); n > limit {
		return Errorf(EINVALID, "%s is %s characters long; the limit is %s.", name, Commas(n), Commas(limit))
	}
	return nil
}

// PracticeCounts are what a practice session can ask now.
type PracticeCounts struct {
	// DueNow counts answered questions whose review is due.
	DueNow int
	// NewToday counts never-answered questions that may still be started
	// today: at most the daily limit less those started in the last 24
	// hours.
	NewToday int
	// NewPerDay is the study's daily limit of new questions (one study
	// only; 0 when several are counted).
	NewPerDay int
}

// Total is how many questions a session could ask now.
func (c PracticeCounts) Total() int { return c.DueNow + c.NewToday }

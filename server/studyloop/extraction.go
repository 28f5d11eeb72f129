package studyloop

import (
	"slices"
	"strings"
)

// Valid reports whether t is one of the question types.
func (t QuestionType) Valid() bool {
	switch t {
	case QuestionCloze, QuestionShortAnswer, QuestionTermDefinition, QuestionMultipleChoice:
		return true
	}
	return false
}

// Validate checks that e can be stored for a text of textLen bytes: every
// topic's parent comes before it, every question names an existing topic
// and a known type, prompts and answers are not blank, a multiple-choice
// answer is among its choices, and every span lies within the text. It
// returns an *Error with code EINVALID naming the first problem. It checks
// shape, not quality: the generator's own validator judges questions.
func (e Extraction) Validate(textLen int) error {
	for i, t := range e.Topics {
		if t.Parent < -1 || t.Parent >= i {
			return Errorf(EINVALID, "topic %d: parent %d is not an earlier topic", i, t.Parent)
		}
		if strings.TrimSpace(t.Title) == "" {
			return Errorf(EINVALID, "topic %d: blank title", i)
		}
		if !t.Span.within(textLen) {
			return Errorf(EINVALID, "topic %d: span [%d,%d) outside the text of %d bytes", i, t.Span.Start, t.Span.End, textLen)
		}
	}
	for i, q := range e.Questions {
		switch {
		case q.Topic < 0 || q.Topic >= len(e.Topics):
			return Errorf(EINVALID, "question %d: topic %d does not exist", i, q.Topic)
		case !q.Type.Valid():
			return Errorf(EINVALID, "question %d: unknown type %q", i, q.Type)
		case strings.TrimSpace(q.Prompt) == "" || strings.TrimSpace(q.Answer) == "":
			return Errorf(EINVALID, "question %d: blank prompt or answer", i)
		case q.Type == QuestionMultipleChoice && !slices.Contains(q.Choices, q.Answer):
			return Errorf(EINVALID, "question %d: the answer is not among the choices", i)
		case !q.Source.within(textLen):
			return Errorf(EINVALID, "question %d: span [%d,%d) outside the text of %d bytes", i, q.Source.Start, q.Source.End, textLen)
		}
	}
	return nil
}

// within reports whether s is an ordered byte range inside a text of n bytes.
func (s Span) within(n int) bool {
	return 0 <= s.Start && s.Start <= s.End && s.End <= n
}

package studyloop

import (
	"fmt"
	"strings"
	"testing"
)

func TestQuestionEditClean(t *testing.T) {
	many := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint("answer ", i)
		}
		return out
	}
	choices := func(n int) []string { return append(many(n-1), "right") }
	tests := []struct {
		name  string
		typ   QuestionType
		edit  QuestionEdit
		field string // "" when accepted
	}{
		{"longest prompt", QuestionCloze, QuestionEdit{Prompt: strings.Repeat("p", MaxPromptChars), Answer: "a"}, ""},
		{"prompt too long", QuestionCloze, QuestionEdit{Prompt: strings.Repeat("p", MaxPromptChars+1), Answer: "a"}, "prompt"},
		{"prompt with line breaks", QuestionCloze, QuestionEdit{Prompt: "line one\nline two", Answer: "a"}, ""},
		{"blank prompt", QuestionCloze, QuestionEdit{Prompt: " \n", Answer: "a"}, "prompt"},
		{"longest answer", QuestionCloze, QuestionEdit{Prompt: "p", Answer: strings.Repeat("é", MaxAnswerChars)}, ""},
		{"answer too long", QuestionCloze, QuestionEdit{Prompt: "p", Answer: strings.Repeat("é", MaxAnswerChars+1)}, "answer"},
		{"control character", QuestionCloze, QuestionEdit{Prompt: "p", Answer: "a\x07"}, "answer"},
		{"most alternatives", QuestionCloze, QuestionEdit{Prompt: "p", Answer: "a", Alternatives: many(MaxAlternatives)}, ""},
		{"too many alternatives", QuestionCloze, QuestionEdit{Prompt: "p", Answer: "a", Alternatives: many(MaxAlternatives + 1)}, "alternatives"},
		{"alternative too long", QuestionCloze, QuestionEdit{Prompt: "p", Answer: "a", Alternatives: []string{strings.Repeat("x", MaxAlternativeChars+1)}}, "alternatives"},
		{"two choices", QuestionMultipleChoice, QuestionEdit{Prompt: "p", Answer: "right", Choices: choices(2)}, ""},
		{"six choices", QuestionMultipleChoice, QuestionEdit{Prompt: "p", Answer: "right", Choices: choices(6)}, ""},
		{"seven choices", QuestionMultipleChoice, QuestionEdit{Prompt: "p", Answer: "right", Choices: choices(7)}, "choices"},
		{"one choice", QuestionMultipleChoice, QuestionEdit{Prompt: "p", Answer: "right", Choices: choices(1)}, "choices"},
		{"answer not a choice", QuestionMultipleChoice, QuestionEdit{Prompt: "p", Answer: "wrong", Choices: choices(3)}, "choices"},
		{"a choice twice", QuestionMultipleChoice, QuestionEdit{Prompt: "p", Answer: "right", Choices: []string{"right", "x", " x "}}, "choices"},
	}
	for _, tt := range tests {
		_, err := tt.edit.Clean(tt.typ)
		if got := ErrorField(err); got != tt.field || (tt.field != "" && ErrorCode(err) != EINVALID) || (tt.field == "" && err != nil) {
			t.Errorf("%s: error %v in field %q, want field %q", tt.name, err, got, tt.field)
		}
	}
	got, err := QuestionEdit{Prompt: "  Why?  ", Answer: " red   light ", Alternatives: []string{"", "red light", " crimson ", "crimson"}}.Clean(QuestionShortAnswer)
	if err != nil || got.Prompt != "Why?" || got.Answer != "red light" || strings.Join(got.Alternatives, "|") != "crimson" {
		t.Errorf("cleaned: %+v, %v", got, err)
	}
}

func TestValidateNewPerDay(t *testing.T) {
	for n, ok := range map[int]bool{-1: false, 0: true, DefaultNewPerDay: true, MaxNewPerDay: true, MaxNewPerDay + 1: false} {
		if err := ValidateNewPerDay(n); (err == nil) != ok {
			t.Errorf("ValidateNewPerDay(%d) = %v", n, err)
		}
	}
}

package engine

import (
	"slices"
	"testing"

	"github.com/studyloop/studyloop/server/lexicon"
	"github.com/studyloop/studyloop/server/studyloop"
)

// TestMeasureBoldTermsAsked: a bold term counts as asked when a question
// answers with it, accepts it, or asks what it means, whichever way the
// prompt puts it; a bracket after the term's words does not count.
func TestMeasureBoldTermsAsked(t *testing.T) {
	text := "- **pass (a test)**: A test passes if its result is the expected one.\n" +
		"- **end diastolic volume (EDV)**: the blood a ventricle holds before it contracts.\n" +
		"- **vectorize**: To write code that works on whole arrays.\n" +
		"- **preload**: the stretch of the heart muscle before it contracts.\n" +
		"- **stream**: a sequence of data read one piece at a time.\n" +
		"**22.1 Tracking Inflation.** Prices rise. **Answer:** 221 kPa.\n"
	tests := []struct {
		name      string
		questions []studyloop.Question
		unasked   []string
	}{
		{"none", nil, []string{"pass", "end diastolic volume", "vectorize", "preload", "stream"}},
		{"every way", []studyloop.Question{
			{Prompt: "What does it mean to pass a test?", Answer: "A test passes if its result is the expected one"},
			{Prompt: "The ventricle holds the _____ before it contracts.", Answer: "end diastolic volume", Alternatives: []string{"preload"}},
			{Prompt: "What does it mean to vectorize?", Answer: "To write code that works on whole arrays"},
			{Prompt: "What does “stream” mean?", Answer: "a sequence of data read one piece at a time"},
		}, nil},
		{"a definition that names another term", []studyloop.Question{
			{Prompt: "What does “preload” mean?", Answer: "the stretch of the heart muscle before it contracts"},
		}, []string{"pass", "end diastolic volume", "vectorize", "stream"}},
	}
	for _, tt := range tests {
		r := Measure(text, studyloop.Extraction{Questions: tt.questions})
		if r.Terms != 5 || !slices.Equal(r.Unasked, tt.unasked) || r.TermsAsked != 5-len(tt.unasked) {
			t.Errorf("%s: %d of %d terms asked, unasked %q; want %d of 5, unasked %q", tt.name, r.TermsAsked, r.Terms, r.Unasked, 5-len(tt.unasked), tt.unasked)
		}
	}
}

func TestBoldNounPhrase(t *testing.T) {
	tests := []struct {
		term string
		want bool
	}{
		{"helper T cell", true}, // a capital letter names, as in "B cell receptor"
		{"plasma cell", true},
		{"of the cell", false},
		{"it is", false},
	}
	for _, tt := range tests {
		if got := boldNounPhrase(lexicon.Default(), tt.term); got != tt.want {
			t.Errorf("boldNounPhrase(%q) = %v, want %v", tt.term, got, tt.want)
		}
	}
}

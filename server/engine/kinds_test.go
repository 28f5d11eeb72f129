package engine

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/studyloop"
)

// TestStatedQuestions runs whole texts through the generator and looks for
// the list, relation and cause questions their sentences state, and for
// their absence where the shape is not there.
func TestStatedQuestions(t *testing.T) {
	filler := " Learning changes behavior through experience. Behavior changes with experience in every organism studied so far."
	tests := []struct {
		name, text     string
		prompt, answer string // "" prompt: no stated question
	}{
		{"list",
			"# Learning\n\nThere are three main types of learning: classical conditioning, operant conditioning, and observational learning." + filler,
			"What are the three main types of learning?", "classical conditioning, operant conditioning, and observational learning"},
		{"list count differs from items",
			"# Learning\n\nThere are three main types of learning: classical conditioning and operant conditioning." + filler,
			"", ""},
		{"relation",
			"# Demand\n\nAs the price of a good rises, the quantity demanded falls." + filler,
			"As the price of a good rises, what happens to the quantity demanded?", "falls"},
		{"why with be",
			"# Judges\n\nNo man is allowed to be a judge in his own cause because his interest would bias his judgment." + filler,
			"Why is no man allowed to be a judge in his own cause?", "because his interest would bias his judgment"},
		{"why with a present verb",
			"# Leaves\n\nGreen leaves look green because chlorophyll reflects green light." + filler,
			"Why do green leaves look green?", "because chlorophyll reflects green light"},
		{"why refuses a past tense",
			"# History\n\nThe cotton mills moved north because the rivers turned their wheels." + filler,
			"", ""},
	}
	g := mustOffline(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, err := g.Generate(context.Background(), "", tt.text)
			if err != nil && tt.prompt != "" {
				t.Fatal(err)
			}
			var found *studyloop.Question
			for i, q := range ex.Questions {
				if q.Type == studyloop.QuestionShortAnswer && (q.Prompt == tt.prompt || tt.prompt == "" && isStated(q.Prompt)) {
					found = &ex.Questions[i]
				}
			}
			switch {
			case tt.prompt == "" && found != nil:
				t.Errorf("unexpected stated question %q", found.Prompt)
			case tt.prompt != "" && found == nil:
				t.Errorf("no question %q among %+v", tt.prompt, ex.Questions)
			case found != nil && found.Answer != tt.answer:
				t.Errorf("answer %q, want %q", found.Answer, tt.answer)
			}
		})
	}
}

func isStated(prompt string) bool {
	for _, p := range []string{"What are the ", "Why ", "As ", "When ", "If "} {
		if strings.HasPrefix(prompt, p) && strings.HasSuffix(prompt, "?") {
			return true
		}
	}
	return false
}

// TestShuffleInSpreadsTheAnswer: over many prompts the right choice lands
// in every position about equally often, and one prompt always gets the
// same order.
func TestShuffleInSpreadsTheAnswer(t *testing.T) {
	var positions [4]int
	for i := range 400 {
		prompt := "Question number " + strconv.Itoa(i) + " asks for a _____."
		choices := shuffleIn(prompt, "answer", []string{"one", "two", "three"})
		if again := shuffleIn(prompt, "answer", []string{"one", "two", "three"}); !slices.Equal(choices, again) {
			t.Fatalf("two orders for one prompt: %q, %q", choices, again)
		}
		positions[slices.Index(choices, "answer")]++
	}
	for i, n := range positions {
		if n < 50 {
			t.Errorf("answer at position %d in %d of 400 questions", i, n)
		}
	}
}

package engine

import (
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/studyloop"
)

// validateText is the text of the CheckQuestion and Validate tests: two
// sentences, the second with markdown.
const (
	mitochondrionSentence = "The mitochondrion is the organelle that makes ATP."
	ribosomesSentence     = "**Ribosomes** build proteins from amino acids in the cytoplasm of every cell."
	validateText          = mitochondrionSentence + " " + ribosomesSentence
)

// spanOf returns the span of the first occurrence of s in validateText.
func spanOf(t *testing.T, s string) studyloop.Span {
	t.Helper()
	i := strings.Index(validateText, s)
	if i < 0 {
		t.Fatalf("%q not in the text", s)
	}
	return studyloop.Span{Start: i, End: i + len(s)}
}

func TestCheckQuestion(t *testing.T) {
	cloze := func(prompt, answer string) studyloop.Question {
		return studyloop.Question{Type: studyloop.QuestionCloze, Prompt: prompt, Answer: answer, Source: spanOf(t, ribosomesSentence)}
	}
	mc := func(choices ...string) studyloop.Question {
		q := cloze("Ribosomes build proteins from _____ in the cytoplasm of every cell.", "amino acids")
		q.Type, q.Choices = studyloop.QuestionMultipleChoice, choices
		return q
	}
	tests := []struct {
		name    string
		q       studyloop.Question
		wantErr string // "" for a valid question
	}{
		{"good short answer", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What is the mitochondrion?", Answer: "the organelle that makes ATP", Source: spanOf(t, mitochondrionSentence)}, ""},
		{"good cloze through markdown", cloze("Ribosomes build proteins from _____ in the cytoplasm of every cell.", "amino acids"), ""},
		{"good multiple choice", mc("fatty acids", "amino acids", "simple sugars", "nucleotides"), ""},
		{"unknown type", studyloop.Question{Type: "essay", Prompt: "Why?", Answer: "x", Source: spanOf(t, mitochondrionSentence)}, "unknown type"},
		{"span outside text", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What?", Answer: "ATP", Source: studyloop.Span{Start: 10, End: 10_000}}, "outside the text"},
		{"not grounded", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What is the mitochondrion?", Answer: "the nucleus of the cell", Source: spanOf(t, mitochondrionSentence)}, "not found in its source"},
		{"grounded elsewhere only", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What do ribosomes build?", Answer: "proteins", Source: spanOf(t, mitochondrionSentence)}, "not found in its source"},
		{"answer in prompt", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What is the organelle that makes ATP?", Answer: "organelle that makes ATP", Source: spanOf(t, mitochondrionSentence)}, "gives the answer"},
		{"stem of answer in prompt", cloze("Ribosomes build protein from _____ in the cytoplasm of every cell.", "proteins"), "not its source sentence"},
		{"cloze refilled is not the source", cloze("Ribosomes build lipids from _____ in the cytoplasm of every cell.", "amino acids"), "not its source sentence"},
		{"two blanks", cloze("Ribosomes build _____ from _____ in the cytoplasm of every cell.", "amino acids"), "more than one blank"},
		{"no blank no question", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "Name the organelle", Answer: "mitochondrion", Source: spanOf(t, mitochondrionSentence)}, "neither asks"},
		{"two questions", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What is the mitochondrion and what does it make?", Answer: "the organelle that makes ATP", Source: spanOf(t, mitochondrionSentence)}, "more than one question"},
		{"leftover bold", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What do **Ribosomes** build?", Answer: "proteins", Source: spanOf(t, ribosomesSentence)}, "leftover markdown"},
		{"leftover link", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What is [ATP](x)?", Answer: "proteins", Source: spanOf(t, ribosomesSentence)}, "leftover markdown"},
		{"truncated answer", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What is the mitochondrion?", Answer: "the organelle that", Source: spanOf(t, mitochondrionSentence)}, "cut off"},
		{"answer ends in article", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What is the mitochondrion?", Answer: "the organelle that makes ATP and the", Source: spanOf(t, mitochondrionSentence)}, "cut off"},
		{"unbalanced", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What (is the mitochondrion?", Answer: "the organelle that makes ATP", Source: spanOf(t, mitochondrionSentence)}, "unbalanced"},
		{"blank is a verb", studyloop.Question{Type: studyloop.QuestionCloze, Prompt: "The mitochondrion is the organelle that _____ ATP.", Answer: "makes", Source: spanOf(t, mitochondrionSentence)}, "is a verb"},
		{"cloze not a sentence", cloze("Ribosomes build proteins from _____ in the cytoplasm of every cell", "amino acids"), "not complete"},
		{"choices on short answer", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What is the mitochondrion?", Answer: "the organelle that makes ATP", Choices: []string{"a"}, Source: spanOf(t, mitochondrionSentence)}, "choices on a question"},
		{"three choices", mc("fatty acids", "amino acids", "simple sugars"), "3 choices"},
		{"answer missing from choices", mc("fatty acids", "lipids", "simple sugars", "nucleotides"), "answer among the choices 0 times"},
		{"duplicate distractors", mc("fatty acids", "amino acids", "Fatty acids", "nucleotides"), "overlap"},
		{"distractor contains answer", mc("fatty acids", "amino acids", "essential amino acids", "nucleotides"), "overlap"},
		{"distractor in prompt", mc("fatty acids", "amino acids", "cytoplasm", "nucleotides"), "contains the choice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErr(t, CheckQuestion(validateText, tt.q), tt.wantErr)
		})
	}
}

func TestValidateStudyWideRules(t *testing.T) {
	q := studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What is the mitochondrion?", Answer: "the organelle that makes ATP", Source: spanOf(t, mitochondrionSentence)}
	reverse := studyloop.Question{Type: studyloop.QuestionTermDefinition, Prompt: "Which term matches this description: the organelle that makes ATP?", Answer: "mitochondrion", Source: spanOf(t, mitochondrionSentence)}
	cloze1 := studyloop.Question{Type: studyloop.QuestionCloze, Prompt: "Ribosomes build proteins from _____ in the cytoplasm of every cell.", Answer: "amino acids", Source: spanOf(t, ribosomesSentence)}
	cloze2 := studyloop.Question{Type: studyloop.QuestionCloze, Prompt: "Ribosomes build proteins from amino acids in the _____ of every cell.", Answer: "cytoplasm", Source: spanOf(t, ribosomesSentence)}
	cloze3 := studyloop.Question{Type: studyloop.QuestionCloze, Prompt: "Ribosomes build proteins from _____ in the cytoplasm of each cell.", Answer: "amino acids", Source: spanOf(t, ribosomesSentence)}
	topics := []studyloop.Topic{{Parent: -1, Title: "Cells", Span: studyloop.Span{End: len(validateText)}}}
	tests := []struct {
		name    string
		ex      studyloop.Extraction
		wantErr string
	}{
		{"valid", studyloop.Extraction{Topics: topics, Questions: []studyloop.Question{q}}, ""},
		{"exact duplicate", studyloop.Extraction{Topics: topics, Questions: []studyloop.Question{q, q}}, "duplicates question 0"},
		{"near duplicate: same fact asked the other way", studyloop.Extraction{Topics: topics, Questions: []studyloop.Question{q, reverse}}, "duplicates question 0"},
		{"near duplicate: same sentence blanked twice for one answer", studyloop.Extraction{Topics: topics, Questions: []studyloop.Question{cloze1, cloze3}}, "duplicates question 0"},
		{"one sentence blanked for two answers", studyloop.Extraction{Topics: topics, Questions: []studyloop.Question{cloze1, cloze2}}, ""},
		{"topic without questions", studyloop.Extraction{Topics: append(topics, studyloop.Topic{Parent: -1, Title: "Empty"}), Questions: []studyloop.Question{q}}, "has no question"},
		{"covered through a subtopic", studyloop.Extraction{Topics: []studyloop.Topic{topics[0], {Parent: 0, Title: "Organelles"}}, Questions: []studyloop.Question{withTopic(q, 1)}}, ""},
		{"parent after child", studyloop.Extraction{Topics: []studyloop.Topic{{Parent: 1, Title: "A"}, {Parent: -1, Title: "B"}}, Questions: []studyloop.Question{q}}, "does not come before"},
		{"question topic out of range", studyloop.Extraction{Topics: topics, Questions: []studyloop.Question{withTopic(q, 3)}}, "out of range"},
		{"markdown in title", studyloop.Extraction{Topics: []studyloop.Topic{{Parent: -1, Title: "**Cells**"}}, Questions: []studyloop.Question{q}}, "bad title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErr(t, Validate(validateText, tt.ex), tt.wantErr)
		})
	}
}

func withTopic(q studyloop.Question, t int) studyloop.Question { q.Topic = t; return q }

func TestDedupScalesWithDistinctPrompts(t *testing.T) {
	d := newDedup(stemWord)
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango")
	n := 0
	for i, a := range words {
		for j, b := range words {
			if i != j {
				if _, dup := d.add("What links "+a+" with "+b+" here?", "nothing"); !dup {
					n++
				}
			}
		}
	}
	// Ordered pairs share their stems with the reversed pair, so exactly
	// half are near duplicates.
	if want := len(words) * (len(words) - 1) / 2; n != want {
		t.Errorf("%d distinct prompts kept, want %d", n, want)
	}
}

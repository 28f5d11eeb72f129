package studyloop

import (
	"strings"
	"testing"
)

func TestExtractionValidate(t *testing.T) {
	const textLen = 100
	valid := func() Extraction {
		return Extraction{
			Topics: []Topic{
				{Parent: -1, Title: "Cells", Span: Span{0, 100}},
				{Parent: 0, Title: "Membrane", Span: Span{10, 50}},
			},
			Questions: []Question{
				{Topic: 1, Type: QuestionCloze, Prompt: "The ____ surrounds the cell.", Answer: "membrane", Source: Span{10, 40}},
				{Topic: 0, Type: QuestionMultipleChoice, Prompt: "Which makes ATP?", Answer: "mitochondria",
					Choices: []string{"ribosome", "mitochondria", "nucleus", "vacuole"}, Source: Span{60, 100}},
			},
		}
	}
	tests := []struct {
		name    string
		change  func(e *Extraction)
		wantErr string // substring of the message, "" when valid
	}{
		{"valid", func(e *Extraction) {}, ""},
		{"empty", func(e *Extraction) { *e = Extraction{} }, ""},
		{"span to the very end", func(e *Extraction) { e.Questions[0].Source = Span{100, 100} }, ""},
		{"parent after child", func(e *Extraction) { e.Topics[0].Parent = 1 }, "topic 0: parent 1"},
		{"parent is itself", func(e *Extraction) { e.Topics[1].Parent = 1 }, "topic 1: parent 1"},
		{"parent below -1", func(e *Extraction) { e.Topics[1].Parent = -2 }, "topic 1: parent -2"},
		{"blank topic title", func(e *Extraction) { e.Topics[1].Title = " \n" }, "topic 1: blank title"},
		{"topic span past the end", func(e *Extraction) { e.Topics[0].Span.End = 101 }, "topic 0: span"},
		{"topic span reversed", func(e *Extraction) { e.Topics[1].Span = Span{50, 10} }, "topic 1: span"},
		{"question without topic", func(e *Extraction) { e.Questions[0].Topic = 2 }, "question 0: topic 2"},
		{"question with negative topic", func(e *Extraction) { e.Questions[1].Topic = -1 }, "question 1: topic -1"},
		{"unknown type", func(e *Extraction) { e.Questions[0].Type = "essay" }, `unknown type "essay"`},
		{"blank prompt", func(e *Extraction) { e.Questions[0].Prompt = "" }, "blank prompt"},
		{"blank answer", func(e *Extraction) { e.Questions[1].Answer = "  " }, "blank prompt or answer"},
		{"answer not a choice", func(e *Extraction) { e.Questions[1].Choices[1] = "golgi" }, "not among the choices"},
		{"negative span", func(e *Extraction) { e.Questions[1].Source.Start = -1 }, "question 1: span"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := valid()
			tt.change(&e)
			err := e.Validate(textLen)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), tt.wantErr) {
				t.Fatalf("Validate=%v, want EINVALID mentioning %q", err, tt.wantErr)
			}
		})
	}
}

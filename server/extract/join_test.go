package extract

import (
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/studyloop"
)

func TestJoin(t *testing.T) {
	parts := []Part{
		{Label: "Page 3", Text: "Cells divide."},
		{Label: "Page 4", Text: ""},
		{Label: "Photo 1", Text: "Ions move.\n\nSalt dissolves."},
	}
	text, spans := Join(parts)
	if want := "## Page 3\n\nCells divide.\n\n## Photo 1\n\nIons move.\n\nSalt dissolves."; text != want {
		t.Fatalf("text=%q, want %q", text, want)
	}
	if got, want := len(spans), 2; got != want {
		t.Fatalf("%d spans, want %d (empty parts left out)", got, want)
	}
	for i, want := range []struct{ label, text string }{{"Page 3", "Cells divide."}, {"Photo 1", "Salt dissolves."}} {
		s := spans[i]
		if s.Label != want.label {
			t.Errorf("span %d label=%q, want %q", i, s.Label, want.label)
		}
		got := text[s.Span.Start:s.Span.End]
		if !strings.HasPrefix(got, "## "+want.label+"\n") || !strings.Contains(got, want.text) {
			t.Errorf("span %d covers %q", i, got)
		}
	}
	if err := CheckLength(text, spans); err != nil {
		t.Fatalf("CheckLength of a short text: %v", err)
	}
}

func TestCheckLength(t *testing.T) {
	page := strings.Repeat("é", 100_000) // two bytes each: characters are counted, not bytes
	parts := []Part{{"Page 1", page}, {"Page 2", page}, {"Page 3", page}, {"Page 4", page}, {"Page 5", page}}
	tests := []struct {
		parts int
		want  string
	}{
		{3, ""},
		{4, "Drop Page 4 (or other pages or photos with at least"},
		{5, "Drop Page 4 to Page 5"},
	}
	for _, tt := range tests {
		text, spans := Join(parts[:tt.parts])
		err := CheckLength(text, spans)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%d parts: %v", tt.parts, err)
			}
			continue
		}
		if got := studyloop.ErrorMessage(err); !strings.Contains(got, tt.want) || !strings.Contains(got, "over the limit of 400,000") {
			t.Errorf("%d parts: %q, want it to say %q", tt.parts, got, tt.want)
		}
		if got, want := studyloop.ErrorCode(err), studyloop.ETOOLARGE; got != want {
			t.Errorf("code=%q, want %q", got, want)
		}
	}
}

func TestCleanText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"  \n\n \f", ""},
		{"a  \nb\t \n\n\n\nc\n", "a\nb\n\nc"},
		{"x\x00y\x07z", "xyz"},
		{"bad \xff utf8", "bad  utf8"},
		{"\ufeffBOM", "BOM"},
	}
	for _, tt := range tests {
		if got := cleanText(tt.in); got != tt.want {
			t.Errorf("cleanText(%q)=%q, want %q", tt.in, got, tt.want)
		}
	}
}

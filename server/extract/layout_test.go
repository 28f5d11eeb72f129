package extract

import (
	"strings"
	"testing"
)

func TestLayout(t *testing.T) {
	body := "DNA replication is semiconservative: each new double helix keeps one of the\n" +
		"parent strands and pairs it with a newly made strand. The enzyme helicase\n" +
		"unwinds the helix at the origin of replication, and primase lays down a short\n" +
		"primer on each strand before the polymerase can begin to add nucleotides."
	tests := []struct {
		name, page, want string
	}{
		{"heading above wrapped body",
			"DNA Replication\n" + body,
			"### DNA Replication\n\n" + body},
		{"numbered heading in notes",
			"2.1 Photosynthesis\nLight splits water.\nThe Calvin cycle fixes carbon.",
			"### 2.1 Photosynthesis\n\nLight splits water.\nThe Calvin cycle fixes carbon."},
		{"title wrapped over two lines",
			"The Development of Material Knowledge and\nthe Industrial Revolution\n" + body,
			"### The Development of Material Knowledge and the Industrial Revolution\n\n" + body},
		{"a wrapped sentence is no heading",
			"Mitochondria release energy from glucose in\nevery cell.",
			"Mitochondria release energy from glucose in\nevery cell."},
		{"short last line of a paragraph is no heading",
			body + "\nThe End",
			body + "\nThe End"},
		{"page number removed",
			body + "\n\n- 12 -",
			body},
		{"hyphenated word joined",
			"Each strand is a tem-\nplate for the new one.",
			"Each strand is a template\nfor the new one."},
		{"compound hyphen kept",
			"The enzyme works at pH-\n7 in the nucleus.",
			"The enzyme works at pH-\n7 in the nucleus."},
	}
	for _, tt := range tests {
		if got := layout(tt.page); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestDropRunningLines(t *testing.T) {
	page := func(n, body string) string {
		return "Biology 2e · Chapter 14\n" + body + "\n" + n
	}
	pages := []string{
		page("41", "Helicase unwinds the helix."),
		page("42", "Primase lays down a primer."),
		page("43", "Ligase seals the nicks."),
	}
	got := dropRunningLines(pages)
	for i, p := range got {
		if strings.Contains(p, "Chapter 14") || strings.Contains(p, "4") {
			t.Errorf("page %d keeps its running lines: %q", i, p)
		}
	}
	if got[0] != "Helicase unwinds the helix." {
		t.Errorf("page 0 = %q", got[0])
	}
	same := strings.Repeat("Cells divide.\n", 5)
	kept := dropRunningLines([]string{same, same, same})
	if strings.Count(kept[0], "Cells divide.") != 3 {
		t.Errorf("pages of one repeated line keep %q, want the three inner lines", kept[0])
	}
	two := dropRunningLines(pages[:2])
	if two[0] != pages[0] {
		t.Errorf("two pages are too few to tell a running line: %q", two[0])
	}
}

func TestJoinNamesPartsByTheirHeadings(t *testing.T) {
	text, spans := Join([]Part{
		{Label: "Page 1", Text: "### DNA Replication\n\nHelicase unwinds the helix."},
		{Label: "Page 2", Text: "Primase lays down a primer."},
	})
	want := "## DNA Replication\n\nHelicase unwinds the helix.\n\n## Page 2\n\nPrimase lays down a primer."
	if text != want {
		t.Errorf("Join = %q, want %q", text, want)
	}
	if spans[0].Label != "Page 1" || text[spans[1].Span.Start:spans[1].Span.End] != "## Page 2\n\nPrimase lays down a primer." {
		t.Errorf("spans %+v", spans)
	}
}

package extract

import (
	"strings"
	"unicode/utf8"

	"github.com/studyloop/studyloop/server/studyloop"
)

// Join makes one study text of parts, each under a markdown heading (the
// part's own first heading, or else its label: "## Page 3"), so the
// generator sees the parts as sections, and returns where each part lies
// in the text. Parts without text are left out.
func Join(parts []Part) (string, []studyloop.SourcePart) {
	var b strings.Builder
	var spans []studyloop.SourcePart
	for _, p := range parts {
		if strings.TrimSpace(p.Text) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		start := b.Len()
		// A part that opens with a heading is named by it: its topic
		// reads "DNA replication", not "Page 3".
		heading, text := p.Label, p.Text
		if first, rest, _ := strings.Cut(p.Text, "\n"); strings.HasPrefix(first, "### ") {
			heading, text = strings.TrimPrefix(first, "### "), strings.TrimLeft(rest, "\n")
		}
		b.WriteString("## ")
		b.WriteString(heading)
		b.WriteString("\n\n")
		b.WriteString(text)
		spans = append(spans, studyloop.SourcePart{Label: p.Label, Span: studyloop.Span{Start: start, End: b.Len()}})
	}
	return b.String(), spans
}

// CheckLength reports whether text, joined from parts by Join, fits the
// study limit of studyloop.MaxStudyTextChars characters. Over it, the
// error (code ETOOLARGE) says by how much and which parts to drop: those
// from the first part that does not fit to the last.
func CheckLength(text string, parts []studyloop.SourcePart) error {
	n := utf8.RuneCountInString(text)
	if n <= studyloop.MaxStudyTextChars {
		return nil
	}
	over := n - studyloop.MaxStudyTextChars
	// cut is where the first character past the limit starts: a part
	// ending after it does not fit.
	cut, seen := 0, 0
	for i := range text {
		if seen == studyloop.MaxStudyTextChars {
			cut = i
			break
		}
		seen++
	}
	drop := "some pages or photos"
	for _, p := range parts {
		if p.Span.End <= len(text) && p.Span.End > cut {
			if last := parts[len(parts)-1].Label; last != p.Label {
				drop = p.Label + " to " + last
			} else {
				drop = p.Label
			}
			break
		}
	}
	return studyloop.Errorf(studyloop.ETOOLARGE,
		"The text read from the uploads is %s characters, %s over the limit of %s. Drop %s (or other pages or photos with at least %s characters) and try again.",
		studyloop.Commas(n), studyloop.Commas(over), studyloop.Commas(studyloop.MaxStudyTextChars), drop, studyloop.Commas(over))
}

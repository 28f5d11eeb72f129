package extract

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A page as pdftotext or Tesseract gives it is a column of lines: wrapped
// body text, short heading lines, words hyphenated at line ends, a page
// number and perhaps a running header. layout reads it as a page is read:
// headings become markdown headings (so the generator makes them topics
// and never joins them to the sentence below), hyphenated words are made
// whole, and page numbers go.

// pageNumberLine matches a line holding only a page number ("12",
// "- 12 -", "Page 12", "12 of 40").
var pageNumberLine = regexp.MustCompile(`(?i)^\s*(page\s+)?[-–—]?\s*\d{1,4}\s*[-–—]?(\s+of\s+\d{1,4})?\s*$`)

// Heading limits: a heading is short in words and, on a page of wrapped
// body text, clearly shorter than its lines.
const (
	maxHeadingWords = 10
	maxHeadingChars = 80
	// headingShare is how long a heading line may be, as a share of the
	// page's typical (median) line, when the page has wrapped body text.
	headingShare = 0.75
	// wrappedLine is the median line length from which a page counts as
	// wrapped body text rather than notes of short lines.
	wrappedLine = 45
)

// layout returns text (cleaned tool output of one page) with its headings
// marked as "### " lines set apart by blank lines, its hyphenated line
// ends joined and its page-number lines removed.
func layout(text string) string {
	lines := strings.Split(text, "\n")
	lines = slices.DeleteFunc(lines, func(l string) bool { return pageNumberLine.MatchString(l) })
	lines = joinHyphenated(lines)
	median := medianLength(lines)
	var b strings.Builder
	prevEnds := true // the line before ends a block: start of page, blank line, heading or full stop
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" {
			b.WriteString("\n")
			prevEnds = true
			continue
		}
		if prevEnds && isHeadingLine(line, median) && hasBodyAfter(lines, i) {
			// A title may wrap onto a second line: "... Knowledge and" /
			// "the Industrial Revolution".
			heading, j := line, i
			for j+1 < len(lines) && continuesHeading(heading, strings.TrimSpace(lines[j+1]), median) {
				j++
				heading += " " + strings.TrimSpace(lines[j])
			}
			if !endsInFunctionWord(heading) && hasBodyAfter(lines, j) {
				if b.Len() > 0 {
					b.WriteString("\n")
				}
				b.WriteString("### " + heading + "\n\n")
				prevEnds, i = true, j
				continue
			}
		}
		b.WriteString(lines[i] + "\n")
		prevEnds = endsBlock(line)
	}
	return cleanText(b.String())
}

// isHeadingLine reports whether line looks like a heading: few words,
// starting with a capital or a section number, not ending as sentences and
// list items do, and short against the page's wrapped lines.
func isHeadingLine(line string, median int) bool {
	n := utf8.RuneCountInString(line)
	words := strings.Fields(line)
	if n > maxHeadingChars || len(words) > maxHeadingWords || len(words) == 0 {
		return false
	}
	if median >= wrappedLine && float64(n) > headingShare*float64(median) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(line)
	if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(line)
	if strings.ContainsRune(".,;!?\"”)", last) || strings.HasPrefix(line, "•") {
		return false
	}
	letters := 0
	for _, r := range line {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters*2 < n {
		return false // a formula, a number or a table row
	}
	// Among short lines (notes, a photo of a handout) shortness says
	// nothing: a heading must look like one.
	return median >= wrappedLine || titleLike(words)
}

// sectionNumber matches a heading's number: "2", "2.1", "IV.", "A)".
var sectionNumber = regexp.MustCompile(`^(\d+(\.\d+)*|[IVXLC]+|[A-Z])[.)]?$`)

// titleLike reports whether words read as a title: numbered, in capitals,
// or with most longer words capitalised.
func titleLike(words []string) bool {
	if sectionNumber.MatchString(words[0]) && len(words) > 1 {
		return true
	}
	long, capital, upper := 0, 0, true
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		if strings.ToUpper(w) != w {
			upper = false
		}
		if utf8.RuneCountInString(w) >= 4 {
			long++
			if unicode.IsUpper(r) {
				capital++
			}
		}
	}
	return upper || long > 0 && capital*10 >= long*6
}

// endsInFunctionWord reports whether a heading candidate stops on a word
// no title ends with: it is the first line of a wrapped sentence.
func endsInFunctionWord(line string) bool {
	f := strings.Fields(line)
	return headingContinuers[strings.ToLower(f[len(f)-1])]
}

// headingContinuers are the words after which a title goes on.
var headingContinuers = map[string]bool{"and": true, "or": true, "of": true, "the": true, "a": true, "an": true,
	"in": true, "on": true, "for": true, "to": true, "with": true, "from": true, "&": true, "by": true, "at": true}

// continuesHeading reports whether next carries on the heading line: the
// heading ends in a word that cannot end one ("and", "of"), or next starts
// in lower case, and next is short too.
func continuesHeading(line, next string, median int) bool {
	if next == "" || !isHeadingLine(strings.ToUpper(next[:1])+next[1:], median) {
		return false
	}
	if endsInFunctionWord(line) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(next)
	return unicode.IsLower(r)
}

// hasBodyAfter reports whether some text follows line i on the page, so
// that a last short line is not taken for a heading of nothing.
func hasBodyAfter(lines []string, i int) bool {
	for _, l := range lines[i+1:] {
		if strings.TrimSpace(l) != "" {
			return true
		}
	}
	return false
}

// endsBlock reports whether a body line ends a paragraph or a list item
// as far as its last character shows.
func endsBlock(line string) bool {
	last, _ := utf8.DecodeLastRuneInString(line)
	return strings.ContainsRune(".!?:\"”", last)
}

// joinHyphenated joins a word split by a hyphen at a line end when both
// halves are lower-case letters ("repli-" and "cation ..."): a compound's
// own hyphen before a capital or a digit stays.
func joinHyphenated(lines []string) []string {
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " ")
		for i+1 < len(lines) && strings.HasSuffix(line, "-") && !strings.HasSuffix(line, "--") {
			before, _ := utf8.DecodeLastRuneInString(line[:len(line)-1])
			next := strings.TrimLeft(lines[i+1], " ")
			after, _ := utf8.DecodeRuneInString(next)
			if !unicode.IsLower(before) || !unicode.IsLower(after) {
				break
			}
			word, rest, _ := strings.Cut(next, " ")
			line = line[:len(line)-1] + word
			i++
			if rest != "" {
				out = append(out, line)
				line = rest
				break
			}
		}
		out = append(out, line)
	}
	return out
}

// medianLength is the median length in characters of the non-blank lines.
func medianLength(lines []string) int {
	var n []int
	for _, l := range lines {
		if c := utf8.RuneCountInString(strings.TrimSpace(l)); c > 0 {
			n = append(n, c)
		}
	}
	if len(n) == 0 {
		return 0
	}
	slices.Sort(n)
	return n[len(n)/2]
}

// dropRunningLines removes, from pages, the first and last lines that
// repeat (numbers aside) at the top or the bottom of at least half of
// three or more pages: running headers and footers such as a book's title
// or "Chapter 3 · 41".
func dropRunningLines(pages []string) []string {
	if len(pages) < 3 {
		return pages
	}
	type page struct {
		lines       []string
		first, last int // indexes of the edge lines, -1 on a blank page
	}
	split := make([]page, len(pages))
	count := map[string]int{}
	for i, p := range pages {
		lines := strings.Split(p, "\n")
		first, last := edgeIndexes(lines)
		split[i] = page{lines, first, last}
		if first < 0 {
			continue
		}
		kf, kl := runningKey(lines[first]), runningKey(lines[last])
		count[kf]++
		if kl != kf {
			count[kl]++
		}
	}
	out := make([]string, len(pages))
	for i, p := range split {
		var kept []string
		for j, l := range p.lines {
			if (j == p.first || j == p.last) && count[runningKey(l)]*2 >= len(pages) {
				continue // only the edges: a body line may repeat the header's words
			}
			kept = append(kept, l)
		}
		out[i] = cleanText(strings.Join(kept, "\n"))
	}
	return out
}

// edgeIndexes returns the indexes of the first and last non-blank lines,
// or -1 and -1.
func edgeIndexes(lines []string) (first, last int) {
	first, last = -1, -1
	for j, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if first < 0 {
			first = j
		}
		last = j
	}
	return first, last
}

// runningKey is line with its digits replaced, so that "Chapter 3 · 41"
// and "Chapter 3 · 42" compare equal.
func runningKey(line string) string {
	line = strings.TrimSpace(line)
	if line == "" {
		return ""
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return '#'
		}
		return r
	}, line)
}

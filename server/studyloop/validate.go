package studyloop

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxStudyTitleChars is the longest study title accepted, in Unicode
// characters.
const MaxStudyTitleChars = 200

// derivedTitleChars bounds a title made from the first line of the text.
const derivedTitleChars = 80

// emphasisMarkers strips inline markdown emphasis and code markers.
var emphasisMarkers = strings.NewReplacer("**", "", "__", "", "~~", "", "*", "", "`", "")

// untitled names a study whose text offers no usable first line.
const untitled = "Untitled study"

// lineBreaks turns CRLF and lone CR line breaks into LF.
var lineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// NormalizeLineBreaks returns text with every line break as one LF: CRLF
// (which browsers send for every line of a form's textarea) and a lone CR
// count as one line break, as a student sees them. Study text is stored
// and counted this way.
func NormalizeLineBreaks(text string) string {
	if !strings.Contains(text, "\r") {
		return text
	}
	return lineBreaks.Replace(text)
}

// StudyTextChars is the length of text as the limit counts it: Unicode
// characters after NormalizeLineBreaks.
func StudyTextChars(text string) int {
	return utf8.RuneCountInString(text) - strings.Count(text, "\r\n")
}

// ValidateStudyText reports whether text can become a study. It returns an
// *Error with code ETOOLARGE when the text is longer than MaxStudyTextChars
// Unicode characters (counted by StudyTextChars, a CRLF line break as
// one), and EINVALID when it is not valid UTF-8, holds a NUL byte, or is
// empty or only whitespace. Messages state the limit and what
// was received; the errors are about the field "text".
func ValidateStudyText(text string) error {
	return InField(validateStudyText(text), "text")
}

func validateStudyText(text string) error {
	if i := invalidUTF8At(text); i >= 0 {
		return Errorf(EINVALID, "Study text is not valid UTF-8 (first bad byte at offset %s); send plain text or markdown encoded as UTF-8.", Commas(i))
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		return Errorf(EINVALID, "Study text contains a NUL byte (at byte offset %s); send plain text or markdown without binary data.", Commas(i))
	}
	if n := StudyTextChars(text); n > MaxStudyTextChars {
		return Errorf(ETOOLARGE, "Study text is %s characters long; the limit is %s characters.", Commas(n), Commas(MaxStudyTextChars))
	}
	if strings.TrimFunc(text, unicode.IsSpace) == "" {
		return Errorf(EINVALID, "Study text is empty or only whitespace; send the notes or handout to study.")
	}
	return nil
}

// StudyTitle returns the title to store for a study: the given title with
// surrounding whitespace trimmed and inner runs of whitespace collapsed, or,
// when that is empty, a title derived from the first line of text. It
// returns an *Error with code EINVALID when the title is longer than
// MaxStudyTitleChars characters or holds invalid UTF-8 or control
// characters, about the field "title". text is assumed to have passed
// ValidateStudyText.
func StudyTitle(title, text string) (string, error) {
	if !utf8.ValidString(title) {
		return "", Errorf(EINVALID, "Title is not valid UTF-8.").In("title")
	}
	if strings.ContainsFunc(title, func(r rune) bool { return unicode.IsControl(r) && !unicode.IsSpace(r) }) {
		return "", Errorf(EINVALID, "Title contains control characters.").In("title")
	}
	title = strings.Join(strings.Fields(title), " ")
	if n := utf8.RuneCountInString(title); n > MaxStudyTitleChars {
		return "", Errorf(EINVALID, "Title is %s characters long; the limit is %s characters.", Commas(n), Commas(MaxStudyTitleChars)).In("title")
	}
	if title != "" {
		return title, nil
	}
	return titleFromText(text), nil
}

// titleFromText makes a title from the first line of text that still has
// words once markdown markers are stripped, shortened at a word boundary.
func titleFromText(text string) string {
	for line := range strings.Lines(text) {
		t := strings.TrimLeft(strings.TrimSpace(line), "#>-*+ \t")
		t = emphasisMarkers.Replace(t)
		t = strings.Join(strings.FieldsFunc(t, func(r rune) bool {
			return unicode.IsSpace(r) || unicode.IsControl(r)
		}), " ")
		if strings.IndexFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) < 0 {
			continue
		}
		return shorten(t, derivedTitleChars)
	}
	return untitled
}

// shorten cuts s to at most limit characters, at the last space when there
// is one in the second half, and marks the cut with an ellipsis.
func shorten(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	runes := []rune(s)[:limit-1]
	cut := string(runes)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.-") + "…"
}

// invalidUTF8At returns the byte offset of the first invalid UTF-8 sequence
// in s, or -1 when s is valid.
func invalidUTF8At(s string) int {
	if utf8.ValidString(s) {
		return -1
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

// Commas writes n in decimal with thousands separators, as 400,000 or
// -1,234: the form every message and page gives numbers in.
func Commas(n int) string {
	if n < 0 {
		return "-" + Commas(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

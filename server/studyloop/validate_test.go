package studyloop

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestValidateStudyText(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		wantCode string   // "" when the text is accepted
		wantMsg  []string // substrings of the message
	}{
		{"short", "Photosynthesis turns light into sugar.", "", nil},
		{"markdown", "# Cells\n\n- nucleus\n- membrane\n", "", nil},
		{"exactly the limit in ASCII", strings.Repeat("a", MaxStudyTextChars), "", nil},
		{"one over the limit", strings.Repeat("a", MaxStudyTextChars+1), ETOOLARGE,
			[]string{"400,001 characters", "limit is 400,000 characters"}},
		// "é" is two bytes and "語" three: the limit counts characters.
		{"limit counted in characters, two-byte", strings.Repeat("é", MaxStudyTextChars), "", nil},
		{"limit counted in characters, three-byte", strings.Repeat("語", MaxStudyTextChars), "", nil},
		{"one over in three-byte characters", strings.Repeat("語", MaxStudyTextChars+1), ETOOLARGE,
			[]string{"400,001 characters"}},
		{"far over", strings.Repeat("ab", MaxStudyTextChars), ETOOLARGE, []string{"800,000 characters"}},
		// A browser sends every line break of a textarea as CRLF: each
		// counts as one character, as does a lone CR.
		{"399,000 characters with CRLF line breaks", crlfText(399_000), "", nil},
		{"exactly the limit with CRLF line breaks", crlfText(MaxStudyTextChars), "", nil},
		{"one over with CRLF line breaks", crlfText(MaxStudyTextChars + 1), ETOOLARGE, []string{"400,001 characters"}},
		{"exactly the limit with CR line breaks", strings.ReplaceAll(crlfText(MaxStudyTextChars), "\r\n", "\r"), "", nil},
		{"empty", "", EINVALID, []string{"empty or only whitespace"}},
		{"whitespace only", " \t\r\n\u00a0\u2003\n", EINVALID, []string{"empty or only whitespace"}},
		{"NUL byte", "notes\x00more", EINVALID, []string{"NUL byte", "offset 5"}},
		{"invalid UTF-8", "caf\xe9 au lait", EINVALID, []string{"not valid UTF-8", "offset 3"}},
		{"truncated sequence", "ok \xe8\xaa", EINVALID, []string{"not valid UTF-8", "offset 3"}},
		{"replacement character itself is fine", "a \uFFFD b", "", nil},
		{"NUL in huge text reported before size", strings.Repeat("a", MaxStudyTextChars+5) + "\x00", EINVALID, []string{"NUL byte"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateStudyText(tt.text)
			if got := ErrorCode(err); got != tt.wantCode {
				t.Fatalf("code=%q (%v), want %q", got, err, tt.wantCode)
			}
			for _, want := range tt.wantMsg {
				if msg := ErrorMessage(err); !strings.Contains(msg, want) {
					t.Errorf("message %q does not mention %q", msg, want)
				}
			}
		})
	}
}

func TestStudyTitle(t *testing.T) {
	long := strings.Repeat("word ", 40) // 200 characters with the spaces
	tests := []struct {
		name, title, text string
		want              string
		wantCode          string
	}{
		{"given", "Biology 101", "text", "Biology 101", ""},
		{"trimmed and collapsed", "  Biology \t\n 101  ", "text", "Biology 101", ""},
		{"exactly the limit", strings.Repeat("é", MaxStudyTitleChars), "text", strings.Repeat("é", MaxStudyTitleChars), ""},
		{"over the limit", strings.Repeat("é", MaxStudyTitleChars+1), "text", "", EINVALID},
		{"limit applies after trimming", "  " + strings.Repeat("x", MaxStudyTitleChars) + "  ", "text", strings.Repeat("x", MaxStudyTitleChars), ""},
		{"control character", "Bio\x07logy", "text", "", EINVALID},
		{"invalid UTF-8", "Bio\xfflogy", "text", "", EINVALID},
		{"derived from heading", "", "\n\n## Cell *biology*\n\nThe cell is...", "Cell biology", ""},
		{"derived skips marker-only lines", "   ", "---\n***\n> **Mitochondria** make ATP.\n", "Mitochondria make ATP.", ""},
		{"derived from plain first line", "", "Photosynthesis in plants\nmore", "Photosynthesis in plants", ""},
		{"derived is shortened at a word", "", long, strings.TrimSpace(strings.Repeat("word ", 15)) + "…", ""},
		{"derived without words", "", "--- *** ---\n\n", "Untitled study", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := StudyTitle(tt.title, tt.text)
			if code := ErrorCode(err); code != tt.wantCode {
				t.Fatalf("code=%q (%v), want %q", code, err, tt.wantCode)
			}
			if got != tt.want {
				t.Fatalf("title=%q, want %q", got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > MaxStudyTitleChars {
				t.Fatalf("title has %d characters", n)
			}
		})
	}
}

func TestStudyTitleOverLimitMessage(t *testing.T) {
	_, err := StudyTitle(strings.Repeat("a", 250), "")
	if msg := ErrorMessage(err); !strings.Contains(msg, "250 characters") || !strings.Contains(msg, "limit is 200") {
		t.Fatalf("message %q does not state length and limit", msg)
	}
}

func BenchmarkValidateStudyText(b *testing.B) {
	text := strings.Repeat("Light is refracted by a prism. ", MaxStudyTextChars/31)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if err := ValidateStudyText(text); err != nil {
			b.Fatal(err)
		}
	}
}

// crlfText is n characters of notes, as NormalizeLineBreaks counts them,
// in lines of 80 ending in CRLF (a CRLF counting as one).
func crlfText(n int) string {
	var b strings.Builder
	line := strings.Repeat("x", 79) + "\r\n"
	for ; n >= 80; n -= 80 {
		b.WriteString(line)
	}
	b.WriteString(strings.Repeat("y", n))
	return b.String()
}

func TestNormalizeLineBreaks(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\r\nb", "a\nb"},
		{"a\rb", "a\nb"},
		{"a\nb", "a\nb"},
		{"a\r\n\r\nb\r", "a\n\nb\n"},
		{"a\n\rb", "a\n\nb"},
		{"no breaks", "no breaks"},
	}
	for _, tt := range tests {
		got := NormalizeLineBreaks(tt.in)
		if got != tt.want {
			t.Errorf("NormalizeLineBreaks(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if n, want := StudyTextChars(tt.in), len([]rune(got)); n != want {
			t.Errorf("StudyTextChars(%q) = %d, want %d", tt.in, n, want)
		}
	}
}

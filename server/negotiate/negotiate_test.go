package negotiate

import (
	"fmt"
	"strings"
	"testing"
)

const (
	html     = 0
	markdown = 1
	none     = -1
)

// pageChooser offers what a content page has: HTML first, then its
// markdown twin.
func pageChooser(tb testing.TB) *Chooser {
	tb.Helper()
	c, err := New("text/html", "text/markdown")
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestChoosePage(t *testing.T) {
	tests := []struct {
		name   string
		accept []string // nil: no Accept header
		want   int
	}{
		{"claude code", []string{"text/markdown, text/html, */*"}, markdown},
		{"cursor", []string{"text/markdown, text/plain;q=0.9, */*;q=0.8"}, markdown},
		{"openclaw", []string{"text/markdown, text/html;q=0.9, */*;q=0.1"}, markdown},
		{"browser default", []string{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}, html},
		{"firefox with avif and webp", []string{"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"}, html},
		{"curl and chat assistants", []string{"*/*"}, html},
		{"no accept header", nil, html},
		{"empty accept header", []string{""}, html},
		{"only commas", []string{" , ,"}, html},
		{"html demoted", []string{"text/html;q=0.5, text/markdown"}, markdown},
		{"markdown excluded, wildcard left", []string{"text/markdown;q=0, */*"}, html},
		{"html excluded by specific range whatever the wildcard q", []string{"text/html;q=0, */*;q=1"}, markdown},
		{"both excluded", []string{"text/html;q=0, text/markdown;q=0, */*"}, none},
		{"json only", []string{"application/json"}, none},
		{"plain text only", []string{"text/plain"}, none},
		{"wildcard q=0", []string{"*/*;q=0"}, none},
		{"text wildcard picks first offer", []string{"text/*"}, html},
		{"specific beats text wildcard", []string{"text/*;q=0.5, text/markdown;q=0.4"}, html},
		{"specific markdown beats lower wildcard", []string{"text/*;q=0.3, text/markdown;q=0.4"}, markdown},
		{"equal q, markdown first", []string{"text/markdown;q=0.8, text/html;q=0.8"}, markdown},
		{"equal q, html first", []string{"text/html;q=0.8, text/markdown;q=0.8"}, html},
		{"higher q later in header", []string{"text/html;q=0.7, text/markdown;q=0.71"}, markdown},
		{"case insensitive", []string{"TEXT/Markdown;Q=1, Text/HTML;q=0.5"}, markdown},
		{"two field lines joined", []string{"text/markdown", "text/html"}, markdown},
		{"two field lines, html first", []string{"text/html;q=0.9", "text/markdown;q=0.9, */*;q=0.1"}, html},
		{"parameters do not restrict", []string{"text/markdown;charset=utf-8;variant=GFM, text/html;q=0.5"}, markdown},
		{"quoted parameter with comma", []string{`text/markdown;foo="a,b;c", text/html;q=0.1`}, markdown},
		{"accept-ext after q", []string{"text/markdown;q=0.9;ext=1, text/html;q=0.8"}, markdown},
		{"whitespace everywhere", []string{" \ttext/markdown ; q=1 ,\ttext/html ; q=0.2 "}, markdown},
		{"duplicate range, first counts", []string{"text/markdown;q=0, text/markdown, text/html;q=0.1"}, html},
		{"q=1.000 allowed", []string{"text/markdown;q=1.000, text/html;q=0.999"}, markdown},
		{"malformed: no slash", []string{"markdown, text/markdown"}, html},
		{"malformed: wildcard type with subtype", []string{"*/markdown"}, html},
		{"malformed: q above 1", []string{"text/markdown;q=1.5"}, html},
		{"malformed: q too precise", []string{"text/markdown;q=0.1234"}, html},
		{"malformed: q not a number", []string{"text/markdown;q=high"}, html},
		{"malformed: unterminated quote", []string{`text/markdown;a="b`}, html},
		{"malformed: parameter without value", []string{"text/markdown;q, */*;q=0"}, html},
		{"malformed: space in type", []string{"text /markdown"}, html},
		{"malformed in a second line spoils the header", []string{"application/json", "???"}, html},
	}
	c := pageChooser(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Choose(tt.accept); got != tt.want {
				t.Fatalf("Choose(%q) = %d, want %d", tt.accept, got, tt.want)
			}
		})
	}
}

func TestNewRejectsBadOffers(t *testing.T) {
	tests := []struct {
		name   string
		offers []string
	}{
		{"none", nil},
		{"wildcard", []string{"*/*"}},
		{"type wildcard", []string{"text/*"}},
		{"no slash", []string{"html"}},
		{"too many", strings.Fields("a/a b/b c/c d/d e/e f/f g/g h/h i/i")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.offers...); err == nil {
				t.Fatalf("New(%q) succeeded", tt.offers)
			}
		})
	}
}

func TestParseQ(t *testing.T) {
	tests := []struct {
		in     string
		want   int
		wantOK bool
	}{
		{"0", 0, true}, {"1", 1000, true}, {"0.5", 500, true}, {"0.05", 50, true},
		{"0.001", 1, true}, {"1.0", 1000, true}, {"0.", 0, true},
		{"1.001", 0, false}, {"2", 0, false}, {".5", 0, false}, {"0.0001", 0, false}, {"", 0, false}, {"0,5", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseQ(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseQ(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestChooseDoesNotAllocate(t *testing.T) {
	c := pageChooser(t)
	tests := map[string][]string{
		"two lines, parsed every time": {"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8", `text/markdown;x="y,z"`},
		"one line, remembered":         {"text/markdown, text/html, */*"},
		"too long to remember":         {strings.Repeat("text/plain;q=0.1, ", 100) + "text/markdown"},
	}
	for name, accept := range tests {
		c.Choose(accept)
		if n := testing.AllocsPerRun(100, func() { c.Choose(accept) }); n != 0 {
			t.Errorf("%s: Choose allocates %v times per call", name, n)
		}
	}
}

func TestRememberedChoicesMatchParsing(t *testing.T) {
	c := pageChooser(t)
	headers := []string{"text/markdown", "text/html", "application/json", "*/*;q=0", "text/html;q=0.5, text/markdown", "bad header"}
	// Far more distinct headers than table slots, so entries collide and
	// are replaced; every answer must still be the parsed one.
	for i := range 4 * rememberedSlots {
		headers = append(headers, fmt.Sprintf("text/html;q=0.%03d, text/markdown;q=0.%03d", i%1000, (i*7)%1000))
	}
	for round := range 2 {
		for _, h := range headers {
			if got, want := c.Choose([]string{h}), c.choose([]string{h}); got != want {
				t.Fatalf("round %d: Choose(%q) = %d, parsing gives %d", round, h, got, want)
			}
		}
	}
}

func FuzzChoose(f *testing.F) {
	for _, s := range []string{
		"text/markdown, text/html, */*",
		"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
		"text/markdown;q=0, */*",
		`a/b;c="d\"e,f";q=0.5`,
		"*/*;q=0",
		"",
	} {
		f.Add(s, "text/plain")
	}
	c := pageChooser(f)
	f.Fuzz(func(t *testing.T, line1, line2 string) {
		got := c.Choose([]string{line1, line2})
		if one, parsed := c.Choose([]string{line1}), c.choose([]string{line1}); one != parsed {
			t.Fatalf("Choose(%q) = %d from the table, %d parsed", line1, one, parsed)
		}
		if got < -1 || got > 1 {
			t.Fatalf("Choose(%q, %q) = %d, not an offer index or -1", line1, line2, got)
		}
		// Choosing is a function of the header: asking again agrees.
		if again := c.Choose([]string{line1, line2}); again != got {
			t.Fatalf("Choose is not deterministic: %d then %d", got, again)
		}
		// Refusing everything needs at least one media range; a header
		// without any is treated as absent.
		if got == -1 && !strings.Contains(line1+line2, "/") {
			t.Fatalf("Choose(%q, %q) refused a header that names no media range", line1, line2)
		}
	})
}

func BenchmarkChoose(b *testing.B) {
	c := pageChooser(b)
	headers := map[string][]string{
		"claude":  {"text/markdown, text/html, */*"},
		"browser": {"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"},
		"none":    nil,
	}
	for name, accept := range headers {
		b.Run(name+"/remembered", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Choose(accept)
			}
		})
		b.Run(name+"/parsed", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.choose(accept)
			}
		})
	}
}

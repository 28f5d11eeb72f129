package negotiate

import (
	"fmt"
	"strings"
	"testing"
)

// q lists the expected qualities of identity, gzip, br and zstd.
type q [codingCount]uint16

func TestAcceptEncoding(t *testing.T) {
	tests := []struct {
		name  string
		lines []string // nil: no Accept-Encoding header
		want  q
	}{
		{"no header: identity only", nil, q{Identity: 1000}},
		{"empty header: identity only", []string{""}, q{Identity: 1000}},
		{"only commas", []string{" , ,"}, q{Identity: 1000}},
		{"chrome", []string{"gzip, deflate, br, zstd"}, q{Identity: 1, Gzip: 1000, Brotli: 1000, Zstd: 1000}},
		{"curl --compressed", []string{"deflate, gzip, br, zstd"}, q{Identity: 1, Gzip: 1000, Brotli: 1000, Zstd: 1000}},
		{"gzip only", []string{"gzip"}, q{Identity: 1, Gzip: 1000}},
		{"x-gzip is gzip", []string{"x-gzip"}, q{Identity: 1, Gzip: 1000}},
		{"case insensitive", []string{"GZip;Q=0.5, BR"}, q{Identity: 1, Gzip: 500, Brotli: 1000}},
		{"q-values", []string{"br;q=0.8, gzip;q=0.9, zstd;q=0.001"}, q{Identity: 1, Gzip: 900, Brotli: 800, Zstd: 1}},
		{"wildcard covers the unlisted", []string{"gzip;q=0.5, *"}, q{Identity: 1000, Gzip: 500, Brotli: 1000, Zstd: 1000}},
		{"wildcard with q", []string{"*;q=0.3"}, q{Identity: 300, Gzip: 300, Brotli: 300, Zstd: 300}},
		{"identity refused", []string{"identity;q=0"}, q{}},
		{"identity refused, gzip kept", []string{"gzip, identity;q=0"}, q{Gzip: 1000}},
		{"wildcard refused without identity entry", []string{"br, *;q=0"}, q{Brotli: 1000}},
		{"wildcard refused, identity listed", []string{"*;q=0, identity"}, q{Identity: 1000}},
		{"identity named", []string{"identity;q=0.5, gzip;q=0.4"}, q{Identity: 500, Gzip: 400}},
		{"first entry counts", []string{"br;q=0, br, gzip"}, q{Identity: 1, Gzip: 1000}},
		{"unknown codings ignored", []string{"compress, deflate, exi"}, q{Identity: 1}},
		{"two field lines joined", []string{"gzip", "br;q=0.5"}, q{Identity: 1, Gzip: 1000, Brotli: 500}},
		{"whitespace everywhere", []string{" \tbr ; q=0.7 ,\tgzip "}, q{Identity: 1, Gzip: 1000, Brotli: 700}},
		{"q=1.000 allowed", []string{"br;q=1.000"}, q{Identity: 1, Brotli: 1000}},
		{"malformed: q above 1", []string{"br;q=1.5, gzip"}, q{Identity: 1000}},
		{"malformed: q too precise", []string{"br;q=0.1234"}, q{Identity: 1000}},
		{"malformed: q not a number", []string{"br;q=high"}, q{Identity: 1000}},
		{"malformed: space in name", []string{"g zip"}, q{Identity: 1000}},
		{"malformed: parameter without value", []string{"br;q"}, q{Identity: 1000}},
		{"malformed: space around =", []string{"gzip, identity;q =0"}, q{Identity: 1000}},
		{"malformed: unterminated quote", []string{`br;a="b`}, q{Identity: 1000}},
		{"malformed in a second line spoils the header", []string{"br", "g/zip"}, q{Identity: 1000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AcceptEncoding(tt.lines)
			for c := range codingCount {
				if got.Of(c) != int(tt.want[c]) {
					t.Errorf("AcceptEncoding(%q): %s has quality %d, want %d", tt.lines, c, got.Of(c), tt.want[c])
				}
			}
		})
	}
}

func TestQualitiesChoose(t *testing.T) {
	// The offers of a file with all three variants, smallest first.
	offers := []Coding{Brotli, Zstd, Gzip, Identity}
	tests := []struct {
		name   string
		lines  []string
		offers []Coding
		want   int
	}{
		{"tie goes to the first (smallest) offer", []string{"gzip, deflate, br, zstd"}, offers, 0},
		{"higher q wins over order", []string{"br;q=0.5, gzip"}, offers, 2},
		{"zstd when br is not accepted", []string{"zstd, gzip"}, offers, 1},
		{"identity when nothing else", []string{"deflate"}, offers, 3},
		{"no header: identity", nil, offers, 3},
		{"nothing acceptable", []string{"deflate, identity;q=0"}, offers, -1},
		{"uncompressed file, identity refused", []string{"gzip, identity;q=0"}, []Coding{Identity}, -1},
		{"uncompressed file, wildcard", []string{"*"}, []Coding{Identity}, 0},
		{"no offers", []string{"*"}, nil, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AcceptEncoding(tt.lines).Choose(tt.offers); got != tt.want {
				t.Fatalf("Choose(%v) for %q = %d, want %d", tt.offers, tt.lines, got, tt.want)
			}
		})
	}
}

func TestCodingString(t *testing.T) {
	for c, want := range map[Coding]string{Identity: "identity", Gzip: "gzip", Brotli: "br", Zstd: "zstd"} {
		if got := c.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", c, got, want)
		}
		if back, ok := codingNamed(want); !ok || back != c {
			t.Errorf("codingNamed(%q) = %d, %v", want, back, ok)
		}
	}
}

func TestAcceptEncodingDoesNotAllocate(t *testing.T) {
	var e Encodings
	for _, lines := range [][]string{
		{"gzip, deflate, br, zstd"},
		{"br;q=0.5", `gzip;x="a,b", *;q=0`},
		{strings.Repeat("deflate;q=0.1, ", 100) + "br"},
	} {
		if n := testing.AllocsPerRun(100, func() { AcceptEncoding(lines) }); n != 0 {
			t.Errorf("AcceptEncoding(%q) allocates %v times per call", lines, n)
		}
		e.Read(lines)
		if n := testing.AllocsPerRun(100, func() { e.Read(lines) }); n != 0 {
			t.Errorf("Read(%q) allocates %v times per call once remembered", lines, n)
		}
	}
}

func TestRememberedQualitiesMatchParsing(t *testing.T) {
	var e Encodings
	headers := []string{"gzip", "br;q=0.5, gzip", "identity;q=0", "", "bad header", "GZIP"}
	// More distinct headers than table slots, so entries are replaced.
	for i := range 4 * rememberedSlots {
		headers = append(headers, fmt.Sprintf("br;q=0.%03d, gzip;q=0.%03d", i%1000, (i*7)%1000))
	}
	for round := range 2 {
		for _, h := range headers {
			if got, want := e.Read([]string{h}), AcceptEncoding([]string{h}); got != want {
				t.Fatalf("round %d: Read(%q) = %v, parsing gives %v", round, h, got, want)
			}
		}
	}
	if got := e.Read(nil); got != identityOnly {
		t.Fatalf("Read(nil) = %v, want identity only", got)
	}
}

func FuzzAcceptEncoding(f *testing.F) {
	for _, s := range []string{"gzip, deflate, br, zstd", "br;q=0.5, *;q=0", "identity;q=0", `x;y="z,"`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got := AcceptEncoding([]string{line})
		for c := range codingCount {
			if v := got.Of(c); v < 0 || v > 1000 {
				t.Fatalf("AcceptEncoding(%q): %s quality %d outside 0-1000", line, c, v)
			}
		}
		// Identity can only be refused by a header that says so.
		if got.Of(Identity) == 0 && !strings.Contains(line, "q=0") && !strings.Contains(line, "Q=0") {
			t.Fatalf("AcceptEncoding(%q) refused identity", line)
		}
	})
}

func BenchmarkAcceptEncoding(b *testing.B) {
	for name, lines := range map[string][]string{
		"chrome": {"gzip, deflate, br, zstd"},
		"curl":   {"deflate, gzip"},
		"none":   nil,
	} {
		b.Run(name+"/parsed", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				AcceptEncoding(lines)
			}
		})
		var e Encodings
		b.Run(name+"/remembered", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.Read(lines)
			}
		})
	}
}

package lexicon

import "testing"

func TestRelate(t *testing.T) {
	tests := []struct {
		a, b string
		want Relation
	}{
		{"coronary", "Coronary thrombosis", Synonyms},
		{"car", "automobile", Synonyms},
		{"Cars", "automobiles", Synonyms},
		{"enzyme", "protein", Nested},
		{"protein", "enzyme", Nested},
		{"dog", "animal", Nested},
		{"mitochondrion", "ribosome", Siblings},
		{"oxygen", "nitrogen", Siblings},
		{"ribosome", "democracy", Unrelated},
		{"ribosome", "no such word here", Unrelated},
		{"mice", "mouse", Synonyms},
	}
	l := Default()
	for _, tt := range tests {
		if got := l.Relate(tt.a, tt.b); got != tt.want {
			t.Errorf("Relate(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestCountAndSenses(t *testing.T) {
	l := Default()
	tests := []struct {
		word          string
		minCount      int
		minSenses     int
		maxSenses     int
		noun, unknown bool
	}{
		{"line", 100, 20, 100, true, false},
		{"lines", 100, 20, 100, true, false},
		{"water", 50, 5, 30, true, false},
		{"ribosome", 0, 1, 1, true, false},
		{"quickly", 1, 1, 5, false, false},
		{"zzzzqx", 0, 0, 0, false, true},
	}
	for _, tt := range tests {
		c, s := l.Count(tt.word), l.Senses(tt.word)
		if c < tt.minCount || s < tt.minSenses || s > tt.maxSenses {
			t.Errorf("%q: count %d senses %d, want count >= %d and senses in [%d, %d]", tt.word, c, s, tt.minCount, tt.minSenses, tt.maxSenses)
		}
		if l.IsNoun(tt.word) != tt.noun {
			t.Errorf("IsNoun(%q) = %v, want %v", tt.word, !tt.noun, tt.noun)
		}
		if tt.unknown && (c != 0 || s != 0) {
			t.Errorf("%q: unknown word has count %d senses %d", tt.word, c, s)
		}
	}
}

func BenchmarkRelate(b *testing.B) {
	l := Default()
	for b.Loop() {
		l.Relate("mitochondrion", "ribosome")
	}
}

// BenchmarkLoad measures the one-time cost the first study after a start
// pays: decompressing and indexing the embedded data.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestVerbBase(t *testing.T) {
	tests := []struct{ past, base string }{
		{"opened", "open"}, {"declared", "declare"}, {"planned", "plan"}, {"added", "add"},
		{"carried", "carry"}, {"led", "lead"}, {"began", "begin"}, {"fought", "fight"},
		{"Patented", "patent"}, {"xyzzied", ""}, {"runs", ""},
	}
	l := Default()
	for _, tt := range tests {
		base, ok := l.VerbBase(tt.past)
		if base != tt.base || ok != (tt.base != "") {
			t.Errorf("VerbBase(%q) = %q, %v; want %q", tt.past, base, ok, tt.base)
		}
	}
}

func TestPeopleAndPlaces(t *testing.T) {
	tests := []struct {
		name                    string
		person, place, nounOnly bool
	}{
		{"Faraday", true, false, true},
		{"James Watt", true, false, true},
		{"Thomas Jefferson", true, false, true},
		{"Washington", true, true, true},
		{"France", true, true, true},
		{"Britain", false, true, true},
		{"Galilean", true, false, false},
		{"ribosome", false, false, true},
		{"Nobody Inparticular", false, false, false},
	}
	l := Default()
	for _, tt := range tests {
		if got := l.IsPerson(tt.name); got != tt.person {
			t.Errorf("IsPerson(%q) = %v", tt.name, got)
		}
		if got := l.IsPlace(tt.name); got != tt.place {
			t.Errorf("IsPlace(%q) = %v", tt.name, got)
		}
		if got := l.NounOnly(tt.name); got != tt.nounOnly {
			t.Errorf("NounOnly(%q) = %v", tt.name, got)
		}
	}
}

package randtoken

import (
	"strings"
	"testing"
)

func TestNewTokensAreWellFormedAndDistinct(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		tok := New()
		if len(tok) != 43 || !WellFormed(tok) {
			t.Fatalf("New() = %q: want 43 base64url characters", tok)
		}
		if seen[tok] {
			t.Fatalf("New() repeated %q", tok)
		}
		seen[tok] = true
	}
}

func TestWellFormed(t *testing.T) {
	tests := []struct {
		name string
		s    string
		want bool
	}{
		{"32 bytes", strings.Repeat("A", 43), true},
		{"url alphabet", strings.Repeat("-_", 21) + "A", true},
		{"empty", "", false},
		{"31 bytes", strings.Repeat("A", 42), false},
		{"33 bytes", strings.Repeat("A", 44), false},
		{"padded", strings.Repeat("A", 43) + "=", false},
		{"standard alphabet", strings.Repeat("+/", 21) + "A", false},
	}
	for _, tt := range tests {
		if got := WellFormed(tt.s); got != tt.want {
			t.Errorf("%s: WellFormed(%q) = %v, want %v", tt.name, tt.s, got, tt.want)
		}
	}
}

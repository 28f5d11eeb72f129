package webapp

import (
	"testing"
	"time"
)

func TestSameAnswer(t *testing.T) {
	tests := []struct {
		given, want string
		same        bool
	}{
		{"Refraction", "Refraction", true},
		{"  refraction ", "Refraction", true},
		{"refraction.", "Refraction", true},
		{"the refraction", "Refraction", true},
		{"An  optic   nerve", "optic nerve", true},
		{"Snell's law", "Snell’s law", false}, // different apostrophes are different text
		{"reflection", "Refraction", false},
		{"", "Refraction", false},
		{"...", "!!!", false},
		{"refractions", "Refraction", false},
		{"Théorème", "théorème", true},
	}
	for _, tt := range tests {
		if got := sameAnswer(tt.given, tt.want); got != tt.same {
			t.Errorf("sameAnswer(%q, %q)=%v, want %v", tt.given, tt.want, got, tt.same)
		}
	}
}

func TestUntil(t *testing.T) {
	now := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		in   time.Duration
		want string
	}{
		{-time.Hour, "now"},
		{0, "now"},
		{20 * time.Second, "in less than a minute"},
		{time.Minute, "in 1 minute"},
		{10 * time.Minute, "in 10 minutes"},
		{59*time.Minute + 50*time.Second, "in 1 hour"},
		{5*time.Hour + 20*time.Minute, "in 5 hours"},
		{23*time.Hour + 40*time.Minute, "in 1 day"},
		{24 * time.Hour, "in 1 day"},
		{11*24*time.Hour + 3*time.Hour, "in 11 days"},
	}
	for _, tt := range tests {
		at := now.Add(tt.in)
		if got := until(&at, now); got != tt.want {
			t.Errorf("until(now%+v)=%q, want %q", tt.in, got, tt.want)
		}
	}
	if got := until(nil, now); got != "" {
		t.Errorf("until(nil)=%q", got)
	}
}

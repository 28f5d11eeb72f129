package webapp

import (
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/templates"
)

func TestGrade(t *testing.T) {
	typed := studyloop.Question{Type: studyloop.QuestionCloze, Answer: "Refraction", Alternatives: []string{"bending of light"}}
	short := studyloop.Question{Type: studyloop.QuestionTermDefinition, Answer: "Ribosom"}
	choice := studyloop.Question{Type: studyloop.QuestionMultipleChoice, Answer: "Red", Choices: []string{"Red", "Rod", "Blue", "Green"}}
	tests := []struct {
		given string
		q     studyloop.Question
		want  string
	}{
		{"Refraction", typed, templates.VerdictRight},
		{"  refraction ", typed, templates.VerdictRight},
		{"refraction.", typed, templates.VerdictRight},
		{"the refraction", typed, templates.VerdictRight},
		{"Bending  of LIGHT", typed, templates.VerdictRight}, // an accepted alternative
		{"refractoin", typed, templates.VerdictClose},        // two letters swapped count as one typo
		{"refrection", typed, templates.VerdictClose},
		{"lnies", studyloop.Question{Type: studyloop.QuestionCloze, Answer: "lines"}, templates.VerdictClose},
		{"line", studyloop.Question{Type: studyloop.QuestionCloze, Answer: "lines"}, templates.VerdictClose},
		{"lens", studyloop.Question{Type: studyloop.QuestionCloze, Answer: "lines"}, templates.VerdictWrong},
		{"reflection", typed, templates.VerdictWrong},
		{"", typed, templates.VerdictWrong},
		{"...", typed, templates.VerdictWrong},
		{"das Ribosom", short, templates.VerdictRight},
		{"Ribosome", short, templates.VerdictClose},  // 7 letters: one typo allowed
		{"Ribosomen", short, templates.VerdictWrong}, // two typos: the student overrides if right
		{"Rod", choice, templates.VerdictWrong},      // choices never pass as typos
		{"CO2", studyloop.Question{Type: studyloop.QuestionCloze, Answer: "carbon dioxide", Alternatives: []string{"CO₂"}}, templates.VerdictRight},
		{"red", choice, templates.VerdictRight},
		{"Snell's law", studyloop.Question{Type: studyloop.QuestionCloze, Answer: "Snell’s law"}, templates.VerdictClose},
		{"Théorème", studyloop.Question{Type: studyloop.QuestionCloze, Answer: "théorème"}, templates.VerdictRight},
	}
	for _, tt := range tests {
		if got := grade(tt.given, tt.q); got != tt.want {
			t.Errorf("grade(%q, %q)=%q, want %q", tt.given, tt.q.Answer, got, tt.want)
		}
	}
}

func TestTypoAllowance(t *testing.T) {
	for _, tt := range []struct {
		want string
		n    int
	}{{"abcd", 0}, {"abcde", 1}, {"abcdefghijk", 1}, {"abcdefghijkl", 2}, {"äöüßä", 1}} {
		if got := typoAllowance(tt.want); got != tt.n {
			t.Errorf("typoAllowance(%q)=%d, want %d", tt.want, got, tt.n)
		}
	}
}

func TestShortInterval(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{30 * time.Second, "<1m"}, {time.Minute - time.Microsecond, "1m"}, {time.Minute, "1m"}, {10 * time.Minute, "10m"}, {59 * time.Minute, "59m"},
		{time.Hour, "1h"}, {23 * time.Hour, "23h"}, {24 * time.Hour, "1d"}, {29 * 24 * time.Hour, "29d"},
		{30 * 24 * time.Hour, "1mo"}, {364 * 24 * time.Hour, "12mo"}, {365 * 24 * time.Hour, "1y"}, {550 * 24 * time.Hour, "1.5y"},
	} {
		if got := shortInterval(tt.d); got != tt.want {
			t.Errorf("shortInterval(%v)=%q, want %q", tt.d, got, tt.want)
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

func TestAnkiTag(t *testing.T) {
	for _, tt := range []struct {
		path []string
		want string
	}{
		{[]string{"Optics"}, "Optics"},
		{[]string{"Light and optics", "Refraction  index"}, "Light_and_optics::Refraction_index"},
		{[]string{`The "wave" model`}, "The_wave_model"},
		{[]string{"C++::STL"}, "C++:STL"},
	} {
		if got := ankiTag(tt.path); got != tt.want {
			t.Errorf("ankiTag(%q)=%q, want %q", tt.path, got, tt.want)
		}
	}
}

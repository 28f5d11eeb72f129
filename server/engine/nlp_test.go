package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/lexicon"
)

// TestRetagVerbs: the tagger's plural nouns and present-tense verbs,
// corrected with WordNet.
func TestRetagVerbs(t *testing.T) {
	tests := []struct {
		sentence, word, tag string
	}{
		{"The termination of translation occurs when a stop codon is reached.", "occurs", "VBZ"},
		{"Passive transport moves molecules down their gradient without spending energy.", "molecules", "NNS"},
		{"Passive transport moves molecules down their gradient without spending energy.", "moves", "VBZ"},
		{"Ribosomes build proteins from amino acids in the cytoplasm.", "acids", "NNS"},
		{"The cell does its work in the nucleus.", "does", "VBZ"},
		{"A cache must know how long a stored response stays correct.", "stays", "VBZ"},
		{"The cells build proteins from amino acid chains in every tissue.", "chains", "NNS"},
		{"The law of supply states that a higher price leads to a higher quantity supplied.", "states", "VBZ"},
		{"Photosystem II, whose reaction center absorbs best at 680 nm, acts first.", "absorbs", "VBZ"},
	}
	for _, tt := range tests {
		toks := tagSentence(tt.sentence)
		found := false
		for _, tok := range toks {
			if strings.EqualFold(tok.Text, tt.word) {
				found = true
				if tok.Tag != tt.tag {
					t.Errorf("%q in %q tagged %s, want %s", tt.word, tt.sentence, tok.Tag, tt.tag)
				}
			}
		}
		if !found {
			t.Errorf("%q not among the tokens of %q", tt.word, tt.sentence)
		}
	}
}

// TestSpacedDashes: a dash between two words splits them for the tagger,
// and every offset still indexes the original text.
func TestSpacedDashes(t *testing.T) {
	s := "Organisms learn to associate events—or stimuli–that happen together."
	spaced := spacedDashes(s)
	if len(spaced) != len(s) {
		t.Fatalf("length %d, want %d", len(spaced), len(s))
	}
	for _, tok := range tagSentence(s) {
		if strings.ContainsAny(tok.Text, "—–") || strings.Contains(tok.Text, "-") && tok.Text != "-" {
			t.Errorf("token %q keeps a dash", tok.Text)
		}
		if w := s[tok.Start:tok.End()]; tok.Text != "-" && w != tok.Text {
			t.Errorf("token %q at %d reads %q in the text", tok.Text, tok.Start, w)
		}
	}
}

// TestSentenceOpeningWithCode: a sentence that opens with a code span is
// a sentence, though it starts in lower case, and its code keeps its case.
func TestSentenceOpeningWithCode(t *testing.T) {
	tests := []struct {
		text  string
		asked bool
	}{
		{"# History\n\n`git log` lists all commits  made to a repository in reverse chronological order of their dates.\n", true},
		{"# History\n\ngit log lists all commits made to a repository in reverse chronological order of their dates.\n", false},
	}
	for _, tt := range tests {
		ex, _ := mustOffline(t).Generate(context.Background(), "Git", tt.text)
		if asked := len(ex.Questions) > 0; asked != tt.asked {
			t.Errorf("%q: asked = %v, want %v", tt.text, asked, tt.asked)
		}
		for _, q := range ex.Questions {
			if strings.Contains(q.Prompt, "  ") || strings.HasPrefix(q.Prompt, "Git log") {
				t.Errorf("prompt %q: the source's double space or a capital in the code", q.Prompt)
			}
		}
	}
}

func TestAnswerKey(t *testing.T) {
	tests := []struct{ answer, key string }{
		{"The primary transcripts", "primary transcript"},
		{"primary transcript", "primary transcript"},
		{"a  Process", "process"},
		{"stimulus", "stimulus"},
		{"analysis", "analysis"},
		{"ions", "ion"},
		{"gas", "gas"},
		{"physics", "physics"},
		{"bodies", "body"},
		{"species", "species"},
	}
	for _, tt := range tests {
		if got := answerKey(tt.answer); got != tt.key {
			t.Errorf("answerKey(%q) = %q, want %q", tt.answer, got, tt.key)
		}
	}
}

// TestInitialsEndNoSentence: a person's initials do not end a sentence; a
// Roman numeral does.
func TestInitialsEndNoSentence(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"The fluid mosaic model, proposed by S. J. Singer and Garth L. Nicolson in 1972, describes the membrane.", 1},
		{"The model was proposed by S. Singer in 1972 for every membrane.", 1},
		{"Impulses travel along the vagus nerve, cranial nerve X. During rest, both centers stimulate the heart.", 2},
		{"In Lochner v. New York (1905), the Supreme Court struck down a law limiting bakers' hours. Reformers pressed on.", 2},
	}
	g := mustOffline(t)
	for _, tt := range tests {
		sections, err := parseMarkdown(context.Background(), g.md, []byte(tt.text))
		if err != nil {
			t.Fatal(err)
		}
		an := newAnalyzer(g.seg, g.tagger)
		if err := an.analyze(context.Background(), sections[0].blocks); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range sections[0].blocks[0].sents {
			got = append(got, s.text)
		}
		if len(got) != tt.want {
			t.Errorf("%q: sentences %q, want %d", tt.text, got, tt.want)
		}
	}
}

func TestCutOff(t *testing.T) {
	lex := lexicon.Default()
	for def, want := range map[string]bool{
		"Selecting values by dividing the overall population into homogeneous": true,
		"A block of text in a program":                                         false,
		"A block of text in a program.":                                        false,
		"Selecting values by dividing the population into homogeneous groups.": false,
	} {
		if got := cutOff(lex, def); got != want {
			t.Errorf("cutOff(%q) = %v, want %v", def, got, want)
		}
	}
}

func TestSplitFinalStop(t *testing.T) {
	for sentence, want := range map[string]string{
		"The resulting conflict is known as the Bank War.": "War",
		"They packed salt, flour, beans, etc.":             "etc",
		"The treaty went to the U.S.":                      "U.S.",
	} {
		toks := tagSentence(sentence)
		if len(toks) < 2 || toks[len(toks)-2].Text != want && toks[len(toks)-1].Text != want {
			t.Errorf("last tokens of %q: %+v, want %q as a word", sentence, toks[max(0, len(toks)-2):], want)
		}
	}
}

package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/studyloop"
)

// Tests for the defects an audit of the generator found: distractors that
// extend the answer, footnotes read as text, prompts and choices cut off,
// blanks that take a clause's verb, short answers that drop the article,
// and headings over a short sentence left without a topic.

func TestChoicesOverlapAsStemSets(t *testing.T) {
	const prompt = "The scheduler of _____ runs each job to completion in turn."
	tests := []struct {
		name    string
		answer  string
		choices []string
		wantErr string
	}{
		{"distinct choices", "Batch systems", []string{"Batch systems", "Interactive shells", "Real-time kernels", "Embedded controllers"}, ""},
		{"distractor extends the answer", "Batch systems", []string{"Batch systems", "Batch systems with known run times", "Real-time kernels", "Embedded controllers"}, "overlap"},
		{"answer extends a distractor", "Batch systems with known run times", []string{"Batch systems with known run times", "Known systems", "Real-time kernels", "Embedded controllers"}, "overlap"},
		{"distractor extends another", "Batch systems", []string{"Batch systems", "Real-time kernels", "Kernels of real-time clocks", "Embedded controllers"}, "overlap"},
		{"same stems in another order", "Batch systems", []string{"Batch systems", "Systems batch", "Real-time kernels", "Embedded controllers"}, "overlap"},
		{"sharing one stem is fine", "Batch systems", []string{"Batch systems", "Batch queues", "Real-time kernels", "Embedded controllers"}, ""},
		{"numbers without stems only overlap each other", "1666", []string{"1666", "1704", "Real-time kernels", "Embedded controllers"}, "overlap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkChoices(indexPrompt(prompt, stemWord), tt.answer, tt.choices, stemWord)
			checkErr(t, err, tt.wantErr)
		})
	}
}

func TestOverlap(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"batch systems", "batch systems with known run times", true},
		{"batch systems with known run times", "batch systems", true},
		{"batch systems", "batch queues", false},
		{"known run times", "batch systems", false},
		{"", "", true},
		{"", "batch systems", false},
	}
	for _, tt := range tests {
		a, b := contentStems(tt.a, stemWord), contentStems(tt.b, stemWord)
		if got := overlap(a, b); got != tt.want {
			t.Errorf("overlap(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := keysOverlap(stemKey(tt.a, stemWord), stemKey(tt.b, stemWord)); got != tt.want {
			t.Errorf("keysOverlap(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestFootnotesAreNotText(t *testing.T) {
	tests := []struct {
		name string
		text string
	}{
		{"reference mid-sentence", "# Atoms\n\nThe nucleus of an atom holds protons and neutrons[^1], while the electrons move in orbitals around the nucleus.\n\nEvery element has a fixed number of protons in the nucleus of each of its atoms.\n\n[^1]: Together called nucleons, a term from nuclear physics of the twentieth century.\n"},
		{"reference at sentence end", "# Atoms\n\nThe nucleus of an atom holds protons and neutrons in a very small volume.[^note]\n\nEvery element has a fixed number of protons in the nucleus of each of its atoms.\n\n[^note]: Together called nucleons, a term from nuclear physics of the twentieth century.\n"},
		{"several references", "# Atoms\n\nThe nucleus[^a] of an atom holds protons[^b] and neutrons[^c] in a very small volume of space.\n\nEvery element has a fixed number of protons in the nucleus of each of its atoms.\n\n[^a]: The dense core of the atom, found by Rutherford in his gold foil experiment.\n[^b]: Positively charged particles that give the element its atomic number.\n[^c]: Neutral particles that add mass and make the isotopes of an element.\n"},
	}
	g := mustOffline(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := generate(t, g, tt.text)
			defs := strings.Index(tt.text, "\n[^")
			for _, q := range ex.Questions {
				for _, s := range append([]string{q.Prompt, q.Answer}, q.Choices...) {
					if strings.Contains(s, "[^") || strings.Contains(s, "^") {
						t.Errorf("footnote mark in %q", s)
					}
				}
				if q.Source.Start >= defs {
					t.Errorf("question %q asks about a footnote", q.Prompt)
				}
			}
		})
	}
}

func TestFootnoteReferenceIsLeftoverMarkdown(t *testing.T) {
	text := "The nucleus holds protons and neutrons[^1], while electrons move in orbitals around it.\n\n[^1]: Nucleons."
	sentence := "The nucleus holds protons and neutrons[^1], while electrons move in orbitals around it."
	span := studyloop.Span{Start: 0, End: len(sentence)}
	tests := []struct {
		name    string
		q       studyloop.Question
		wantErr string
	}{
		{"reference in the prompt", studyloop.Question{Type: studyloop.QuestionCloze, Prompt: "The nucleus holds _____ and neutrons[^1], while electrons move in orbitals around it.", Answer: "protons", Source: span}, "leftover markdown"},
		{"reference in the answer", studyloop.Question{Type: studyloop.QuestionCloze, Prompt: "The nucleus holds protons and _____, while electrons move in orbitals around it.", Answer: "neutrons[^1]", Source: span}, "leftover markdown"},
		{"reference dropped", studyloop.Question{Type: studyloop.QuestionCloze, Prompt: "The nucleus holds _____ and neutrons, while electrons move in orbitals around it.", Answer: "protons", Source: span}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErr(t, CheckQuestion(text, tt.q), tt.wantErr)
		})
	}
}

func TestTruncatedPromptsAndChoices(t *testing.T) {
	mc := func(choices ...string) studyloop.Question {
		return studyloop.Question{Type: studyloop.QuestionMultipleChoice, Prompt: "Ribosomes build proteins from _____ in the cytoplasm of every cell.", Answer: "amino acids", Choices: choices, Source: spanOf(t, ribosomesSentence)}
	}
	tests := []struct {
		name    string
		q       studyloop.Question
		wantErr string
	}{
		{"prompt ends in a relative pronoun", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What is the organelle that?", Answer: "mitochondrion", Source: spanOf(t, mitochondrionSentence)}, "prompt"},
		{"description cut off", studyloop.Question{Type: studyloop.QuestionTermDefinition, Prompt: "Which term matches this description: the organelle that makes?", Answer: "mitochondrion", Source: spanOf(t, mitochondrionSentence)}, ""},
		{"description ends in a preposition", studyloop.Question{Type: studyloop.QuestionTermDefinition, Prompt: "Which term matches this description: the organelle of?", Answer: "mitochondrion", Source: spanOf(t, mitochondrionSentence)}, "prompt"},
		{"prompt ends in an ellipsis", studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What is the organelle...?", Answer: "mitochondrion", Source: spanOf(t, mitochondrionSentence)}, "prompt"},
		{"cloze with the blank last is whole", studyloop.Question{Type: studyloop.QuestionCloze, Prompt: "Ribosomes build proteins from amino acids in the cytoplasm of every _____.", Answer: "cell", Source: spanOf(t, ribosomesSentence)}, ""},
		{"choice ends in a conjunction", mc("fatty acids", "amino acids", "simple sugars and", "nucleotides"), "choice"},
		{"choice ends in an ellipsis", mc("fatty acids…", "amino acids", "simple sugars", "nucleotides"), "choice"},
		{"choice ends in a comma", mc("fatty acids", "amino acids", "simple sugars,", "nucleotides"), "choice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckQuestion(validateText, tt.q)
			if tt.wantErr != "" {
				tt.wantErr = "cut off"
			}
			checkErr(t, err, tt.wantErr)
		})
	}
}

func TestBlankKeepsTheVerb(t *testing.T) {
	tests := []struct {
		sentence, answer string
		want             bool
	}{
		{"Threads of a process share memory, while separate processes do not.", "process share memory", false},
		{"Threads of a process share memory, while separate processes do not.", "separate processes", true},
		{"On commit, ext4 write changes to the journal first.", "ext4 write changes", false},
		{"At a subduction zone one tectonic plate slides beneath another and melts as it sinks into the mantle.", "tectonic plate slides", false},
		{"At a subduction zone one tectonic plate slides beneath another and melts as it sinks into the mantle.", "mantle", true},
		{"Ribosomes build proteins from amino acids in the cytoplasm of every cell.", "amino acids", true},
		{"Ribosomes build proteins from amino acids in the cytoplasm of every cell.", "Ribosomes", true},
		{"The rays which pass through the prism are bent towards its base.", "rays", true},
		{"Protons and neutrons are the particles of the nucleus.", "Protons", true},
		{"Light is refracted by the prism; the red rays bend least.", "red rays bend", false},
		{"Light is refracted by the prism; the red rays bend least.", "prism", true},
		{"And if the incident Rays flow from several Points, the refracted Rays shall flow towards other Points.", "incident Rays flow", false},
		{"And if the incident Rays flow from several Points, the refracted Rays shall flow towards other Points.", "other Points", true},
		{"If the glass is thick, the beam bends twice.", "glass", true},
		{"If the glass is thick, the beam bends twice.", "beam", true},
		{"In the tenth Experiment, the Colours of the Prism were seen distinctly.", "tenth Experiment", true},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			from := strings.Index(tt.sentence, tt.answer)
			toks := tagSentence(tt.sentence)
			if from < 0 || toks == nil {
				t.Fatalf("bad case")
			}
			if got := keepsVerb(toks, from, from+len(tt.answer)); got != tt.want {
				var tags []string
				for _, tk := range toks {
					tags = append(tags, tk.Text+"/"+tk.Tag)
				}
				t.Errorf("keepsVerb(%q) = %v, want %v; tags %v", tt.answer, got, tt.want, tags)
			}
			q := studyloop.Question{
				Type: studyloop.QuestionCloze, Prompt: tt.sentence[:from] + Blank + tt.sentence[from+len(tt.answer):],
				Answer: tt.answer, Source: studyloop.Span{Start: 0, End: len(tt.sentence)},
			}
			if err := CheckQuestion(tt.sentence, q); (err == nil || !strings.Contains(err.Error(), "verb")) == !tt.want {
				t.Errorf("CheckQuestion: %v, want a verb error: %v", err, !tt.want)
			}
		})
	}
}

func TestShortAnswerKeepsArticle(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"A covalent bond is a chemical bond that shares pairs of electrons between two atoms.", "What is a covalent bond?"},
		{"An enzyme is a protein that speeds up the chemical reactions in a living cell.", "What is an enzyme?"},
		{"The mitochondrion is the organelle that makes most of the ATP in a living cell.", "What is the mitochondrion?"},
		{"Photosynthesis is the process by which green plants make sugar from light and water.", "What is photosynthesis?"},
		{"Covalent bonds are the bonds that form when two atoms share pairs of electrons.", "What are covalent bonds?"},
		{"The price elasticity of demand is the percentage change in the quantity demanded divided by the percentage change in price.", "What is the price elasticity of demand?"},
		{"Cardiac output (CO) is a measurement of the amount of blood pumped by each ventricle in one minute.", "What is cardiac output?"},
		{"Price elasticity is the ratio between the percentage change in the quantity demanded and the percentage change in price.", "What is price elasticity?"},
		{"Interphase is the period between divisions, during which the cell grows; interphase is the longest part of the cycle.", "What is interphase?"},
		{"The key is the difference between the nominal value and the real value of a price.", ""}, // the key to what?
		{"A useful analogy is a pair of towns linked by a busy bridge across a wide river.", ""},
		{"Aircraft manufacturing is an extreme example: developing a new jetliner can cost billions of dollars.", ""},
		{"A lichen is a partnership between a fungus and a photosynthetic alga, and the fungi that form mycorrhizae help plant roots absorb water.", "What is a lichen?"},
		{"The new money is the $90,000 in additional deposits created by lending to the customers.", ""},
		{"Specific heat is an intensive property and is characteristic of the substance it measures.", ""},
		{"An extreme case is a liquidity trap, in which people hoard money and lower rates fail to raise spending.", ""},
		{"The output gap is the percentage difference between actual GDP and potential GDP; it is negative in a recession.", "What is the output gap?"},
		{"The velocity of money is the number of times the average dollar is spent in a year.", "What is the velocity of money?"},
		{"Partitions are the unit of parallelism in every cluster the broker runs.", ""}, // a role, not a kind
	}
	g := mustOffline(t)
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			ex, _ := g.Generate(context.Background(), "Test", tt.text) // the text without a definition may give no question at all
			var prompts []string
			for _, q := range ex.Questions {
				if q.Type == studyloop.QuestionShortAnswer {
					prompts = append(prompts, q.Prompt)
				}
			}
			if tt.want == "" && len(prompts) > 0 || tt.want != "" && (len(prompts) != 1 || prompts[0] != tt.want) {
				t.Errorf("short-answer prompts %q, want [%q]", prompts, tt.want)
			}
		})
	}
}

// TestEveryHeadingWithASentenceKeepsItsTopic: a section whose content is
// one short but complete sentence still gets a question, so its topic is
// not pruned.
func TestEveryHeadingWithASentenceKeepsItsTopic(t *testing.T) {
	long := "Resolvers answer queries by walking the hierarchy of name servers from the root zone down to the authoritative server."
	tests := []struct {
		name string
		text string
	}{
		{"seven words", "# Networking\n\n## Routing\n\n" + long + "\n\n## DNS\n\nNames get translated into addresses by resolvers.\n"},
		{"six words", "# Networking\n\n## Routing\n\n" + long + "\n\n## Caching\n\nResolvers keep answers for their lifetime.\n"},
		{"five words", "# Networking\n\n## Routing\n\n" + long + "\n\n## Time to live\n\nRecords expire after their TTL.\n"},
		{"only short sections", "# DNS\n\nNames get translated into addresses by resolvers.\n\n# TCP\n\nSegments carry sequence numbers for ordering.\n\n# UDP\n\nDatagrams arrive without any delivery guarantee.\n"},
		{"nested short sections", "# Networking\n\n" + long + "\n\n## DNS\n\nNames get translated into addresses by resolvers.\n\n### Caching\n\nResolvers keep answers for their lifetime.\n"},
	}
	g := mustOffline(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := generate(t, g, tt.text)
			covered := map[string]bool{}
			for _, q := range ex.Questions {
				covered[ex.Topics[q.Topic].Title] = true
			}
			kept := map[string]bool{}
			for _, tp := range ex.Topics {
				kept[tp.Title] = true
			}
			// Each heading with a sentence under it has a question of its
			// own; a heading with only subsections is kept through them.
			title, prose := "", false
			check := func() {
				switch {
				case title == "":
				case prose && !covered[title]:
					t.Errorf("heading %q over a sentence has no question; topics %+v, questions %+v", title, ex.Topics, ex.Questions)
				case !kept[title]:
					t.Errorf("heading %q dropped; topics %+v", title, ex.Topics)
				}
			}
			for _, line := range strings.Split(tt.text, "\n") {
				switch {
				case strings.HasPrefix(line, "#"):
					check()
					title, prose = strings.TrimSpace(strings.TrimLeft(line, "#")), false
				case strings.TrimSpace(line) != "":
					prose = true
				}
			}
			check()
		})
	}
}

func checkErr(t *testing.T, err error, wantErr string) {
	t.Helper()
	switch {
	case wantErr == "" && err != nil:
		t.Fatalf("got %v, want no error", err)
	case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
		t.Fatalf("got %v, want an error containing %q", err, wantErr)
	}
}

// TestDefinitionEndsBeforeWhich: a definition's answer is its kind and
// difference; a "which" clause after five words or more adds other facts,
// and a difference that says only when the kind arose is none.
func TestDefinitionEndsBeforeWhich(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"Contractility is the force of the contraction of the heart muscle, which controls the stroke volume of each beat.", "the force of the contraction of the heart muscle"},
		{"Sodium is an element, which reacts with water.", "an element, which reacts with water"},
		{"Behaviorism is a school of thought that arose during the first part of the 20th century.", ""},
		{"One joule is the amount of energy required to heat a quarter of a gram of water by one degree.", ""},
	}
	g := mustOffline(t)
	for _, tt := range tests {
		ex, _ := g.Generate(context.Background(), "", tt.text) // no question at all is an error, and a pass here
		var answers []string
		for _, q := range ex.Questions {
			if q.Type == studyloop.QuestionShortAnswer {
				answers = append(answers, q.Answer)
			}
		}
		if tt.want == "" && len(answers) > 0 || tt.want != "" && (len(answers) != 1 || answers[0] != tt.want) {
			t.Errorf("%q: short answers %q, want [%q]", tt.text, answers, tt.want)
		}
	}
}

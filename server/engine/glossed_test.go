package engine

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/lexicon"
	"github.com/studyloop/studyloop/server/studyloop"
)

// TestBoldTermQuestions runs short texts through the generator and looks
// for the question that asks for a bold term from what its sentence says
// it is, as multiple choice where the text has three terms of its kind.
func TestBoldTermQuestions(t *testing.T) {
	stimuli := " The **neutral stimulus (NS)** is paired with food. A **conditioned stimulus** comes to elicit salivation. The **discriminative stimulus** signals that food will follow. Salivation follows food in every dog studied so far."
	phases := "Learning has four phases: acquisition, extinction, spontaneous recovery, and generalization. "
	tests := []struct {
		name, text string
		typ        studyloop.QuestionType
		prompt     string
		answer     string
		choices    []string // nil: no choices
	}{
		{"definition after a colon, with three stimuli to offer",
			"# Conditioning\n\nThe meat powder was an **unconditioned stimulus (UCS)**: a stimulus that elicits a reflexive response in an organism." + stimuli,
			studyloop.QuestionMultipleChoice, "What is the term for a stimulus that elicits a reflexive response in an organism?", "unconditioned stimulus",
			[]string{"conditioned stimulus", "discriminative stimulus", "neutral stimulus", "unconditioned stimulus"}},
		{"definition in a which clause, no kin to offer",
			"# Conditioning\n\nThe tone was the **neutral stimulus (NS)**, which is a stimulus that does not naturally elicit a response. Pavlov measured saliva in dogs for years.",
			studyloop.QuestionShortAnswer, "What is the term for a stimulus that does not naturally elicit a response?", "neutral stimulus", nil},
		{"one in which takes the term's head",
			"# Elasticity\n\nAn **elastic demand** or **elastic supply** is one in which the quantity responds strongly to price. An **inelastic demand** barely moves. **Derived demand** comes from other goods. **Aggregate demand** sums every buyer.",
			studyloop.QuestionMultipleChoice, "What is the term for a demand in which the quantity responds strongly to price?", "elastic demand",
			[]string{"aggregate demand", "derived demand", "elastic demand", "inelastic demand"}},
		{"a definition without choices is left to What is",
			"# Elasticity\n\nThe **price elasticity** is the ratio of two percentage changes in a market. Prices change demand in every market studied so far.",
			"", "", "", nil},
		{"a definition without choices nor What is",
			"# Elasticity\n\nAn **elastic demand** or **elastic supply** is one in which the quantity responds strongly to price. Prices change demand in every market studied so far.",
			studyloop.QuestionShortAnswer, "What is the term for a demand in which the quantity responds strongly to price?", "elastic demand", nil},
		{"co-listed terms are of one kind",
			"# Conditioning\n\n" + phases + "**Extinction** is slow. Recovery is fast. **Acquisition** is steady. **Stimulus generalization** happens often. The return of a previously extinguished response after a rest is called **spontaneous recovery**. Stimulus generalization follows acquisition.",
			studyloop.QuestionMultipleChoice, "What is the return of a previously extinguished response after a rest called?", "spontaneous recovery",
			[]string{"acquisition", "extinction", "spontaneous recovery", "stimulus generalization"}},
		{"named in the first person after a condition",
			"# Income\n\nWhen the income elasticity of demand is negative, we call the good an **inferior good**. Prices change demand in every market studied so far.",
			studyloop.QuestionShortAnswer, "What is a good called when the income elasticity of demand is negative?", "inferior good", nil},
		{"a definition that leans on its sentence is not asked",
			"# Conditioning\n\nThe tone was the **neutral stimulus (NS)**, which is a stimulus that it does not notice. Pavlov measured saliva in dogs for years.",
			"", "", "", nil},
	}
	g := mustOffline(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, err := g.Generate(context.Background(), "", tt.text)
			if err != nil && tt.prompt != "" {
				t.Fatal(err)
			}
			var found *studyloop.Question
			for i, q := range ex.Questions {
				if q.Prompt == tt.prompt || tt.prompt == "" && len(q.Prompt) > 20 && q.Prompt[:20] == "What is the term for" {
					found = &ex.Questions[i]
				}
			}
			switch {
			case tt.prompt == "" && found != nil:
				t.Fatalf("unexpected question %+v", *found)
			case tt.prompt == "":
				return
			case found == nil:
				t.Fatalf("no question %q among %+v", tt.prompt, ex.Questions)
			}
			choices := slices.Clone(found.Choices)
			slices.Sort(choices)
			if found.Type != tt.typ || found.Answer != tt.answer || !slices.Equal(choices, tt.choices) {
				t.Errorf("got %s %q with choices %q, want %s %q with %q", found.Type, found.Answer, found.Choices, tt.typ, tt.answer, tt.choices)
			}
		})
	}
}

func TestHeadNoun(t *testing.T) {
	for phrase, want := range map[string]string{
		"price elasticity of demand": "elasticity",
		"neutral stimulus":           "stimulus",
		"law of":                     "of",
		"Conservation laws.":         "laws",
		"":                           "",
	} {
		if got := headNoun(phrase); got != want {
			t.Errorf("headNoun(%q) = %q, want %q", phrase, got, want)
		}
	}
}

func TestIndefinite(t *testing.T) {
	for noun, want := range map[string]string{"demand": "a demand", "elasticity": "an elasticity", "": "a "} {
		if got := indefinite(noun); got != want {
			t.Errorf("indefinite(%q) = %q, want %q", noun, got, want)
		}
	}
}

func TestEnumerations(t *testing.T) {
	tests := []struct {
		text string
		want [][]string
	}{
		{"Summarize the processes of acquisition, extinction, spontaneous recovery, generalization, and discrimination.",
			[][]string{{"the processes of acquisition", "extinction", "spontaneous recovery", "generalization", "discrimination"}}},
		{"Ribosomes hold rRNA, proteins, tRNA and mRNA.", [][]string{{"Ribosomes hold rRNA", "proteins", "tRNA", "mRNA"}}},
		{"When the heart beats, blood and lymph flow.", nil},
		{"It occurs in three steps: initiation, elongation, or termination of the long chain of amino acids.",
			[][]string{{"in three steps: initiation", "elongation", "termination of the long"}}},
		{"Blood, which is red, flows.", nil},
		{"The heart pumps blood, and the lungs fill with air.", nil},
		{"A, a much longer clause with many words in it, B, and C.", [][]string{{"many words in it", "B", "C"}}},
	}
	for _, tt := range tests {
		if got := enumerations(tt.text); !slices.EqualFunc(got, tt.want, slices.Equal) {
			t.Errorf("enumerations(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestSoleSubsection: a fourth-level section alone under a section with
// text of its own is a boxed feature; two or more are real subsections.
func TestSoleSubsection(t *testing.T) {
	body := "Salivation follows food in every dog that Pavlov studied in his laboratory.\n\n"
	tests := []struct {
		name, text string
		skipped    bool
	}{
		{"feature beside the text", "## Behaviorism\n\n" + body + "### Learning\n\n" + body + "#### Advertising and Learning\n\n" + body, true},
		{"two subsections", "## Transcription\n\n" + body + "### Bacteria\n\n" + body + "#### Initiation\n\n" + body + "#### Elongation\n\n" + body, false},
		{"third level alone", "## Behaviorism\n\n" + body + "### Advertising\n\n" + body, false},
		{"alone under a bare heading", "## Behaviorism\n\n" + body + "### Learning\n\n#### Advertising and Learning\n\n" + body, false},
	}
	g := mustOffline(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sections, err := parseMarkdown(context.Background(), g.md, []byte(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			last := len(sections) - 1
			if got := soleSubsection(sections, last); got != tt.skipped {
				t.Errorf("soleSubsection(%q) = %v, want %v", sections[last].heading.text, got, tt.skipped)
			}
		})
	}
}

// TestLeadInCloze: a bold term whose sentence leans on the one before by
// its opening words, or by a demonstrative whose noun that sentence names,
// is asked after that sentence, which then gives no question of its own.
func TestLeadInCloze(t *testing.T) {
	tests := []struct {
		text, want, answer, alone string
	}{
		{
			"The **promoter** is where transcription starts in every gene. RNA polymerase opens a short stretch of the DNA double helix at the promoter. " +
				"The opened stretch is named a **transcription bubble** by most biologists. The **terminator** is where transcription stops in every gene. Each **codon** holds three bases of the messenger.",
			"RNA polymerase opens a short stretch of the DNA double helix at the promoter. The opened stretch is named a _____ by most biologists.",
			"transcription bubble", "DNA double helix",
		},
		{
			"The **promoter** is where transcription starts in every gene. Translation begins when several parts come together into one complex. " +
				"In bacteria, this complex holds the small ribosomal subunit, the messenger and three proteins called **initiation factors**. The **terminator** is where transcription stops in every gene. " +
				"Each **codon** holds three bases of the messenger. Each **anticodon** pairs with one codon of the messenger.",
			"Translation begins when several parts come together into one complex. In bacteria, this complex holds the small ribosomal subunit, the messenger and three proteins called _____.",
			"initiation factors", "parts",
		},
		{
			"The **promoter** is where transcription starts in every gene. Not every cell keeps dividing through its life. " +
				"Many exit after G1 and enter a resting state called the **G0 phase**, in which they do their work without preparing to divide. The **terminator** is where transcription stops in every gene.",
			"Not every cell keeps dividing through its life. Many exit after G1 and enter a resting state called the _____, in which they do their work without preparing to divide.",
			"G0 phase", "G1",
		},
	}
	for _, tt := range tests {
		ex, err := mustOffline(t).Generate(context.Background(), "", "# Transcription\n\n"+tt.text)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, q := range ex.Questions {
			switch {
			case q.Prompt == tt.want && q.Answer == tt.answer:
				found = true
			case q.Answer == tt.alone || q.Answer == tt.answer && q.Prompt != tt.want:
				t.Errorf("question %q (%q) repeats or lacks the lead-in", q.Prompt, q.Answer)
			}
		}
		if !found {
			t.Errorf("no cloze %q among %+v", tt.want, ex.Questions)
		}
	}
}

func TestInAside(t *testing.T) {
	s := &sentence{text: "When the atria contract (atrial systole), the pressure rises."}
	for _, tt := range []struct {
		blank string
		want  bool
	}{{"atrial systole", true}, {"pressure", false}, {"atria", false}} {
		from := strings.Index(s.text, tt.blank)
		if got := inAside(s, blank{from: from, to: from + len(tt.blank)}); got != tt.want {
			t.Errorf("inAside(%q) = %v, want %v", tt.blank, got, tt.want)
		}
	}
}

// TestOneAskPerTopic: an answer asked once in a topic is asked again, if
// at all, from another topic.
func TestOneAskPerTopic(t *testing.T) {
	text := "# Translation\n\nThe **ribosome** reads the messenger RNA three bases at a time in every living cell. Bacteria build each **ribosome** from two subunits of protein and RNA. " +
		"In every cell the **ribosome** joins the amino acids into a long chain with peptide bonds. A **tRNA** carries each amino acid to its codon on the messenger in the cell."
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, q := range ex.Questions {
		if seen[answerKey(q.Answer)] {
			t.Errorf("%q asked twice in one topic: %+v", q.Answer, ex.Questions)
		}
		seen[answerKey(q.Answer)] = true
	}
}

func TestAliasesOfOtherNumber(t *testing.T) {
	al := findAliases("These are called **stop codons** or **nonsense codons**.")
	if got := al.of("stop codon"); !slices.Equal(got, []string{"nonsense codon"}) {
		t.Errorf("aliases of %q = %q, want [nonsense codon]", "stop codon", got)
	}
}

func TestNarrates(t *testing.T) {
	for text, want := range map[string]bool{
		"Pavlov would sound a tone and then give the dogs the meat powder.":           true,
		"Prior to conditioning, the dogs did not salivate when they heard the tone.":  true,
		"Garcia and Koelling showed that taste aversions could be conditioned.":       false,
		"The ribosome joins the amino acids into a chain.":                            false,
		"Eukaryotes use three different polymerases that transcribe different genes.": false,
	} {
		toks := tagSentence(text)
		s := &sentence{text: text, toks: toks, tagged: true}
		for _, tk := range toks {
			s.lower = append(s.lower, strings.ToLower(tk.Text))
		}
		if got := narrates(s); got != want {
			t.Errorf("narrates(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestDefinitionAnswerStandsAlone: "What is X?" is asked only where the
// answer leans on nothing around it.
func TestDefinitionAnswerStandsAlone(t *testing.T) {
	g := mustOffline(t)
	for text, want := range map[string]bool{
		"A version control system is a tool that keeps track of changes to files over time.": true,
		"A version control system is a tool that keeps track of these changes for us.":       false,
	} {
		ex, err := g.Generate(context.Background(), "", "# Versions\n\n"+text+" Editors save files to disk in every project studied so far.")
		if err != nil && want {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(ex.Questions, func(q studyloop.Question) bool { return q.Prompt == "What is a version control system?" })
		if got != want {
			t.Errorf("%q: asked %v, want %v (%+v)", text, got, want, ex.Questions)
		}
	}
}

// TestClozeLeavesOutOtherName: another name of the blank's term right
// after it (", also called a solution,", "or nonsense codons", "or simply
// Starling's law") would be copied as the answer; the cloze leaves it out
// and accepts it. "or" before a term in plain text joins two things and
// stays.
func TestClozeLeavesOutOtherName(t *testing.T) {
	tests := []struct {
		text, answer, other string
		left                bool // the other name leaves the prompt
	}{
		{"A **homogeneous mixture**, also called a **solution**, has the same composition in every part of any sample that a chemist draws from the flask.", "homogeneous mixture", "solution", true},
		{"Since no blood leaves the ventricles at first, the opening phase of ventricular systole is named **isovolumic contraction**, also called isovolumetric contraction.", "isovolumic contraction", "isovolumetric contraction", true},
		{"Three of the sixty-four codons code for no amino acid at all and end the growing chain. These are called **stop codons** or **nonsense codons**.", "stop codons", "nonsense codons", true},
		{"The relation between the stretch of the ventricle and the force of its contraction is the **Frank-Starling mechanism** or simply Starling’s law of the heart.", "Frank-Starling mechanism", "Starling’s law of the heart", true},
		{"The amount of blood each ventricle pumps in one minute depends on the **stroke volume** or heart rate of the resting adult heart.", "stroke volume", "heart rate", false},
		{"Historians call the social and political system of France before 1789 the **Old Regime** (*ancien régime*).", "Old Regime", "ancien régime", true},
		{"Pressure is often measured in **millimeters of mercury** (mmHg) with a mercury barometer in the laboratory.", "millimeters of mercury", "mmHg", true},
		{"Historians call the social and political system of France before 1789 the **Old Regime** (prerevolutionary France).", "Old Regime", "prerevolutionary France", false},
	}
	g := mustOffline(t)
	for _, tt := range tests {
		ex, err := g.Generate(context.Background(), "", "# Terms\n\n"+tt.text+" Blood flows through the four chambers of the heart in every cycle of the pump.")
		if err != nil {
			t.Errorf("%q: %v", tt.answer, err)
			continue
		}
		i := slices.IndexFunc(ex.Questions, func(q studyloop.Question) bool { return q.Answer == tt.answer })
		if i < 0 {
			t.Errorf("no question of %q among %+v", tt.answer, ex.Questions)
			continue
		}
		q := ex.Questions[i]
		if left := !strings.Contains(q.Prompt, tt.other); left != tt.left || left != slices.Contains(q.Alternatives, tt.other) {
			t.Errorf("question %q accepts %q; want %q left out and accepted: %v", q.Prompt, q.Alternatives, tt.other, tt.left)
		}
	}
}

func TestNamedInside(t *testing.T) {
	text := "Parliament passed the act. The king asked Parliament for money. Taxes rose."
	for word, want := range map[string]bool{"Parliament": true, "Taxes": false, "The": false, "king": false} {
		if got := namedInside(text, word); got != want {
			t.Errorf("namedInside(%q) = %v, want %v", word, got, want)
		}
	}
}

// TestClozeDropsStanceOpener: "However, " and the like refer to nothing
// and leave the cloze; "Thus, " points back and keeps the sentence out;
// "Normally, " qualifies what follows and stays in it.
func TestClozeDropsStanceOpener(t *testing.T) {
	g := mustOffline(t)
	body := " Ribosomes read the messenger RNA in every living cell of the body."
	for text, want := range map[string]string{
		"However, **selenocysteine** is coded by a stop codon in archaea and in many kinds of bacteria.":  "_____ is coded by a stop codon in archaea and in many kinds of bacteria.",
		"Thus, **selenocysteine** is coded by a stop codon in archaea and in many kinds of bacteria.":     "",
		"Normally, **selenocysteine** is coded by a stop codon in archaea and in many kinds of bacteria.": "Normally, _____ is coded by a stop codon in archaea and in many kinds of bacteria.",
	} {
		ex, err := g.Generate(context.Background(), "", "# Codes\n\n"+text+body)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, q := range ex.Questions {
			if q.Answer == "selenocysteine" {
				got = q.Prompt
			}
		}
		if got != want {
			t.Errorf("%q: cloze %q, want %q", text, got, want)
		}
	}
}

func TestGlossaryEntriesThatDoNotDefine(t *testing.T) {
	tests := []struct {
		f          fact
		recallable bool
	}{
		{fact{term: "caching", def: "Saving data to a cache so that later requests are faster."}, false},
		{fact{term: "cache", def: "A store of recent results kept close at hand."}, true},
		{fact{term: "S", def: "A statistical programming language from Bell Labs."}, false},
		{fact{term: "argument", def: "The term should not be confused with a parameter."}, true}, // recallable, but dropped as a caution
	}
	for _, tt := range tests {
		if got := recallable(tt.f); got != tt.recallable {
			t.Errorf("recallable(%q) = %v, want %v", tt.f.term, got, tt.recallable)
		}
	}
	if !notConfused.MatchString("The term should not be confused with a parameter.") || notConfused.MatchString("A value passed to a function.") {
		t.Error("notConfused tells a caution from a definition wrongly")
	}
}

func TestOtherAcceptedAnswers(t *testing.T) {
	g := mustOffline(t)
	text := "# Splicing\n\nIntrons are removed from the primary transcript before it leaves the nucleus of the cell. The process of removing introns and joining the exons is called **RNA splicing** in every eukaryote. **Splicing** takes place in the nucleus before export.\n\n" +
		"# Costs\n\nAverage total cost (ATC) is total cost divided by quantity, whatever the firm makes. When the price is above **minimum ATC**, firms in the industry earn economic profits, which attract new firms.\n\n" +
		"# Database terms\n\n- **SQL**: The language used for writing queries for a relational database. The term is an acronym for Structured Query Language.\n- **CSV**: A plain text format with one record per line and commas between the fields of a record.\n"
	ex, err := g.Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"RNA splicing": "splicing", "SQL": "Structured Query Language", "minimum ATC": "minimum average total cost"}
	for _, q := range ex.Questions {
		if alt, ok := want[q.Answer]; ok && q.Type != studyloop.QuestionMultipleChoice {
			if !slices.Contains(q.Alternatives, alt) {
				t.Errorf("%q accepts %q, want %q among them", q.Answer, q.Alternatives, alt)
			}
			delete(want, q.Answer)
		}
	}
	if len(want) > 0 {
		t.Errorf("no question of %v among %+v", want, ex.Questions)
	}
}

func TestMarkedHead(t *testing.T) {
	a := &asker{boldWord: map[string]bool{"splicing": true, "learning": true, "elongation": true}}
	for answer, want := range map[string]string{
		"RNA splicing":              "splicing",
		"observational learning":    "",
		"elongation of translation": "",
		"DNA polymerase":            "",
	} {
		if got := a.markedHead(answer); got != want {
			t.Errorf("markedHead(%q) = %q, want %q", answer, got, want)
		}
	}
}

func TestFullName(t *testing.T) {
	a := &asker{lex: lexicon.Default(), text: "Ivan **Pavlov** studied dogs. Later John B. Watson studied children. Pavlov won a prize. Each costs 6 NADPH. Two Glucks make one sugar, and two G3P make one glucose."}
	for answer, want := range map[string]string{"Pavlov": "Ivan Pavlov", "Watson": "John B. Watson", "dogs": "", "Ivan Pavlov": "", "Glucks": "", "G3P": ""} {
		if got := a.fullName(answer); got != want {
			t.Errorf("fullName(%q) = %q, want %q", answer, got, want)
		}
	}
}

func TestVariants(t *testing.T) {
	a := &asker{marks: []markedTerm{{text: "cardiovascular centers"}, {text: "parasympathetic stimulation"}, {text: "unconditioned stimulus"}, {text: "cardiac output"}}}
	for answer, want := range map[string][]string{
		"cardiac centers":         {"cardiovascular centers"},
		"cardiac center":          {"cardiovascular center"},
		"sympathetic stimulation": nil,
		"conditioned stimulus":    nil,
		"cardiac":                 nil,
	} {
		if got := a.variants(answer); !slices.Equal(got, want) {
			t.Errorf("variants(%q) = %q, want %q", answer, got, want)
		}
	}
}

func TestParticleKind(t *testing.T) {
	for answer, want := range map[string]string{"calcium ions": "calcium", "oxygen molecules": "oxygen", "heat energy": "", "ions": "", "hydrogen ion": "proton", "hydrogen ions": "protons", "oxygen ions": ""} {
		if got := particleKind(answer); got != want {
			t.Errorf("particleKind(%q) = %q, want %q", answer, got, want)
		}
	}
}

// TestAnaphoraAcrossTheParagraph: "the moon rock" of a story set up two
// sentences before is no cloze of its own.
func TestAnaphoraAcrossTheParagraph(t *testing.T) {
	text := "# Energy\n\nA moon rock is brought back from the far side of the moon by the crew of a long mission. Every sample is weighed with great care in the laboratory. " +
		"The engineers put the moon rock in a lathe and machine it down to a smooth cylinder of metal. Kinetic energy is the energy of motion in every closed system studied so far."
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Questions) == 0 {
		t.Fatal("no questions")
	}
	for _, q := range ex.Questions {
		if strings.Contains(q.Prompt, "lathe") {
			t.Errorf("question from a sentence leaning on the story: %q", q.Prompt)
		}
	}
}

// TestObjectivesGiveBackTheOpening: the prose after a box of learning
// objectives opens its section and is asked about; the objectives are not.
func TestObjectivesGiveBackTheOpening(t *testing.T) {
	opening := "During the process of **transcription**, the information encoded in a gene is copied into a strand of RNA by the polymerase."
	tests := []struct {
		name, text string
		asked      bool
	}{
		{"prose after the list", "## RNA Transcription\n\n### Learning Objectives\n\nBy the end of this section, you will be able to:\n\n- Explain how RNA is made from a DNA template\n- Compare the polymerases of bacteria\n\n" + opening + "\n", true},
		{"a section's objectives", "## RNA Transcription\n\n### Section Learning Objectives\n\nBy the end of this section, you will be able to:\n\n1. Explain how RNA is made from a DNA template\n2. Compare the polymerases of bacteria\n\n" + opening + "\n", true},
		{"no list: the whole box is an aside", "## RNA Transcription\n\n### Learning Objectives\n\n" + opening + "\n\n### Bacteria\n\nBacteria use a single **RNA polymerase** to copy every one of their many genes into RNA.\n", false},
		{"a summary gives back nothing", "## RNA Transcription\n\n### Summary\n\n- Explain how RNA is made from a DNA template\n\n" + opening + "\n\n### Bacteria\n\nBacteria use a single **RNA polymerase** to copy every one of their many genes into RNA.\n", false},
	}
	g := mustOffline(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, _ := g.Generate(context.Background(), "Genes", tt.text)
			asked := false
			for _, q := range ex.Questions {
				if strings.EqualFold(q.Answer, "transcription") {
					asked = true
				}
				if strings.Contains(q.Prompt, "end of this section") || strings.Contains(q.Prompt, "DNA template") {
					t.Errorf("asked from the objectives: %q", q.Prompt)
				}
			}
			if asked != tt.asked {
				t.Errorf("transcription asked = %v, want %v (questions %+v)", asked, tt.asked, ex.Questions)
			}
			for _, tp := range ex.Topics {
				if strings.Contains(tp.Title, "Objectives") {
					t.Errorf("a topic titled %q", tp.Title)
				}
			}
		})
	}
}

// TestTwoMarksOfOneSentence: a sentence that sets two terms in bold is
// blanked once for each when no other sentence asks the second.
func TestTwoMarksOfOneSentence(t *testing.T) {
	text := "# Initiation\n\nThe **initiation of transcription** occurs at a **promoter** once the sigma subunit has found the matching stretch of DNA.\n"
	ex := generate(t, mustOffline(t), text)
	answers := map[string]bool{}
	for _, q := range ex.Questions {
		answers[q.Answer] = true
	}
	for _, want := range []string{"initiation of transcription", "promoter"} {
		if !answers[want] {
			t.Errorf("no question answered %q among %+v", want, ex.Questions)
		}
	}
}

func TestGenericMark(t *testing.T) {
	a := &asker{lex: lexicon.Default()}
	tests := []struct {
		term    string
		generic bool
	}{
		{"type of energy", true},
		{"example", true},
		{"positive inotropic factors", false},
		{"ejection fraction", false},
		{"σ factor", true},
		{"important factors", true},
		{"ribosome", false},
	}
	for _, tt := range tests {
		if got := a.genericMark(tt.term); got != tt.generic {
			t.Errorf("genericMark(%q) = %v, want %v", tt.term, got, tt.generic)
		}
	}
}

// TestPartOfTerm: a blank that, with the words around it, is part of a
// longer term of the study is not asked.
func TestPartOfTerm(t *testing.T) {
	intro := "# Labor\n\nThe **wage elasticity of labor supply** tells how hours worked respond to wages in every market.\n\n"
	sentence := "The wage elasticity of labor supply for teenage workers is generally fairly elastic."
	g := mustOffline(t)
	sections, err := parseMarkdown(context.Background(), g.md, []byte(intro+sentence+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := sections[len(sections)-1].blocks
	an := newAnalyzer(g.seg, g.tagger)
	if err := an.analyze(context.Background(), blocks); err != nil {
		t.Fatal(err)
	}
	a := newAsker(intro+sentence, g.opts, an, []*unit{{blocks: blocks}})
	s := blocks[len(blocks)-1].sents[0]
	tests := []struct {
		blank string
		part  bool
	}{
		{"labor supply", true},                     // "wage elasticity of" before it
		{"wage elasticity of labor supply", false}, // the whole term
		{"teenage workers", false},
	}
	for _, tt := range tests {
		from := strings.Index(s.text, tt.blank)
		if got := a.partOfTerm(s, blank{from: from, to: from + len(tt.blank)}); got != tt.part {
			t.Errorf("partOfTerm(%q) = %v, want %v", tt.blank, got, tt.part)
		}
	}
}

// TestCodeNamesAreTerms: in technical text, a name set as code is blanked
// as a term, even before the noun that says its kind; a code statement
// ("max-age=3600") is not.
func TestCodeNamesAreTerms(t *testing.T) {
	text := "# Storage\n\nThe `no-store` directive forbids any cache from keeping the response at all, which suits pages holding personal data.\n\n" +
		"Writing `Cache-Control: max-age=3600` in a response lets every cache reuse that response for one whole hour.\n"
	ex := generate(t, mustOffline(t), text)
	asked := false
	for _, q := range ex.Questions {
		if q.Answer == "no-store" {
			asked = true
		}
		if strings.Contains(q.Answer, "=") {
			t.Errorf("a code statement blanked: %q", q.Prompt)
		}
	}
	if !asked {
		t.Errorf("no question answered by the directive's name: %+v", ex.Questions)
	}
}

// TestListedTerms: the terms of a chapter's key-terms list are found,
// though the list sits in its summary; one the text never names ("kinetic
// energy" here) gets no question.
func TestListedTerms(t *testing.T) {
	text := "# Energy\n\n## Power\n\nThe rate of transferring energy from one form to another is called power, and engineers measure it in watts.\n\n" +
		"## Summary\n\n### Vocabulary\n\n- **power**: The rate of transferring energy; a scalar quantity with units of watts (W).\n- **kinetic energy**: The energy an object possesses because of its motion.\n\n" +
		"### Review\n\n- **not a term**: a list outside the vocabulary.\n"
	sections, err := parseMarkdown(context.Background(), mustOffline(t).md, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range listedTerms(sections) {
		got = append(got, f.term)
	}
	if want := []string{"power", "kinetic energy"}; !slices.Equal(got, want) {
		t.Errorf("listedTerms = %q, want %q", got, want)
	}
	ex := generate(t, mustOffline(t), text)
	for _, q := range ex.Questions {
		if strings.Contains(q.Prompt, "possesses") || strings.Contains(q.Prompt, "outside the vocabulary") {
			t.Errorf("asked from the lists about a term the text never names: %q", q.Prompt)
		}
	}
}

// TestCoverListed: a listed key term that the text names but no question
// asks is asked from its definition in the list, in the topic that names
// it; one the text never names is not. The list may set its terms in bold,
// as a definition list or as plain "term: definition" lines.
func TestCoverListed(t *testing.T) {
	body := "# Gases\n\n## Pressure\n\nAir pushes on every surface it touches, and the push per unit of area is its pressure, which changes with the weather from day to day. Why would a lab keep a barometer?\n\n## Key Terms\n\n"
	lists := map[string]string{
		"bold":            "- **barometer**: an instrument that measures the pressure of the atmosphere\n- **manometer**: an instrument that measures the pressure of a gas in a container\n",
		"definition list": "barometer\n: an instrument that measures the pressure of the atmosphere\n\nmanometer\n: an instrument that measures the pressure of a gas in a container\n",
		"plain lines":     "- barometer: an instrument that measures the pressure of the atmosphere\n- manometer: an instrument that measures the pressure of a gas in a container\n",
	}
	for name, list := range lists {
		t.Run(name, func(t *testing.T) {
			ex := generate(t, mustOffline(t), body+list)
			var asked []string
			for _, q := range ex.Questions {
				asked = append(asked, q.Answer)
				if q.Answer == "barometer" && (q.Type != studyloop.QuestionTermDefinition || ex.Topics[q.Topic].Title != "Pressure") {
					t.Errorf("barometer asked as %s in topic %q, want a term from its definition in %q", q.Type, ex.Topics[q.Topic].Title, "Pressure")
				}
			}
			if !slices.Contains(asked, "barometer") || slices.Contains(asked, "manometer") {
				t.Errorf("answers %q, want barometer and not manometer", asked)
			}
		})
	}
}

// TestCoverListedSkipsDefinedTerms: a listed term whose meaning a short
// answer asks already ("What is osmosis?") is not asked again from the
// list.
func TestCoverListedSkipsDefinedTerms(t *testing.T) {
	text := "# Membranes\n\n## Osmosis\n\nOsmosis is the diffusion of water through a selectively permeable membrane from a region of low solute concentration to one of high concentration.\n\n" +
		"## Key Terms\n\n- **osmosis**: diffusion of water through a semipermeable membrane down its concentration gradient\n"
	ex := generate(t, mustOffline(t), text)
	n := 0
	for _, q := range ex.Questions {
		if strings.Contains(strings.ToLower(q.Prompt+" "+q.Answer), "osmosis") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d questions about osmosis, want 1: %+v", n, ex.Questions)
	}
}

// TestSuffixKinAndKindOf: one-word terms sharing a learned ending are of
// one kind, unless the study says one is a kind of the other.
func TestSuffixKinAndKindOf(t *testing.T) {
	a := &asker{lex: lexicon.Default(), text: "**Phagocytosis** is the form of endocytosis in which a cell takes in large particles."}
	kin := []struct {
		x, y string
		want bool
	}{
		{"exocytosis", "endocytosis", true},
		{"phagocytosis", "pinocytosis", true},
		{"transcription", "translation", false}, // "ation" is too short an ending to share
		{"information", "formation", false},     // general words
		{"cytosis", "exocytosis", false},        // one holds the other
	}
	for _, tt := range kin {
		if got := a.suffixKin(tt.x, tt.y); got != tt.want {
			t.Errorf("suffixKin(%q, %q) = %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
	if !a.kindOf("phagocytosis", "endocytosis") || a.kindOf("endocytosis", "phagocytosis") || a.kindOf("exocytosis", "endocytosis") {
		t.Error("kindOf: want only phagocytosis to be a kind of endocytosis")
	}
	a = &asker{lex: lexicon.Default(), text: "Several types of leukocytes are phagocytes, cells that engulf pathogens. " +
		"Dendritic cells, macrophages, and B cells are antigen-presenting cells. T cells mature in the thymus. " +
		"Helper T cells activate antigen-presenting cells such as macrophages and dendritic cells. " +
		"There are three main types of phagocytes in mammals: neutrophils, macrophages, and dendritic cells."}
	kinds := []struct {
		x, y string
		want bool
	}{
		{"phagocytes", "leukocytes", true},
		{"leukocytes", "phagocytes", false},
		{"macrophages", "antigen-presenting cells", true},
		{"B cells", "antigen-presenting cells", true},
		{"dendritic cells", "antigen-presenting cells", true},
		{"T cells", "antigen-presenting cells", false},
		{"helper T cells", "antigen-presenting cells", false},
		{"dendritic cells", "phagocytes", true},
		{"neutrophils", "phagocytes", true},
		{"phagocytes", "neutrophils", false},
	}
	for _, tt := range kinds {
		if got := a.kindOf(tt.x, tt.y); got != tt.want {
			t.Errorf("kindOf(%q, %q) = %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
}

// TestOwnDefinition: a glossary definition that opens by restating its
// term, or by expanding it, answers with what follows.
func TestOwnDefinition(t *testing.T) {
	tests := []struct{ term, def, want string }{
		{"algorithm", "An algorithm is a set of steps followed to do a task.", "A set of steps followed to do a task."},
		{"constant", "A constant in programming is a name whose value never changes.", "A name whose value never changes."},
		{"UNIX", "UNIX is a family of operating systems.", "A family of operating systems."},
		{"permalink", "Short for “permanent link”, a URL that is meant to last.", "A URL that is meant to last."},
		{"YAML", `Short for "YAML Ain't Markup Language", a way to write nested data.`, "A way to write nested data."},
		{"accuracy", "Accuracy measures how close results are to the true value.", "Accuracy measures how close results are to the true value."},
		{"stack", "A stack is empty.", "A stack is empty."},
		{"hidden layer (deep learning)", "A hidden layer in a neural network refers to the neurons between input and output.", "The neurons between input and output."},
		{"epoch (deep learning)", "In deep learning, an epoch is one pass of all the training data through the network.", "One pass of all the training data through the network."},
		{"object", "In object-oriented programming, a structure that holds the data of one instance.", "In object-oriented programming, a structure that holds the data of one instance."},
		{"cache", "A store of copies kept near the code that reads them.", "A store of copies kept near the code that reads them."},
	}
	for _, tt := range tests {
		if got := ownDefinition(tt.term, tt.def); got != tt.want {
			t.Errorf("ownDefinition(%q, %q) = %q, want %q", tt.term, tt.def, got, tt.want)
		}
	}
}

// TestCircular: a definition that explains a term by its own root says
// nothing; a compound or a recursion of the term still explains.
func TestCircular(t *testing.T) {
	tests := []struct {
		term, def string
		want      bool
	}{
		{"caching", "To save a copy of some data in a local cache.", true},
		{"directory", "An item within a filesystem that can contain files and other directories.", false},
		{"object", "In object-oriented programming, a structure that holds the data of one instance of a class.", false},
		{"pipeline", "A chain of programs, each reading what the one before it writes.", false},
		{"vectorize", "To write code that works on whole vectors at once.", true},
	}
	for _, tt := range tests {
		if got := circular(fact{term: tt.term, def: tt.def}); got != tt.want {
			t.Errorf("circular(%q, %q) = %v, want %v", tt.term, tt.def, got, tt.want)
		}
	}
}

// TestGlossWithNestedBrackets: a translation between term and definition
// may hold brackets of its own ("(Spanish: *pasar (una prueba)*)"); the
// definition still starts after its colon.
func TestGlossWithNestedBrackets(t *testing.T) {
	text := "# Testing terms\n\n" +
		"- **pass (a test)** (Spanish: *pasar (una prueba)*): A test passes if the actual result matches the expected result.\n" +
		"- **fixture** (Spanish: *accesorio (de prueba)*): Data that a test sets up before it runs and removes after it ends.\n" +
		"- **assertion** (Spanish: *aserción*): A statement in a test that must hold for the test to pass.\n"
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"What does it mean to pass a test?", "What does “fixture” mean?"} {
		if !slices.ContainsFunc(ex.Questions, func(q studyloop.Question) bool { return q.Prompt == want }) {
			t.Errorf("no question %q among %+v", want, ex.Questions)
		}
	}
}

// TestLeadInKeepsTheLeadsOwnTerm: a sentence with a bold term of its own
// to ask is no lead-in for the next one, which would take it.
func TestLeadInKeepsTheLeadsOwnTerm(t *testing.T) {
	text := "# Protest\n\nParliament taxed printed paper in the colonies in the spring of 1765. " +
		"Delegates from nine colonies met at the **Stamp Act Congress** in October and sent petitions to Parliament. " +
		"It repealed the tax a year later but passed the **Declaratory Act**, which asserted its authority over the colonies in all cases."
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	asked := false
	for _, q := range ex.Questions {
		if strings.Contains(q.Prompt, "sent petitions to Parliament. It") {
			t.Errorf("the lead sentence was taken by %q", q.Prompt)
		}
		asked = asked || q.Answer == "Stamp Act Congress"
	}
	if !asked {
		t.Errorf("no question of the Stamp Act Congress among %+v", ex.Questions)
	}
}

func TestFormula(t *testing.T) {
	a := &asker{text: "Plants take in CO₂ and release oxygen. Carbon dioxide enters through the stomata; water and NaCl do not."}
	for answer, want := range map[string]string{"carbon dioxide": "CO₂", "CO₂": "carbon dioxide", "oxygen": "", "water": "", "NaCl": "", "sodium chloride": "NaCl", "glucose": ""} {
		if got := a.formula(answer); got != want {
			t.Errorf("formula(%q) = %q, want %q", answer, got, want)
		}
	}
}

// TestClozeLeavesOutFigureReference: a bracketed pointer at a figure or a
// table is no part of the statement; the cloze keeps the statement.
func TestClozeLeavesOutFigureReference(t *testing.T) {
	text := "# Removal\n\nSoldiers forced thousands of Cherokee people west through the winter of 1838. " +
		"Survivors and their descendants remembered that march as the **Trail of Tears** (Figure 10.5). Many died on the way west."
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ex.Questions, func(q studyloop.Question) bool { return q.Answer == "Trail of Tears" })
	if i < 0 {
		t.Fatalf("no question of the Trail of Tears among %+v", ex.Questions)
	}
	if q := ex.Questions[i]; strings.Contains(q.Prompt, "Figure") || !strings.HasSuffix(q.Prompt, "as the _____.") {
		t.Errorf("prompt %q", q.Prompt)
	}
}

// TestGlossaryEntryAfterCaution: an entry that opens with a caution or a
// cross-reference defines its term in the sentence after it.
func TestGlossaryEntryAfterCaution(t *testing.T) {
	text := "# Terms\n\n" +
		"- **argument**: The term should not be confused with parameter. An argument is a value passed to a function when it is called.\n" +
		"- **arithmetic mean**: See mean. The sum of a set of numbers divided by how many numbers there are.\n" +
		"- **epoch (deep learning)**: In deep learning, an epoch is one pass of all the training data through the network.\n"
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"What does “argument” mean?":              "A value passed to a function when it is called",
		"What does “arithmetic mean” mean?":       "The sum of a set of numbers divided by how many numbers there are",
		"What does “epoch (deep learning)” mean?": "One pass of all the training data through the network",
	}
	for _, q := range ex.Questions {
		if a, ok := want[q.Prompt]; ok {
			if q.Answer != a {
				t.Errorf("%q answered %q, want %q", q.Prompt, q.Answer, a)
			}
			delete(want, q.Prompt)
		}
	}
	for p := range want {
		t.Errorf("no question %q among %+v", p, ex.Questions)
	}
}

// TestTwoTermsDefinedAlike: two glossary entries whose definitions open
// alike cannot be told apart by them; neither is asked what it means.
func TestTwoTermsDefinedAlike(t *testing.T) {
	text := "# Terms\n\n" +
		"- **variance**: How widely values in a dataset differ from the mean. The mean of the squared differences.\n" +
		"- **standard deviation**: How widely values in a dataset differ from the mean. The square root of the variance.\n" +
		"- **median**: The middle value of a dataset sorted from the smallest value to the largest.\n"
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range ex.Questions {
		if strings.HasPrefix(q.Answer, "How widely") {
			t.Errorf("%q answered by a definition two terms share", q.Prompt)
		}
	}
	if !slices.ContainsFunc(ex.Questions, func(q studyloop.Question) bool { return q.Prompt == "What does “median” mean?" }) {
		t.Errorf("the median is not asked: %+v", ex.Questions)
	}
}

func TestTextAfterAFeatureBoxIsAsked(t *testing.T) {
	text := "# Revolution\n\n## 18.2 The Constitution\n\n### Learning Objectives\n\n- Explain the constitution of 1791\n\n" +
		"The Assembly wrote a constitution for the kingdom over two long years of debate in Paris.\n\n" +
		"### Primary Sources: Rights for Whom?\n\n" +
		"The Declaration spoke in universal terms but left open who would enjoy its rights, and a pamphlet of 1791 asked for **equal citizenship** of women.\n\n" +
		"In September 1791 the new charter made France a **constitutional monarchy**, a system in which a hereditary ruler's powers are limited by a written constitution.\n\n" +
		"## Key Terms\n\n- **constitutional monarchy**: a monarchy limited by a constitution\n"
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	box := strings.Index(text, "The Declaration")
	asked := false
	for _, q := range ex.Questions {
		if q.Source.Start >= box && q.Source.Start < box+100 {
			t.Errorf("question %q from the box's own paragraph", q.Prompt)
		}
		if q.Answer == "a system in which a hereditary ruler's powers are limited by a written constitution" {
			asked = true
			if title := ex.Topics[q.Topic].Title; strings.Contains(title, "Primary") {
				t.Errorf("question %q under the box's title %q", q.Prompt, title)
			}
		}
	}
	if !asked {
		t.Errorf("the text after the box is not asked: %+v", ex.Questions)
	}
}

func TestChoiceShapes(t *testing.T) {
	lex := lexicon.Default()
	tests := []struct {
		phrase          string
		verbLed, gerund bool
	}{
		{"nourish neurons", true, false},
		{"sensory neurons", false, false},
		{"Applying Charles's Law", false, true},
		{"Measuring Blood Pressure", false, true},
		{"resting membrane potential", false, false}, // a term, in lower case
		{"Boyle's law", false, false},
	}
	for _, tt := range tests {
		if got := verbLed(lex, tt.phrase); got != tt.verbLed {
			t.Errorf("verbLed(%q) = %v, want %v", tt.phrase, got, tt.verbLed)
		}
		if got := gerundHeading(tt.phrase); got != tt.gerund {
			t.Errorf("gerundHeading(%q) = %v, want %v", tt.phrase, got, tt.gerund)
		}
	}
}

// TestChoicesOpenTheSentence: where the blank opens the sentence every
// choice is written as the sentence's first word, so that the answer does
// not stand out by its capital; a name in mixed case keeps its case.
func TestChoicesOpenTheSentence(t *testing.T) {
	text := "# Vaccines\n\nVaccines prepare the immune system for a pathogen without the danger of the disease itself.\n\n" +
		"**Inactivated vaccines** contain pathogens killed by heat or chemicals, such as the injected polio vaccine.\n\n" +
		"**Attenuated vaccines** contain live pathogens weakened so that they cannot cause disease in healthy people.\n\n" +
		"**Subunit vaccines** contain only selected antigens, such as a protein from the surface of the hepatitis B virus.\n\n" +
		"**mRNA vaccines** deliver instructions that cells use to make a viral protein for a short time.\n\n" +
		"**Toxoid vaccines** contain inactivated toxins rather than the bacteria that make them.\n"
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	for _, q := range ex.Questions {
		if q.Type != studyloop.QuestionMultipleChoice || !strings.HasPrefix(q.Prompt, Blank) {
			continue
		}
		asked++
		for _, c := range q.Choices {
			if startsLower(c) && !strings.HasPrefix(c, "mRNA") || strings.HasPrefix(c, "MRNA") {
				t.Errorf("choice %q of %q", c, q.Prompt)
			}
		}
	}
	if asked == 0 {
		t.Errorf("no multiple choice opening with the blank among %+v", ex.Questions)
	}
}

// TestListsNameKinds: a term stands beside another as a wrong choice by a
// list only where the list names it by its head ("species" for "pioneer
// species", not for "species dispersion patterns"), and not by a list of
// a class's examples ("Most species, including humans, oak trees, …").
func TestListsNameKinds(t *testing.T) {
	text := "# Communities\n\nCommunities change as species arrive, compete, and leave over many years of succession in every habitat.\n\n" +
		"**Pioneer species** are the first organisms to colonize bare rock after a disturbance.\n\n" +
		"**Keystone species** have an effect on their community far larger than their abundance would suggest.\n\n" +
		"**Foundation species** have the largest influence on overall community structure by shaping the habitat.\n\n" +
		"**Species dispersion patterns** describe how the individuals of a population are spaced across their habitat.\n\n" +
		"Most species, including humans, oak trees, and most birds, reproduce repeatedly over their lifetimes. " +
		"Oak trees live for centuries. Oak trees drop acorns every autumn.\n"
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range ex.Questions {
		if !strings.HasSuffix(strings.ToLower(q.Answer), " species") {
			continue
		}
		for _, c := range q.Choices {
			if l := strings.ToLower(c); l == "oak trees" || l == "species dispersion patterns" {
				t.Errorf("choice %q beside %q", c, q.Answer)
			}
		}
	}
}

// TestTermLines: a bold "term: definition" line drops the term's article
// ("**A key**" defines "key") and is no definition where it only lists
// values ("**A type**: boolean, string, number, or json").
func TestTermLines(t *testing.T) {
	text := "# Flags\n\n- **A key**: an immutable, URL-safe identifier used in code\n- **A type**: boolean, string, number, or json\n- **A variation**: one of the values a flag can return\n"
	sections, err := parseMarkdown(context.Background(), mustOffline(t).md, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var terms []string
	for _, s := range sections {
		for _, f := range s.facts {
			terms = append(terms, f.term)
		}
	}
	if want := []string{"key", "variation"}; !slices.Equal(terms, want) {
		t.Errorf("terms %q, want %q", terms, want)
	}
}

package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/studyloop/studyloop/server/studyloop"
)

// TestStatedQuestions runs whole texts through the generator and looks for
// the list, relation and cause questions their sentences state, and for
// their absence where the shape is not there.
func TestStatedQuestions(t *testing.T) {
	filler := " Learning changes behavior through experience. Behavior changes with experience in every organism studied so far."
	tests := []struct {
		name, text     string
		prompt, answer string // "" prompt: no stated question
	}{
		{"list",
			"# Learning\n\nThere are three main types of learning: classical conditioning, operant conditioning, and observational learning." + filler,
			"What are the three main types of learning?", "classical conditioning, operant conditioning, and observational learning"},
		{"list with a figure reference",
			"# Mitosis\n\nBiologists recognize five stages of mitosis: prophase, prometaphase, metaphase, anaphase, and telophase (Figure 10.3)." + filler,
			"What are the five stages of mitosis?", "prophase, prometaphase, metaphase, anaphase, and telophase"},
		{"appositive of a name in capitals",
			"# The Directory\n\nRobespierre's fall in July 1794 opened the **Thermidorian Reaction**, a period in which moderates dismantled the Terror." + filler,
			"What is meant by the Thermidorian Reaction?", "a period in which moderates dismantled the Terror"},
		{"appositive that goes on with a list",
			"# The Third Estate\n\nAt its top stood the **bourgeoisie**, the prosperous urban middle class of merchants, lawyers, and officials; below them were artisans." + filler,
			"What is meant by the bourgeoisie?", "the prosperous urban middle class of merchants, lawyers, and officials"},
		{"appositive of a sentence that leans on the one before",
			"# Perfect Competition\n\nTogether these conditions mean that each firm is a **price taker**, a firm that must accept the market price because it is too small to affect it." + filler,
			"What is meant by price taker?", "a firm that must accept the market price because it is too small to affect it"},
		{"law stated in an aside",
			"# Heredity\n\nThe first of his laws, the **law of dominance**, states that one allele can mask the effect of another in a hybrid." + filler,
			"What does the law of dominance state?", "one allele can mask the effect of another in a hybrid"},
		{"law stated after a colon",
			"# Heredity\n\nThis result led to the **law of independent assortment**: alleles of different genes are sorted into gametes independently of one another." + filler,
			"What does the law of independent assortment state?", "alleles of different genes are sorted into gametes independently of one another"},
		{"law stated after According to, without its worked case",
			"# Probability\n\nAccording to the **sum rule**, the probability of either of two exclusive outcomes is the sum of their probabilities; a heterozygote arises as Yy or yY, so its probability is 1/2." + filler,
			"What does the sum rule state?", "the probability of either of two exclusive outcomes is the sum of their probabilities"},
		{"another name after the subject",
			"# Ions\n\nA positively charged ion, or **cation**, forms when an atom loses electrons in a reaction." + filler,
			"What is another name for a positively charged ion?", "cation"},
		{"appositive of a person",
			"# Conservation\n\nRoosevelt relied on **Gifford Pinchot**, the first chief of the U.S. Forest Service, to manage the national forests." + filler,
			"Who was Gifford Pinchot?", "the first chief of the U.S. Forest Service"},
		{"why, without the subject's next deed",
			"# Niagara\n\nIn 1905, reformers met on the Canadian side of the falls because hotels on the American side would not accommodate them, and founded a new movement." + filler,
			"Why did reformers meet on the Canadian side of the falls in 1905?", "because hotels on the American side would not accommodate them"},
		{"year of a closing participle",
			"# Democracy\n\nThe demand for direct democracy reached the national level with the Seventeenth Amendment, ratified in 1913." + filler,
			"", ""},
		{"a term named by 'is the'",
			"# The Brain\n\nThe largest part of the human brain is the **cerebrum**, which is divided into left and right hemispheres." + filler,
			"What is the largest part of the human brain called?", "cerebrum"},
		{"a term named by 'is the' after too short a subject",
			"# Reactions\n\nAny other reactant is the **excess reactant**, which is left over when the reaction stops." + filler,
			"", ""},
		{"list count differs from items",
			"# Learning\n\nThere are three main types of learning: classical conditioning and operant conditioning." + filler,
			"", ""},
		{"relation",
			"# Demand\n\nAs the price of a good rises, the quantity demanded falls." + filler,
			"As the price of a good rises, what happens to the quantity demanded?", "falls"},
		{"relation with a range and will",
			"# Heart\n\nAs heart rate increases from rest to about 120 beats, cardiac output will rise." + filler,
			"As heart rate increases from rest to about 120 beats, what happens to cardiac output?", "rise"},
		{"effect of a change",
			"# Heart\n\nAny decrease in resistance decreases the afterload." + filler,
			"How does the afterload change when resistance goes down?", "decreases"},
		{"why with be",
			"# Judges\n\nNo man is allowed to be a judge in his own cause because his interest would bias his judgment." + filler,
			"Why is no man allowed to be a judge in his own cause?", "because his interest would bias his judgment"},
		{"why with a present verb",
			"# Leaves\n\nGreen leaves look green because chlorophyll reflects green light." + filler,
			"Why do green leaves look green?", "because chlorophyll reflects green light"},
		{"why refuses a variable",
			"# Energy\n\nThe proportionality to m is inevitable because we add up the energy of every part of a system." + filler,
			"", ""},
		{"why with a setting before the subject",
			"# Monopoly\n\nFor a monopolist, marginal revenue is less than price because selling one more unit means cutting the price on every unit." + filler,
			"Why is marginal revenue less than price for a monopolist?", "because selling one more unit means cutting the price on every unit"},
		{"why after a connective",
			"# Monopoly\n\nIn addition, marginal revenue is less than price because selling one more unit means cutting the price on every unit." + filler,
			"", ""},
		{"why with a past tense",
			"# History\n\nCotton mills moved north because the rivers turned their wheels." + filler,
			"Why did cotton mills move north?", "because the rivers turned their wheels"},
		{"why with a name and a past tense",
			"# Exploration\n\nColumbus sailed west because he sought a sea route to the spice islands of Asia." + filler,
			"Why did Columbus sail west?", "because he sought a sea route to the spice islands of Asia"},
		{"named in bold",
			"# Translation\n\nThe complete structure containing an mRNA with multiple associated ribosomes is called a **polyribosome** (or **polysome**)." + filler,
			"What is the complete structure containing an mRNA with multiple associated ribosomes called?", "polyribosome"},
		{"named after this and a long noun phrase",
			"# Codes\n\nThis redundancy in the genetic code is called **degeneracy**." + filler,
			"What is the redundancy in the genetic code called?", "degeneracy"},
		{"named after this and a short noun phrase, with the sentence before",
			"# Volume\n\nThe ventricles now hold about 130 mL of blood. This volume of blood is called the **end diastolic volume (EDV)**." + filler,
			"The ventricles now hold about 130 mL of blood. What is this volume of blood called?", "end diastolic volume"},
		{"named after a connective and this, with the sentence before",
			"# Systole\n\nThe ventricles contract while every valve stays closed. Consequently, this initial phase of ventricular systole is known as **isovolumic contraction**." + filler,
			"The ventricles contract while every valve stays closed. What is this initial phase of ventricular systole called?", "isovolumic contraction"},
		{"not named after this when the sentence before leans back too",
			"# Volume\n\nIt now holds about 130 mL of blood. This volume of blood is called the **end diastolic volume (EDV)**." + filler,
			"", ""},
		{"named after a when clause",
			"# Learning\n\nWhen an organism learns to respond differently to various stimuli that are similar, it is called **stimulus discrimination**." + filler,
			"What is it called when an organism learns to respond differently to various stimuli that are similar?", "stimulus discrimination"},
		{"the name must be bold",
			"# Learning\n\nWhen an organism learns to respond differently to various stimuli that are similar, it is called stimulus discrimination." + filler,
			"", ""},
		{"named after a participle that points back, with the sentence before",
			"# Bubble\n\nRNA synthesis needs the double helix to unwind over a short stretch. The unwound region is called a **transcription bubble**." + filler,
			"RNA synthesis needs the double helix to unwind over a short stretch. What is the unwound region called?", "transcription bubble"},
		{"no appositive that tells a position, not a meaning",
			"# Genes\n\nThe process of **translation**, or **protein synthesis**, the second part of gene expression, turns the code of mRNA into a chain of amino acids." + filler,
			"", ""},
		{"appositive after a bold term",
			"# Output\n\nTo find the output, multiply **stroke volume (SV)**, the amount of blood pumped by each ventricle, by the number of beats per minute." + filler,
			"What is meant by stroke volume?", "the amount of blood pumped by each ventricle"},
		{"no appositive after a plain term",
			"# Output\n\nTo find the output, multiply stroke volume, the amount of blood pumped by each ventricle, by the number of beats per minute." + filler,
			"", ""},
		{"no name after two predicates",
			"# Ions\n\nAn atom that has gained or lost one or more electrons carries a net electric charge and is called an **ion**." + filler,
			"", ""},
		{"named after a relative clause",
			"# Cycle\n\nThe period of time that begins with contraction of the atria and ends with ventricular relaxation is known as the **cardiac cycle**." + filler,
			"What is the period of time that begins with contraction of the atria and ends with ventricular relaxation called?", "cardiac cycle"},
		{"named in an aside",
			"# Reflexes\n\nThe cardiac centers watch the blood pressure to keep the heart steady, a mechanism called the **baroreceptor reflex**." + filler,
			"The cardiac centers watch the blood pressure to keep the heart steady. What is this mechanism called?", "baroreceptor reflex"},
		{"no aside that the prompt gives away",
			"# Reflexes\n\nThe cardiac centers monitor baroreceptor firing to keep the heart steady, a mechanism called the **baroreceptor reflex**." + filler,
			"", ""},
		{"appositive after or",
			"# Filling\n\nOne of the primary factors to consider is **filling time**, or the duration of ventricular diastole during which filling occurs." + filler,
			"What is meant by filling time?", "the duration of ventricular diastole during which filling occurs"},
		{"no year of an aside",
			"# Napoleon\n\nBonaparte, born on Corsica in 1769, gained the most from the wars of the revolution." + filler,
			"", ""},
		{"a year, and no why, after an opening year",
			"# Cells\n\nIn 1961 Leonard Hayflick showed that normal cells stop dividing because their telomeres grow shorter." + filler,
			"In what year did Leonard Hayflick show that normal cells stop dividing because their telomeres grow shorter?", "1961"},
		{"no year in a text that states its matter in the present tense",
			"# Cells\n\nIn 1961 Leonard Hayflick showed that normal cells stop dividing. A cell divides when it reaches a checkpoint. Telomeres cap the ends of chromosomes and protect them." + filler,
			"", ""},
		{"no year of a clause before the main one",
			"# Money\n\nAfter Paul Volcker became chairman of the Federal Reserve in 1979, the Fed restricted money growth." + filler,
			"", ""},
		{"no name of a subject that points back",
			"# Crosses\n\nMating two true-breeding plants that differ in one trait in this way is called **hybridization**." + filler,
			"", ""},
		{"no appositive about who made it",
			"# Crosses\n\nThe **Punnett square**, a grid devised by the geneticist Reginald Punnett, predicts the offspring of a cross." + filler,
			"", ""},
		{"no appositive about the word",
			"# Politics\n\nWhite Southern Republicans were called **scalawags**, an old word for worthless livestock." + filler,
			"", ""},
		{"another name",
			"# Strands\n\nThe RNA product is almost identical to the nontemplate DNA strand, or the **sense strand**." + filler,
			"What is another name for the nontemplate DNA strand?", "sense strand"},
		{"proportion",
			"# Gases\n\nThe volume of a fixed amount of gas is inversely proportional to its pressure at constant temperature." + filler,
			"How is the volume of a fixed amount of gas related to its pressure at constant temperature?", "inversely proportional"},
		{"no proportion of a pronoun",
			"# Gases\n\nThis volume is inversely proportional to the pressure at constant temperature." + filler,
			"", ""},
		{"law",
			"# Gases\n\nCharles's law states that the volume of a gas at constant pressure grows in step with its absolute temperature." + filler,
			"What does Charles's law state?", "the volume of a gas at constant pressure grows in step with its absolute temperature"},
		{"law of something",
			"# Energy\n\nThe law of conservation of energy states that energy can change form but is never created or destroyed." + filler,
			"What does the law of conservation of energy state?", "energy can change form but is never created or destroyed"},
		{"year of a passive verb",
			"# Railways\n\nIn 1825 the first railway, between Stockton and Darlington, was opened, and trains soon ran everywhere." + filler,
			"In what year was the first railway, between Stockton and Darlington, opened?", "1825"},
		{"year of a past verb",
			"# Locomotives\n\nIn 1804 Trevithick adapted the Watt engine to transport and made the first locomotive." + filler,
			"In what year did Trevithick adapt the Watt engine to transport?", "1804"},
		{"year inside the clause",
			"# Cables\n\nThe first underseas cable was laid in 1851 between France and England." + filler,
			"In what year was the first underseas cable laid between France and England?", "1851"},
		{"a year of the next clause",
			"# Removal\n\nCotton planters wanted the land, and the discovery of gold in northern Georgia in 1829 raised the pressure." + filler,
			"", ""},
		{"two years are no question",
			"# Cables\n\nThe first underseas cable was laid in 1851 and replaced in 1866 between France and England." + filler,
			"", ""},
		{"a year after a pronoun subject",
			"# Cables\n\nIn 1851 they laid the first underseas cable between France and England." + filler,
			"", ""},
		{"no who of a possessive",
			"# Johnson\n\nAndrew Johnson finished his term with little influence over his party." + filler,
			"", ""},
		{"who of a person",
			"# Conditioning\n\nPavlov trained dogs to salivate at the sound of a tone before any food came." + filler,
			"Who trained dogs to salivate at the sound of a tone before any food came?", "Pavlov"},
		{"who of a full name",
			"# Engines\n\nJames Watt improved the steam engine with a separate condenser." + filler,
			"Who improved the steam engine with a separate condenser?", "James Watt"},
		{"no who of a deed done to a thing only the sentence before names",
			"# Taft\n\nTheodore Roosevelt took the suit as a personal insult and broke with his successor." + filler,
			"", ""},
		{"no who of a denied deed",
			"# Trusts\n\nRoosevelt did not oppose big business as such." + filler,
			"", ""},
		{"no who of a share of something",
			"# Whigs\n\nHenry Clay shared many of the economic views of the president in the election." + filler,
			"", ""},
		{"no why of a worked example's premise",
			"# Banks\n\nSuppose the bank's loans lose two million dollars in value because of defaults by its borrowers." + filler,
			"", ""},
		{"who was of a person with a title",
			"# Critics\n\n**Father Charles Coughlin**, a Catholic priest in Royal Oak, Michigan, reached an estimated thirty million listeners with his weekly radio sermons." + filler,
			"Who was Father Charles Coughlin?", "a Catholic priest in Royal Oak, Michigan"},
		{"no year of a relative clause",
			"# Power\n\nThe Rural Electrification Administration lent money to cooperatives to bring power lines to farms, only one in ten of which had electricity in 1935. Farmers waited for years. Cooperatives built lines across the plains.",
			"", ""},
		{"naming after any",
			"# Antigens\n\nAny molecule that can be specifically recognized by the adaptive immune system is called an **antigen**." + filler,
			"What is a molecule that can be specifically recognized by the adaptive immune system called?", "antigen"},
		{"appositive after the",
			"# Security\n\nThis principle became the foundation of the American **welfare state**, a system in which government provides basic economic security through social insurance." + filler,
			"What is meant by the welfare state?", "a system in which government provides basic economic security through social insurance"},
		{"no who of where someone came from",
			"# Roosevelt\n\nFranklin Delano Roosevelt came from a wealthy New York family with estates along the Hudson River." + filler,
			"", ""},
		{"no who of an age and a job",
			"# Montgomery\n\nOn December 1, 1955, **Rosa Parks**, a forty-two-year-old seamstress, boarded a city bus in Montgomery." + filler,
			"", ""},
		{"no who of whose only the sentence before says",
			"# Organizers\n\nMuch of the early work was carried out by **Ella Baker**, a veteran organizer who served as its first executive director." + filler,
			"", ""},
		{"no naming of one of several",
			"# Demography\n\nOne of the central tools of demography is the **life table**, a summary of the survival and mortality of a population by age." + filler,
			"What is meant by the life table?", "a summary of the survival and mortality of a population by age"},
		{"why without the adverb of the cause",
			"# Trade\n\nTrade diversion occurs when members replace imports from outside countries with imports from a partner, simply because the partner's goods are now free of tariffs." + filler,
			"Why does trade diversion occur when members replace imports from outside countries with imports from a partner?", "because the partner's goods are now free of tariffs"},
		{"appositive list into its clause",
			"# Defenses\n\nThe body's defenses form the **immune system**, a network of cells, tissues, organs, and soluble molecules that protects the body against infection." + filler,
			"What is meant by the immune system?", "a network of cells, tissues, organs, and soluble molecules that protects the body against infection"},
		{"appositive list of names with the",
			"# Freedom Summer\n\nThe **Council of Federated Organizations**, a coalition of SNCC, CORE, the NAACP, and the SCLC, ran the summer project in Mississippi." + filler,
			"What is meant by the Council of Federated Organizations?", "a coalition of SNCC, CORE, the NAACP, and the SCLC"},
		{"appositive of a name after the",
			"# Realignment\n\nThe vote of 1936 confirmed the emergence of the **New Deal coalition**, an alliance of voting groups that sustained the Democratic Party for decades." + filler,
			"What is meant by the New Deal coalition?", "an alliance of voting groups that sustained the Democratic Party for decades"},
		{"appositive with a place and its state",
			"# Critics\n\n**Francis Townsend**, a retired physician in Long Beach, California, proposed a pension for every American over sixty." + filler,
			"Who was Francis Townsend?", "a retired physician in Long Beach, California"},
		{"no who of a company",
			"# Trusts\n\nThe attorney general sued the **Northern Securities Company**, a holding company formed by three financiers to control the railroads of the Northwest." + filler,
			"What is meant by the Northern Securities Company?", "a holding company formed by three financiers to control the railroads of the Northwest"},
		{"no who of a description",
			"# Conditioning\n\nPavlov was a physiologist who studied digestion in dogs before he studied learning." + filler,
			"", ""},
		{"no who of a name that is also an adjective",
			"# Motion\n\nGalilean got in trouble by claiming that an object in motion would continue in motion forever." + filler,
			"", ""},
		{"no who of a place",
			"# Wars\n\nBritain declared war on the colonies after the tea was dumped in the harbour." + filler,
			"", ""},
		{"year after a leading phrase",
			"# Taxes\n\nTo raise revenue, Parliament passed the Sugar Act in 1764, which lowered the duty on molasses." + filler,
			"", ""},
		{"year without the aside about its object",
			"# Taxes\n\nThe British Parliament passed the Townshend Acts in 1767, which placed duties on glass, lead, paint, paper, and tea." + filler,
			"In what year did the British Parliament pass the Townshend Acts?", "1767"},
		{"no who of a plural of people",
			"# Missions\n\nAstronauts brought a moon rock back from a long mission to the far side of the moon." + filler,
			"", ""},
		{"no who of a capitalised noun",
			"# Blood\n\nBlood flowed into the right atrium from the superior and inferior venae cavae." + filler,
			"", ""},
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
				if q.Type == studyloop.QuestionShortAnswer && (q.Prompt == tt.prompt || tt.prompt == "" && isStated(q.Prompt)) {
					found = &ex.Questions[i]
				}
			}
			switch {
			case tt.prompt == "" && found != nil:
				t.Errorf("unexpected stated question %q", found.Prompt)
			case tt.prompt != "" && found == nil:
				t.Errorf("no question %q among %+v", tt.prompt, ex.Questions)
			case found != nil && found.Answer != tt.answer:
				t.Errorf("answer %q, want %q", found.Answer, tt.answer)
			}
		})
	}
}

func isStated(prompt string) bool {
	for _, p := range []string{"What are the ", "Why ", "As ", "When ", "If ", "In what year ", "Who "} {
		if strings.HasPrefix(prompt, p) && strings.HasSuffix(prompt, "?") {
			return true
		}
	}
	return strings.HasSuffix(prompt, " called?") || strings.HasPrefix(prompt, "How ") || strings.HasPrefix(prompt, "What does ") || strings.HasPrefix(prompt, "What is meant by ") || strings.HasPrefix(prompt, "What is another name for ")
}

// TestShuffleInSpreadsTheAnswer: over many prompts the right choice lands
// in every position about equally often, and one prompt always gets the
// same order.
func TestShuffleInSpreadsTheAnswer(t *testing.T) {
	var positions [4]int
	for i := range 400 {
		prompt := "Question number " + strconv.Itoa(i) + " asks for a _____."
		choices := shuffleIn(prompt, "answer", []string{"one", "two", "three"})
		if again := shuffleIn(prompt, "answer", []string{"one", "two", "three"}); !slices.Equal(choices, again) {
			t.Fatalf("two orders for one prompt: %q, %q", choices, again)
		}
		positions[slices.Index(choices, "answer")]++
	}
	for i, n := range positions {
		if n < 50 {
			t.Errorf("answer at position %d in %d of 400 questions", i, n)
		}
	}
}

// TestEventOrder: a topic that dates three or more events in different
// years gets one "Which of these happened first?" question whose right
// choice is the earliest, and every choice is an event without its date.
func TestEventOrder(t *testing.T) {
	text := "# Transport\n\nIn 1825 the first railway was opened between Stockton and Darlington. " +
		"The first underseas cable was laid in 1851 between France and England. " +
		"In 1804 Trevithick adapted the Watt engine to transport. " +
		"The electric telegraph came into existence in 1835. " +
		"Railways and telegraphs changed how far and how fast goods and news could travel."
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	var order *studyloop.Question
	for i, q := range ex.Questions {
		if q.Prompt == "Which of the events below happened first?" {
			order = &ex.Questions[i]
		}
	}
	if order == nil {
		t.Fatalf("no order question among %+v", ex.Questions)
	}
	if order.Answer != "Trevithick adapted the Watt engine to transport" || len(order.Choices) != 4 || !slices.Contains(order.Choices, order.Answer) {
		t.Errorf("answer %q, choices %q", order.Answer, order.Choices)
	}
	for _, c := range order.Choices {
		if strings.ContainsAny(c, "0123456789") {
			t.Errorf("choice %q gives its date away", c)
		}
	}
}

// TestParticipleClause: a blank may not open with a present participle
// that heads a clause; after an article or a preposition it is a noun.
func TestParticipleClause(t *testing.T) {
	tests := []struct {
		sentence, blank string
		want            bool
	}{
		{"Each molecule is translated by many ribosomes, all synthesizing protein in the same direction.", "synthesizing protein", true},
		{"Ribosomes keep synthesizing protein until they reach a stop codon.", "synthesizing protein", true},
		{"The cell spends energy on synthesizing protein during growth.", "synthesizing protein", false},
		{"The splicing of introns takes place in the nucleus of the cell.", "splicing", false},
		{"Ribosomes make protein in the cytoplasm of every living cell.", "protein", false},
	}
	for _, tt := range tests {
		s := &sentence{text: tt.sentence, toks: tagSentence(tt.sentence), tagged: true}
		from := strings.Index(tt.sentence, tt.blank)
		if got := participleClause(s, blank{from: from, to: from + len(tt.blank)}); got != tt.want {
			t.Errorf("participleClause(%q, %q) = %v, want %v", tt.sentence, tt.blank, got, tt.want)
		}
	}
}

// TestNotePairs: a note's list item "term = words" or "term: words"
// defines its term; a formula, a number in the term or a note label does
// not.
func TestNotePairs(t *testing.T) {
	text := "# Probability\n\n" +
		"- joint probability = two or more variables at once\n" +
		"- marginal prob: based on one variable only, from row or column totals\n" + // shorthand beside "Probability"
		"- P(A and B) = P(A) x P(B) when the events are independent\n" +
		"- deck of 52 cards = thirteen diamonds and twelve face cards\n" +
		"- truth = labels from a team of people: fashion or not\n" +
		"- ex: a die shows one of six faces, each equally likely\n"
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	var answers []string
	for _, q := range ex.Questions {
		answers = append(answers, q.Answer)
	}
	slices.Sort(answers)
	if want := []string{"joint probability"}; !slices.Equal(answers, want) {
		t.Errorf("answers %q, want %q", answers, want)
	}
}

// TestMarkedSentenceBlanksOnlyItsMark: a sentence with a bold mark is
// asked about the marked term or not at all, never with a side word
// blanked.
func TestMarkedSentenceBlanksOnlyItsMark(t *testing.T) {
	text := "# Layers\n\n" +
		"Greenhouse gases are **transparent** to sunlight but absorb longwave radiation from the ground. " +
		"Sunlight warms the ground, and the ground sends longwave radiation back up to the sky. " +
		"Longwave radiation is absorbed by greenhouse gases such as water vapour and carbon dioxide. " +
		"Greenhouse gases then send part of the longwave radiation back down to the ground."
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range ex.Questions {
		if strings.Contains(q.Prompt, "transparent") {
			t.Errorf("question from the marked sentence blanks %q: %q", q.Answer, q.Prompt)
		}
	}
}

// TestRivalNearby: a blank whose head noun another phrase of the same or
// the previous sentence shares, with another modifier, has a rival answer.
func TestRivalNearby(t *testing.T) {
	tests := []struct {
		prev, sentence, answer string
		want                   bool
	}{
		{"The cardiac muscle stretches as the ventricle fills.", "At rest, there is little stretch of the ventricular muscle, and the sarcomeres stay short.", "ventricular muscle", true},
		{"", "The two atrioventricular valves, the tricuspid and mitral valves, are both open during filling.", "atrioventricular valves", false},
		{"", "Whereas the first two positions matter most, the third position, called the wobble position, is less critical.", "wobble position", false},
		{"The heart pumps blood through the body.", "At rest, there is little stretch of the ventricular muscle, and the sarcomeres stay short.", "ventricular muscle", false},
		{"", "Skeletal muscle moves bones, while smooth muscle lines the gut and the blood vessels.", "smooth muscle", true},
		{"", "Transcription proceeds from one of the two DNA strands that acts as a template, the so-called antisense strand.", "antisense strand", false},
		{"", "In Cherokee Nation v. Georgia, the Court called the Cherokee a domestic dependent nation under federal protection.", "domestic dependent nation", false},
		{"Firms also face menu costs when prices change.", "People incur shoe-leather costs, the time and effort spent keeping cash holdings low.", "shoe-leather costs", false},
		{"Firms also face menu costs when prices change.", "People incur shoe-leather costs when inflation is high.", "shoe-leather costs", true},
	}
	for _, tt := range tests {
		b := &block{}
		var s *sentence
		for _, text := range []string{tt.prev, tt.sentence} {
			if text == "" {
				continue
			}
			toks := tagSentence(text)
			x := &sentence{text: text, block: b, toks: toks, tagged: true}
			for _, tok := range toks {
				x.stems = append(x.stems, stemID(tok.Text))
			}
			b.sents = append(b.sents, x)
			s = x
		}
		from := strings.Index(tt.sentence, tt.answer)
		if got := rivalNearby(s, blank{from: from, to: from + len(tt.answer)}); got != tt.want {
			t.Errorf("rivalNearby(%q) = %v, want %v", tt.answer, got, tt.want)
		}
	}
}

// stemID is a test's stand-in for the analyzer's interned stems: one id
// per lower-cased word with a plural s dropped.
func stemID(word string) int {
	w := strings.TrimSuffix(strings.ToLower(word), "s")
	if !unicode.IsLetter([]rune(w + " ")[0]) {
		return -1
	}
	h := 0
	for _, r := range w {
		h = h*31 + int(r)
	}
	return h & 0x7fffffff
}

// TestExampleSlot: a blank among examples ("such as _____", "_____ and
// Mercurial") has other right answers.
func TestExampleSlot(t *testing.T) {
	tests := []struct {
		sentence, answer string
		want             bool
	}{
		{"Greenhouse gases such as carbon dioxide absorb longwave radiation.", "carbon dioxide", true},
		{"Older systems like BitKeeper kept one central copy of the history.", "BitKeeper", true},
		{"Distributed systems such as Git and Mercurial keep a full copy in every clone.", "Git", true},
		{"Carbon dioxide absorbs longwave radiation and warms the air.", "Carbon dioxide", false},
		{"Git keeps a full copy of the history in every clone.", "Git", false},
		{"Time passes between the conditioned stimulus and the unconditioned stimulus.", "unconditioned stimulus", true},
		{"Each cell has 4 chromosomes in its nucleus.", "chromosomes", true},
		{"Pairing a tone with food gives higher-order conditioning, or second-order conditioning.", "higher-order conditioning", true},
		{"As warm air rises it cools, and the water vapour condenses into droplets.", "water vapour", false},
	}
	for _, tt := range tests {
		s := &sentence{text: tt.sentence}
		from := strings.Index(tt.sentence, tt.answer)
		if got := exampleSlot(s, blank{from: from, to: from + len(tt.answer)}); got != tt.want {
			t.Errorf("exampleSlot(%q, %q) = %v, want %v", tt.sentence, tt.answer, got, tt.want)
		}
	}
}

// TestWorkedExampleAndOpeningNotAsked: a paragraph's worked example, from
// the sentence that opens it, and a marked chapter's opening before its
// first bold term give no cloze.
func TestWorkedExampleAndOpeningNotAsked(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Conditioning\n\nLearning theorists have long studied how taste aversion forms in animals and people.\n\n")
	for _, term := range []string{"acquisition", "extinction", "spontaneous recovery", "stimulus generalization", "stimulus discrimination",
		"higher-order conditioning", "neutral stimulus", "unconditioned stimulus", "conditioned stimulus", "conditioned response"} {
		b.WriteString("In classical conditioning, **" + term + "** is a term that every student of taste aversion meets early in the course.\n\n")
	}
	b.WriteString("Taste aversion can follow a single meal. For example, Harry ate cotton candy at the fair and then felt sick on the ride home. " +
		"After that evening, the taste aversion of Harry made cotton candy a conditioned stimulus for his nausea.\n")
	ex, err := mustOffline(t).Generate(context.Background(), "", b.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range ex.Questions {
		if text := q.Prompt + " " + q.Answer; strings.Contains(text, "Harry") || strings.Contains(text, "theorists") {
			t.Errorf("question from a worked example or the opening: %q (%q)", q.Prompt, q.Answer)
		}
	}
}

// TestInstanceStatement: "The _____ is eating too much cotton candy"
// states a case of the term, not the term.
func TestInstanceStatement(t *testing.T) {
	tests := []struct {
		sentence, answer string
		want             bool
	}{
		{"The unconditioned stimulus is eating too much cotton candy at the fair.", "unconditioned stimulus", true},
		{"The unconditioned stimulus is a stimulus that triggers a reflex without learning.", "unconditioned stimulus", false},
		{"Ribosomes are making proteins in the cytoplasm of every cell.", "Ribosomes", true},
	}
	for _, tt := range tests {
		s := &sentence{text: tt.sentence, toks: tagSentence(tt.sentence), tagged: true}
		s.lower = make([]string, len(s.toks))
		for i, tok := range s.toks {
			s.lower[i] = strings.ToLower(tok.Text)
		}
		from := strings.Index(tt.sentence, tt.answer)
		if got := instanceStatement(s, blank{from: from, to: from + len(tt.answer)}); got != tt.want {
			t.Errorf("instanceStatement(%q) = %v, want %v", tt.sentence, got, tt.want)
		}
	}
}

// TestAskDefinition: "What does it mean to X?" only of a verb; any other
// term is asked "What does “X” mean?".
func TestAskDefinition(t *testing.T) {
	tests := []struct{ term, def, want string }{
		{"vectorize", "To write code that works on whole arrays at once.", "What does it mean to vectorize?"},
		{"aggregation", "To combine many values into one.", "What does “aggregation” mean?"},
		{"stream", "A sequence of data read one piece at a time.", "What does “stream” mean?"},
		{"pass (a test)", "A test passes if its actual result matches the expected one.", "What does it mean to pass a test?"},
		{"variable (program)", "A name in a program that holds some data.", "What does “variable (program)” mean?"},
	}
	for _, tt := range tests {
		if got := askDefinition(tt.term, tt.def); got != tt.want {
			t.Errorf("askDefinition(%q) = %q, want %q", tt.term, got, tt.want)
		}
	}
}

// TestLeadInSentenceNotAskedAgain: the sentence a naming question uses as
// its lead-in gives no other question.
func TestLeadInSentenceNotAskedAgain(t *testing.T) {
	text := "# Splicing\n\nIntrons can be spliced out of the pre-mRNA differently, so various exons end up in the final mRNA product. " +
		"This process is known as **alternative splicing**. " +
		"Spliceosomes remove introns from the pre-mRNA inside the nucleus of the cell."
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	lead := strings.Index(text, "Introns can")
	found := false
	for _, q := range ex.Questions {
		if strings.Contains(q.Prompt, ". What is this process called?") {
			found = true
			continue
		}
		if q.Source.Start <= lead && lead < q.Source.End {
			t.Errorf("the lead-in sentence is asked again: %q", q.Prompt)
		}
	}
	if !found {
		t.Errorf("no naming question after the lead-in among %+v", ex.Questions)
	}
}

// TestCellPrompt: a table's cell is asked with its row's name (with the
// first column's noun after an ordinal, in the case the text writes it),
// a row named by a range of values with the column that holds them, and a
// column of dates by its participle; a column of examples gives no
// question (any example would do).
func TestCellPrompt(t *testing.T) {
	tests := []struct {
		f     fact
		want  string
		plain bool
	}{
		{fact{kind: factCell, term: "sodium", attr: "Symbol", key: "Element", def: "Na"}, "What is the symbol of sodium?", true},
		{fact{kind: factCell, term: "less than 0.4", attr: "Usual bond type", key: "Electronegativity difference", def: "nonpolar covalent"}, "What is the usual bond type when the electronegativity difference is less than 0.4?", true},
		{fact{kind: factCell, term: "0.4 to 1.8", attr: "Usual bond type", key: "Electronegativity difference", def: "polar covalent"}, "What is the usual bond type when the electronegativity difference is 0.4 to 1.8?", true},
		{fact{kind: factCell, term: "0.4 to 1.8", attr: "Example", key: "Electronegativity difference", def: "H–Cl (1.0)"}, "What is the example when the electronegativity difference is 0.4 to 1.8?", false},
		{fact{kind: factCell, term: "Thirteenth", attr: "Ratified", key: "Amendment", def: "1865"}, "In what year was the Thirteenth Amendment ratified?", true},
		{fact{kind: factCell, term: "Fourteenth", attr: "Approved by Congress", key: "Amendment", def: "1866"}, "In what year was the Fourteenth Amendment approved by Congress?", true},
		{fact{kind: factCell, term: "Fourteenth", attr: "Ratified", key: "Amendment", def: "in the summer"}, "In what year was the Fourteenth Amendment ratified?", false},
		{fact{kind: factCell, term: "Water", attr: "Formula", key: "Substance", def: "H₂O"}, "What is the formula of water?", true},
		{fact{kind: factCell, term: "Mars", attr: "Number of moons", key: "Planet", def: "2"}, "What is the number of moons of Mars?", true},
		{fact{kind: factCell, term: "Formic acid", attr: "Ka", key: "Acid", def: "1.8 × 10⁻⁴"}, "What is the Ka of formic acid?", true},
		{fact{kind: factCell, term: "Location of ganglia", attr: "Sympathetic division", key: "Feature", def: "Close to the spinal cord"}, "In the sympathetic division, what is the location of ganglia?", true},
		{fact{kind: factCell, term: "Exactly 1", attr: "Category", key: "Elasticity value", def: "Unitary elastic"}, "What is the category when the elasticity value is exactly 1?", true},
		{fact{kind: factCell, term: "Restaurant meals", attr: "Approximate elasticity", key: "Good", def: "greater than 1"}, "What is the approximate elasticity of restaurant meals?", true},
		{fact{kind: factCell, term: "Source of displayed peptides", attr: "MHC class II", key: "Feature", def: "Material taken in from outside the cell"}, "In the MHC class II, what is the source of displayed peptides?", true},
		{fact{kind: factCell, term: "Cells that display antigen", attr: "MHC class II", key: "Feature", def: "Antigen-presenting cells"}, "In the MHC class II, what are the cells that display antigen?", true},
		{fact{kind: factCell, term: "deps", attr: "Description", key: "Attribute", def: "Targets this target depends on."}, "What is the description of deps?", true},
		{fact{kind: factCell, term: "Emergency Banking Act", attr: "Purpose", key: "Agency or law", def: "Reopened sound banks"}, "What is the purpose of the Emergency Banking Act?", true},
		{fact{kind: factCell, term: "exactly-once", attr: "Typical use", key: "Guarantee", def: "Payments and other effects that must not repeat"}, "What is the typical use of exactly-once?", true},
		{fact{kind: factCell, term: "y", attr: "Y", key: "", def: "Yy"}, "What is the Y of y?", false},
		{fact{kind: factCell, term: "Total", attr: "Year 1 cost", key: "Item", def: "$600"}, "What is the year 1 cost of Total?", false},
	}
	a := &asker{text: "Plants take up water through their roots. Mars has two small moons."}
	for _, tt := range tests {
		if got := a.cellPrompt(tt.f); got != tt.want {
			t.Errorf("cellPrompt(%q, %q) = %q, want %q", tt.f.term, tt.f.attr, got, tt.want)
		}
		if got := plainCell(tt.f); got != tt.plain {
			t.Errorf("plainCell(%q, %q) = %v, want %v", tt.f.term, tt.f.attr, got, tt.plain)
		}
	}
}

func TestMeasuredValue(t *testing.T) {
	tests := []struct {
		cell string
		want bool
	}{
		{"3.17", true},
		{"6.8 × 10⁻⁴", true},
		{"0.39 AU", true},
		{"6", false},    // a whole number, such as an atomic number
		{"1865", false}, // a year
		{"HF", false},
		{"H₂O", false},
		{"3.5 billion years", false}, // words, not a unit
	}
	for _, tt := range tests {
		if got := measuredValue(tt.cell); got != tt.want {
			t.Errorf("measuredValue(%q) = %v, want %v", tt.cell, got, tt.want)
		}
	}
}

func TestPointsOutside(t *testing.T) {
	for answer, want := range map[string]bool{
		"an enzyme that uses this flow to attach phosphate to ADP":         true,
		"an enzyme that lets ions flow back and uses this flow for work":   false,
		"the duration of ventricular diastole during which filling occurs": false,
		"a pledge to stop buying these goods":                              true,
	} {
		if got := pointsOutside(answer); got != want {
			t.Errorf("pointsOutside(%q) = %v, want %v", answer, got, want)
		}
	}
}

func TestTheName(t *testing.T) {
	for term, want := range map[string]string{
		"Specie Circular":      "the Specie Circular",
		"Panic of 1837":        "the Panic of 1837",
		"Whig Party":           "the Whig Party",
		"Henry Clay":           "Henry Clay",
		"ATP synthase":         "ATP synthase",
		"Treaty of New Echota": "the Treaty of New Echota",
		"filling time":         "filling time",
		"Directory":            "the Directory",
		"Congress":             "Congress",
		"directory":            "directory",
		"bourgeoisie":          "the bourgeoisie",
	} {
		if got := theName(term); got != want {
			t.Errorf("theName(%q) = %q, want %q", term, got, want)
		}
	}
}

func TestNamesTheStudy(t *testing.T) {
	a := &asker{stem: stemWord, titleStems: map[string]bool{}}
	for _, st := range contentStems("Conservation of Energy", stemWord) {
		a.titleStems[st] = true
	}
	tests := []struct {
		prompt, answer string
		want           bool
	}{
		{"One atom might release 1.1 × 10^-10 J of _____ when it decays.", "energy", true},
		{"In most cases, _____ is lost as heat.", "energy", true},
		{"_____ fell sharply after the reaction.", "Energy", true},
		{"_____ is the ability to do work.", "Energy", false}, // says what it is
		{"_____ comes in many forms.", "Energy", false},
		{"By _____, was meant protection against the tyranny of the rulers.", "energy", false}, // what the text means by it
		{"The SI unit of _____ is the joule.", "work", false},                                  // not the title's word
		{"Kinetic energy rises with _____.", "kinetic energy", false},
		{"Physicists trust the _____ above every other law.", "conservation of energy", true}, // every word the title's
		{"In _____, the total never changes.", "conservation of energy", false},
	}
	for _, tt := range tests {
		q := studyloop.Question{Type: studyloop.QuestionCloze, Prompt: tt.prompt, Answer: tt.answer}
		if got := a.namesTheStudy(q); got != tt.want {
			t.Errorf("namesTheStudy(%q, %q) = %v, want %v", tt.prompt, tt.answer, got, tt.want)
		}
	}
	// Documentation names its product in its first heading: the product
	// is no blank anywhere, and "What is Halyard?" is its selling line.
	docs := &asker{stem: stemWord, titleStems: map[string]bool{}, subjectStems: map[string]bool{}, reference: true}
	for _, st := range contentStems("Halyard HTTP Client", stemWord) {
		docs.subjectStems[st] = true
	}
	if !docs.namesTheStudy(studyloop.Question{Type: studyloop.QuestionCloze, Prompt: "_____ is an HTTP client library for Python.", Answer: "Halyard"}) {
		t.Error("the documented product is blanked")
	}
	if docs.namesTheStudy(studyloop.Question{Type: studyloop.QuestionCloze, Prompt: "Each client keeps a _____ of open connections.", Answer: "pool"}) {
		t.Error("a term of the documentation counts as its product")
	}
	if !docs.productBlurb(studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: "What is Halyard?", Answer: "a fast HTTP client"}) {
		t.Error("the product's selling line is asked")
	}
}

func TestDescribePrompt(t *testing.T) {
	tests := []struct{ def, want string }{
		{"a solution that resists changes in pH.", "Which term matches this description: a solution that resists changes in pH?"},
		{"describes a trait that is expressed in the heterozygote", "Which term describes a trait that is expressed in the heterozygote?"},
		{"refers to the passing of traits from parents to offspring", "Which term refers to the passing of traits from parents to offspring?"},
		{"a protein that moves three Na⁺ out and two K⁺ in; also called Na⁺/K⁺-ATPase", "Which term matches this description: a protein that moves three Na⁺ out and two K⁺ in?"},
	}
	for _, tt := range tests {
		got := describePrompt(tt.def)
		if got != tt.want {
			t.Errorf("describePrompt(%q) = %q, want %q", tt.def, got, tt.want)
		}
		if d, _ := strings.CutSuffix(description(got), "?"); !strings.HasPrefix(trimEnd(tt.def), d) {
			t.Errorf("description(%q) = %q, want the definition back", got, d)
		}
	}
}

func TestReferenceTableQuestions(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Settings\n\nThe server reads its settings from one file at start.\n\n| Key | Type | Default | Description |\n|---|---|---|---|\n")
	kinds := []string{"integer", "string", "boolean"}
	for i := range 10 {
		def := fmt.Sprintf("%ds", 5*(i+1))
		if i%3 == 0 {
			def = "false"
		}
		fmt.Fprintf(&b, "| server.key%d | %s | %s | Limit number %d of the queue server |\n", i, kinds[i%3], def, i)
	}
	ex, err := mustOffline(t).Generate(context.Background(), "", b.String())
	if err != nil {
		t.Fatal(err)
	}
	cells := 0
	for _, q := range ex.Questions {
		if strings.Contains(q.Prompt, "server.key") {
			cells++
		}
		if strings.Contains(q.Prompt, "type of") || q.Answer == "false" {
			t.Errorf("question %q (%q) from a column of repeated words or a yes-or-no cell", q.Prompt, q.Answer)
		}
	}
	if cells == 0 || cells > maxCellsPerTableAlone {
		t.Errorf("%d questions from the table, want 1 to %d", cells, maxCellsPerTableAlone)
	}
}

// TestCellsOfValuesNotAsked: a table's cell that gives a number roughly
// ("about 0.2") and a row named by a constant's value ("8.314") are data
// to look up, not matter to learn.
func TestCellsOfValuesNotAsked(t *testing.T) {
	text := "# Elasticity\n\nEconomists estimate how strongly buyers react to prices for many goods, and the estimates differ widely between goods.\n\n" +
		"| Good | Approximate elasticity | Kind of good |\n|---|---|---|\n| Restaurant meals | greater than 1 | luxury |\n| Physician visits | about 0.2 | necessity |\n| Gasoline | about 0.3 | necessity with few substitutes |\n\n" +
		"# The gas constant\n\nThe gas constant R appears in the ideal gas law, and its value depends on the units chosen for pressure and volume.\n\n" +
		"| Value of R | Units | Typical use |\n|---|---|---|\n| 8.314 | J/(mol·K) | SI units and energy calculations |\n| 0.08206 | L·atm/(mol·K) | gas volumes in liters and pressures in atmospheres |\n"
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range ex.Questions {
		if strings.Contains(q.Prompt, "approximate elasticity") || strings.Contains(q.Prompt, "value of R is") {
			t.Errorf("question %q (%q) from a value to look up", q.Prompt, q.Answer)
		}
	}
}

// TestReferenceTablesNotAsked: documentation (a study with many code
// spans) gets no questions from its tables of platforms, versions and
// settings, which are looked up, not learned.
func TestReferenceTablesNotAsked(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Tests\n\nRun the tests with `forge test`. ")
	for i := range referenceCodeSpans {
		fmt.Fprintf(&b, "The flag `--shard-%d` splits the run into parts. ", i)
	}
	b.WriteString("\n\nA **shard** is a part of a test run that one worker executes on a machine of its own.\n")
	b.WriteString("\n\n| Platform | Minimum version | Sandboxing support | Description |\n|---|---|---|---|\n" +
		"| Linux | Kernel 4.18 | Full, with user namespaces | The platform most builds run on |\n" +
		"| macOS | 12 (Monterey) | Partial, with sandbox profiles | The platform of most laptops |\n" +
		"| Windows | 10, build 1903 | Process isolation only | The platform with the fewest sandbox features |\n")
	ex, err := mustOffline(t).Generate(context.Background(), "", b.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range ex.Questions {
		if strings.Contains(q.Prompt, "Linux") || strings.Contains(q.Prompt, "macOS") || strings.Contains(q.Prompt, "Windows") {
			t.Errorf("question %q (%q) of a reference table", q.Prompt, q.Answer)
		}
	}
}

// TestLabelsNotTerms: the bold labels of a troubleshooting entry
// ("**Cause:**", "**Fix:**") name no term.
func TestLabelsNotTerms(t *testing.T) {
	text := "# Troubleshooting\n\n## No workspace found\n\nThe tool looks for its workspace file in the current directory and in every directory above it before it gives up.\n\n" +
		"**Cause:** You ran the tool outside a workspace, or the workspace file has a different name.\n\n" +
		"**Fix:** Run the tool from inside the workspace, or create the workspace file at the root of the repository.\n\n" +
		"- **A second workspace goes further**: it nests one workspace inside another so that both build together.\n"
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range ex.Questions {
		if strings.Contains(q.Prompt+q.Answer, "Cause") || strings.Contains(q.Prompt+q.Answer, "Fix") || strings.Contains(q.Answer, "goes further") || strings.Contains(q.Prompt, "_____ goes further") {
			t.Errorf("question %q (%q) of a label", q.Prompt, q.Answer)
		}
	}
}

// TestTablesNotAsked: a table set beside itself ("Year | Rate | Year |
// Rate"), percentages, a reference table's data types and a feature whose
// name points at its column ("Cells that display it") give no question;
// the same tables' other cells do.
func TestTablesNotAsked(t *testing.T) {
	text := "# Immunity\n\nThe immune system defends the body against pathogens with many kinds of cells, and each kind of cell has a task of its own in that defense.\n\n" +
		"| Year | Unemployment rate | Year | Unemployment rate |\n|---|---|---|---|\n| 1929 | 3.2% | 1936 | 16.9% |\n| 1930 | 8.7% | 1937 | 14.3% |\n| 1931 | 15.9% | 1938 | 19.0% |\n\n" +
		"| Class | Share of serum antibody | Main function |\n|---|---|---|\n| IgM | About 5–10% | First antibody secreted in a primary response |\n| IgG | About 75–80% | Crosses the placenta to protect the fetus |\n| IgA | 10–15% | Guards mucous membranes |\n\n" +
		"| Assets | | Liabilities + net worth | |\n|---|---|---|---|\n| Reserves | $2.0 | Deposits | $20.0 |\n| Loans | $14.0 | Net worth | $1.5 |\n\n" +
		"| Measure | Components | Approximate size |\n|---|---|---|\n| M1 | Currency and checkable deposits | About $18 trillion |\n| M2 | M1 plus small time deposits | About $21 trillion |\n\n" +
		"| Stress | Direction of shift | Effect on K |\n|---|---|---|\n| Add a reactant | Right | None |\n| Increase temperature, exothermic reaction | Left | Decreases |\n| Remove a product | Right | None |\n\n" +
		"| Age interval (years) | Number alive | Number dying |\n|---|---|---|\n| 0–1 | 1000 | 500 |\n| 1–2 | 500 | 200 |\n| 2–3 | 300 | 100 |\n\n" +
		"| Feature | MHC class I | MHC class II |\n|---|---|---|\n| Cells that display it | Nearly all nucleated cells | Antigen-presenting cells |\n| Source of displayed peptides | Proteins made inside the cell | Material taken in from outside the cell |\n\n" +
		"# Targets\n\nEvery target of the build tool accepts a few common attributes, which the build file sets beside the rule's own attributes.\n\n" +
		"| Attribute | Type | Description |\n|---|---|---|\n| `name` | string | Name of the target, unique within the package. |\n| `deps` | list of labels | Targets this target depends on. |\n| `testonly` | bool | Only test targets may depend on this one. |\n"
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	for _, q := range ex.Questions {
		asked = append(asked, q.Prompt+" "+q.Answer)
		if strings.Contains(q.Answer, "%") || strings.Contains(q.Prompt, "when the year") || strings.Contains(q.Prompt, "display it") ||
			q.Answer == "string" || q.Answer == "list of labels" || strings.Contains(q.Prompt, "In the type") || strings.Contains(q.Prompt, "In the description") ||
			strings.Contains(q.Answer, "$") || strings.Contains(strings.ToLower(q.Prompt), "net worth") ||
			strings.Contains(q.Prompt, " of add ") || strings.Contains(q.Prompt, " of increase ") || q.Answer == "500" || q.Answer == "200" {
			t.Errorf("question %q (%q)", q.Prompt, q.Answer)
		}
	}
	if all := strings.Join(asked, "\n"); !strings.Contains(all, "main function") || !strings.Contains(all, "source of displayed peptides") {
		t.Errorf("the tables' other cells are not asked:\n%s", all)
	}
}

func TestFirstSentence(t *testing.T) {
	tests := []struct{ def, want string }{
		{"a civil rights group founded in 1905 by W. E. B. Du Bois. It met at Niagara Falls.", "a civil rights group founded in 1905 by W. E. B. Du Bois."},
		{"the unit of amount of substance in chemistry. See also molar mass.", "the unit of amount of substance in chemistry."},
		{"the rate of transferring energy", "the rate of transferring energy"},
		{"the sum of the values divided by n. See mean.", "the sum of the values divided by n."},
	}
	for _, tt := range tests {
		if got := firstSentence(tt.def); got != tt.want {
			t.Errorf("firstSentence(%q) = %q, want %q", tt.def, got, tt.want)
		}
	}
}

func TestRecallable(t *testing.T) {
	tests := []struct {
		f    fact
		want bool
	}{
		{fact{term: "Charles's law", def: "at constant pressure, the volume of a gas is directly proportional to its absolute temperature"}, true},
		{fact{term: "Charles's law", def: "If a heated gas is kept at constant pressure, the container must expand"}, false},                // explains, does not state
		{fact{term: "ATP", def: "the cell's energy currency"}, false},                                                                       // an acronym alone
		{fact{term: "hash table", def: "A data structure that allows items to be looked up by value by computing an index from it"}, false}, // too long to recall
	}
	for _, tt := range tests {
		if got := recallable(tt.f); got != tt.want {
			t.Errorf("recallable(%q: %q) = %v, want %v", tt.f.term, tt.f.def, got, tt.want)
		}
	}
}

// TestBoldStudyBlanksBoldOnly: a study that sets its terms in bold is
// asked its terms where they stand in bold, where they are used again
// only a term no other question asks, and none of its unmarked phrases.
func TestBoldStudyBlanksBoldOnly(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Immunity\n\n")
	terms := []string{"innate immunity", "adaptive immunity", "helper T cell", "killer cell", "plasma cell", "antibody", "antigen",
		"memory cell", "natural killer cell", "mast cell", "dendritic cell", "complement system", "clonal selection"}
	for _, term := range terms {
		fmt.Fprintf(&b, "The **%s** is one part of the body's defense that every student of immunology meets early in the course.\n\n", term)
	}
	b.WriteString("During a first infection, the adaptive immunity of the body takes about two weeks to reach its peak in the lymph nodes. " +
		"Swollen lymph nodes in the neck often signal that the lymph nodes are fighting an infection nearby.\n")
	ex, err := mustOffline(t).Generate(context.Background(), "", b.String())
	if err != nil {
		t.Fatal(err)
	}
	bold := 0
	asked := map[string]int{}
	for _, q := range ex.Questions {
		asked[strings.ToLower(q.Answer)]++
	}
	for _, q := range ex.Questions {
		if q.Type != studyloop.QuestionCloze && q.Type != studyloop.QuestionMultipleChoice {
			continue
		}
		if strings.Contains(q.Prompt, "Swollen") || strings.Contains(q.Prompt, "two weeks") && (q.Answer != "adaptive immunity" || asked["adaptive immunity"] > 1) {
			t.Errorf("cloze %q (%q) of a term where it is not in bold, asked %d times", q.Prompt, q.Answer, asked[strings.ToLower(q.Answer)])
		}
		if strings.Contains(q.Prompt, "every student of immunology") {
			bold++
		}
	}
	if bold == 0 {
		t.Errorf("no cloze of a bold term among %+v", ex.Questions)
	}
}

// TestBoldLabelsStillAsked: a study whose bold terms stand where nothing
// can be asked of them (labels on lines of their own) is asked about its
// terms where they are used, rather than not at all.
func TestBoldLabelsStillAsked(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Greenhouse notebook\n\n")
	for _, label := range []string{"albedo", "emissivity", "lapse rate", "radiative forcing", "blackbody", "optical depth",
		"skin temperature", "window region", "climate sensitivity", "feedback factor"} {
		b.WriteString("**" + label + "**\n\n")
	}
	b.WriteString("The single-layer model treats the atmosphere as one slab that absorbs all outgoing infrared radiation from the surface. " +
		"In the single-layer model the slab emits infrared radiation both upward to space and downward to the surface. " +
		"The single-layer model therefore predicts a surface warmer than the slab itself.\n")
	ex, err := mustOffline(t).Generate(context.Background(), "", b.String())
	if err != nil {
		t.Fatalf("no questions: %v", err)
	}
	if len(ex.Questions) == 0 {
		t.Error("no questions")
	}
}

// TestCellChoicesShareNoWord: a table's cell offered as a wrong choice
// shares no word with the right one, which would make both partly right.
func TestCellChoicesShareNoWord(t *testing.T) {
	text := "# Leukocytes\n\nWhite blood cells defend the body in different ways, and each kind of white blood cell has a main function of its own.\n\n" +
		"| Cell type | Main function |\n|---|---|\n| Neutrophil | Phagocytosis of bacteria |\n| Macrophage | Phagocytosis; cytokine release; antigen presentation |\n" +
		"| Dendritic cell | Antigen capture and presentation |\n| Eosinophil | Defense against parasitic worms |\n| Basophil | Release of histamine |\n"
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range ex.Questions {
		for _, c := range q.Choices {
			if c != q.Answer && sharesStem(c, q.Answer, stemWord) {
				t.Errorf("choice %q beside %q in %q", c, q.Answer, q.Prompt)
			}
		}
	}
}

// TestListedCodeNotBlanked: one code name of an enumeration of them is
// no cloze: any of the others would be as right.
func TestListedCodeNotBlanked(t *testing.T) {
	text := "# Requests\n\nEvery request of the client takes a body in one of several forms, and the client encodes each form for the wire.\n\n" +
		"Only one of `json`, `form`, `files`, and `content` may be passed to a single request. " +
		"The client raises `ValueError` when a request is given two bodies at once, before anything is sent.\n"
	ex, err := mustOffline(t).Generate(context.Background(), "", text)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range ex.Questions {
		if strings.HasPrefix(q.Prompt, "Only one of") {
			t.Errorf("cloze %q (%q) of one item of a list of code names", q.Prompt, q.Answer)
		}
	}
}

// TestUsedBoldTermCovered: in a bold study a bold term that cannot be
// asked where it stands in bold is asked once where it is used again.
func TestUsedBoldTermCovered(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Ions\n\n")
	for _, term := range []string{"ionic bond", "covalent bond", "metallic bond", "electronegativity", "valence electron",
		"octet rule", "lattice energy", "polar bond", "dipole moment", "bond length"} {
		b.WriteString("A **" + term + "** is one idea of chemical bonding that every student of chemistry meets early in the course.\n\n")
	}
	b.WriteString("The **anions** of the halogens are shown in Figure 2.1 with their charges.\n\n" +
		"Metals tend to form cations, while nonmetals tend to form anions by gaining electrons from metals during a reaction.\n")
	ex, err := mustOffline(t).Generate(context.Background(), "", b.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range ex.Questions {
		if strings.EqualFold(q.Answer, "anions") {
			return
		}
	}
	t.Errorf("no question of the bold term asked where it is used: %+v", ex.Questions)
}

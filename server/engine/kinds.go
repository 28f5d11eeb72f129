package engine

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jdkato/prose/v3/token"
	"github.com/studyloop/studyloop/server/lexicon"
	"github.com/studyloop/studyloop/server/studyloop"
)

// Questions beyond blanks and definitions, each read off one sentence
// whose shape states it plainly, so that the answer is grounded in the
// sentence and nothing is guessed:
//   - lists: "There are three types of muscle tissue: skeletal, cardiac and
//     smooth." asks "What are the three types of muscle tissue?";
//   - relations: "As the price rises, the quantity demanded falls." asks
//     "As the price rises, what happens to the quantity demanded?";
//   - causes: "Leaves look green because chlorophyll reflects green
//     light." asks "Why do leaves look green?";
//   - names: "The unwound region of DNA is called a **transcription
//     bubble**." asks "What is the unwound region of DNA called?";
//   - laws: "Boyle's law states that …" asks "What does Boyle's law
//     state?", and "The pressure of a gas is inversely proportional to its
//     volume." asks how the two are related.

// numberWords are the counts a list question names.
var numberWords = map[string]int{"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}

// listSentence matches "... <count> <kinds> of <thing> (are|include|:) <items>."
// The groups: count, kinds and thing, items.
var listSentence = regexp.MustCompile(`(?i)\b(two|three|four|five|six|seven) ((?:main |major |basic |primary |principal |different |distinct )?(?:types|kinds|classes|forms|stages|phases|parts|components|steps|categories|branches|functions|properties|layers|sources|factors|states|groups|regions|layers|laws|principles|branches) of [\p{L}\p{N}' -]{2,60}?)(?: are| include|:| are:)\s+(.+?)\.?$`)

// listQuestion asks for the items of an enumeration whose count the
// sentence states and whose items it lists in full.
func listQuestion(s *sentence) (studyloop.Question, bool) {
	if strings.ContainsAny(s.text, "?\n") {
		return studyloop.Question{}, false
	}
	text := s.text
	if strings.Contains(text, "(") {
		text = figureInBrackets.ReplaceAllString(text, "")
	}
	m := listSentence.FindStringSubmatch(text)
	if m == nil {
		return studyloop.Question{}, false
	}
	items := listItems(m[3])
	if len(items) != numberWords[strings.ToLower(m[1])] {
		return studyloop.Question{}, false
	}
	for _, it := range items {
		if n := len(strings.Fields(it)); n == 0 || n > 5 {
			return studyloop.Question{}, false
		}
	}
	return studyloop.Question{
		Type:   studyloop.QuestionShortAnswer,
		Prompt: "What are the " + strings.ToLower(m[1]) + " " + m[2] + "?",
		Answer: strings.TrimSpace(strings.TrimSuffix(m[3], ".")),
		Source: s.span(),
	}, true
}

// listItems splits "A, B, and C" (or "A, B and C", "A; B; C") into its
// items.
func listItems(s string) []string {
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	sep := ","
	if strings.Contains(s, ";") {
		sep = ";"
	}
	var out []string
	for _, part := range strings.Split(s, sep) {
		part = strings.TrimSpace(part)
		if rest, ok := strings.CutPrefix(part, "and "); ok {
			part = rest
		} else if rest, ok := strings.CutPrefix(part, "or "); ok {
			part = rest
		}
		if a, b, ok := strings.Cut(part, " and "); ok && len(out) > 0 {
			out = append(out, strings.TrimSpace(a), strings.TrimSpace(b))
			continue
		}
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

// change words say which way a quantity moves.
const change = `increases|rises|grows|goes up|decreases|falls|drops|declines|shrinks|goes down|increase|rise|grow|decrease|fall|drop|decline`

// relationSentence matches "As|When|If <X> <changes>, <Y> <changes>."
var relationSentence = regexp.MustCompile(`(?i)^(As|When|If|Whenever) ((?:the |a |an )?[\p{L}\p{N}' -]{2,50}?) (` + change + `)((?: (?:from|to|above|below|beyond|past) [\p{L}\p{N}' -]{2,40}?)?)(?:,)? ((?:the |a |an )?[\p{L}\p{N}' -]{2,50}?) (?:also |too |then |will |will also )?(` + change + `)(?: as well| too)?\.$`)

// changeEffect matches "A decrease in <X> decreases <Y>." The groups: the
// change, X, the effect, Y.
var changeEffect = regexp.MustCompile(`^(?:Any |An? )(increase|decrease|rise|fall|drop|reduction) in ((?:the )?[\p{L}\p{N}' -]{3,50}?) (increases|decreases|raises|lowers|reduces) ((?:the )?[\p{L}\p{N}' -]{3,50}?)\.$`)

// effectQuestion asks what a change in one quantity does to another, as
// the sentence states it, in other words than the sentence's so that the
// prompt does not echo the answer: "Any decrease in resistance decreases
// the afterload." asks "How does the afterload change when resistance
// falls?" "decreases".
func effectQuestion(s *sentence) (studyloop.Question, bool) {
	m := changeEffect.FindStringSubmatch(s.text)
	if m == nil || s.hasProblem() || strings.EqualFold(m[2], m[4]) {
		return studyloop.Question{}, false
	}
	cause := "goes down"
	if m[1] == "increase" || m[1] == "rise" {
		cause = "goes up"
	}
	answer, also := "decreases", "falls"
	if m[3] == "increases" || m[3] == "raises" {
		answer, also = "increases", "rises"
	}
	q, ok := statedQuestion("How does "+m[4]+" change when "+strings.TrimPrefix(m[2], "the ")+" "+cause+"?", answer, s)
	q.Alternatives = []string{also}
	return q, ok
}

// relationQuestion asks which way one quantity moves when another does,
// as the sentence states it.
func relationQuestion(s *sentence) (studyloop.Question, bool) {
	m := relationSentence.FindStringSubmatch(s.text)
	if m == nil {
		return studyloop.Question{}, false
	}
	x, y := m[2], m[5]
	if len(strings.Fields(x)) > 6 || len(strings.Fields(y)) > 6 || strings.EqualFold(x, y) {
		return studyloop.Question{}, false
	}
	return studyloop.Question{
		Type:   studyloop.QuestionShortAnswer,
		Prompt: m[1] + " " + x + " " + m[3] + m[4] + ", what happens to " + lowerFirst(y) + "?",
		Answer: m[6],
		Source: s.span(),
	}, true
}

// whyQuestion asks "Why ...?" of "<clause> because <cause>." when the
// clause's verb lets the question be formed without guessing a verb form:
// a form of "be" or a modal moves in front ("Why is the sky blue?"), and a
// present-tense verb takes "do" or "does" before its stem.
// hypothetical are the words that open a worked example's premise.
var hypothetical = wordSet(`suppose imagine consider assume let say`)

func whyQuestion(s *sentence) (studyloop.Question, bool) {
	if !s.tagged || strings.ContainsAny(s.text, "?\n;") || !endsSentence(s.text) {
		return studyloop.Question{}, false
	}
	if hypothetical[s.lower[0]] {
		return studyloop.Question{}, false // "Suppose Cedar Creek's loans lose $2 million because of defaults": an example's premise
	}
	cut := -1
	for i, w := range s.lower {
		if w == "because" {
			cut = i
			break
		}
	}
	if cut < 3 || cut > 20 || len(s.toks)-cut < 4 {
		return studyloop.Question{}, false
	}
	main := s.toks[:cut]
	if main[len(main)-1].Text == "," {
		main = main[:len(main)-1]
	}
	if last := main[len(main)-1]; last.Tag == "RB" && len(main) > 2 && main[len(main)-2].Text == "," {
		main = main[:len(main)-2] // "…, simply because …": the adverb goes with the cause
	}
	// A phrase before the subject ("For a monopolist, marginal revenue is
	// less than price because …") goes to the question's end.
	setting := ""
	if k := leadingSetting(s, main); k > 0 {
		setting = " " + lowerFirstUnlessName(strings.TrimSpace(s.text[main[0].Start:main[k-1].End()]), main[0].Tag)
		main = main[k+1:]
	}
	if main[0].Tag == "IN" || main[0].Tag == "TO" {
		return studyloop.Question{}, false // "In 1961 Leonard Hayflick showed …": no subject opens the clause
	}
	// The verb is the clause's last finite one, after a subject that ends
	// in a noun and holds no other verb: in "Green leaves look green", the
	// tagger's verb "leaves" is a noun of the subject.
	lex := lexicon.Default()
	verb := -1
	for i, t := range main {
		switch t.Tag {
		case "VBZ", "VBP", "MD", "VBD":
			verb = i
		}
	}
	if verb < 1 || verb > 6 {
		return studyloop.Question{}, false
	}
	for i, t := range main[:verb] {
		noun := strings.HasPrefix(t.Tag, "NN") || lex.IsNoun(strings.ToLower(t.Text))
		switch {
		case t.Tag == "," || t.Tag == "PRP" || t.Tag == "WDT" || t.Tag == "WP" || t.Tag == "WRB":
			return studyloop.Question{}, false // a clause before the subject, or a pronoun
		case (t.Tag == "VBZ" || t.Tag == "VBP" || t.Tag == "VBD" || t.Tag == "MD") && !noun:
			return studyloop.Question{}, false // two clauses
		case i == verb-1 && !noun:
			return studyloop.Question{}, false
		}
	}
	if strings.ContainsAny(s.text[:main[verb].End()], ":;()\"") || strings.Contains(s.text, "n't") {
		return studyloop.Question{}, false
	}
	if first := strings.ToLower(main[0].Text); (first == "the" || first == "this" || first == "these") && verb <= 2 {
		return studyloop.Question{}, false // "the output" names something said before
	}
	for _, t := range main[:verb] {
		if utf8.RuneCountInString(t.Text) == 1 && unicode.IsLetter([]rune(t.Text)[0]) && t.Text != "I" {
			return studyloop.Question{}, false // "the proportionality to m": a variable of an equation not in the question
		}
	}
	text := s.text
	subject := termCase(text[main[0].Start:main[verb-1].End()], main[0].Tag)
	rest := strings.TrimSpace(text[main[verb].End():main[len(main)-1].End()]) + setting
	v := strings.ToLower(main[verb].Text)
	var prompt string
	switch {
	case main[verb].Tag == "MD" || beForms[v]:
		prompt = "Why " + v + " " + subject + " " + rest + "?"
	case main[verb].Tag == "VBZ":
		stem, ok := presentStem(v)
		if !ok {
			return studyloop.Question{}, false
		}
		prompt = "Why does " + subject + " " + stem + " " + rest + "?"
	case main[verb].Tag == "VBP":
		prompt = "Why do " + subject + " " + v + " " + rest + "?"
	case main[verb].Tag == "VBD":
		base, ok := lex.VerbBase(v)
		if !ok {
			return studyloop.Question{}, false
		}
		prompt = "Why did " + subject + " " + base + " " + rest + "?"
	default:
		return studyloop.Question{}, false
	}
	prompt = tidyPrompt(prompt) // "Why does independent assortment occur?" without a space before the mark
	last := len(s.toks) - 2
	for k := cut + 2; k+2 < len(s.toks); k++ {
		if s.toks[k].Text == "," && s.lower[k+1] == "and" && (s.toks[k+2].Tag == "VBD" || s.toks[k+2].Tag == "VBZ") {
			last = k - 1 // "…, and founded the Niagara Movement" goes on with the subject's next deed, not the reason
			break
		}
	}
	answer := strings.TrimSpace(text[s.toks[cut].Start:s.toks[last].End()])
	return studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: prompt, Answer: answer, Source: s.span()}, true
}

// leadingSetting returns the index of the comma that closes a
// prepositional phrase opening main ("For a monopolist,", "In plants,"),
// or -1: up to six words, no verb, and no connective that points back
// ("In addition,", "For example,").
func leadingSetting(s *sentence, main []token.Token) int {
	if len(main) < 4 || main[0].Tag != "IN" || pointsBack(s.text) {
		return -1
	}
	for k, t := range main[1:min(len(main), 8)] {
		switch {
		case t.Text == ",":
			return k + 1
		case strings.HasPrefix(t.Tag, "VB") || t.Tag == "MD" || t.Tag == "PRP" || t.Tag == "WDT" || t.Tag == "WP":
			return -1
		}
	}
	return -1
}

var beForms = wordSet(`is are was were`)

// presentStem undoes the third-person -s of a regular verb: "reflects"
// to "reflect", "carries" to "carry", "pushes" to "push". Verbs whose
// stem the spelling leaves in doubt ("has", "does", "goes") are refused.
func presentStem(v string) (string, bool) {
	switch {
	case v == "has" || v == "does" || v == "goes" || len(v) < 4:
		return "", false
	case strings.HasSuffix(v, "ies"):
		return v[:len(v)-3] + "y", true
	case strings.HasSuffix(v, "sses"), strings.HasSuffix(v, "shes"), strings.HasSuffix(v, "ches"), strings.HasSuffix(v, "xes"), strings.HasSuffix(v, "zzes"):
		return v[:len(v)-2], true
	case strings.HasSuffix(v, "ss"), strings.HasSuffix(v, "us"), strings.HasSuffix(v, "is"):
		return "", false
	case strings.HasSuffix(v, "s"):
		return v[:len(v)-1], true
	}
	return "", false
}

// listEnd extends an appositive that ends at the comma at token k when
// that comma goes on with a list of short nouns: "the middle class of
// merchants, lawyers, and officials;" ends after "officials", not after
// "merchants". It returns where the list ends, or k.
func listEnd(s *sentence, k int) int {
	if k+3 < len(s.toks) && k > 0 && s.toks[k-1].Tag == "NNP" && s.toks[k+1].Tag == "NNP" && s.toks[k+2].Text == "," && strings.HasPrefix(s.toks[k+3].Tag, "VB") {
		return k + 2 // "a Catholic priest in Royal Oak, Michigan, reached": a place and its state, then the sentence's verb
	}
	items := 0
	for m := k + 1; m < len(s.toks) && m <= k+12; m++ {
		t := s.toks[m]
		switch {
		case t.Text == "and" || t.Text == "or":
			if m == k+1 && items == 0 {
				return k
			}
			for n := m + 1; n < len(s.toks) && n <= m+4; n++ {
				switch next := s.toks[n]; {
				case next.Text == "," || next.Text == ";" || next.Text == "." || next.Text == ":":
					if n > m+1 {
						return n
					}
					return k
				case n > m+1 && (next.Tag == "WDT" || next.Tag == "WP" || next.Tag == "MD" || next.Text == "that"):
					// "cells, tissues, organs, and soluble molecules that
					// protect the body", "businesses, charities, and local
					// governments should cooperate …": the list goes on
					// into its clause, to the clause's end.
					for e := n + 1; e < len(s.toks) && e <= n+25; e++ {
						if t := s.toks[e].Text; t == "," || t == ";" || t == "." {
							return e
						}
					}
					return k
				case !strings.HasPrefix(next.Tag, "NN") && !strings.HasPrefix(next.Tag, "JJ") && next.Tag != "DT":
					return k
				}
			}
			return k
		case t.Text == ",":
			items++
		case !strings.HasPrefix(t.Tag, "NN") && !strings.HasPrefix(t.Tag, "JJ") && t.Tag != "DT":
			return k // "SNCC, CORE, the NAACP, and the SCLC": an item may take "the"
		}
	}
	return k
}

// aboutTheWord matches an appositive about a name rather than the thing
// it names: "an old word for worthless livestock", "a nickname from …".
var aboutTheWord = regexp.MustCompile(`(?i)^(?:an?|the) (?:[\pL-]+ ){0,2}(?:word|term|name|nickname|expression|label|slang)\b`)

// inTheSubject matches a demonstrative inside a subject, which points at
// an earlier sentence.
var inTheSubject = regexp.MustCompile(`(?i)\b(?:this|these)\b`)

// madeBy matches an appositive that says who made or named a thing
// rather than what it is.
var madeBy = regexp.MustCompile(`(?i)\b(?:devised|invented|named|proposed|developed|introduced|created|coined|designed) (?:by|after|for|in)\b`)

// theName puts "the" before a proper name of a law, an event, a
// document or an institution ("the Specie Circular", "the Panic of 1837",
// "the Whig Party"), which English names with it; other terms stay as
// they are.
func theName(term string) string {
	if socialClasses[strings.ToLower(term)] {
		return "the " + term // "the bourgeoisie", as English names a class
	}
	words := strings.Fields(term)
	if len(words) == 1 && properName(term) && institutionNouns[strings.ToLower(term)] && !strings.EqualFold(term, "Congress") {
		return "the " + term // "the Directory", "the Consulate"
	}
	if len(words) < 2 || !properName(term) {
		return term
	}
	head := words[len(words)-1]
	if i := slices.Index(words, "of"); i > 0 {
		head = words[i-1] // "Panic of 1837", "Treaty of New Echota"
	}
	if institutionNouns[strings.ToLower(head)] {
		return "the " + term
	}
	return term
}

// socialClasses are the names of a society's orders, which take "the".
var socialClasses = wordSet(`bourgeoisie nobility clergy aristocracy proletariat gentry peasantry`)

// institutionNouns are the heads of names that take "the".
var institutionNouns = wordSet(`act acts bill law laws treaty war party circular panic compromise proclamation amendment
	amendments declaration revolution movement system doctrine convention congress court bank company tariff ordinance
	crisis massacre trail rebellion purchase plan deal agreement accord code codes bureau union confederacy republic
	empire exposition affair campaign constitution charter council senate commission society league association
	committee reaction fear reign assembly oath directory consulate era depression recession administration`)

// possessivePronoun matches "its" or "their" in an answer about a
// person: whose, only the sentence before says.
var possessivePronoun = regexp.MustCompile(`\b(?:its|their)\b`)

// definiteBefore reports whether the token before token i of s is
// "the", or "the" and one adjective.
func definiteBefore(s *sentence, i int) bool {
	return i >= 1 && s.lower[i-1] == "the" || i >= 2 && s.lower[i-2] == "the" && (s.toks[i-1].Tag == "JJ" || s.toks[i-1].Tag == "NNP")
}

// personName reports whether a bold term is a person's name: two to
// four capitalised words, with WordNet knowing the last as a person
// ("Jane Addams") or the appositive that says who it is opening with a
// person's noun ("Gifford Pinchot, the first chief of …").
func personName(term, appositive string) bool {
	words := strings.Fields(term)
	if len(words) < 2 || len(words) > 4 || !properName(term) {
		return false
	}
	lex := lexicon.Default()
	last := words[len(words)-1]
	if institutionNouns[strings.ToLower(last)] {
		return false // "Northern Securities Company", whatever sense WordNet gives "company"
	}
	if lex.IsPerson(last) {
		return true
	}
	if lex.IsNoun(last) {
		return false // "National Assembly": an institution, however its aside opens
	}
	head := ""
	for _, w := range strings.Fields(appositive)[1:] { // after "the" or "a"
		if w == "of" || w == "who" || w == "that" || w == "which" || prepositions[w] {
			break // "a Catholic priest in Royal Oak": the priest is the head
		}
		head = strings.TrimRight(w, ",")
		if head != w {
			break
		}
	}
	return head != "" && startsLower(head) && lex.IsPerson(head)
}

// nameInCapitals reports whether every word of a phrase of two or more
// starts with a capital letter: "Thermidorian Reaction", not "In 1905".
func nameInCapitals(phrase string) bool {
	words := strings.Fields(phrase)
	for _, w := range words {
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) {
			return false
		}
	}
	return len(words) >= 2
}

// properAdjective reports whether a capitalised word keeps its capital
// inside a sentence: a people's name ("Canadian psychologist Donald
// Hebb", "German psychiatrist Alois Alzheimer") or a name's possessive
// ("Alzheimer's disease").
func properAdjective(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) {
		return false
	}
	if base, ok := strings.CutSuffix(strings.ReplaceAll(w, "’", "'"), "'s"); ok && len(base) > 1 {
		return lexicon.Default().Count(base) == 0 // "Alzheimer's", not "Women's"
	}
	return demonyms[strings.ToLower(w)]
}

// demonyms are the adjectives of peoples and places a sentence may open
// with.
var demonyms = wordSet(`american british english french german italian spanish portuguese dutch belgian swiss austrian
	danish swedish norwegian finnish icelandic irish scottish welsh polish russian ukrainian czech hungarian greek roman
	turkish canadian mexican brazilian argentine chilean cuban chinese japanese korean indian pakistani persian iranian
	egyptian african european asian australian soviet prussian ottoman byzantine venetian athenian spartan confederate
	southern northern`)

// articles open a phrase without belonging to a name: "The British
// Parliament" is "the British Parliament" inside a question.
var articles = wordSet(`the a an`)

// lowerFirstUnlessName lower-cases the first letter of a term that opens
// a sentence, unless the tagger takes it for a name or every word of it is
// capitalised ("Thermidorian Reaction").
func lowerFirstUnlessName(s, tag string) string {
	if tag == "NNP" || tag == "NNPS" || nameInCapitals(s) && !articles[strings.ToLower(firstWord(s))] || properAdjective(firstWord(s)) {
		return s
	}
	return lowerFirst(s)
}

// statedQuestions returns the naming, law, list, relation, cause, date and person questions of u's
// sentences, up to n. A study that states its matter in the present
// tense, as a science text does, gets no date questions: its years date
// its discoveries and examples, trivia beside the matter (the year Dalton
// observed partial pressures), where a history's years are its matter.
func (a *asker) statedQuestions(u *unit, n int) []studyloop.Question {
	asks := []func(*sentence) (studyloop.Question, bool){namedQuestion, namedAside, appositiveQuestion, lawQuestion, proportionQuestion, listQuestion, relationQuestion, effectQuestion, whyQuestion}
	if !a.presentTense {
		asks = append(asks, yearQuestion)
	}
	asks = append(asks, whoQuestion)
	var out []studyloop.Question
	for _, s := range u.sentences() {
		if len(out) >= n {
			break
		}
		for _, ask := range asks {
			if q, ok := ask(s); ok {
				out = append(out, q)
				break
			}
		}
	}
	return out
}

// namingVerbs name a thing in "X is called T": the token sequences after
// "is" or "are".
var namingVerbs = [][]string{{"called"}, {"termed"}, {"known", "as"}, {"referred", "to", "as"}}

// copulaNaming finds "<subject> is the **term**" closing its clause: "The
// largest part of the human brain is the **cerebrum**, which …" names the
// cerebrum as "is called" would. It returns the verb's index and the
// article's, or -1.
func copulaNaming(s *sentence) (be, article int) {
	if first := s.lower[0]; first == "any" || first == "another" || first == "other" || first == "each" {
		return -1, -1 // "Any other reactant is the excess reactant": other than which?
	}
	// A subject of four words at least: "the central tool" of what?
	for i := 4; i+3 < len(s.lower); i++ {
		if s.lower[i] != "is" && s.lower[i] != "are" {
			continue
		}
		if a := s.lower[i+1]; a != "a" && a != "an" && a != "the" {
			return -1, -1
		}
		term, ok := boldAt(s, i+2)
		if !ok {
			return -1, -1
		}
		j := i + 2
		for j < len(s.toks) && s.toks[j].Start < s.toks[i+2].Start+len(term) {
			j++
		}
		if j < len(s.toks) && (s.toks[j].Text == "," || s.toks[j].Text == "." || s.toks[j].Text == "(") {
			return i, i + 1
		}
		return -1, -1
	}
	return -1, -1
}

// namedQuestion asks for the term the author names in bold in "X is
// called T." ("What is the complete structure … called?") or in "When
// …, it is called T." ("What is it called when …?"). The subject must
// say what it names: a pronoun, or "this" before one or two words
// ("This volume"), would lean on an earlier sentence; "This redundancy in
// the genetic code" says enough to become "the redundancy in the genetic
// code".
func namedQuestion(s *sentence) (studyloop.Question, bool) {
	if !s.tagged || !endsSentence(s.text) || strings.ContainsAny(s.text, "?\n;:") {
		return studyloop.Question{}, false
	}
	be, at, after := -1, -1, -1
	for i := 1; i+1 < len(s.lower) && at < 0; i++ {
		if s.lower[i] != "is" && s.lower[i] != "are" {
			continue
		}
		for _, v := range namingVerbs {
			if i+1+len(v) < len(s.lower) && slices.Equal(s.lower[i+1:i+1+len(v)], v) {
				be, at, after = i, i+1, i+1+len(v)
				break
			}
		}
	}
	if at < 0 {
		be, after = copulaNaming(s)
		if be < 0 {
			return studyloop.Question{}, false
		}
	}
	if t := s.lower[after]; t == "a" || t == "an" || t == "the" {
		after++
	}
	term, ok := boldAt(s, after)
	if !ok {
		return studyloop.Question{}, false
	}
	term = strings.TrimSpace(abbreviationInBrackets.ReplaceAllString(term, "")) // the aliases offer "CR" beside "conditioned response"
	if s.lower[0] == "one" && s.lower[1] == "of" {
		return studyloop.Question{}, false // "One of the central tools of demography is the life table": which of them?
	}

	v := s.lower[be]
	var prompt string
	switch first := s.lower[0]; {
	case (first == "when" || first == "if") && be >= 3 && s.lower[be-1] == "it" && s.toks[be-2].Text == ",":
		clause := strings.TrimSpace(s.text[s.toks[1].Start:s.toks[be-2].Start])
		prompt = "What is it called " + first + " " + clause + "?"
	default:
		from := 0
		if len(s.toks) > 3 && contextOpeners[first] && s.toks[1].Text == "," && (s.lower[2] == "this" || s.lower[2] == "these") {
			from, first = 2, s.lower[2] // "Consequently, this initial phase …": the lead-in says which
		}
		subject := s.toks[from:be]
		if len(subject) > 25 || strings.Contains(s.text[s.toks[from].Start:s.toks[be].Start], ",") {
			return studyloop.Question{}, false
		}
		if last := s.lower[be-1]; last == "and" || last == "or" {
			return studyloop.Question{}, false // "An atom that … carries a charge and is called": two predicates, no subject to ask with
		}
		relative := false // "The period of time that begins with …"
		for i, t := range subject {
			passive := t.Tag == "VBD" && i+1 < len(subject) && s.lower[i+1] == "by" // "those encoded by exons"
			if t.Tag == "WDT" || t.Tag == "WP" {
				relative = true
			}
			if t.Tag == "PRP" || (t.Tag == "VBZ" || t.Tag == "VBP" || t.Tag == "VBD" && !passive || t.Tag == "MD") && !relative {
				return studyloop.Question{}, false
			}
		}
		text := s.text[s.toks[from].Start:s.toks[be].Start]
		if from == 0 && first != "this" && first != "these" && inTheSubject.MatchString(text) {
			return studyloop.Question{}, false // "mating two plants … in this way": which way?
		}
		switch first {
		case "this", "these":
			if len(subject) < 6 || from > 0 {
				// "This volume of blood": of what? The sentence before says.
				return withLeadIn(s, "What "+v+" "+lowerFirst(strings.TrimSpace(text))+" called?", term)
			}
			text = "the" + text[len(first):]
		case "that", "those", "such", "it", "they":
			return studyloop.Question{}, false
		case "any", "every", "each":
			text = indefinite(strings.TrimSpace(text[len(first):])) // "Any molecule that … is called an antigen": what is a molecule that … called?
		case "the":
			if len(subject) <= 4 && participleBack(s, from+1) {
				// "The unwound region": unwound where? The sentence before says.
				return withLeadIn(s, "What "+v+" "+lowerFirst(strings.TrimSpace(text))+" called?", term)
			}
			text = lowerFirstUnlessName(text, s.toks[0].Tag)
		default:
			text = lowerFirstUnlessName(text, s.toks[0].Tag)
		}
		prompt = "What " + v + " " + strings.TrimSpace(text) + " called?"
	}
	return namingQuestion(prompt, term, s)
}

// participleBack reports whether token i of s is a participle that
// points back to what the sentence before did ("the unwound region", "the
// resulting molecule").
func participleBack(s *sentence, i int) bool {
	if i >= len(s.toks) || i+1 >= len(s.toks) || !strings.HasPrefix(s.toks[i+1].Tag, "NN") {
		return false
	}
	w := s.lower[i]
	return s.toks[i].Tag == "VBN" || s.toks[i].Tag == "VBD" || w == "resulting" || strings.HasSuffix(w, "ed") && len(w) > 4 || w == "unwound"
}

// namedAside asks for the bold term an aside at the end of a sentence
// names: "The centers monitor baroreceptor firing to keep the heart
// steady, a mechanism called the **baroreceptor reflex**." asks "The
// centers … steady. What is this mechanism called?".
func namedAside(s *sentence) (studyloop.Question, bool) {
	if !s.tagged || !endsSentence(s.text) || strings.ContainsAny(s.text, "?\n;:") || s.hasProblem() {
		return studyloop.Question{}, false
	}
	n := len(s.toks)
	for k := 4; k+4 < n; k++ {
		if s.toks[k].Text != "," || s.lower[k+1] != "a" && s.lower[k+1] != "an" {
			continue
		}
		head := k + 2
		for head+1 < n && strings.HasPrefix(s.toks[head+1].Tag, "NN") && head < k+4 {
			head++
		}
		if !strings.HasPrefix(s.toks[head].Tag, "NN") {
			return studyloop.Question{}, false
		}
		at := -1
		for _, v := range namingVerbs {
			if head+1+len(v) < n && slices.Equal(s.lower[head+1:head+1+len(v)], v) {
				at = head + 1 + len(v)
			}
		}
		if at < 0 {
			return studyloop.Question{}, false
		}
		if s.lower[at] == "the" || s.lower[at] == "a" || s.lower[at] == "an" {
			at++
		}
		term, ok := boldAt(s, at)
		if !ok || !strings.HasSuffix(strings.TrimSpace(s.text[s.toks[at].Start:]), term+".") {
			return studyloop.Question{}, false // the term must close the sentence
		}
		clause := s.text[:s.toks[k].Start]
		noun := s.text[s.toks[k+2].Start:s.toks[head].End()]
		return namingQuestion(clause+". What is this "+noun+" called?", strings.TrimSpace(abbreviationInBrackets.ReplaceAllString(term, "")), s)
	}
	return studyloop.Question{}, false
}

// namingQuestion is statedQuestion for a question whose answer is a term:
// none of the term's words but its head may stand in the prompt
// ("baroreceptor firing … What is this mechanism called?" gives
// "baroreceptor reflex" away; "this volume" does not give away "end
// diastolic volume").
func namingQuestion(prompt, term string, s *sentence) (studyloop.Question, bool) {
	q, ok := statedQuestion(prompt, term, s)
	if ok && answerWordInPrompt(studyloop.Question{Type: studyloop.QuestionCloze, Prompt: q.Prompt, Answer: term}, stemWord, tagSentence) {
		return studyloop.Question{}, false
	}
	return q, ok
}

// withLeadIn asks prompt after the sentence before s, which says what
// its "this" stands for: "The ventricles now hold about 130 mL of blood.
// What is this volume called?". That sentence must stand on its own.
func withLeadIn(s *sentence, prompt, answer string) (studyloop.Question, bool) {
	i := slices.Index(s.block.sents, s)
	if i < 1 {
		return studyloop.Question{}, false
	}
	prev := s.block.sents[i-1]
	if !prev.tagged || len(prev.toks) > 40 || !endsSentence(prev.text) || strings.ContainsAny(prev.text, "?\n") || prev.hasProblem() {
		return studyloop.Question{}, false
	}
	q, ok := namingQuestion(prev.text+" "+prompt, answer, s)
	q.Source.Start = prev.span().Start
	return q, ok
}

// boldAt returns the bold term that starts at token i of s, if one does.
func boldAt(s *sentence, i int) (string, bool) {
	if i >= len(s.toks) {
		return "", false
	}
	start := s.start + s.toks[i].Start
	text := s.block.p.text
	for _, b := range s.block.p.bold {
		if b.Start == start {
			end := wordEnd(text, b.End)
			if end > s.start+len(s.text) || len(strings.Fields(text[b.Start:end])) > 6 {
				return "", false
			}
			return text[b.Start:end], true
		}
	}
	return "", false
}

// proportionSentence matches "<X> is directly|inversely proportional to
// <Y>[ when|if|at … ]." The groups: X, the verb, the way, Y, the condition.
var proportionSentence = regexp.MustCompile(`^((?:[Tt]he |[Aa]n? )?[\p{L}\p{N}' -]{3,60}?) (is|are) (directly|inversely) proportional to ([\p{L}\p{N}' -]{3,60}?)((?:,? (?:when|if|at|as long as|provided that) [\p{L}\p{N}' -]{3,60})?)\.$`)

// proportionQuestion asks how two quantities a law relates are related,
// as the sentence states it: "How is the volume of a gas related to its
// pressure at constant temperature?" "inversely proportional".
func proportionQuestion(s *sentence) (studyloop.Question, bool) {
	m := proportionSentence.FindStringSubmatch(s.text)
	if m == nil || s.hasProblem() {
		return studyloop.Question{}, false
	}
	x := lowerFirstUnlessName(m[1], s.toks[0].Tag)
	if pointers[strings.ToLower(firstWord(x))] {
		return studyloop.Question{}, false
	}
	prompt := "How " + m[2] + " " + x + " related to " + m[4] + strings.TrimPrefix(m[5], ",") + "?"
	q, ok := statedQuestion(prompt, m[3]+" proportional", s)
	q.Alternatives = []string{m[3]}
	return q, ok
}

// lawSentence matches "<Name>'s law states that <statement>." and "The
// law of <thing> says that …". The groups: the law, the statement.
var lawSentence = regexp.MustCompile(`^((?:\p{Lu}[\p{L}-]+(?:'s|’s) |[Tt]he )(?:[\p{L}-]+ ){0,3}(?:law|principle|rule|theorem|postulate)(?: of [\p{L} -]{3,40}?)?) (?:states|says|holds) that (.{15,300}?)\.$`)

// lawName matches the name of a law, a rule or a principle: "Boyle's
// law", "the law of segregation", "the product rule".
const lawName = `((?:\p{Lu}[\p{L}-]+(?:'s|’s) |the )(?:[\p{L}-]+ ){0,3}(?:law|principle|rule|theorem|postulate)(?: of [\p{L} -]{3,40}?)?)`

// namesLaw reports whether text holds a word lawName ends in, so that
// the regular expressions need run only there.
func namesLaw(text string) bool {
	return strings.Contains(text, " law") || strings.Contains(text, " rule") || strings.Contains(text, " principle") ||
		strings.Contains(text, " theorem") || strings.Contains(text, " postulate")
}

// lawStatedInside match a law stated after the sentence's opening words:
// as an aside that states, after a colon, after "According to". The
// groups: the law, the statement.
var lawStatedInside = []*regexp.Regexp{
	regexp.MustCompile(`, ` + lawName + `, (?:states|says|holds) that (.{15,300}?)\.$`),
	regexp.MustCompile(`\b` + lawName + `: (\p{Ll}.{15,300}?)\.$`),
	regexp.MustCompile(`^According to ` + lawName + `, (\p{Ll}.{15,300}?)\.$`),
}

// lawQuestion asks what a named law states: "What does Boyle's law
// state?"
func lawQuestion(s *sentence) (studyloop.Question, bool) {
	m := lawSentence.FindStringSubmatch(s.text)
	if m != nil && s.hasProblem() {
		return studyloop.Question{}, false
	}
	if m == nil && namesLaw(s.text) {
		// "The second, the law of segregation, states that …", "This led
		// to the law of independent assortment: alleles …", "According
		// to the product rule, …": the question shows the law's name
		// alone, so the sentence may lean on the one before; what it
		// states must stand alone.
		for _, re := range lawStatedInside {
			if m = re.FindStringSubmatch(s.text); m != nil {
				break
			}
		}
		if m == nil || sentenceProblem(m[2]) {
			return studyloop.Question{}, false
		}
	}
	if m == nil {
		return studyloop.Question{}, false
	}
	law := m[1]
	if strings.HasPrefix(law, "The ") {
		law = "the " + law[len("The "):]
	}
	if pointers[strings.ToLower(strings.Fields(law)[min(1, len(strings.Fields(law))-1)])] {
		return studyloop.Question{}, false // "the same law", "the other rule"
	}
	statement, _, _ := strings.Cut(m[2], "; ") // what follows a semicolon applies it: "; a heterozygote can arise as …"
	return statedQuestion("What does "+law+" state?", statement, s)
}

// otherName asks for the bold term that closes a sentence as another name
// of the noun phrase before it: "… the nontemplate DNA strand, or the
// **sense strand**." asks "What is another name for the nontemplate DNA
// strand?". So does a term that follows the sentence's subject that way:
// "A positively charged ion, or **cation**, forms when …" asks "What is
// another name for a positively charged ion?". The term spans tokens i to
// j.
func otherName(s *sentence, i, j int, term string) (studyloop.Question, bool) {
	closes := j == len(s.toks)-1 && s.toks[j].Text == "."
	if !closes && (j >= len(s.toks) || s.toks[j].Text != ",") || i < 4 {
		return studyloop.Question{}, false
	}
	k := i - 1
	if s.lower[k] == "the" || s.lower[k] == "a" || s.lower[k] == "an" {
		k--
	}
	if s.lower[k] != "or" || s.toks[k-1].Text != "," {
		return studyloop.Question{}, false
	}
	end := k - 1 // the comma
	start := -1
	for m := end - 1; m >= 0 && m >= end-8; m-- {
		t := s.toks[m]
		if t.Tag == "DT" && (s.lower[m] == "the" || s.lower[m] == "a" || s.lower[m] == "an") {
			start = m
			break
		}
		if !strings.HasPrefix(t.Tag, "NN") && !strings.HasPrefix(t.Tag, "JJ") && t.Tag != "VBN" && t.Tag != "HYPH" && t.Text != "-" && t.Tag != "RB" {
			return studyloop.Question{}, false // "positively charged" passes
		}
	}
	if start < 0 || end-start < 2 || !closes && start != 0 {
		return studyloop.Question{}, false
	}
	phrase := s.text[s.toks[start].Start:s.toks[end-1].End()]
	term = strings.TrimSpace(abbreviationInBrackets.ReplaceAllString(term, ""))
	return namingQuestion(anotherNamePrefix+lowerFirst(phrase)+"?", term, s)
}

// anotherNamePrefix opens the question otherName asks.
const anotherNamePrefix = "What is another name for "

// appositiveQuestion asks for what an appositive says a bold term is:
// "multiply **stroke volume (SV)**, the amount of blood pumped by each
// ventricle, by …" asks "What is meant by stroke volume?".
func appositiveQuestion(s *sentence) (studyloop.Question, bool) {
	// The question shows only the term and the answer only the aside, so
	// a sentence that leans on the one before ("Together these conditions
	// mean that each firm is a **price taker**, a firm that …") still
	// gives one; the aside must stand alone.
	if !s.tagged || strings.ContainsAny(s.text, "?\n") {
		return studyloop.Question{}, false
	}
	for i := range s.toks {
		term, ok := boldAt(s, i)
		if !ok {
			continue
		}
		j := i
		for j < len(s.toks) && s.start+s.toks[j].Start < s.start+s.toks[i].Start+len(term) {
			j++
		}
		if j+2 < len(s.toks) && s.toks[j].Text == "(" && s.toks[j+2].Text == ")" {
			j += 3 // the abbreviation
		}
		if q, ok := otherName(s, i, j, term); ok {
			return q, true
		}
		if j+1 >= len(s.toks) || s.toks[j].Text != "," {
			continue
		}
		if j+2 < len(s.toks) && s.lower[j+1] == "or" {
			j++ // "**filling time**, or the duration of …"
		}
		switch s.lower[j+1] {
		case "the", "a", "an":
		default:
			continue
		}
		end, relative := -1, false
		for k := j + 2; k < len(s.toks) && k <= j+18; k++ {
			t := s.toks[k]
			switch {
			case t.Text == "," || k == len(s.toks)-1 && t.Text == ".":
				end = k
			case t.Tag == "WDT" || t.Tag == "WP":
				relative = true // "the duration … during which filling occurs"
				continue
			case (t.Tag == "VBZ" || t.Tag == "VBP" || t.Tag == "VBD" || t.Tag == "MD") && !relative || t.Text == "(" || t.Text == ";":
			default:
				continue
			}
			break
		}
		if end < 0 || end-j < 4 {
			continue
		}
		end = listEnd(s, end)
		term = strings.TrimSpace(abbreviationInBrackets.ReplaceAllString(term, ""))
		answer := s.text[s.toks[j+1].Start:s.toks[end-1].End()]
		if ordinals[s.lower[j+2]] != "" && !personName(term, answer) {
			continue // "the second part of gene expression" tells where, not what; "the first chief of …" says who
		}
		if sentenceProblem(answer) {
			continue
		}
		if aboutTheWord.MatchString(answer) || madeBy.MatchString(answer) {
			continue // "scalawags, an old word for worthless livestock", "a grid devised by … Punnett" tell where the name or the thing came from
		}
		if personName(term, answer) {
			if possessivePronoun.MatchString(answer) {
				continue // "a veteran NAACP organizer who served as its first executive director": whose? The sentence before says
			}
			if len(strings.Fields(answer)) < 5 && !strings.ContainsAny(answer, ",") && !slices.ContainsFunc(strings.Fields(answer), func(w string) bool { return w == "of" || w == "who" || w == "to" || w == "that" }) {
				continue // "Rosa Parks, a forty-two-year-old seamstress": an age and a job, not who she was to the story
			}
			return statedQuestion("Who was "+term+"?", answer, s) // "Gifford Pinchot, the first chief of the Forest Service"
		}
		name := theName(lowerFirstUnlessName(term, s.toks[i].Tag))
		if name == term && definiteBefore(s, i) {
			name = "the " + term // "the American **welfare state**, a system in which …"
		}
		return statedQuestion("What is meant by "+name+"?", answer, s)
	}
	return studyloop.Question{}, false
}

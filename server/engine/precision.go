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

// A PrecisionCheck is one way a well-formed question can still be a bad
// one, after the rubric in the project's question notes: it makes sense
// only beside its source, gives its answer away, or offers choices a
// student cannot tell apart. The generator drops every question that
// fails one; make quality counts the failures of what it emits.
type PrecisionCheck struct {
	Name  string
	fails func(q studyloop.Question, tags sentenceTagger) bool
}

// Fails reports whether q fails the check.
func (c PrecisionCheck) Fails(q studyloop.Question) bool { return c.fails(q, tagSentence) }

// PrecisionChecks are the checks, in the order CheckQuestion applies them.
var PrecisionChecks = []PrecisionCheck{
	{"needs earlier sentence", func(q studyloop.Question, tags sentenceTagger) bool {
		return needsContext(q.Prompt) || bareQuantifier(q.Prompt, tags) || pastOfThe(q.Prompt, tags) || itemFragment(q, tags)
	}},
	{"points at figure or chapter", func(q studyloop.Question, _ sentenceTagger) bool { return pointsElsewhere(q.Prompt) }},
	{"abbreviation leak", func(q studyloop.Question, _ sentenceTagger) bool { return abbreviationLeak(q) }},
	{"not a definition", func(q studyloop.Question, _ sentenceTagger) bool { return notDefinitional(q) }},
	{"blank splits a phrase", splitsPhrase},
	{"choices alike", func(q studyloop.Question, _ sentenceTagger) bool { return choicesAlike(q) }},
	{"not in English", func(q studyloop.Question, _ sentenceTagger) bool { return notEnglishSentence(q.Prompt) }},
	{"speaks to the reader", func(q studyloop.Question, tags sentenceTagger) bool {
		return speaksToReader(q.Prompt) || q.Type != studyloop.QuestionShortAnswer && imperative(q.Prompt, tags)
	}},
	{"answer word in prompt", func(q studyloop.Question, tags sentenceTagger) bool { return answerWordInPrompt(q, stemWord, tags) }},
	{"answer guessable", func(q studyloop.Question, _ sentenceTagger) bool { return guessable(q) }},
}

// precisionProblem returns the name of the first precision check q fails,
// or "" when it passes them all. tags is the tagger the blank check uses.
func precisionProblem(q studyloop.Question, tags sentenceTagger) string {
	for _, c := range PrecisionChecks {
		if c.fails(q, tags) {
			return c.Name
		}
	}
	return ""
}

// namesTwo reports whether the words after a "both" name its two things:
// an "and" within four words that joins words, not clauses (", and").
func namesTwo(after []string) bool {
	for j, w := range after[:min(len(after), 4)] {
		if w == "and" && j > 0 && !strings.HasSuffix(after[j-1], ",") {
			return true
		}
	}
	return false
}

// bareQuantifier reports whether a prompt opens with "many", "most",
// "some" and the like standing alone as its subject, a verb right after
// it: "Many exit after G1 …" (many cells, named the sentence before).
func bareQuantifier(prompt string, tags sentenceTagger) bool {
	first, rest, _ := strings.Cut(dropLeadInConnective(prompt), " ")
	if !openingQuantifiers[strings.ToLower(first)] {
		return false
	}
	if pronounFollowers[strings.ToLower(firstWord(rest))] {
		return true
	}
	toks := tags(strings.ReplaceAll(prompt, Blank, "it"))
	if len(toks) < 2 || !strings.EqualFold(toks[0].Text, first) {
		return false
	}
	switch next := toks[1]; {
	case strings.HasPrefix(next.Tag, "VB"):
		return next.Tag != "VBG" && next.Tag != "VBN"
	case next.Tag == "NN" && countingQuantifiers[strings.ToLower(first)] && !strings.HasSuffix(next.Text, "s"):
		return true // "Many exit …": "many" counts, so a singular after it is a verb the tagger took for a noun
	}
	return false
}

// itemFragment reports a cloze that opens with its blank and a relative
// clause and has no verb of its own outside it: a list item's
// "**Experiments** that serve different variations to randomized
// groups". What it is, the list's lead said.
func itemFragment(q studyloop.Question, tags sentenceTagger) bool {
	rest, ok := strings.CutPrefix(q.Prompt, Blank+" ")
	if !ok {
		return false
	}
	if next := strings.ToLower(firstWord(rest)); next != "that" && next != "which" && next != "who" {
		return false // a cheap test first
	}
	toks := tags(strings.Replace(q.Prompt, Blank, q.Answer, 1))
	finite := 0
	for _, t := range toks {
		if t.Start < len(q.Answer) {
			continue // the answer's own words ("lists" taken for a verb)
		}
		switch t.Tag {
		case "VBZ", "VBP", "VBD", "MD":
			finite++
		}
	}
	return finite <= 1
}

// pastOfThe reports a prompt that opens with "The" and one noun doing
// something in the past: "The decision earned Roosevelt a reputation",
// "The election confirmed …". Which decision, the sentence before said; a
// thing in general is told of in the present ("The heart pumps …").
func pastOfThe(prompt string, tags sentenceTagger) bool {
	p := dropLeadInConnective(prompt)
	if !strings.HasPrefix(p, "The ") || strings.Contains(p, ". ") {
		return false // a prompt asked after its lead-in carries what "the" points at
	}
	noun, rest, _ := strings.Cut(p[len("The "):], " ")
	if noun == Blank || uniqueNouns[strings.ToLower(noun)] || !startsLower(noun) || !strings.HasSuffix(firstWord(rest), "ed") {
		return false // a cheap test first: most prompts have no past verb in third place
	}
	toks := tags(strings.ReplaceAll(p, Blank, "it"))
	return len(toks) > 2 && (toks[1].Tag == "NN" || toks[1].Tag == "NNS") && toks[2].Tag == "VBD"
}

// countingQuantifiers go with plural nouns only.
var countingQuantifiers = wordSet(`many several few`)

// openingQuantifiers stand for a plural noun named before when no noun
// follows them.
var openingQuantifiers = wordSet(`many most some few several all`)

// contextOpeners are the words that, opening a sentence, point back at an
// earlier one: pronouns, connectives and ordinals without their noun.
var contextOpeners = wordSet(`it its it's they them their theirs he him his she her hers we our this these that those
	such there here however thus therefore hence also moreover furthermore nevertheless nonetheless consequently
	instead otherwise likewise similarly accordingly besides then still yet so but and or nor now
	conversely soon afterwards afterward meanwhile later specifically additionally particularly indeed again
	latter former second third fourth last another others other`)

// quantifiers open a sentence with or without their noun.
var quantifiers = wordSet(`each both either neither`)

// pronounFollowers are the words after which an opening quantifier stands
// alone, as a pronoun.
var pronounFollowers = wordSet(`is are was were has have had of can could will would may might must does do did`)

// contextFree are the words after which an opening "this" or "that"
// points forward, not back ("This way, ...").
var contextFree = wordSet(`way means`)

// forwardSuch are the words after which "such" points forward: "such as",
// "such that".
var forwardSuch = wordSet(`as that`)

// needsContext reports whether prompt (a question or a cloze sentence)
// depends on a sentence before it: it opens with a pronoun, a connective,
// "this" or "these" with or without a noun, or "the second", "the latter"
// and the like; or it speaks of "the above" or "the previous" one.
func needsContext(prompt string) bool {
	p := dropLeadInConnective(description(prompt))
	if rest, ok := strings.CutPrefix(p, Blank); ok && (strings.HasPrefix(rest, " —") || strings.HasPrefix(rest, " –") || strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, " -")) {
		return true // "_____ — each action is started both locally and remotely": a list's item, whose list says what it names
	}
	words := strings.Fields(strings.ToLower(strings.ReplaceAll(p, Blank, " x ")))
	if len(words) == 0 {
		return false
	}
	first := strings.Trim(words[0], `"'“‘(,;:`)
	second := ""
	if len(words) > 1 {
		second = strings.Trim(words[1], ",;:")
	}
	if contextOpeners[first] && second != "way" && !(first == "other" && second == "things") {
		return true // "This way, …" points forward, "Other things being equal" nowhere; "This means that …" back
	}
	for i, w := range words {
		if strings.Trim(w, ",;:") == "both" && !namesTwo(words[i+1:]) {
			return true // "Both chambers are …", "during rest, both centers …"; "both DNA and RNA" names its two
		}
	}
	// "Each", "both", "either" and "neither" before a noun name their
	// things ("Each codon ..."); alone ("Each is ...", "Both of ...") they
	// point back.
	if quantifiers[first] && (second == "" || pronounFollowers[second] || strings.HasSuffix(words[0], ",")) {
		return true
	}
	if first == "the" && second == "first" && strings.HasSuffix(words[1], ",") {
		return true // "The first, _____, occurs when …": the first of what?
	}
	if (first == "the" || first == "a") && len(words) > 1 {
		switch strings.Trim(words[1], ",;:") {
		case "latter", "former", "second", "third", "same", "above", "previous", "following", "other", "last", "next", "remaining", "rest", "opposite", "reverse", "converse":
			return true
		}
	}
	if first == "the" && len(words) > 2 && relationalNouns[strings.Trim(words[1], ",;:")] && !ofWhat[strings.Trim(words[2], ",;:")] {
		return true // "The output is cryptic …": the output of what?
	}
	lower := strings.ToLower(p)
	if n := len(words); n >= 2 && relationEnds[strings.TrimRight(words[n-1], ".?")] && (words[n-2] == "an" || words[n-2] == "a" || words[n-2] == "the") {
		return true // "Why is hydrogen an exception?": to what?
	}
	if strings.Contains(p, ", ") && commaPronoun.MatchString(p) && !commaPronounInside(p, commaPronoun.FindStringSubmatchIndex(p), first) || pointsBack(p) {
		return true
	}
	if strings.Contains(lower, "he") || strings.Contains(lower, "him") {
		if m := personPronoun.FindStringIndex(p); m != nil && !namesPerson(p[:m[0]]) {
			return true // "… she …" with no one named before her
		}
	}
	// A demonstrative in a question after a lead-in sentence points at
	// that sentence: "The ventricles hold 130 mL. What is this volume
	// called?"
	lead, _, _ := strings.Cut(p, ". What ")
	opening := secondSentence(lead) // where a cloze's sentence starts after its lead-in
	for _, m := range demonstrative.FindAllStringSubmatchIndex(lead, -1) {
		which, next := strings.ToLower(lead[m[2]:m[3]]), strings.ToLower(lead[m[4]:m[5]])
		suchA := which == "such" && (next == "a" || next == "an")
		if suchA {
			next = strings.Trim(strings.ToLower(firstWord(lead[m[5]:])), ".,;:?!") // "an older system, or … for such a system"
		}
		switch {
		case m[0] == opening && which != "such" && which != "those" && (beForms[next] || quantityNouns[next] && strings.ContainsAny(lead[:m[0]], "0123456789")):
			// "… three of the codons do not code for an amino acid. These
			// are called _____.", "… contain 130 mL blood. This volume is
			// …": opening the sentence after the lead-in, it points at it
		case contextFree[next], which == "such" && forwardSuch[next]:
		case which == "those" && (forwardThose[next] || strings.HasSuffix(next, "ed")):
			// "those that decrease it", "those encoded by exons"
		case (which != "such" || suchA) && said(lead[:m[0]], next):
			// "… primary transcripts … to protect these transcripts"
		default:
			return true
		}
	}
	if containsAny(lower, leaningKeys) && leaningPhrase.MatchString(p) {
		return true
	}
	if (strings.Contains(lower, " later") || strings.Contains(lower, " afterward")) && timeAfter.MatchString(lower) ||
		strings.Contains(lower, "the other ") && otherOfCount.MatchString(lower) {
		return true // "A week later Louis ordered the other two _____ …"
	}
	if strings.Contains(lower, "'s ") || strings.Contains(lower, "’s ") {
		for _, m := range theOwner.FindAllStringSubmatchIndex(lower, -1) {
			noun := lower[m[2]:m[3]]
			if (institutionNouns[noun] || ownerNouns[noun]) && !said(lower[:m[0]], noun) && !strings.Contains(lower[:m[0]], Blank) {
				return true // "Much of the organization's early work …": which organization? ("The _____ was founded …, the party's best showing" names it)
			}
		}
	}
	if strings.HasPrefix(p, "To ") && purposeOfThe.MatchString(p) {
		return true // "To head off the protest, Roosevelt issued …": which protest?
	}
	if datedPronoun.MatchString(p) || adverbPronoun.MatchString(p) {
		return true // "In July 1790 it passed …": what passed? "By default it connects to …": what does?
	}
	if containsAny(lower, comparativeKeys) && comparativeWithoutThan.MatchString(lower) && !strings.Contains(lower, " than ") {
		return true // "proposed a broader view": broader than what?
	}
	if !strings.HasPrefix(p, "What are the ") && countedThings.MatchString(lower) {
		return true // "the three components": which? A list question's "the three main types" says
	}
	if objectPronoun(words) {
		return true // "The cache sends it back in the _____ header": sends what?
	}
	if orderedWithoutWhole(words) {
		return true // "if the nucleotide in the third position is changed": the third of what?
	}
	if earlyThen(words) || alsoOrThus(words) {
		return true
	}
	return elsewhere.MatchString(p) && backReference.MatchString(p)
}

// objectPronoun reports whether one of the first words is "it" or "them"
// as the object of a verb, followed by a particle or preposition ("sends
// it back", "turn them into"): the thing was named before. "makes it
// possible to" points forward and passes.
func objectPronoun(words []string) bool {
	for k := 1; k < min(len(words), 9); k++ {
		if w := words[k]; w != "it" && w != "them" {
			continue
		}
		if prepositions[strings.Trim(words[k-1], ",;:")] {
			continue // "of it", "to them": a pronoun checked by the other rules
		}
		if k+1 == len(words) {
			return true
		}
		if next := strings.Trim(words[k+1], ",;:."); verbParticles[next] || conjunctionsAfter[next] {
			return true // "sends it back", "The Fed uses it when …"
		}
	}
	return false
}

// prepositions and particles are the words around an object pronoun.
var (
	prepositions  = wordSet(`of to in into for with on from by about at as than`)
	verbParticles = wordSet(`back to in into from out up down on off with through over away as at for`)
	// conjunctionsAfter open a clause after an object: "uses it when …".
	conjunctionsAfter = wordSet(`when whenever if because after before until unless once while`)
)

// orderedWithoutWhole reports whether words hold "the" and an ordinal
// before a noun that no "of" or "in" follows: "the third position" of a
// sequence the sentence before named.
func orderedWithoutWhole(words []string) bool {
	for i := 0; i+3 < len(words); i++ {
		if words[i] != "the" || !laterOrdinals[words[i+1]] || strings.ContainsAny(words[i+1], ",;:.") {
			continue
		}
		if strings.HasSuffix(words[i+2], ":") {
			return true // "form the third component: chains of sugars …"
		}
		if strings.ContainsAny(words[i+2], ",;.") {
			continue // "the third position, called the wobble position," names it
		}
		if next := strings.Trim(words[i+3], ",;:."); next != "of" && next != "in" {
			return true
		}
	}
	return false
}

// laterOrdinals are the ordinals that place a thing after others.
var laterOrdinals = wordSet(`second third fourth fifth sixth seventh eighth ninth tenth`)

// relationalNouns name a thing only with what it belongs to: opening a
// sentence as "the output" or "the contribution" without an "of", they
// lean on what came before.
var relationalNouns = wordSet(`exception exceptions output outputs result results contribution contributions answer answers outcome outcomes
	difference differences effect effects value values solution solutions remainder ratio sum total product quotient
	change changes increase decrease rest figure figures calculation calculations derivation equation equations
	expression expressions component components terms factor factors step steps procedure method approach
	key goal lesson trick point problem reason`)

// ofWhat are the words after a relational noun that say whose it is.
var ofWhat = wordSet(`of for between in that which who whose when where`)

// leaningPhrase matches words inside a sentence that point at something
// said before it: "however", "the century" without its number, "the latter", "despite the name" (whose?), a worked example's
// "in our example" and "we have just determined", a pointer to other
// lessons ("for those interested") and a guess about a story's people
// ("would probably have objected").
var leaningPhrase = regexp.MustCompile(`(?i)\bhowever\b|\bwith other (types|kinds|forms)\b|\bthe (century|latter|former)\b|\bdespite (the|its|their) names?\b|\bin (our|this|that) example\b|\bwe have just\b|\bfor those interested\b|\bwould probably\b|\b(that|the) (same|following|next|previous) (year|day|month|decade|century)\b|\bon the other hand\b|\b(a|the) (parallel|similar|comparable|related) (story|case|process|argument|situation)\b|^how (far|much|fast|quickly|often) the\b`)

// leaningKeys are strings every match of leaningPhrase holds one of: a
// prompt with none of them needs no regular expression.
var leaningKeys = []string{"however", "with other", "century", "the latter", "the former", "despite", "example", "we have just",
	"for those interested", "would probably", "year", "day", "month", "decade", "other hand", "parallel", "similar",
	"comparable", "related", "how "}

// timeAfter matches a time counted from an event the sentence before
// told: "A week later", "two years afterward".
var timeAfter = regexp.MustCompile(`\b(a|an|one|two|three|four|five|six|several|a few) (hours?|days?|weeks?|months?|years?|decades?|centuries) (later|afterwards?)\b`)

// otherOfCount matches "the other two" of a group the sentence before
// counted.
var otherOfCount = regexp.MustCompile(`\bthe other (two|three|four|five|six)\b`)

// datedPronoun matches a sentence that opens with a date and goes on
// with a pronoun as its subject: "In July 1790 it passed …", "By the
// spring of 1793 they controlled …". What the pronoun stands for was
// named before.
var datedPronoun = regexp.MustCompile(`^(?:In|On|By|During|After|Before|Around|Until|From|Later in) (?:(?:early|late|mid|the|spring|summer|fall|autumn|winter|of|January|February|March|April|May|June|July|August|September|October|November|December|\d{1,4}s?),? ){1,4}(?:it|they|he|she) `)

// theOwner matches "the" and one noun in the possessive: "the
// organization's".
var theOwner = regexp.MustCompile(`\bthe ([a-z]+)(?:'s|’s) `)

// ownerNouns are nouns of a group or a place that, owning something
// after "the" alone, name one the sentence before named.
var ownerNouns = wordSet(`group organization city town region county agency`)

// purposeOfThe matches a sentence opened by a purpose that names its
// object by "the" and one noun: "To head off the protest, …".
var purposeOfThe = regexp.MustCompile(`^To (?:[a-z]+ ){1,2}the [a-z]+,`)

// adverbPronoun matches a sentence that opens with an adverb or a
// phrase of manner or time and goes on with a pronoun as its subject:
// "By default it connects to …", "Otherwise they wait …".
var adverbPronoun = regexp.MustCompile(`^(?:By default|By then|Otherwise|Instead|Then|Now|Here|Later|Afterwards?|Meanwhile|Again|Still|Eventually|Finally|Usually|Often|Sometimes|Normally|Typically|Also|If not|If so),? (?:it|they|he|she) `)

// comparativeWithoutThan matches a view, a definition or a model called
// broader or simpler than another that the sentence does not name:
// "proposed a broader view".
var comparativeWithoutThan = regexp.MustCompile(`\b(?:a|an|the) (?:broader|wider|narrower|newer|simpler|more general|more complete|more precise|more inclusive) (?:view|definition|theory|model|explanation|approach|account|version|concept|framework)\b`)

// comparativeKeys are strings every match of comparativeWithoutThan holds
// one of.
var comparativeKeys = []string{"broader", "wider", "narrower", "newer", "simpler", "more general", "more complete", "more precise", "more inclusive"}

// containsAny reports whether s holds one of keys.
func containsAny(s string, keys []string) bool {
	for _, k := range keys {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}

// countedThings matches "the two chambers", "the three components": a
// count of things named before.
var countedThings = regexp.MustCompile(`\bthe (?:two|three|four|five|six) \pL+`)

// demonstrative matches "this", "these" or "those" before a word inside a
// sentence ("uses these molecules"): the thing it names was introduced
// earlier. "This way" and "by this means" point forward and are allowed.
var demonstrative = regexp.MustCompile(`(?i)\b(this|these|those|such)\s+(\pL+|_____)`)

// secondSentence returns where the second sentence of p starts (after
// ". ", "! " or "? " and at a capital), or -1.
func secondSentence(p string) int {
	for i := 0; i+2 < len(p); i++ {
		if (p[i] == '.' || p[i] == '!' || p[i] == '?') && p[i+1] == ' ' {
			if r, _ := utf8.DecodeRuneInString(p[i+2:]); unicode.IsUpper(r) {
				return i + 2
			}
		}
	}
	return -1
}

// quantityNouns name an amount: "this volume" after a sentence that gives
// one in figures points at it.
var quantityNouns = wordSet(`volume amount quantity value number total`)

// forwardThose are the words after which "those" points forward, at
// the clause that follows: "those that decrease contractility".
var forwardThose = wordSet(`that which who whose whom of with in at from without`)

// said reports whether before names noun (or its singular or plural)
// already: a demonstrative before it then points inside the sentence.
func said(before, noun string) bool {
	if len(noun) < 3 {
		return false
	}
	stem := strings.TrimSuffix(strings.TrimSuffix(noun, "s"), "e")
	for _, w := range strings.FieldsFunc(strings.ToLower(before), func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
		if strings.HasPrefix(w, stem) && len(w) <= len(noun)+2 {
			return true
		}
	}
	return false
}

// doneThatWay matches a participle done "this way" or "that way", a way
// the sentence before told: "Profit measured this way".
var doneThatWay = regexp.MustCompile(`\b\w+(?:ed|en) (?:this|that) way\b`)

// pointsBack reports phrases that lean on an earlier sentence: an
// opening "in that case", "for example" or "in addition", "themselves", a
// bare "this" ("To allow for this, …"), and a closing aside in lower case
// in brackets ("(still)"; "(snRNPs)" names). Each pattern runs only where
// it can match, since every sentence of a study is tested.
func pointsBack(p string) bool {
	if backOpener.MatchString(p[:min(len(p), 48)]) {
		return true
	}
	lower := strings.ToLower(p)
	if strings.Contains(lower, "themselves") && themselves.MatchString(lower) || strings.Contains(lower, "this") && (bareThis.MatchString(lower) || strings.Contains(lower, " in this way")) {
		return true // "… that differ in a trait in this way": which way?
	}
	if strings.Contains(lower, " way") && doneThatWay.MatchString(lower) {
		return true // "Profit measured this way is called …"
	}
	end := strings.TrimSuffix(p, ".")
	return strings.HasSuffix(end, ")") && closingAside.MatchString(p[max(0, len(p)-48):])
}

var (
	backOpener   = regexp.MustCompile(`(?i)^(in (that|this|such a|either|each) cases?|for (example|instance)|as a result|in turn|in addition|in particular|in fact|in contrast|by contrast|in comparison|by comparison|at this point|at that point|at the same time|in response|on the other hand|for this reason|to allow for this|in this way|in (?:other )?words|that is|everything else|all else)\b|^to (?:tell|see|find out|decide|know) which,`)
	themselves   = regexp.MustCompile(`\bthemselves\b`)
	bareThis     = regexp.MustCompile(`\bthis[,.;]`)
	closingAside = regexp.MustCompile(`\([a-z]+(?: [a-z]+)?\)\.?$`)
)

// personPronoun matches a pronoun of a person.
var personPronoun = regexp.MustCompile(`(?i)\b(she|he|her|him|himself|herself)\b`)

// namesPerson reports whether text names a person WordNet knows, by a
// capitalised word ("Jackson's critics, calling him …"): a pronoun after
// it has someone to point at.
func namesPerson(text string) bool {
	lex := lexicon.Default()
	opening := true // a sentence's first word is capitalised whatever it names ("Critics, calling him …")
	for _, field := range strings.Fields(text) {
		w := strings.Trim(field, ".,;:()\"“”")
		base := strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		r, _ := utf8.DecodeRuneInString(base)
		named := unicode.IsUpper(r) && len(base) > 2 && (lex.IsPerson(base) || lex.Senses(strings.ToLower(base)) == 0)
		if named && (!opening || base != w) {
			return true
		}
		opening = strings.HasSuffix(field, ".")
	}
	return false
}

// commaPronoun matches a pronoun opening the main clause after an
// introductory phrase: "In addition to X, it also serves as ...". Group 1
// is the pronoun, group 2 the word after it.
var commaPronoun = regexp.MustCompile(`(?i), (it|they|he|she|this|these) (\pL+)`)

// commaPronounInside reports whether the pronoun commaPronoun found at m
// in p points inside p: "When an organism …, it is called _____" names
// what its own clause says, and "… an initiation complex. In E. coli, this
// complex involves …" a thing named before it.
func commaPronounInside(p string, m []int, first string) bool {
	pronoun := strings.ToLower(p[m[2]:m[3]])
	switch pronoun {
	case "this", "these":
		return said(p[:m[0]], strings.ToLower(p[m[4]:m[5]]))
	case "it", "they":
		return leadingSubordinators[first] && namingAfter.MatchString(p[m[4]:])
	}
	return false
}

// relationEnds are the nouns of relation a prompt may not end on without
// their other side: "… an exception?", "… the opposite."
var relationEnds = wordSet(`exception exceptions opposite reverse converse counterexample`)

// namingAfter matches a verb of naming: "is called", "are known as".
var namingAfter = regexp.MustCompile(`^(?:is|are) (?:called|known as|termed|referred to as)\b`)

// dropLeadInConnective removes a "Thus, " or "Therefore, " opening the
// second sentence of a prompt, a cloze asked after its lead-in sentence
// ("… salivation from the dogs. Thus, the neutral stimulus became the
// _____"): it concludes from that sentence, which the prompt holds.
func dropLeadInConnective(p string) string {
	opening := secondSentence(p)
	if opening < 0 {
		return p
	}
	if c := leadInConnective.FindStringIndex(p[opening:]); c != nil {
		return p[:opening] + upperFirst(p[opening+c[1]:])
	}
	return p
}

// leadInConnective matches a concluding connective and its comma.
var leadInConnective = regexp.MustCompile(`^(?:Thus|Therefore|Hence|Consequently|As a result), `)

// alsoOrThus reports an "also" that adds to something said before ("The
// amino acid is also linked to…"), unless it names ("also called") or
// closes "not only … but also", and a "thus" or "hence" that concludes
// from an earlier sentence.
func alsoOrThus(words []string) bool {
	for i, w := range words {
		w = strings.Trim(w, ",;:")
		switch {
		case w == "thus" || w == "hence" || w == "therefore":
			if i > 0 && strings.HasSuffix(words[i-1], ",") && i+1 < len(words) && strings.HasSuffix(words[i+1], "ing") {
				continue // "…, thus allowing for …" goes on from its own clause
			}
			return true
		case w != "also" || i > 0 && strings.Trim(words[i-1], ",") == "but":
		case i+1 < len(words) && namingWords[strings.Trim(words[i+1], ",")]:
		default:
			return true
		}
	}
	return false
}

// namingWords may follow "also" to give another name: "also called".
var namingWords = wordSet(`called known termed referred named`)

// earlyThen reports a "then" among the first six words that does not
// follow a comma ("The cycle then uses ..."): it continues a sequence begun
// in an earlier sentence. "If X, then Y" keeps its comma and is allowed.
func earlyThen(words []string) bool {
	for i := 1; i < len(words) && i < 6; i++ {
		if strings.Trim(words[i], ",;:") == "then" && !strings.HasSuffix(words[i-1], ",") {
			return true
		}
	}
	return false
}

var (
	// backReference matches phrases that refer to earlier text.
	backReference = regexp.MustCompile(`(?i)\b(as (mentioned|noted|discussed|described|explained|stated|shown|seen) (above|before|earlier|previously)|we have (just )?(seen|noted|discussed)|the previous(ly)?|mentioned above|discussed above|described above|in the same way|as before)\b`)
	elsewhere     = regexp.MustCompile(`(?i)\b(above|before|earlier|previous|previously|seen|same)\b`)
	// pointer matches references to figures, tables, exercises, examples
	// and the book's own parts, which a question cannot show.
	pointer = regexp.MustCompile(`(?i)\b(fig(ure)?s?\.?\s*\(?\d|figures?\b|fig\.|tables? \(?\d|(the|this|following|above|below) (table|graph|diagram|chart|map|photo|photograph|image|illustration|picture|plot)s?\b|(this|the next|the previous|the following|the last|the present|our) (chapter|section|unit|lesson|module|lecture|book|text|episode|exercise|activity|paragraph|glossary|document|page|list|course)s?\b|that (chapter|section|unit|lesson|module|lecture|book|text|episode|exercise|activity|paragraph|glossary|document|page|list|course)\b|\beach entry\b|in this (chapter|section|unit|lesson|module|lecture|book|episode|part)|exercises?\b|example \d|problem \d|step \d|round \d|equation \(?\d|eq\. ?\(?\d|(shown|given|listed|illustrated|see|depicted) (above|below|here)|points? [A-Z]( and [A-Z])?\b|as follows|the following\b|in the (box|sidebar|margin)|you will (learn|see|study|explore|read)|we will (learn|see|study|explore|discuss|look))`)
)

// pointsElsewhere reports whether prompt points at a figure, table,
// exercise, example or part of the book.
func pointsElsewhere(prompt string) bool {
	p := description(prompt)
	lower := strings.ToLower(p)
	for _, k := range pointerKeys {
		if strings.Contains(lower, k) {
			return pointer.MatchString(p)
		}
	}
	return false
}

// pointerKeys are strings every match of pointer holds one of: a prompt
// with none of them needs no regular expression.
var pointerKeys = []string{"fig", "table", "graph", "diagram", "chart", "map", "photo", "image", "illustration", "picture",
	"plot", "chapter", "section", "unit", "lesson", "module", "lecture", "book", "text", "episode", "exercise", "activit",
	"paragraph", "part", "example", "problem", "equation", "eq.", "above", "below", "here", "follow", "box", "sidebar",
	"margin", "you will", "we will", "point", "glossary", "document", "page", "list", "course", "entry", "step", "round"}

// abbreviationLeak reports whether the prompt holds the answer's
// abbreviation (answer "adenosine triphosphate", prompt with "ATP") or,
// when the answer is an abbreviation, its expansion.
func abbreviationLeak(q studyloop.Question) bool {
	if aliasGiven.MatchString(q.Prompt) || abbreviatedBlank.MatchString(q.Prompt) {
		return true
	}
	if m := bracketAfterBlank.FindStringSubmatch(q.Prompt); m != nil && initials(q.Answer) == strings.ToLower(strings.TrimSuffix(m[1], "s")) {
		return true // "the _____ (Cdks)" for "cyclin-dependent kinases"
	}
	prompt := strings.ReplaceAll(q.Prompt, Blank, " ")
	for _, c := range append([]string{q.Answer}, q.Choices...) {
		if c != q.Answer && q.Type == studyloop.QuestionMultipleChoice {
			continue
		}
		if isAcronym(c) {
			if expandsIn(c, nearBlank(q.Prompt)) {
				return true
			}
			continue
		}
		for _, w := range strings.Fields(c) {
			if isAcronym(w) && expandsIn(w, nearBlank(q.Prompt)) {
				return true // "_____, named for crassulacean acid metabolism" for "CAM plants"
			}
		}
		for _, w := range strings.FieldsFunc(prompt, func(r rune) bool { return !isLetterOrDigit(r) }) {
			if isAcronym(w) && abbreviates(w, c) {
				return true
			}
		}
	}
	return false
}

// bracketAfterBlank matches a short word in brackets right after the
// blank; its group is the word.
var bracketAfterBlank = regexp.MustCompile(`_____\s*\(([\pL]{2,10})\)`)

// initials are the first letters of answer's words, hyphenated parts
// counted apart, in lower case: "cdk" for "cyclin-dependent kinases".
func initials(answer string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(strings.ToLower(answer), func(r rune) bool { return r == ' ' || r == '-' }) {
		r, _ := utf8.DecodeRuneInString(w)
		b.WriteRune(r)
	}
	return b.String()
}

var (
	// aliasGiven matches a prompt that names the answer another way:
	// "short for “permanent link”", "or simply Starling's law".
	aliasGiven = regexp.MustCompile(`(?i)\b(short for|or simply|abbreviated as|stands for)\b`)
	// abbreviatedBlank matches a blank followed by an abbreviation in
	// brackets ("conditioned _____ (CR)" spells out what the blank
	// completes) or by its other name ("_____, or thyroxin,").
	abbreviatedBlank = regexp.MustCompile(`_____\s*\(\p{Lu}[\p{Lu}\p{N}]+s?\)|_____, or [^,]{2,40},`)
)

// isAcronym reports whether s is one word of two to eight letters, at least
// two of them capitals and most of them capitals ("ATP", "mRNA", "DNA").
func isAcronym(s string) bool {
	n, upper := 0, 0
	for _, r := range s {
		if !isLetterOrDigit(r) {
			return false
		}
		n++
		if unicode.IsUpper(r) {
			upper++
		}
	}
	return n >= 2 && n <= 8 && upper >= 2 && upper*2 > n
}

// abbreviates reports whether the capitals of short spell, in order, the
// starts of words or syllables of long (Schwartz and Hearst's matching,
// 2003, simplified): every capital of short is found in long, the first at
// the start of long's first word, and long has at most len(short)+2 words.
func abbreviates(short, long string) bool {
	words := strings.FieldsFunc(strings.ToLower(long), func(r rune) bool { return !isLetterOrDigit(r) })
	var caps []rune
	for _, r := range short {
		if unicode.IsUpper(r) || unicode.IsDigit(r) {
			caps = append(caps, unicode.ToLower(r))
		}
	}
	if len(words) < 2 || len(caps) < 2 || len(words) > len(caps)+2 {
		return false
	}
	joined := strings.Join(words, " ")
	if r, _ := utf8.DecodeRuneInString(joined); r != caps[0] {
		return false
	}
	// Every word of long contributes its initial, or the capitals run on
	// inside a word (adenosine TriPhosphate).
	i := 0
	for n, w := range words {
		if i < len(caps) && strings.HasPrefix(w, string(caps[i])) {
			i++
			// The capitals run on inside this word only when the next
			// word does not start with the next capital.
			nextStarts := n+1 < len(words) && i < len(caps) && strings.HasPrefix(words[n+1], string(caps[i]))
			for !nextStarts && i < len(caps) && strings.ContainsRune(w[1:], caps[i]) {
				w = w[strings.IndexRune(w[1:], caps[i])+1:]
				i++
			}
		} else if !isStopWord(w) {
			return false
		}
	}
	return i == len(caps)
}

// expandsIn reports whether text holds a run of words that acronym
// abbreviates.
func expandsIn(acronym, text string) bool {
	words := strings.Fields(text)
	n := 0
	for _, r := range acronym {
		if unicode.IsUpper(r) {
			n++
		}
	}
	for i := range words {
		for k := 2; k <= n+2 && i+k <= len(words); k++ {
			if abbreviates(acronym, strings.Join(words[i:i+k], " ")) {
				return true
			}
		}
	}
	return false
}

// nearBlank is the part of a cloze prompt within six words of its blank,
// where an acronym's expansion gives it away ("adenosine triphosphate, or
// _____"); far from it, initials match by chance ("Active transport pumps
// ... spends _____" is no expansion of "ATP"). A prompt without a blank is
// returned whole.
func nearBlank(prompt string) string {
	before, after, ok := strings.Cut(prompt, Blank)
	if !ok {
		return prompt
	}
	b, a := strings.Fields(before), strings.Fields(after)
	return strings.Join(append(b[max(0, len(b)-6):], a[:min(len(a), 6)]...), " ")
}

var whatIs = regexp.MustCompile(`^What (is|are) (.+)\?$`)

// differentia are the words with which a definition goes on from its
// genus to what sets the term apart ("a protein that ...", "a sequence of
// ...").
var differentia = wordSet(`that which who whose whom where when of in on for with by from to used made
	consisting containing composed formed found produced caused called known having between within into through`)

// nonGenus open answers that name no kind of thing: "the same", "the most
// important", "one of the reasons".
var nonGenus = regexp.MustCompile(`(?i)^(the|a|an) (?:[\p{L}-]+ )?(?:example|instance|illustration)\b|^(the|a|an) (same|case|most|only|first|key|main|best|result|reason|way|one|idea|fact|point|problem|question|answer|thing|part|basis|subject|topic|focus|goal|aim|purpose|opposite|reverse|lot|little|few|bit|good|great|very|whole|rest|end|start|beginning)\b|^(a|an) number\b|^one (of|and)\b`)

// secondClause matches an answer that goes on to state something else
// ("the sugary flavor and the conditioned response is ..."): an example,
// not a definition.
var secondClause = regexp.MustCompile(`(?i)\b(and|but|while|whereas) ((the|a|an|this|it|they)\b.* |[\p{L}-]+ ([\p{L}-]+ )?)?(is|are|was|were)\b`)

// notDefinitional reports whether q asks "What is X?" of an answer that
// is not a definition: one that opens with an article must go on from a
// noun (its genus) to what sets X apart.
func notDefinitional(q studyloop.Question) bool {
	if q.Type != studyloop.QuestionShortAnswer || !whatIs.MatchString(q.Prompt) {
		return false
	}
	a := strings.Fields(strings.ToLower(q.Answer))
	if len(a) == 0 {
		return true
	}
	if nonGenus.MatchString(q.Answer) || secondClause.MatchString(q.Answer) {
		return true
	}
	switch a[0] {
	case "a", "an", "the", "one":
	default:
		return false // a glossary line's definition, not read off a sentence
	}
	for _, w := range a[2:] {
		if differentia[strings.Trim(w, ",;:()")] {
			return false
		}
	}
	return true
}

// splitsPhrase reports whether the blank of a cloze (or multiple choice
// made of one) cuts a noun phrase: a noun or possessive right before it, a
// noun or possessive right after it, an adjective joined to it by "and"
// (the two share the blank's noun), a participle opening a clause, or a
// blank that ends in a word no noun phrase ends with.
// namingNouns name a word: "the term _____", "the name _____".
var namingNouns = wordSet(`term terms word words name names phrase label`)

func splitsPhrase(q studyloop.Question, tags sentenceTagger) bool {
	from := strings.Index(q.Prompt, Blank)
	if from < 0 {
		return false
	}
	filled := strings.Replace(q.Prompt, Blank, q.Answer, 1)
	toks := tags(filled)
	if toks == nil {
		return false
	}
	to := from + len(q.Answer)
	first, last := -1, -1
	for i, t := range toks {
		if t.Start >= from && t.End() <= to {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return false
	}
	if first > 0 && initial.MatchString(q.Prompt[:from]) {
		return true // "In E. _____": the blank is the rest of a name
	}
	if first > 0 {
		switch prev := toks[first-1]; {
		case prev.End() > from: // a token straddles the blank's start
			return true
		case namingNouns[strings.ToLower(prev.Text)] && first >= 2 && strings.EqualFold(toks[first-2].Text, "the"):
			// "use the term _____ to mean": the blank is what the noun names
		case strings.HasPrefix(prev.Tag, "NN"):
			return true
		case first >= 2 && startsUpper(prev.Text) && startsUpper(toks[first].Text) && toks[first-2].Text != "." && prev.Text != "I":
			return true // "The First _____ was the clergy": the blank is the rest of a name
		case toks[first].Tag == "VBG" && prev.Text == ",":
			return true // "..., _____ to stall": a participle clause, not a term
		case (prev.Text == "and" || prev.Text == "or") && first >= 2 && strings.HasPrefix(toks[first-2].Tag, "JJ"):
			return true // "the pulmonary and _____": the blank shares its noun
		case (prev.Text == "and" || prev.Text == "or") && first >= 2 && strings.HasPrefix(toks[first-2].Tag, "NN") && last > first:
			return true // "supply or _____" for "demand curve": "supply" shares "curve"
		}
	}
	if inList(toks, first, last) {
		return true // "the _____, cat, or other organism": one of several that fit
	}
	if last+1 < len(toks) {
		switch next := toks[last+1]; {
		case next.Start < to:
			return true
		case kindNouns[strings.ToLower(next.Text)]:
			// "the _____ header", "the _____ command": the blank names one
			// of a kind the next word says.
		case strings.HasPrefix(next.Tag, "NN") && !presentVerb(next.Text), next.Tag == "POS":
			return true
		}
	}
	switch toks[last].Tag {
	case "DT", "IN", "CC", "TO", "PRP$", "WDT", "MD", "VBZ", "VBP", "VBD", "RB":
		return true
	}
	return false
}

// kindNouns are the words after a name that say what kind of thing it
// names, in technical text above all ("the Cache-Control header").
var kindNouns = wordSet(`header headers directive directives command commands option options flag flags function functions
	method methods field fields keyword keywords variable variables parameter parameters attribute attributes element elements
	property properties module modules package packages library libraries protocol protocols file files format formats`)

// presentVerb reports whether a word the tagger took for a plural noun
// is a verb's third person that is no noun at all: "refers" in
// "Afterload refers to …".
func presentVerb(word string) bool {
	lex := lexicon.Default()
	lower := strings.ToLower(word)
	base, ok := strings.CutSuffix(lower, "s")
	return ok && lex.IsVerb(base) && !lex.IsNoun(lower) && !lex.IsNoun(base)
}

// inList reports whether tokens [first, last] stand in a list of like
// things: a comma and a noun follow and then a comma, "or" or "and", or a
// noun and a comma come before and "or" or "and" follows.
func inList(toks []token.Token, first, last int) bool {
	if last+3 < len(toks) && toks[last+1].Text == "," && strings.HasPrefix(toks[last+2].Tag, "NN") {
		switch toks[last+3].Text {
		case ",", "or", "and":
			return true
		}
	}
	if first >= 2 && last+1 < len(toks) && toks[first-1].Text == "," && strings.HasPrefix(toks[first-2].Tag, "NN") {
		switch toks[last+1].Text {
		case ",", "or", "and":
			return true
		}
	}
	return false
}

// initial matches a capital initial and its full stop right before a blank.
var initial = regexp.MustCompile(`\b\p{Lu}\.\s*$`)

// choicesAlike reports whether two choices of a multiple-choice question
// could both be right or be told apart by form alone: one abbreviates
// another, they differ by a letter or two, or the answer is plural where
// every distractor is singular (or the other way round).
func choicesAlike(q studyloop.Question) bool {
	if q.Type != studyloop.QuestionMultipleChoice {
		return false
	}
	for i, a := range q.Choices {
		for _, b := range q.Choices[i+1:] {
			if nearString(a, b) || abbreviates(a, b) || abbreviates(b, a) {
				return true
			}
		}
	}
	if article := articleBefore(q.Prompt); article != "" {
		for _, c := range q.Choices {
			if firstWord(indefinite(strings.ToLower(c))) != article {
				return true // "An _____" rules out "chemical property"
			}
		}
	}
	return false
}

// articleBefore is the indefinite article right before a prompt's blank,
// lower-cased, or "".
func articleBefore(prompt string) string {
	before, _, ok := strings.Cut(prompt, Blank)
	if !ok {
		return ""
	}
	words := strings.Fields(strings.ToLower(before))
	if len(words) == 0 {
		return ""
	}
	if w := words[len(words)-1]; w == "a" || w == "an" {
		return w
	}
	return ""
}

// nearString reports whether a and b, compared case-blind, are one or two
// edits apart near their ends while longer than four letters: a plural or
// another ending of one word.
func nearString(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	if a == b {
		return true
	}
	ra, rb := []rune(a), []rune(b)
	if len(ra) < 5 || len(rb) < 5 || abs(len(ra)-len(rb)) > 2 {
		return false
	}
	// Variants differ at the end ("mitochondria", "mitochondrion");
	// words that differ earlier are rivals on purpose ("inflation",
	// "deflation"; "hypothyroidism", "hyperthyroidism").
	common := 0
	for common < len(ra) && common < len(rb) && ra[common] == rb[common] {
		common++
	}
	if common < min(len(ra), len(rb))-3 {
		return false
	}
	return editDistance(ra, rb, 3) <= 2
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// editDistance is the Levenshtein distance of a and b, or limit when it is
// at least limit.
func editDistance(a, b []rune, limit int) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			low = min(low, cur[j])
		}
		if low >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// readerWords are the first and second person of a lecture or a
// textbook's asides ("I will now show you", "Let's think about"): a
// sentence in them narrates or instructs rather than states.
var readerWords = wordSet(`i i'm i've i'll me my mine myself we we're we've we'll us our ours ourselves you you're you've you'll your yours yourself yourselves let's`)

// instructionOpeners open exercises, objectives and stage directions.
var instructionOpeners = wordSet(`explain describe compare contrast calculate compute consider suppose imagine identify discuss list
	define determine find show prove recall remember note notice observe see look think try use let
	predict summarize summarise outline evaluate analyze analyse state write draw sketch estimate`)

// imperative reports whether a cloze's sentence tells the reader what to
// do, a step of a procedure rather than a fact: "Place the remaining
// electrons as _____ on the outer atoms", "If the central atom lacks an
// octet, move lone pairs from _____ …". Its first word, or the first after
// an opening "If" or "When" clause, is a verb in its base form.
func imperative(prompt string, tags sentenceTagger) bool {
	if !strings.Contains(prompt, Blank) {
		return false
	}
	sentence := prompt
	if lead, rest, ok := strings.Cut(prompt, ". "); ok && strings.Contains(rest, Blank) && !strings.Contains(lead, Blank) {
		sentence = rest // after a lead-in sentence
	}
	// Tagging is dear: only a sentence whose command would open it, or
	// open its main clause after an "If" clause, with a word WordNet
	// knows as a verb, is tagged.
	candidate, rest, _ := strings.Cut(sentence, " ")
	if c := strings.ToLower(candidate); c == "if" || c == "when" || c == "once" {
		_, after, ok := strings.Cut(rest, ", ")
		if !ok {
			return false
		}
		candidate = firstWord(after)
	}
	if !lexicon.Default().IsVerb(strings.ToLower(candidate)) {
		return false
	}
	toks := tags(strings.Replace(sentence, Blank, "things", 1))
	if len(toks) < 2 {
		return false
	}
	at := 0
	if w := strings.ToLower(toks[0].Text); w == "if" || w == "when" || w == "once" {
		at = -1
		for i, t := range toks {
			if t.Text == "," {
				at = i + 1
				break
			}
		}
	}
	if at < 0 || at >= len(toks) {
		return false
	}
	t, word := toks[at], strings.ToLower(toks[at].Text)
	switch {
	case t.Tag == "VB", at > 0 && t.Tag == "VBP":
		return true // after "If …, " a verb with no subject before it is a command
	case at+1 < len(toks) && (t.Tag == "VBP" || t.Tag == "NNP" || t.Tag == "NN") && lexicon.Default().IsVerb(word):
		// The tagger reads a command's verb as a present tense or a
		// name ("Add one electron …", ", move lone pairs …"); an object
		// right after it tells.
		switch next := toks[at+1].Tag; next {
		case "DT", "CD", "PRP$", "PRP":
			return true
		case "JJ", "NNS":
			return at > 0 // "move lone pairs" after an "If" clause; "Mature rRNAs make up …" opening a statement
		}
	}
	return false
}

// speaksToReader reports whether prompt addresses or narrates to the
// reader, or opens with an instruction, as exercises and learning
// objectives do.
func speaksToReader(prompt string) bool {
	p := description(prompt)
	words := strings.FieldsFunc(strings.ToLower(p), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' })
	if len(words) == 0 {
		return false
	}
	if instructionOpeners[words[0]] {
		return true
	}
	for _, w := range words {
		if readerWords[strings.ReplaceAll(w, "’", "'")] {
			return true
		}
	}
	return false
}

// answerWordInPrompt reports whether a modifier of a several-word answer
// shows in the prompt: "... monitor baroreceptor firing ... called the
// _____" for "baroreceptor reflex". The head noun may: it names the kind
// the question asks for.
func answerWordInPrompt(q studyloop.Question, stem stemmer, tags sentenceTagger) bool {
	words := strings.Fields(q.Answer)
	if len(words) < 2 || len(words) > 8 || q.Type == studyloop.QuestionShortAnswer {
		return false // a definition may repeat its term's head as its genus
	}
	prompt := map[string]bool{}
	for _, st := range contentStems(strings.ReplaceAll(q.Prompt, Blank, " "), stem) {
		prompt[st] = true
	}
	var promptWords []string
	for i, w := range words {
		w = strings.Trim(w, ".,;:()'\"")
		if i == len(words)-1 {
			continue // the head names the kind ("the two DNA strands ... the _____" for "antisense strand")
		}
		if strings.ContainsAny(w, "0123456789") {
			if promptWords == nil {
				promptWords = strings.FieldsFunc(strings.ToLower(q.Prompt), func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(".,;:()\"", r) })
			}
			if slices.Contains(promptWords, strings.ToLower(w)) {
				return true // "the 5’ end" beside "5’ cap", "70S" beside "70S ribosome", "near the end of G1" beside "G1 checkpoint"
			}
		}
		if isAcronym(w) {
			continue // "RNA" is every sentence's
		}
		w = strings.ToLower(w)
		if symbol(w) && strings.Contains(q.Prompt, w) {
			return true // "sigma (σ)" beside "σ factor"
		}
		if parts := strings.Split(w, "-"); len(parts) > 1 && strings.ContainsAny(w, "0123456789") && !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(q.Prompt, p) }) {
			return true // "68%, … 95% … and 99.7%" spell out the "68-95-99.7 rule"
		}
		if utf8.RuneCountInString(w) < 4 || isStopWord(w) {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(words[i]); unicode.IsUpper(r) && namedInPrompt(q.Prompt, w) {
			return true // "named for Henry Walter Bates" beside "Batesian mimicry"
		}
		if st := stem(w); st != "" && prompt[st] && (lexicon.Default().Count(w) < commonWordCount || modifiesInPrompt(q.Prompt, st, stem, tags)) {
			return true // "Baroreceptor firing sets off the _____", "… usually shortened to specific heat" for "specific heat capacity"
		}
	}
	return false
}

// namedInPrompt reports whether a prompt that says whom something is
// named for ("named for Henry Walter Bates") holds a capitalised word of
// four letters or more that begins the answer's word w ("batesian").
func namedInPrompt(prompt, w string) bool {
	if !strings.Contains(prompt, "named ") && !strings.Contains(prompt, "honor") {
		return false // only where the prompt says whose name it is
	}
	for _, p := range strings.FieldsFunc(prompt, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if r, _ := utf8.DecodeRuneInString(p); unicode.IsUpper(r) && len(p) >= 4 && len(p) < len(w) && strings.HasPrefix(w, strings.ToLower(p)) {
			return true
		}
	}
	return false
}

// modifiesInPrompt reports whether a word of stem st stands in prompt
// before a noun, naming a kind of thing as the answer's word does: "the
// conjugate base of H₂O" beside "conjugate acid", "the Committee for
// Industrial Organization" beside "Congress of Industrial Organizations".
// Standing alone ("the quantity of heat") it does not.
func modifiesInPrompt(prompt, st string, stem stemmer, tags sentenceTagger) bool {
	toks := tags(strings.ReplaceAll(prompt, Blank, "it"))
	for i := 0; i+1 < len(toks); i++ {
		if next := toks[i+1].Tag; strings.HasPrefix(next, "NN") && stem(strings.ToLower(toks[i].Text)) == st {
			return true
		}
	}
	return false
}

// commonWordCount is how often a word must have been seen in general
// English (lexicon Count) for its use in a prompt to give away no term it
// modifies: "the quantity of heat … is its _____" does not lead to "heat
// capacity" as "baroreceptor" leads to "baroreceptor reflex".
const commonWordCount = 20

// symbol reports whether w is one letter outside the Latin alphabet, as
// science writes its quantities: "σ", "μ".
func symbol(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w) && r > unicode.MaxLatin1 && unicode.IsLetter(r)
}

// guessable reports an answer a student could give without knowing the
// material: a function word or quantifier ("none", "all"), or a century or
// year the prompt's own date gives away.
func guessable(q studyloop.Question) bool {
	if q.Type != studyloop.QuestionCloze && q.Type != studyloop.QuestionMultipleChoice {
		return false // a table's "He" or "0" is what its row says
	}
	a := strings.ToLower(strings.TrimSpace(q.Answer))
	if isStopWord(a) || quantifierAnswers[a] || unitWords[a] || decades[strings.TrimPrefix(a, "the ")] {
		return true // "the eighties" of which century?
	}
	if centuryAnswer.MatchString(a) && yearInPrompt.MatchString(q.Prompt) {
		return true
	}
	return cognateInPrompt(q) || identifierInPrompt(q)
}

// identifierInPrompt reports whether the answer is a code identifier
// ("AsyncClient", "retry_on_status") one of whose parts of four letters or
// more opens a word of the prompt ("async code", "retryable"): the name
// is read off the prompt.
func identifierInPrompt(q studyloop.Question) bool {
	a := strings.TrimSpace(q.Answer)
	if strings.ContainsAny(a, " ") || !strings.ContainsAny(a, "_.") && !interiorCapital(a) {
		return false
	}
	var parts []string
	start := 0
	for i, r := range a {
		if r == '_' || r == '.' || r == '-' || i > start && unicode.IsUpper(r) {
			parts = append(parts, a[start:i])
			start = i
			if r == '_' || r == '.' || r == '-' {
				start = i + 1
			}
		}
	}
	parts = append(parts, a[start:])
	prompt := strings.FieldsFunc(strings.ToLower(strings.ReplaceAll(q.Prompt, Blank, " ")), func(r rune) bool { return !unicode.IsLetter(r) })
	for _, part := range parts {
		part = strings.ToLower(part)
		if len(part) < 4 || isStopWord(part) {
			continue
		}
		for _, w := range prompt {
			if strings.HasPrefix(w, part) {
				return true
			}
		}
	}
	return false
}

// interiorCapital reports whether s has a capital letter after its first
// letter, as CamelCase names do.
func interiorCapital(s string) bool {
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// cognateInPrompt reports whether a word of the prompt shares a long run of
// letters with a one-word answer ("hyperthermia ... is called _____" for
// "hypothermia", "ventricular" for "ventricle"): the student matches
// spellings, not ideas.
func cognateInPrompt(q studyloop.Question) bool {
	words := strings.Fields(strings.ToLower(q.Answer))
	if len(words) == 0 {
		return false
	}
	if bracketCognate(q.Prompt, words) || prefixInPrompt(q.Prompt, words) {
		return true
	}
	prompt := strings.FieldsFunc(strings.ToLower(strings.ReplaceAll(q.Prompt, Blank, " ")), func(r rune) bool { return !unicode.IsLetter(r) })
	if len(words) == 1 {
		answer := []rune(words[0])
		for _, w := range prompt {
			rw := []rune(w)
			if sameRoot(answer, rw) {
				return true
			}
			if run := commonRun(answer, rw); len(answer) >= 6 && len(rw) >= 5 && run >= 6 && !(commonSuffix(answer, rw) == run && !opposedPrefixes(words[0], w)) {
				return true
			}
		}
		return false
	}
	// A modifier of the answer inside a longer word of the prompt:
	// "parasympathetic stimulation" beside "sympathetic".
	for _, m := range words[:len(words)-1] {
		rm := []rune(strings.Trim(m, ".,;:()'\""))
		for _, w := range prompt {
			if rw := []rune(w); len(rm) >= 6 && len(rw) >= 6 && len(rw) != len(rm) && commonRun(rm, rw) >= min(len(rm), len(rw)) {
				return true
			}
		}
	}
	return false
}

// prefixInPrompt reports whether a word of the prompt begins with a word
// of the answer of four letters or more that general English does not
// use: "TATAAT" gives "TATA box" away.
func prefixInPrompt(prompt string, answer []string) bool {
	lex := lexicon.Default()
	prompt = strings.ToLower(strings.ReplaceAll(prompt, Blank, " "))
	for _, w := range answer {
		w = strings.Trim(w, ".,;:()'\"")
		if utf8.RuneCountInString(w) < 4 || lex.Senses(w) > 0 {
			continue
		}
		for _, p := range strings.FieldsFunc(prompt, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if len(p) > len(w) && strings.HasPrefix(p, w) {
				return true
			}
		}
	}
	return false
}

// bracketCognate reports whether an aside in brackets spells out a word
// of the answer: "(ex-on signifies that they are expressed)" beside
// "exons", "(hypercalcemia)" beside "calcium". A word of the aside holds
// the first four letters of an answer word of five or more.
func bracketCognate(prompt string, answer []string) bool {
	if at := strings.Index(prompt, Blank+" ("); at >= 0 {
		// An aside right after the blank abbreviates the answer
		// ("carrying _____ (fMet-tRNA)" for "N-formyl-methionine"): three
		// letters of a word of the answer are enough there.
		aside, _, _ := strings.Cut(strings.ToLower(prompt[at+len(Blank)+2:]), ")")
		for _, w := range strings.FieldsFunc(strings.ToLower(strings.Join(answer, " ")), func(r rune) bool { return r == ' ' || r == '-' }) {
			if r := []rune(w); len(r) >= 5 && strings.Contains(aside, string(r[:3])) {
				return true
			}
		}
	}
	for _, aside := range bracketAside.FindAllString(strings.ToLower(prompt), -1) {
		aside = strings.ReplaceAll(aside, "-", "")
		for _, w := range answer {
			if r := []rune(strings.Trim(w, ".,;:()'\"")); len(r) >= 5 && strings.Contains(aside, string(r[:4])) {
				return true
			}
		}
	}
	return false
}

// bracketAside matches an aside in round brackets.
var bracketAside = regexp.MustCompile(`\([^()]*\)`)

// sameRoot reports whether two words differ only in a short ending:
// "rulers" beside "ruled" share "rule".
func sameRoot(a, b []rune) bool {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	shorter := min(len(a), len(b))
	return n >= 4 && shorter <= n+2 && len(a) != len(b) && max(len(a), len(b)) <= n+3
}

// commonRun is the length of the longest run of letters a and b share.
// commonSuffix is the length of the longest ending a and b share.
func commonSuffix(a, b []rune) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// opposedPrefixes reports whether a and b open with prefixes of opposite
// sense ("hypothermia", "hyperthermia"; "exocytosis", "endocytosis"):
// what they share, one gives the other away by contrast. Words that share
// only a learned ending ("phagocytosis", "endocytosis") do not.
func opposedPrefixes(a, b string) bool {
	for _, p := range prefixOpposites {
		if strings.HasPrefix(a, p[0]) && strings.HasPrefix(b, p[1]) || strings.HasPrefix(a, p[1]) && strings.HasPrefix(b, p[0]) {
			return true
		}
	}
	return false
}

// prefixOpposites are pairs of prefixes of opposite sense.
var prefixOpposites = [][2]string{{"hypo", "hyper"}, {"endo", "exo"}, {"pre", "post"}, {"sub", "super"}, {"inter", "intra"},
	{"micro", "macro"}, {"homo", "hetero"}, {"mono", "poly"}, {"in", "ex"}, {"im", "ex"}, {"over", "under"}, {"anti", "pro"}}

func commonRun(a, b []rune) int {
	best := 0
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
				best = max(best, cur[j])
			} else {
				cur[j] = 0
			}
		}
		prev, cur = cur, prev
	}
	return best
}

var (
	decades           = wordSet(`twenties thirties forties fifties sixties seventies eighties nineties`)
	quantifierAnswers = wordSet(`none all some many most few several both either neither each every any nothing everything something always never`)
	// unitWords are units of measure: "100 _____" for "ms" asks for a
	// spelling, not a fact, and "milliseconds" would be marked wrong.
	unitWords = wordSet(`ms s sec min h hr mL ml l dl mg g kg m cm mm km nm µm hz khz mhz j kj kcal cal w kw n pa hpa kpa mmhg atm k °c °f mol v mv a ma bpm
		millisecond milliseconds second seconds minute minutes hour hours litre litres liter liters millilitre millilitres milliliter milliliters
		gram grams kilogram kilograms metre metres meter meters kilometre kilometres kilometer kilometers joule joules watt watts
		newton newtons pascal pascals kelvin degrees volt volts ampere amperes`)
	centuryAnswer = regexp.MustCompile(`(?i)\b(century|centuries|\d{3,4}s?)\b`)
	yearInPrompt  = regexp.MustCompile(`\b1\d{3}\b|\b20\d{2}\b`)
)

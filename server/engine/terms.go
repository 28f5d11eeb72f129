package engine

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/studyloop/studyloop/server/lexicon"
)

// Termhood: what of a text is worth asking about. A term is what the
// author marked (bold, a defined term) or what the text keeps returning to
// and general English does not use every day; a generic phrase ("specific
// part", "early difficulties") is neither, and makes a weak blank.

// generalCount is the SemCor count at and above which a word is general
// English; generalSenses the number of WordNet senses that makes it so.
const (
	generalCount  = 15
	generalSenses = 7
)

// genericHeads are nouns that name no particular thing of any subject:
// a phrase ending in one is generic unless the author marked it.
var genericHeads = wordSet(`part parts role roles way ways thing things kind kinds type types sort sorts number numbers
	amount amounts level levels difficulty difficulties result results effect effects factor factors aspect aspects
	area areas form forms case cases fact facts problem problems idea ideas point points matter matters manner means
	degree extent feature features element elements item items issue issues quality qualities side sides range instance
	example examples reason reasons purpose purposes use uses time times place places period periods deal lot lots
	member members group groups set sets piece pieces portion portions half whole rest majority minority variety
	method methods approach approaches question questions answer answers step steps stage stages condition conditions
	equation equations formula formulas figure figures table tables diagram diagrams graph graphs
	fraction fractions proportion proportions percentage percentages share shares
	situation situations circumstance circumstances state states change changes difference differences relation relations
	character characters nature body bodies person persons people man men woman women one ones something anything everything
	hundreds thousands millions billions trillions dozens scores heaps loads tons plenty speck specks bit bits
	process processes end ends beginning subject subjects unit units interest interests calculation calculations
	quantity quantities hand hands`)

// genericModifiers are adjectives that add no subject matter: a phrase
// made of them and a general noun is generic.
var genericModifiers = wordSet(`important specific various certain major main key different particular general large
	small great little big early late earlier later previous new old whole possible necessary real common simple
	similar single special significant striking immediate entire full certain own other same such many much more
	most few several good bad best better high low higher lower long short first second third last next final
	basic overall total actual present current usual normal typical chief principal primary essential relative
	fresh recent slight average further additional initial various numerous extra some any greater lesser larger smaller
	fourth fifth sixth seventh eighth ninth tenth remaining leftover rest two three four five six seven eight nine ten
	twelve hundred thousand`)

// humanity are the words for people at large: a blank of them asks
// nothing of the subject ("A vast proportion of _____").
var humanity = map[string]bool{"mankind": true, "humankind": true, "humanity": true, "human beings": true, "humans": true,
	"men": true, "man": true, "people": true, "persons": true, "individuals": true, "society": true, "human affairs": true}

// personRecurrence is how often a study must name a kind of person
// ("abolitionists") for it to be a term of the study rather than people
// mentioned in passing ("inventors").
const personRecurrence = 8

// quantityWords say how much of a thing, not which: a blank or bold term
// opening with one leaves it out ("**extra greenhouse absorbers**" asks
// "greenhouse absorbers"). Unlike genericModifiers, they never begin a
// term's name ("normal distribution", "small subunit").
var quantityWords = wordSet(`extra some any more less greater lesser larger smaller further additional several many much`)

// isGeneralWord reports whether lower is a word of general English.
func isGeneralWord(lex *lexicon.Lexicon, lower string) bool {
	return isStopWord(lower) || lex.Count(lower) >= generalCount || lex.Senses(lower) >= generalSenses
}

// genericPhrase reports whether phrase (a noun phrase of the text) names
// nothing of the subject: it ends in a generic head noun, or every word is
// general English with a generic modifier, or it is one general word the
// study uses only once or twice.
func genericPhrase(lex *lexicon.Lexicon, phrase string, recurs int) bool {
	words := strings.Fields(strings.ToLower(phrase))
	if len(words) == 0 {
		return true
	}
	head := strings.Trim(words[len(words)-1], ".,;:'\"")
	if genericHeads[head] || humanity[strings.Join(words, " ")] {
		return true
	}
	if recurs < personRecurrence && phrase == strings.ToLower(phrase) && lex.IsPerson(head) && lex.Senses(head) <= 3 {
		return true // "inventors", "physicists": people the text mentions in passing
	}
	general, modifiers := 0, 0
	for _, w := range words {
		w = strings.Trim(w, ".,;:'\"")
		if isGeneralWord(lex, w) {
			general++
		}
		if genericModifiers[w] {
			modifiers++
		}
	}
	if general < len(words) {
		return false
	}
	if modifiers > 0 {
		return true
	}
	if len(words) == 1 {
		return true // one everyday word ("organism", "stimulus") is a term only where the author marks it
	}
	return recurs < 3
}

// headNoun is the head of a noun phrase, lower-cased: its last word, or
// the word before "of" ("elasticity" of "price elasticity of demand").
func headNoun(phrase string) string {
	words := strings.Fields(strings.ToLower(phrase))
	if len(words) == 0 {
		return ""
	}
	last := len(words) - 1
	if i := slices.Index(words, "of"); i > 0 && i < last {
		last = i - 1
	}
	return strings.Trim(words[last], ".,;:'\"()")
}

// A kin is how a distractor is of the answer's kind, so that it is a
// plausible wrong choice.
type kin int

const (
	notKin    kin = iota
	headKin       // the two share a head noun: "amino acids", "nucleic acids"
	familyKin     // WordNet has them (or their heads) as kinds of one thing: "ribosome", "mitochondrion"
)

// kinship tells how distractor is of answer's kind, if it is; both must
// agree in number to fit the same slot.
func kinship(lex *lexicon.Lexicon, answer, distractor string, stem stemmer) kin {
	ha, hd := headNoun(answer), headNoun(distractor)
	if ha == "" || hd == "" || plural(ha) != plural(hd) {
		return notKin
	}
	if stem(ha) != "" && stem(ha) == stem(hd) {
		return headKin
	}
	// WordNet's kinship is trusted for one-word terms only: a phrase's
	// rivals share its head ("labor supply", "labor demand").
	if !strings.Contains(strings.TrimSpace(answer), " ") && (lex.Relate(answer, distractor) == lexicon.Siblings || lex.Relate(ha, hd) == lexicon.Siblings && !genericHeads[ha]) {
		return familyKin
	}
	return notKin
}

// plural guesses from its spelling whether an English noun is plural, so
// that every choice fits the slot ("the eighteenth century", never "the
// eighteenth centuries").
func plural(noun string) bool {
	if !strings.HasSuffix(noun, "s") {
		return noun == "data" || noun == "people" || noun == "children" || strings.HasSuffix(noun, "men") || strings.HasSuffix(noun, "ia") && len(noun) > 6
	}
	for _, end := range []string{"ss", "us", "is", "sis", "ics", "ous"} {
		if strings.HasSuffix(noun, end) {
			return false
		}
	}
	return true
}

// tooClose reports whether distractor could also be right: WordNet has it
// as a synonym of the answer, or one as a kind of the other, or the two
// sort one head noun along different lines (otherAxis).
func tooClose(lex *lexicon.Lexicon, answer, distractor string) bool {
	switch lex.Relate(answer, distractor) {
	case lexicon.Synonyms, lexicon.Nested:
		return true
	}
	return otherAxis(lex, answer, distractor)
}

// otherAxis reports whether two phrases of one head noun divide its kind
// along different lines, so that one thing can be both: a theory's kind
// beside a property's ("Brønsted-Lowry acid" beside "weak acid": a weak
// acid donates protons too), or a substance WordNet lists as a kind of
// the head beside a class the text defines ("acetic acid" is a weak acid).
// Kinds along one line ("weak acid", "strong acid"; "Arrhenius acid",
// "Lewis acid") stay rivals.
func otherAxis(lex *lexicon.Lexicon, x, y string) bool {
	if !strings.Contains(x, " ") || !strings.Contains(y, " ") || headNoun(x) != headNoun(y) {
		return false
	}
	return namedKind(lex, x) != namedKind(lex, y)
}

// namedKind reports whether a phrase names its kind after a person or a
// theory: its first word is a name ("Arrhenius acid", "Brønsted-Lowry
// acid"), not a capitalised common word opening a sentence ("Fixed costs")
// nor an acronym ("DNA polymerase").
func namedKind(lex *lexicon.Lexicon, phrase string) bool {
	first, _, _ := strings.Cut(phrase, " ")
	r, size := utf8.DecodeRuneInString(first)
	if !unicode.IsUpper(r) {
		return false
	}
	rest := first[size:]
	mixed := strings.IndexFunc(rest, unicode.IsUpper) >= 0 && strings.IndexFunc(rest, unicode.IsLower) >= 0
	return mixed || lex.IsPerson(first) // not an acronym: "DNA polymerase"
}

// noteLabels open a note's line without naming a term: "def: ...",
// "ex: ...", "trick: ...".
var noteLabels = wordSet(`def defn definition defs ex eg e.g example examples note notes nb n.b tip tips trick tricks fix think
	why how what key important warning remember recall idea summary todo ps q a ans answer hint hints aside side btw fyi
	reminder careful caution watch see cf vs i.e ie notation vocab terms setup context`)

// termPair reports whether a plain "term: definition" list item defines a
// term: the term is no note label and no worked example, and the
// definition is mostly words, not a formula or a worked sum.
func (a *asker) termPair(f fact) bool {
	term := strings.ToLower(strings.Trim(f.term, " .:"))
	if noteLabels[term] || noteLabels[strings.TrimSuffix(term, ".")] || strings.ContainsAny(term, "=_<>0123456789") {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(term); !unicode.IsLetter(r) || numberWords[firstWord(term)] > 0 {
		return false // "two parts" labels a worked example, as a number anywhere does ("deck of 52 cards")
	}
	letters, other := 0, 0
	for _, r := range f.def {
		switch {
		case unicode.IsLetter(r):
			letters++
		case !unicode.IsSpace(r):
			other++
		}
	}
	if strings.ContainsAny(f.def, "=:") || strings.Contains(f.def, "->") || letters < 3*other {
		// A formula, or a label list ("human labels: fashion / not").
		return false
	}
	return len(strings.Fields(f.def)) >= 3 && !strings.HasPrefix(f.def, "See ") && !a.shorthand(term)
}

// shorthand reports whether a note's term cuts a word short: "joint
// prob", where the study also writes "probability". A student would have
// to guess which form the answer wants.
func (a *asker) shorthand(term string) bool {
	for _, w := range strings.Fields(term) {
		if n := utf8.RuneCountInString(w); n < 3 || n > 6 || a.lex.Senses(w) > 0 || a.lex.Count(w) > 0 {
			continue
		}
		lower := a.lowerText()
		for at := strings.Index(lower, w); at >= 0; {
			end := at + len(w)
			if (at == 0 || !isLetterOrDigit(rune(lower[at-1]))) && end+2 < len(lower) && isLetterOrDigit(rune(lower[end])) && isLetterOrDigit(rune(lower[end+1])) && isLetterOrDigit(rune(lower[end+2])) {
				return true
			}
			next := strings.Index(lower[end:], w)
			if next < 0 {
				break
			}
			at = end + next
		}
	}
	return false
}

// plainCell reports whether a table cell makes a question a student can
// answer in a few words: the row's term and the column's header are short
// names (no parenthetical asides), and the cell holds a short value, not a
// sentence of its own.
func plainCell(f fact) bool {
	short := func(s string, words int) bool {
		return !strings.ContainsAny(s, "()[];") && len(strings.Fields(s)) <= words
	}
	if !short(f.term, 4) || !short(f.attr, 4) || len(strings.Fields(f.def)) > 8 || strings.ContainsAny(f.def, "=+") {
		return false
	}
	if utf8.RuneCountInString(f.term) < 2 || utf8.RuneCountInString(f.attr) < 2 || summaryRow[strings.ToLower(f.term)] {
		return false // a Punnett square's "y" by "Y", a "Total" row: no named thing
	}
	if exampleColumn.MatchString(f.attr) {
		return false // "C–H (0.35)" is one example of many a student could give
	}
	if participleColumn(f.attr) && !yearCell.MatchString(strings.TrimSpace(f.def)) {
		return false // a "Ratified" column asks "In what year …?" of years only
	}
	// A column headed by a plural ("bacteria", "eukaryotes") holds what
	// each group does, not an attribute of the row's term.
	head, _, _ := strings.Cut(strings.ToLower(f.attr), " of ") // "number of moons" is a number
	return !plural(headNoun(head))
}

// summaryRow are the names of a table's rows that sum up the others.
var summaryRow = wordSet(`total totals sum average mean overall all`)

// yearCell matches a cell that holds a year.
var yearCell = regexp.MustCompile(`^(1[0-9]{3}|20[0-9]{2})$`)

// exampleColumn matches the header of a column of examples.
var exampleColumn = regexp.MustCompile(`(?i)^(examples?|for example|e\.g\.?|instances?|sample)$`)

func cellKey(f fact) string { return strings.ToLower(f.term) + "\x00" + strings.ToLower(f.attr) }

// ambiguousCells finds the row and column pairs that two tables fill with
// different values ("Calcium" under "Effect" in a table of what raises the
// heart rate and in one of what lowers it): asked alone, either value is
// wrong half the time.
func ambiguousCells(units []*unit) map[string]bool {
	seen := map[string]string{}
	out := map[string]bool{}
	for _, u := range units {
		for _, f := range u.facts {
			if f.kind != factCell {
				continue
			}
			k := cellKey(f)
			if v, ok := seen[k]; ok && !strings.EqualFold(v, f.def) {
				out[k] = true
			}
			seen[k] = f.def
		}
	}
	return out
}

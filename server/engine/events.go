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

// People and dates, read off one sentence each like the other stated
// questions:
//   - "In 1825 the first railway was opened." asks "In what year was the
//     first railway opened?";
//   - "Faraday discovered electromagnetic induction." asks "Who discovered
//     electromagnetic induction?", when WordNet knows the name as a
//     person's and never as a place's.

// yearToken is a year a history would date an event by.
var yearToken = regexp.MustCompile(`^(1[0-9]{3}|20[0-9]{2})$`)

// A datedEvent is a sentence's main clause dated by one "in <year>",
// without the date: "the first railway was opened" of "In 1825 the first
// railway was opened, and …".
type datedEvent struct {
	s      *sentence
	clause []token.Token // subject, verb and the rest of the first clause
	verb   int           // index of the past-tense verb in clause
	year   string
}

// text is the event as a clause of its own, without the date.
func (e datedEvent) text() string {
	return upperFirst(tidyPrompt(joinTokens(e.s.text, e.clause)))
}

// findDatedEvent reads the dated event of s, if s states one.
func findDatedEvent(s *sentence) (datedEvent, bool) {
	toks, ok := plainStatement(s)
	if !ok {
		return datedEvent{}, false
	}
	year := -1
	for i, t := range toks {
		if yearToken.MatchString(t.Text) || t.Tag == "CD" && len(t.Text) == 4 {
			if year >= 0 || i == 0 || s.lower[i-1] != "in" || !yearToken.MatchString(t.Text) {
				return datedEvent{}, false // two dates, or one not "in <year>"
			}
			year = i
		}
	}
	if year < 0 {
		return datedEvent{}, false
	}
	for _, t := range toks[:year] {
		if t.Tag == "WDT" || t.Tag == "WP" {
			return datedEvent{}, false // "… farms, only one in ten of which had electricity in 1935": the year is the relative clause's
		}
	}
	// The clause without "in <year>" and the commas that set it off.
	var clause []token.Token
	for i, t := range toks {
		switch {
		case i == year-1 || i == year:
		case i == year+1 && t.Text == "," && (year == 1 || toks[year-2].Text == ","):
		case i == year-2 && t.Text == ",":
		default:
			clause = append(clause, t)
		}
	}
	verb := pastVerb(clause)
	if verb < 1 || !subjectOnly(clause[:verb]) {
		return datedEvent{}, false
	}
	if at := toks[year].Start; at > clause[0].Start && at < clause[verb].Start && slices.ContainsFunc(clause[:verb], func(t token.Token) bool { return t.Text == "," }) {
		return datedEvent{}, false // "Bonaparte, born on Corsica in 1769, gained …": the year is the aside's
	}
	whole := clause
	if clause = firstClause(clause); verb+1 >= len(clause) || len(clause) < len(whole) && toks[year].Start > whole[len(clause)].Start {
		return datedEvent{}, false // "Planters wanted land, and the gold found in 1829 …": the year is the next clause's
	}
	return datedEvent{s: s, clause: clause, verb: verb, year: toks[year].Text}, true
}

// trailingParticiple matches a question that ends in a participle after
// a comma, the year having dated that participle.
var trailingParticiple = regexp.MustCompile(`, \w+(?:ed|en)\?$`)

// yearQuestion asks "In what year …?" of a dated event: "was" or "were"
// moves in front of the subject, and a past-tense verb becomes "did" and
// its stem.
func yearQuestion(s *sentence) (studyloop.Question, bool) {
	e, ok := findDatedEvent(s)
	if !ok {
		return studyloop.Question{}, false
	}
	clause, verb := e.clause, e.verb
	if bareDefinite(clause) {
		return studyloop.Question{}, false // "In what year did the justices first hear the case?": which case?
	}
	subject := joinTokens(s.text, clause[:verb])
	if !namedInside(s.block.p.text, firstWord(subject)) {
		subject = lowerFirstUnlessName(subject, clause[0].Tag)
	}
	v := strings.ToLower(clause[verb].Text)
	rest := joinTokens(s.text, clause[verb+1:])
	var prompt string
	switch {
	case v == "was" || v == "were":
		if clause[verb+1].Tag != "VBN" && clause[verb+1].Tag != "RB" {
			return studyloop.Question{}, false // "was a city": no event
		}
		prompt = "In what year " + v + " " + subject + " " + rest + "?"
	default:
		base, ok := lexicon.Default().VerbBase(v)
		if !ok || base == "be" || base == "have" {
			return studyloop.Question{}, false
		}
		prompt = "In what year did " + subject + " " + base + " " + rest + "?"
		if trailingParticiple.MatchString(prompt) {
			return studyloop.Question{}, false // "… with the Seventeenth Amendment, ratified?": the year was the participle's
		}
	}
	return statedQuestion(prompt, e.year, s)
}

// orderQuestion asks which of three or four dated events of u came
// first, when u dates that many in different years.
func orderQuestion(u *unit) (studyloop.Question, bool) {
	var events []datedEvent
	years := map[string]bool{}
	for _, s := range u.sentences() {
		e, ok := findDatedEvent(s)
		if !ok || years[e.year] || len(e.clause) > maxEventWords || strings.ContainsAny(e.text(), "\"“”()[];") {
			continue
		}
		years[e.year] = true
		events = append(events, e)
		if len(events) == 4 {
			break
		}
	}
	if len(events) < 3 {
		return studyloop.Question{}, false
	}
	first := events[0]
	var others []string
	for _, e := range events[1:] {
		if e.year < first.year {
			e, first = first, e
		}
		others = append(others, e.text())
	}
	prompt := "Which of the events below happened first?"
	return studyloop.Question{
		Type:    studyloop.QuestionMultipleChoice,
		Prompt:  prompt,
		Answer:  first.text(),
		Choices: shuffleIn(first.text(), first.text(), others), // every order question has one prompt: the answer seeds the order
		Source:  first.s.span(),
	}, true
}

// eventOrder is u's order question, if it has one.
func eventOrder(u *unit) []studyloop.Question {
	if q, ok := orderQuestion(u); ok {
		return []studyloop.Question{q}
	}
	return nil
}

// maxEventWords bounds the events offered as choices, so that each reads
// at a glance.
const maxEventWords = 16

// vagueDeed reports a deed that does not tell one person's act from
// another's: denied ("did not oppose big business"), a share of something
// ("shared many of Adams's views"), or done to a thing named by a bare
// "the" and one noun, which only the sentence before identifies ("took
// the suit as a personal insult", "before the fighting stopped").
func vagueDeed(deed []token.Token) bool {
	for i, t := range deed {
		switch w := strings.ToLower(t.Text); {
		case w == "not" || w == "never" || w == "n't":
			return true
		case i == 0 && (w == "came" || w == "was") && i+1 < len(deed) && (deed[i+1].Text == "from" || deed[i+1].Text == "born"):
			return true // "came from a wealthy New York family": a biography's detail
		case (w == "many" || w == "some" || w == "most" || w == "much") && i+1 < len(deed) && deed[i+1].Text == "of":
			return true
		}
	}
	return bareDefinite(deed)
}

// bareDefinite reports whether toks name a thing by "the" and one common
// noun, which only the sentence before identifies: "took the suit as a
// personal insult", "before the fighting stopped". A noun a history has
// one of ("the states") names it alone.
func bareDefinite(toks []token.Token) bool {
	for i, t := range toks {
		if !strings.EqualFold(t.Text, "the") || i+1 >= len(toks) || !isCommonNoun(toks[i+1].Tag) || uniqueNouns[strings.ToLower(toks[i+1].Text)] {
			continue
		}
		if i+2 == len(toks) {
			return true
		}
		if next := toks[i+2]; !isCommonNoun(next.Tag) && next.Tag != "NNP" && next.Tag != "POS" && next.Text != "of" {
			return true
		}
	}
	return false
}

// uniqueNouns name with "the" alone what a history has one of: "sent
// the amendment to the states".
var uniqueNouns = wordSet(`states nation country government public people world economy union colonies constitution south north west east`)

// isCommonNoun reports a common noun's tag, or a gerund's ("the
// fighting").
func isCommonNoun(tag string) bool { return tag == "NN" || tag == "NNS" || tag == "VBG" }

// personTitles may open a person's name.
var personTitles = wordSet(`king queen president general sir lord lady emperor empress pope saint st. dr. dr professor prince princess duke senator governor admiral captain`)

// whoQuestion asks "Who …?" of a sentence that opens with a person's name
// followed by its verb.
func whoQuestion(s *sentence) (studyloop.Question, bool) {
	toks, ok := plainStatement(s)
	if !ok || strings.ContainsAny(s.text, ":") {
		return studyloop.Question{}, false
	}
	n := 0
	for n < len(toks) && n < 4 && (toks[n].Tag == "NNP" || n == 0 && personTitles[s.lower[0]]) && !startsLower(toks[n].Text) {
		n++
	}
	if n == 0 || n >= len(toks) {
		return studyloop.Question{}, false
	}
	if toks[n].Tag != "VBD" || beForms[s.lower[n]] || s.lower[n] == "had" {
		return studyloop.Question{}, false // "Stephenson’s Rocket", "Watt and Boulton", "Justice is…", or a description ("Pavlov was a physiologist")
	}
	name := joinTokens(s.text, toks[:n])
	if !knownPerson(name, personTitles[s.lower[0]]) {
		return studyloop.Question{}, false
	}
	rest := firstClause(toks[n:])
	if len(rest) < 4 || len(rest) > 30 {
		return studyloop.Question{}, false
	}
	if vagueDeed(rest) {
		return studyloop.Question{}, false
	}
	surname := toks[n-1].Text
	for _, t := range rest {
		if t.Text == surname {
			return studyloop.Question{}, false // the answer in the prompt
		}
		if possessives[strings.ToLower(t.Text)] {
			return studyloop.Question{}, false // "Who finished his term with little influence?" says too little of whom
		}
	}
	return statedQuestion("Who "+joinTokens(s.text, rest)+"?", name, s)
}

// possessives are the pronouns by which a Who-question would describe
// its answer through itself.
var possessives = wordSet(`his her their`)

// knownPerson reports whether name is a person's and no place's in
// WordNet, as a whole or by its last word ("James Watt", "Faraday"). A
// single word that is also an everyday word ("Mill") or an adjective
// ("Galilean") is not trusted as a name.
func knownPerson(name string, titled bool) bool {
	lex := lexicon.Default()
	words := strings.Fields(name)
	if titled && len(words) >= 2 {
		return true
	}
	last := words[len(words)-1]
	if len(words) == 1 && (!lex.NounOnly(last) || isGeneralWord(lex, strings.ToLower(last))) {
		return false
	}
	if singular, ok := strings.CutSuffix(last, "s"); ok && len(words) == 1 && lex.IsPerson(singular) && lex.Senses(strings.ToLower(singular)) > 0 {
		return false // "Astronauts", "Engineers": people of a kind, no one's name ("Samuel Adams" has two words)
	}
	switch {
	case lex.IsPerson(name) && !lex.IsPlace(name):
		return true
	case lex.IsPlace(last) || !lex.IsPerson(last):
		return false
	}
	return len(words) >= 2
}

// plainStatement returns a sentence's tokens without its full stop when it
// is one plain statement: tagged, ending in a full stop, no question, and
// nothing that leans on an earlier sentence.
func plainStatement(s *sentence) ([]token.Token, bool) {
	if !s.tagged || !endsSentence(s.text) || strings.ContainsAny(s.text, "?\n") || s.hasProblem() {
		return nil, false
	}
	toks := s.toks
	if n := len(toks); n > 0 && toks[n-1].Text == "." {
		toks = toks[:n-1]
	}
	if len(toks) < 5 || len(toks) > 45 {
		return nil, false
	}
	return toks, true
}

// pastVerb is the index of the clause's first past-tense verb, or -1.
func pastVerb(clause []token.Token) int {
	for i, t := range clause {
		switch t.Tag {
		case "VBD":
			return i
		case "VBZ", "VBP", "MD":
			return -1
		}
	}
	return -1
}

// subjectOnly reports whether tokens can be a clause's whole subject: a
// noun phrase naming its thing, with no pronoun and nothing that points
// back ("this", "these", "such").
func subjectOnly(tokens []token.Token) bool {
	if len(tokens) > 12 || len(tokens) > 0 && subordinators[strings.ToLower(tokens[0].Text)] {
		return false // "After Paul Volcker became chairman …, the Fed …": a clause before the main one
	}
	noun := false
	for _, t := range tokens {
		switch {
		case t.Tag == "PRP" || t.Tag == "PRP$" || t.Tag == "WDT" || t.Tag == "WP" || t.Tag == "EX":
			return false
		case t.Text == "," && leadingPhrase[tokens[0].Tag]:
			return false // "To raise revenue, Parliament …": a phrase before the subject
		case pointers[strings.ToLower(t.Text)]:
			return false
		case strings.HasPrefix(t.Tag, "NN"):
			noun = true
		}
	}
	return noun
}

// namedInside reports whether text writes word with its capital inside a
// sentence too, after a lower-case word: then it is a name ("Parliament")
// wherever it stands.
func namedInside(text, word string) bool {
	if word == "" || !unicode.IsUpper([]rune(word)[0]) {
		return false
	}
	for at := strings.Index(text, " "+word); at >= 0; {
		before := strings.TrimRight(text[:at+1], " ")
		if r, _ := utf8.DecodeLastRuneInString(before); unicode.IsLower(r) || r == ',' {
			return true
		}
		next := strings.Index(text[at+1:], " "+word)
		if next < 0 {
			break
		}
		at += 1 + next
	}
	return false
}

// leadingPhrase are the tags of words that open a phrase before a
// sentence's subject: "To raise revenue,", "Seeing the danger,",
// "Meanwhile,", "After the war,".
var leadingPhrase = map[string]bool{"TO": true, "VBG": true, "VBN": true, "RB": true, "IN": true}

// pointers are words that make a subject point back at something said
// before.
var pointers = wordSet(`this these that those such same latter former other another`)

// firstClause cuts tokens where a second clause or predicate begins:
// ", and", ", but", "and made", or an aside about the object: ", which
// placed duties on …".
func firstClause(tokens []token.Token) []token.Token {
	for i := 1; i+1 < len(tokens); i++ {
		if tokens[i].Text == "," && (tokens[i+1].Tag == "CC" || tokens[i+1].Tag == "WDT" || tokens[i+1].Tag == "WP") || clauseBoundary(tokens, i) {
			return tokens[:i]
		}
	}
	return tokens
}

// joinTokens is the text of tokens, spaced as text has them; where words
// were left out between two tokens, one space stands for them.
func joinTokens(text string, tokens []token.Token) string {
	var b strings.Builder
	for i, t := range tokens {
		if i > 0 {
			prev := tokens[i-1]
			switch gap := ""; {
			case prev.End() <= t.Start && t.Start <= len(text):
				gap = text[prev.End():t.Start]
				if strings.TrimSpace(gap) == "" {
					b.WriteString(gap)
					break
				}
				fallthrough // words left out between them
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

// statedQuestion is the short-answer question of prompt and answer from
// s, unless the prompt holds a quotation or a bracket, which a question
// made of part of a sentence may have cut in two.
func statedQuestion(prompt, answer string, s *sentence) (studyloop.Question, bool) {
	prompt = tidyPrompt(prompt)
	if strings.ContainsAny(prompt, "\"“”()[];") || pointsOutside(answer) {
		return studyloop.Question{}, false
	}
	return studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: prompt, Answer: answer, Source: s.span()}, true
}

// pointsOutside reports whether answer holds "this" or "these" before a
// noun it has not named itself: "an enzyme that uses this flow to attach
// phosphate" answers with a flow the question does not show.
func pointsOutside(answer string) bool {
	for _, m := range demonstrative.FindAllStringSubmatchIndex(answer, -1) {
		which, noun := strings.ToLower(answer[m[2]:m[3]]), strings.ToLower(answer[m[4]:m[5]])
		if (which == "this" || which == "these") && !contextFree[noun] && !said(answer[:m[0]], noun) {
			return true
		}
	}
	return false
}

// tidyPrompt closes the gaps that removed words leave: two spaces, a space
// before a comma or question mark, a comma before the question mark.
func tidyPrompt(p string) string {
	p = strings.Join(strings.Fields(p), " ")
	p = strings.ReplaceAll(p, " ,", ",")
	p = strings.ReplaceAll(p, ",?", "?")
	return strings.ReplaceAll(p, " ?", "?")
}

package engine

import (
	"context"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/studyloop/studyloop/server/lexicon"
	"github.com/studyloop/studyloop/server/studyloop"
)

// A textbook sets its key terms in bold where its prose defines them. The
// questions of this file ask for those terms from what the sentence says
// they are, and offer the study's other bold terms of the same kind as
// wrong choices where there are three of them: "What is the term for a
// stimulus that does not naturally elicit a response?" among "neutral
// stimulus", "conditioned stimulus" and "unconditioned stimulus".

// markedTerm is a term the study sets in bold: a candidate wrong choice
// for the questions whose answer is another bold term.
type markedTerm struct {
	text string
	key  string // stemKey of text
	head string // its head noun
	at   int    // where it stands in the source
	// lists are the enumerations of the study that name the term beside
	// others ("acquisition, extinction, spontaneous recovery, and
	// discrimination"): those others are of its kind.
	lists []int
	// recurring is set for a term the study repeats without setting it in
	// bold (addRecurringTerms).
	recurring bool
}

// markedTerms gathers the distinct bold terms of units that name things
// (not bold emphasis), without their bracketed abbreviations, in order.
func markedTerms(units []*unit, lex *lexicon.Lexicon, stem stemmer) []markedTerm {
	var out []markedTerm
	seen := map[string]bool{}
	for _, u := range units {
		for _, b := range u.blocks {
			for _, sp := range b.p.bold {
				t := strings.TrimSpace(abbreviationInBrackets.ReplaceAllString(b.p.text[sp.Start:wordEnd(b.p.text, sp.End)], ""))
				if !boldNounPhrase(lex, t) || headingCase(t) && !strings.Contains(t, "'") {
					continue
				}
				if sentenceStart(b, sp.Start) {
					t = termCase(t, firstTag(b, sp.Start))
				}
				k := stemKey(t, stem)
				if strings.TrimSpace(k) == "" || seen[k] {
					continue
				}
				seen[k] = true
				out = append(out, markedTerm{text: t, key: k, head: headNoun(t), at: b.p.source(sp.Start, sp.End).Start})
			}
		}
	}
	return out
}

// addRecurringTerms adds to a.marks the study's recurring terms of
// several words that it does not set in bold ("price elasticity of
// supply"), after the bold ones: wrong choices of the answer's kind are
// often among them.
func (a *asker) addRecurringTerms(units []*unit) {
	seen := map[string]bool{}
	for _, m := range a.marks {
		seen[m.key] = true
	}
	for _, u := range units {
		for _, p := range u.phrases {
			if !strings.Contains(p.text, " ") || seen[p.stemKey] || !a.isTerm(p) || !a.distractorTerm(p) || !plainWord(p.text) {
				continue
			}
			occ := u.occ[p.key]
			if len(occ) == 0 {
				continue
			}
			t := p.text
			if p.initial {
				t = termCase(t, occ[0].sent.toks[0].Tag)
			}
			seen[p.stemKey] = true
			a.marks = append(a.marks, markedTerm{text: t, key: p.stemKey, head: headNoun(t), at: occ[0].sent.span().Start, recurring: true})
		}
	}
}

// sentenceStart reports whether offset at of b's text opens a sentence.
func sentenceStart(b *block, at int) bool {
	for _, s := range b.sents {
		if s.start == at {
			return true
		}
	}
	return false
}

// firstTag is the part-of-speech tag of the sentence of b that starts at
// offset at, or "" when it was not tagged.
func firstTag(b *block, at int) string {
	for _, s := range b.sents {
		if s.start == at && s.tagged && len(s.toks) > 0 {
			return s.toks[0].Tag
		}
	}
	return ""
}

// termChoices picks three wrong choices for a question whose answer is a
// term of the study: its other bold or recurring terms of the answer's
// kind (ofKind), of its number, after "a" or "an" taking the same
// article, none an alias, a synonym or a kind of it, none standing in the
// prompt, and none offered too often already. The terms nearest the
// question's source come first. It returns nil when the study has fewer
// than three.
func (a *asker) termChoices(q studyloop.Question) []string {
	own := stemKey(q.Answer, a.stem)
	prompt := normalize(q.Prompt)
	head := headNoun(q.Answer)
	headStem, several := a.stem(head), strings.Contains(strings.TrimSpace(q.Answer), " ")
	at, listed := a.markAt[own]
	article := articleBefore(q.Prompt)
	var near []markedTerm
	for _, c := range a.marks {
		if article != "" && firstWord(indefinite(strings.ToLower(c.text))) != article {
			continue // "An _____" takes only what "an" goes with
		}
		// WordNet's kinship counts for one-word answers only; a phrase's
		// kin share its head or an enumeration (ofKind), which is
		// cheaper to rule out first.
		if several && (headStem == "" || a.stem(c.head) != headStem) && (!listed || !sharesList(a.marks[at].lists, c.lists)) {
			continue
		}
		if n, m := utf8.RuneCountInString(c.text), utf8.RuneCountInString(q.Answer); n > 2*m+8 || m > 2*n+8 {
			continue // of a like length, so the answer does not stand out
		}
		if notAThing(a.lex, q.Answer, c.text) {
			continue
		}
		if c.recurring && listed && !a.marks[at].recurring && a.stem(c.head) == headStem && !a.lex.IsNoun(q.Answer) && a.specificKind(c) {
			continue // "acetic acid", a weak acid, beside the class "weak acid"
		}
		if a.offered[answerKey(c.text)] < maxDistractorUses && !a.aliases.same(q.Answer, c.text) &&
			!containsWords(prompt, normalize(c.text)) && a.ofKind(q.Answer, own, c) {
			near = append(near, c)
		}
	}
	sort.SliceStable(near, func(i, j int) bool {
		return abs(near[i].at-q.Source.Start) < abs(near[j].at-q.Source.Start)
	})
	picked := make([]string, 0, 3)
	keys := []string{own}
next:
	for _, c := range near {
		if len(picked) == 3 {
			break
		}
		for _, k := range keys {
			if keysOverlap(k, c.key) {
				continue next
			}
		}
		for _, p := range picked {
			if nearString(p, c.text) || a.aliases.same(p, c.text) {
				continue next
			}
		}
		picked = append(picked, c.text)
		keys = append(keys, c.key)
	}
	if len(picked) < 3 {
		return nil
	}
	return picked
}

// notAThing reports whether a candidate wrong choice for answer names no
// thing of the answer's kind: a heading beside a term in lower case
// ("Calculating Elasticity", "Measuring Blood Pressure"; a law's name in
// capitals, "Boyle's Law", passes), a worked example's title ("Applying
// Charles's Law") or a verb's phrase ("nourish neurons").
func notAThing(lex *lexicon.Lexicon, answer, candidate string) bool {
	return headingCase(candidate) && !headingCase(answer) && !strings.ContainsAny(candidate, "'’") || gerundHeading(candidate) || verbLed(lex, candidate)
}

// gerundHeading reports whether a phrase of several words opens with a
// capitalised -ing form, as the titles of worked examples do ("Applying
// Charles's Law", "Measuring Blood Pressure").
func gerundHeading(phrase string) bool {
	first := firstWord(phrase)
	return strings.Contains(phrase, " ") && !startsLower(first) && strings.HasSuffix(first, "ing") && utf8.RuneCountInString(first) > 5
}

// specificKind reports whether WordNet lists an unmarked term of the
// study as a kind of its head noun: a substance or a thing ("acetic acid",
// "sulfuric acid") that may well belong to the class a bold term of the
// same head names ("weak acid"), and so is no safe wrong choice for it.
func (a *asker) specificKind(c markedTerm) bool {
	return strings.Contains(c.text, " ") && a.lex.IsNoun(c.text) && a.lex.Relate(c.text, c.head) == lexicon.Nested
}

// ofKind reports whether the study's term c is of the kind of answer,
// whose stem key is key: they share a head noun or are WordNet siblings,
// or an enumeration of the study names both and they agree in number,
// and c is no synonym or kind of the answer.
func (a *asker) ofKind(answer, key string, c markedTerm) bool {
	if a.kindOf(answer, c.text) || a.kindOf(c.text, answer) {
		return false
	}
	if a.rival(answer, c.text) != notKin || a.suffixKin(answer, c.text) {
		return true
	}
	i, ok := a.markAt[key]
	if !ok || plural(headNoun(answer)) != plural(headNoun(c.text)) || tooClose(a.lex, answer, c.text) {
		return false
	}
	return sharesList(a.marks[i].lists, c.lists)
}

// suffixKin reports whether two one-word terms of the field share a
// learned ending of six letters or more and differ before it:
// "exocytosis", "endocytosis" and "phagocytosis" are kinds of one process.
func (a *asker) suffixKin(x, y string) bool {
	x, y = strings.ToLower(x), strings.ToLower(y)
	if strings.ContainsAny(x+y, " -") || isGeneralWord(a.lex, x) || isGeneralWord(a.lex, y) || strings.Contains(x, y) || strings.Contains(y, x) {
		return false
	}
	n := 0
	for n < len(x) && n < len(y) && x[len(x)-1-n] == y[len(y)-1-n] {
		n++
	}
	return n >= 6 && n < len(x)-1 && n < len(y)-1
}

// kindOf reports whether the study says x is a kind of y: "Phagocytosis
// is the form of endocytosis in which …". Offered beside y, x would be
// right too.
func (a *asker) kindOf(x, y string) bool {
	if a.kinds == nil {
		a.kinds = kindStatements(strings.ToLower(a.unmarkedText()))
	}
	x, y = strings.ToLower(x), strings.ToLower(y)
	for _, k := range a.kinds {
		if (k.before == x || strings.HasSuffix(k.before, " "+x)) && (k.after == y || strings.HasPrefix(k.after, y+" ")) {
			return true
		}
	}
	return false
}

// kindStatement is the text around one "… is a kind of …" of a study: up
// to 60 bytes before and after.
type kindStatement struct{ before, after string }

// kindPhrase matches the middle of "X is a kind of Y", "X is the form of Y".
var kindPhrase = regexp.MustCompile(` (?:is|are) (?:a |an |the |one )?(?:special )?(?:form|kind|type|sort|variety|example|case)s? of `)

// kindsOfAre matches "Several types of Y are X" and "Kinds of Y include
// X": group 1 is the class, group 2 its kind.
var kindsOfAre = regexp.MustCompile(`\b(?:types|kinds|forms|classes|sorts) of ([\p{L}-]+(?: [\p{L}-]+){0,3}?)(?: in [\p{L}-]+(?: [\p{L}-]+){0,2})?(?: are|:| include) ((?:[\p{L}-]+(?: [\p{L}-]+){0,2}, )*(?:and |or )?[\p{L}-]+(?: [\p{L}-]+){0,2})[ .,;]`)

// listAre matches an enumeration that a sentence says is of one class:
// "Dendritic cells, macrophages, and B cells are antigen-presenting
// cells." Group 1 is the enumeration, group 2 the class.
var listAre = regexp.MustCompile(`(?:^|[.;] |\n)((?:[\p{L}-]+(?: [\p{L}-]+){0,2}, ){1,4}(?:and|or) [\p{L}-]+(?: [\p{L}-]+){0,2}) are (?:all |both )?(?:called |known as )?([\p{L}-]+(?: [\p{L}-]+){0,3})[.;]`)

// suchAs matches "Y such as A and B": group 1 ends with the class, group
// 2 lists its kinds.
var suchAs = regexp.MustCompile(`([\p{L}-]+(?: [\p{L}-]+){0,3}),? such as ((?:[\p{L}-]+(?: [\p{L}-]+){0,2}, )*[\p{L}-]+(?: [\p{L}-]+){0,2}(?:,? (?:and|or) [\p{L}-]+(?: [\p{L}-]+){0,2})?)`)

// kindStatements finds every kind statement of lower, the study's text in
// lower case without bold marks, in one pass each: "X is a kind of Y",
// "types of Y are X", "A, B and C are Y", "Y such as A and B".
func kindStatements(lower string) []kindStatement {
	out := []kindStatement{}
	for _, m := range kindPhrase.FindAllStringIndex(lower, -1) {
		before := lower[max(0, m[0]-60):m[0]]
		after := lower[m[1]:min(len(lower), m[1]+60)]
		out = append(out, kindStatement{before: before, after: after + " "})
	}
	for _, m := range kindsOfAre.FindAllStringSubmatch(lower, -1) {
		for _, item := range enumerated(m[2]) {
			out = append(out, kindStatement{before: item, after: m[1] + " "})
		}
	}
	for _, m := range suchAs.FindAllStringSubmatch(lower, -1) {
		words := strings.Fields(m[1])
		for _, item := range enumerated(m[2]) {
			for k := 1; k <= len(words); k++ { // the class is the last words before "such as", however many
				out = append(out, kindStatement{before: item, after: strings.Join(words[len(words)-k:], " ") + " "})
			}
		}
	}
	for _, m := range listAre.FindAllStringSubmatch(lower, -1) {
		for _, item := range enumerated(m[1]) {
			out = append(out, kindStatement{before: item, after: m[2] + " "})
		}
	}
	return out
}

// quantifiedItem open an enumeration's item that names a share of a
// class rather than a kind of it.
var quantifiedItem = wordSet(`most some many all several other these those such including`)

// enumerated splits an enumeration ("a, b, and c", "a or b") into its
// items, as listItems does, and two joined by "and" too.
func enumerated(list string) []string {
	var out []string
	for _, item := range strings.Split(strings.NewReplacer(", and ", ", ", ", or ", ", ", " and ", ", ", " or ", ", ").Replace(list), ", ") {
		if item = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(item, "and "), "or ")); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// sharesList reports whether two terms' enumerations have one in common.
func sharesList(a, b []int) bool {
	for _, l := range a {
		if slices.Contains(b, l) {
			return true
		}
	}
	return false
}

// findLists records, for each of a.marks, the enumerations of the text
// that name it: an item names a term when the stems of one are all among
// the other's ("acquisition" in "the processes of acquisition";
// "generalization" for "stimulus generalization").
func (a *asker) findLists(units []*unit) {
	a.markAt = make(map[string]int, len(a.marks))
	byStem := map[string][]int{}
	for i, m := range a.marks {
		a.markAt[m.key] = i
		for _, st := range strings.Fields(m.key) {
			byStem[st] = append(byStem[st], i)
		}
	}
	id := 0
	for _, u := range units {
		for _, s := range u.sentences() {
			if strings.Count(s.text, ",") < 2 || !strings.Contains(s.text, " and ") && !strings.Contains(s.text, " or ") {
				continue
			}
			for _, items := range enumerations(s.text) {
				id++
				a.listTerms(items, id, byStem)
			}
		}
	}
}

// listTerms records enumeration id, of items, on the terms of a.marks
// that its items name; byStem finds the terms by their stems.
func (a *asker) listTerms(items []string, id int, byStem map[string][]int) {
	for _, it := range items {
		if quantifiedItem[strings.ToLower(firstWord(it))] {
			continue // "Most species, including humans, oak trees, …": a whole class and its examples, not kinds side by side
		}
		key := stemKey(it, a.stem)
		for _, st := range strings.Fields(key) {
			for _, i := range byStem[st] {
				m := &a.marks[i]
				if len(key) < len(m.key) && !strings.Contains(key, " "+a.stem(m.head)+" ") {
					continue // "species" in a list names "pioneer species", not "species dispersion patterns"
				}
				if keysOverlap(key, m.key) && !slices.Contains(m.lists, id) {
					m.lists = append(m.lists, id)
				}
			}
		}
	}
}

// withTermChoices turns q, which asks for a bold term, into a
// multiple-choice question when the study has three terms of the term's
// kind to offer beside it; otherwise it returns q as it is.
func (a *asker) withTermChoices(q studyloop.Question) studyloop.Question {
	picked := a.termChoices(q)
	if picked == nil {
		return q
	}
	if strings.HasPrefix(q.Prompt, Blank) {
		for i, p := range picked {
			if first := firstWord(p); strings.ToLower(first[1:]) == first[1:] {
				picked[i] = upperFirst(p) // every choice opens the sentence, as the answer does; "mRNA vaccines" keeps its case
			}
		}
	}
	q.Type = studyloop.QuestionMultipleChoice
	q.Choices = shuffleIn(q.Prompt, q.Answer, picked)
	q.Alternatives = nil
	return q
}

// boldQuestions asks for the bold terms of u's sentences from what the
// sentences say they are or are called, as multiple choice where the
// study has terms of the same kind to offer, up to n. "X is a Y that …"
// about a bold X becomes "What is the term for a Y that …?" where it can
// offer choices, or where definitionSentence cannot ask "What is X?" of
// it ("An elastic demand or elastic supply is one in which …").
func (a *asker) boldQuestions(u *unit, n int) []studyloop.Question {
	var out []studyloop.Question
	for _, s := range u.sentences() {
		if len(out) >= n {
			break
		}
		if len(s.block.p.bold) == 0 || !s.tagged {
			continue
		}
		if q, ok := glossedTerm(s); ok {
			out = append(out, a.withTermChoices(q))
			continue
		}
		if q, ok := lawCloze(s); ok {
			if mc := a.withTermChoices(q); mc.Type == studyloop.QuestionMultipleChoice {
				out = append(out, mc) // otherwise lawQuestion asks what it states
				continue
			}
		}
		if q, ok := definedSubject(s); ok {
			if mc := a.withTermChoices(q); mc.Type == studyloop.QuestionMultipleChoice {
				out = append(out, mc)
			} else if _, asked := definitionSentence(s); !asked {
				out = append(out, q) // "An elastic demand or elastic supply is one in which …" has no "What is X?"
			}
			continue
		}
		for _, ask := range []func(*sentence) (studyloop.Question, bool){namedQuestion, namedAside, calledWhen} {
			if q, ok := ask(s); ok {
				out = append(out, a.withTermChoices(q))
				break
			}
		}
	}
	return out
}

// lawCloze blanks the bold name of a law in the sentence that states it:
// "**Boyle's law** states that the volume … is inversely proportional to
// the pressure …" asks "_____ states that …", for multiple choice among
// the study's other laws.
func lawCloze(s *sentence) (studyloop.Question, bool) {
	m := lawSentence.FindStringSubmatchIndex(s.text)
	if m == nil || s.hasProblem() {
		return studyloop.Question{}, false
	}
	law, ok := boldAt(s, 0)
	if !ok || law != s.text[m[2]:m[3]] {
		return studyloop.Question{}, false
	}
	return studyloop.Question{Type: studyloop.QuestionCloze, Prompt: Blank + s.text[m[3]:], Answer: law, Source: s.span()}, true
}

// glossedTerm asks for a bold term from the definition the sentence gives
// right after it, behind a colon ("an **unconditioned stimulus (UCS)**: a
// stimulus that elicits …") or in a "which is" clause ("the **neutral
// stimulus (NS)**, which is a stimulus that does not …"): "What is the
// term for a stimulus that elicits …?". The definition stands on its own
// even where the sentence's opening leans on the one before.
func glossedTerm(s *sentence) (studyloop.Question, bool) {
	if !endsSentence(s.text) || strings.ContainsAny(s.text, "?\n;") {
		return studyloop.Question{}, false
	}
	for i := range s.toks {
		term, ok := boldAt(s, i)
		if !ok {
			continue
		}
		j := afterTerm(s, i, term)
		from := -1
		switch {
		case j+1 < len(s.toks) && s.toks[j].Text == ":":
			from = j + 1
		case j+3 < len(s.toks) && s.toks[j].Text == "," && s.lower[j+1] == "which" && (s.lower[j+2] == "is" || s.lower[j+2] == "are"):
			from = j + 3
		}
		if from < 0 {
			continue
		}
		return termFor(s, i, term, from)
	}
	return studyloop.Question{}, false
}

// definedSubject reads "**X** is a Y that …" (or "The **X** is …", "**X**
// refers to …") with the bold X the whole subject, and asks "What is the
// term for a Y that …?".
func definedSubject(s *sentence) (studyloop.Question, bool) {
	if !endsSentence(s.text) || strings.ContainsAny(s.text, "?\n;:") || len(s.toks) < 6 {
		return studyloop.Question{}, false
	}
	i := 0
	if t := s.lower[0]; t == "a" || t == "an" || t == "the" {
		i = 1
	}
	term, ok := boldAt(s, i)
	if !ok {
		return studyloop.Question{}, false
	}
	j := afterTerm(s, i, term)
	if j+1 < len(s.toks) && s.lower[j] == "or" {
		if other, ok := boldAt(s, j+1); ok {
			j = afterTerm(s, j+1, other) // "An **elastic demand** or **elastic supply** is …": two names, one definition
		}
	}
	for _, c := range copulas {
		if j+len(c) < len(s.toks) && slices.Equal(s.lower[j:j+len(c)], c) {
			return termFor(s, i, term, j+len(c))
		}
	}
	return studyloop.Question{}, false
}

// afterTerm is the index of the first token after the bold term that
// starts at token i, and after the abbreviation in brackets behind it.
func afterTerm(s *sentence, i int, term string) int {
	end := s.toks[i].Start + len(term)
	j := i
	for j < len(s.toks) && s.toks[j].Start < end {
		j++
	}
	if j+2 < len(s.toks) && s.toks[j].Text == "(" && s.toks[j+2].Text == ")" {
		j += 3
	}
	return j
}

// bracketed matches a bracketed aside within a definition: " (unlearned)".
var bracketed = regexp.MustCompile(`\s*\([^()]*\)`)

// leaningWords are the words by which a definition would lean on the
// sentences around it, or speak to the reader.
var leaningWords = wordSet(`it its they them their this these those he him his she her above below previous following here there we us our you your`)

// termFor asks for the bold term at token i of s from the definition that
// runs from token from to the sentence's end: a noun phrase opening with
// an article, of 4 to 30 words, that leans on nothing around it.
func termFor(s *sentence, i int, term string, from int) (studyloop.Question, bool) {
	last := len(s.toks) - 1 // the full stop
	if from >= last {
		return studyloop.Question{}, false
	}
	def := strings.TrimSpace(bracketed.ReplaceAllString(s.text[s.toks[from].Start:s.toks[last-1].End()], ""))
	switch s.lower[from] {
	case "a", "an", "the":
	case "one":
		// "An elastic demand is one in which …": one of the term's kind.
		head := headNoun(abbreviationInBrackets.ReplaceAllString(term, ""))
		if from+1 >= last || s.lower[from+1] != "in" && s.lower[from+1] != "that" && s.lower[from+1] != "which" || head == "" {
			return studyloop.Question{}, false
		}
		def = indefinite(head) + def[len("one"):]
	default:
		return studyloop.Question{}, false
	}
	words := strings.Fields(def)
	if len(words) < 4 || len(words) > 30 || conditional.MatchString(def) || pointers[strings.ToLower(words[1])] {
		return studyloop.Question{}, false
	}
	for k := from; k < last; k++ {
		if leaningWords[s.lower[k]] || s.toks[k].Text == "," && k+1 < last && s.lower[k+1] == "and" {
			return studyloop.Question{}, false
		}
	}
	term = strings.TrimSpace(abbreviationInBrackets.ReplaceAllString(term, ""))
	if i <= 1 {
		term = termCase(term, s.toks[i].Tag)
	}
	return namingQuestion("What is the term for "+def+"?", term, s)
}

// indefinite is noun with its indefinite article.
func indefinite(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// termCase is a term that opens a sentence as it reads elsewhere: its
// first letter lower-cased unless it is a name ("Acquisition" is
// "acquisition", "Pavlov" stays), which a tagger tells from the capital
// alone only with WordNet's help.
func termCase(term, tag string) string {
	if first := firstWord(term); (tag == "NNP" || tag == "NNPS") && !everydayWord(first) || isAcronym(first) {
		return term
	}
	if nameInCapitals(term) || properAdjective(firstWord(term)) {
		return term // a name in capitals throughout ("Thermidorian Reaction", "Great Fear") or a name's possessive ("Alzheimer's disease")
	}
	return lowerFirst(term)
}

// maxItemWords bounds the words of one item of an enumeration.
const maxItemWords = 4

// enumerations finds the lists of three or more coordinated items of at
// most four words in a sentence: "A, B, C, and D", "A, B and C", "A, B,
// or C". The first item is the last words before the first comma.
func enumerations(text string) [][]string {
	parts := strings.Split(strings.TrimRight(text, ".!?"), ", ")
	var out [][]string
	var run []string
	for i, p := range parts {
		words := strings.Fields(p)
		last := len(words) > 0 && (words[0] == "and" || words[0] == "or")
		if !last && i > 0 && len(run) >= 2 {
			// "A, B and C": the coordination inside the last part.
			if a, b, ok := cutCoordination(p); ok {
				out = append(out, append(run, a, b))
				run = nil
				continue
			}
		}
		switch {
		case last && len(run) >= 2:
			item := words[1:min(len(words), 1+maxItemWords)]
			out = append(out, append(run, strings.Join(item, " ")))
			run = nil
		case len(words) == 0 || len(words) > maxItemWords && len(run) > 0 || last:
			run = nil
			if len(words) > 0 && !last {
				run = []string{strings.Join(words[max(0, len(words)-maxItemWords):], " ")}
			}
		case len(run) == 0:
			run = []string{strings.Join(words[max(0, len(words)-maxItemWords):], " ")}
		default:
			run = append(run, p)
		}
	}
	return out
}

// cutCoordination splits "B and C" (or "B or C") into its two items, each
// of at most four words.
func cutCoordination(p string) (string, string, bool) {
	for _, c := range []string{" and ", " or "} {
		if a, b, ok := strings.Cut(p, c); ok {
			if n, m := len(strings.Fields(a)), len(strings.Fields(b)); n >= 1 && n <= maxItemWords && m >= 1 && m <= maxItemWords {
				return a, b, true
			}
		}
	}
	return "", "", false
}

// coverMarks gives the bold terms that no question asks yet one question
// each where it can, whatever their topic's share: a chapter's bold terms
// are what a student is there to learn. A sentence that sets several terms
// in bold may then be asked once for each, as one note gives several cloze
// cards ("The _____ begins at a promoter" and "The initiation of
// transcription begins at a _____").
func (a *asker) coverMarks(ctx context.Context, units []*unit) {
	for _, pass := range []markPass{unaskedSentences, askedSentences} {
		for _, u := range units {
			if ctx.Err() != nil {
				return
			}
			for _, q := range a.markClozes(u, pass) {
				if pass == askedSentences {
					a.acceptAgain(q)
				} else {
					a.accept(q)
				}
			}
		}
	}
}

// coverUsedMarks asks, in a bold study, for each bold term that no
// question asks yet, one cloze where the term is used again: a
// chapter's term is better asked there than not at all, though such
// clozes fit other terms more often than those of a bold occurrence.
func (a *asker) coverUsedMarks(ctx context.Context, units []*unit) {
	if !a.boldStudy {
		return
	}
	a.boldStudy = false
	a.coverOnly = func(answer string) bool {
		key := answerKey(answer)
		return a.marked[stemKey(answer, a.stem)] && a.asked[key] == 0 && !a.defined[key]
	}
	defer func() { a.boldStudy, a.coverOnly = true, nil }()
	for _, u := range units {
		if ctx.Err() != nil {
			return
		}
		src := a.rankSentences(u, minClozeTokens)
		for _, q := range a.clozes(u, src, len(src.sents), minClozeContext, false) {
			if a.coverOnly(q.Answer) {
				q.Topic = u.topic
				a.accept(q)
			}
		}
	}
}

// coverListed asks, from its definition in the chapter's key-terms list,
// for each listed term that no question asks yet, in the topic that first
// names it: "Which term matches this description: the rate of
// transferring energy?". A term the chapter's text never names is left
// out: the list is not the lesson.
func (a *asker) coverListed(ctx context.Context, listed []fact, units []*unit) {
	for _, f := range listed {
		if ctx.Err() != nil {
			return
		}
		term := strings.TrimSpace(abbreviationInBrackets.ReplaceAllString(f.term, ""))
		if a.asked[answerKey(term)] > 0 || a.defined[answerKey(term)] || !recallableTerm(f) {
			continue
		}
		u := namedIn(units, term)
		if u == nil {
			continue
		}
		q := studyloop.Question{Type: studyloop.QuestionTermDefinition, Prompt: describePrompt(firstSentence(f.def)), Answer: term, Source: f.span, Topic: u.topic}
		if mc := a.withTermChoices(q); mc.Type == studyloop.QuestionMultipleChoice {
			q = mc
		}
		a.accept(q)
	}
}

// recallableTerm reports whether a listed term makes a fair answer: a
// name of a few words, not an acronym alone.
func recallableTerm(f fact) bool {
	return len(strings.Fields(f.term)) <= 5 && !isAcronym(f.term) && utf8.RuneCountInString(f.term) > 1
}

// namedIn returns the first of units whose prose names term, or nil.
func namedIn(units []*unit, term string) *unit {
	pattern := regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(term) + `(s|es)?\b`)
	for _, u := range units {
		for _, b := range u.blocks {
			if pattern.MatchString(b.p.text) {
				return u
			}
		}
	}
	return nil
}

// markPass says which sentences markClozes blanks.
type markPass int

const (
	leaningSentences markPass = iota // sentences no question asks that lean on the one before
	unaskedSentences                 // sentences no question asks
	askedSentences                   // sentences a question asks already, for another term
)

// markClozes returns a cloze for each bold term of u's sentences that no
// question asks yet: of the sentence that sets it in bold, after the
// sentence before where this one leans on that one by its opening ("RNA
// polymerase opens the helix. The opened stretch is called a _____."), of
// the sentences pass names. The clozes of sentences that stand on their
// own are among a topic's clozes already.
func (a *asker) markClozes(u *unit, pass markPass) []studyloop.Question {
	var out []studyloop.Question
	anaphoric := a.anaphoric(u)
	for _, blk := range u.blocks {
		for i, s := range blk.sents {
			leans := anaphoric[s] || s.hasProblem()
			if pass == leaningSentences && !leans || a.used[s.span()] != (pass == askedSentences) || pass == askedSentences && leans {
				continue
			}
			for _, b := range a.unaskedBlanks(s) {
				if q, ok := a.markCloze(s, b, i, leans); ok {
					q.Topic = u.topic
					out = append(out, q)
					break
				}
			}
		}
	}
	return out
}

// unaskedBlanks returns the bold terms of s, as blanks, that no question
// asks yet.
func (a *asker) unaskedBlanks(s *sentence) []blank {
	if !s.tagged || s.span().End <= a.firstMark {
		return nil
	}
	var out []blank
	for _, sp := range s.block.p.bold {
		if sp.Start < s.start || sp.End > s.start+len(s.text) {
			continue
		}
		from, to := markSpan(s, sp)
		term := s.text[from:to]
		if a.genericMark(term) || labelTerm.MatchString(strings.TrimRight(term, ":")) || clauseTerm(s.block.p.text[sp.Start:sp.End]) {
			continue // "**Fix:** Add the file to …" labels, names nothing
		}
		// The author's bold says where the term ends better than the
		// tagger ("a transcription bubble" with "bubble" an adjective).
		if a.asked[answerKey(term)] > 0 || len(strings.Fields(term)) > 5 || !boldNounPhrase(a.lex, term) || holdsVerb(s, from, to) {
			continue
		}
		out = append(out, blank{from: from, to: to, class: boldClass(s, from, to)})
	}
	return out
}

// trailingOtherName matches otherNameInBrackets at the end of a bold term.
var trailingOtherName = regexp.MustCompile(`\s*` + otherNameInBrackets + `$`)

// genericMark reports whether the bold term names a generic thing: its
// head noun is generic ("type of energy", "example") and no word before
// it says what of ("initiation factors", "ejection fraction" and
// "positive inotropic factors" are terms; "σ factor" names its letter).
func (a *asker) genericMark(term string) bool {
	head := headNoun(term)
	if !genericHeads[head] {
		return false
	}
	for _, w := range strings.Fields(strings.ToLower(term)) {
		w = strings.Trim(w, ".,;:'\"()")
		if w == head {
			return true
		}
		if utf8.RuneCountInString(w) > 1 && !isGeneralWord(a.lex, w) {
			return false
		}
	}
	return true
}

// markCloze blanks the bold term b of s, the i-th sentence of its block.
// A sentence that leans on the one before (leans, or by its opening
// words) is asked after that one, when that one stands on its own.
func (a *asker) markCloze(s *sentence, b blank, i int, leans bool) (studyloop.Question, bool) {
	if !clozeSentence(s, minFallbackTokens) || a.unfitBlank(s, b) {
		return studyloop.Question{}, false
	}
	q := studyloop.Question{Type: studyloop.QuestionCloze, Answer: s.text[b.from:b.to], Source: s.span()}
	q.Prompt, q.Alternatives = clozePrompt(s, b)
	// A short sentence ("The unwound region is called a _____.") fits too
	// much alone and is asked after the sentence before.
	short := len(strings.Fields(q.Prompt)) < minClozeContext+1 || !clozeSentence(s, minClozeTokens)
	a.tagged[s.text] = s.toks
	if !short && !leans && !s.hasProblem() {
		if a.check(q) == nil {
			return q, true
		}
		if !bareQuantifier(q.Prompt, a.tags) {
			return q, false
		}
		// "Many exit after G1 …": many cells, which the sentence before names.
	}
	if i < 1 {
		return studyloop.Question{}, false
	}
	prev := s.block.sents[i-1]
	if !startsLeaning(s) && needsContext(prev.text+" "+s.text) {
		return studyloop.Question{}, false // "this complex" names a thing of the sentence before, "that time" none
	}
	if !prev.tagged || len(prev.toks) > 40 || !endsSentence(prev.text) || strings.ContainsAny(prev.text, "?\n") || prev.hasProblem() || a.used[prev.span()] {
		return studyloop.Question{}, false
	}
	if len(prev.toks) <= 6 && !holdsVerb(prev, 0, len(prev.text)) {
		return studyloop.Question{}, false // "**Changes in velocity.** The velocity of money is …": a label, no lead-in
	}
	for _, pb := range a.unaskedBlanks(prev) {
		if _, ok := a.markCloze(prev, pb, i-1, false); ok {
			return studyloop.Question{}, false // the sentence before asks a bold term of its own
		}
	}
	q.Prompt = prev.text + " " + q.Prompt
	q.Source.Start = prev.span().Start
	if a.check(q) != nil {
		return studyloop.Question{}, false
	}
	a.leadOf[q.Source] = prev.span()
	return q, true
}

// startsLeaning reports whether what makes s lean on the sentence before
// is in its opening words only ("The unwound region …", "It …"), so that
// the sentence before, set in front of it, is all it needs.
func startsLeaning(s *sentence) bool {
	rest := s.text
	if len(s.toks) > 2 {
		rest = s.text[s.toks[2].Start:]
	}
	return !needsContext("A "+rest) && !pointsElsewhere(s.text) && !speaksToReader(s.text) && !notEnglishSentence(s.text)
}

// holdsVerb reports whether the bytes from to to of s hold a finite verb.
func holdsVerb(s *sentence, from, to int) bool {
	for i, t := range s.toks {
		if t.Start >= from && t.End() <= to && finiteVerb(s.toks, i) {
			return true
		}
	}
	return false
}

// weCall matches "When <condition>, we call the <thing> a <term>.": the
// groups are the conjunction, the condition, the thing and the term.
var weCall = regexp.MustCompile(`^(When|If) ([^,;:]{5,120}), we (?:call|term|name) (?:the |a |an )?([\p{L}-]{3,30}) (?:an? |the )?([^,;:]{3,60})\.$`)

// calledWhen asks for the bold term a textbook names in the first person:
// "When the income elasticity of demand is negative, we call the good an
// **inferior good**." asks "What is a good called when the income
// elasticity of demand is negative?".
func calledWhen(s *sentence) (studyloop.Question, bool) {
	m := weCall.FindStringSubmatchIndex(s.text)
	if m == nil {
		return studyloop.Question{}, false
	}
	term := s.text[m[8]:m[9]]
	for i, t := range s.toks {
		if t.Start != m[8] {
			continue
		}
		bold, ok := boldAt(s, i)
		if !ok || strings.TrimSpace(abbreviationInBrackets.ReplaceAllString(bold, "")) != strings.TrimSpace(abbreviationInBrackets.ReplaceAllString(term, "")) {
			return studyloop.Question{}, false
		}
		thing := strings.ToLower(s.text[m[6]:m[7]])
		prompt := "What is " + indefinite(thing) + " called " + strings.ToLower(s.text[m[2]:m[3]]) + " " + s.text[m[4]:m[5]] + "?"
		if needsContext(s.text[m[4]:m[5]]) {
			return studyloop.Question{}, false
		}
		return namingQuestion(prompt, strings.TrimSpace(abbreviationInBrackets.ReplaceAllString(term, "")), s)
	}
	return studyloop.Question{}, false
}

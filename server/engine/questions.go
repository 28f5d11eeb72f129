package engine

import (
	"context"
	"hash/fnv"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jdkato/prose/v3/token"
	"github.com/studyloop/studyloop/server/lexicon"
	"github.com/studyloop/studyloop/server/studyloop"
)

// Question shapes.
const (
	minClozeTokens   = 8
	maxClozeTokens   = 60
	minClozeContext  = 8   // tokens left visible around the blank
	distractorScan   = 60  // candidates looked at per multiple-choice question
	maxGroupFacts    = 500 // facts of one list, glossary or column kept as distractors
	phrasesPerTopic  = 200
	phrasesPerClass  = 50 // study-wide distractor pool per class
	candidatesFactor = 3  // candidates of each type prepared per question wanted
	// A topic that gets no question otherwise may have its sentences
	// blanked down to these floors: any complete sentence of content
	// should yield a question.
	minFallbackTokens  = 4
	minFallbackContext = 3
	// Balance over a study: no answer asked more than maxAnswerRepeats
	// times, no wrong choice offered more than maxDistractorUses times.
	maxAnswerRepeats  = 2
	maxDistractorUses = 3
)

// unit is the content of one topic: its prose blocks and facts.
type unit struct {
	topic   int
	blocks  []*block
	facts   []fact
	phrases []phrase
	occ     map[string][]occurrence
}

func (u *unit) sentences() []*sentence {
	var out []*sentence
	for _, b := range u.blocks {
		out = append(out, b.sents...)
	}
	return out
}

// wanted is how many questions u deserves: about one per 150 words of
// prose (at least two, at most limit) plus one per fact and per term the
// author marked in bold, and one per two code spans.
func (u *unit) wanted(limit int) int {
	n, bold, code := 0, 0, 0
	for _, b := range u.blocks {
		n += b.words
		bold += len(b.p.bold)
		code += len(b.p.code)
	}
	bold += code / 2
	return min(2+n/150, limit) + min(len(u.facts)+bold, maxMarkedPerTopic)
}

// maxMarkedPerTopic caps the questions a topic gets for its facts and bold
// terms, beyond its share of prose.
const maxMarkedPerTopic = 60

// asker makes the questions of a study, topic by topic, keeping every one
// that passes CheckQuestion and is not a near-duplicate of an earlier one.
type asker struct {
	text string
	// titleStems are the stems of the study's title's content words: a
	// one-word answer among them is what the whole study is about.
	titleStems map[string]bool
	// subjectStems are the stems of the material's first heading.
	subjectStems map[string]bool
	lower        string // text lower-cased, once needed (lowerText)
	opts         Options
	seen         *dedup
	pool         map[string][]phrase // study-wide distractors by class, best first
	groups       map[int][]fact      // facts of each group with distinct terms (or cell values)
	terms        []fact              // every defined term of the study (no table cells), in order
	// termKeys are the stem keys of the study's terms of several words.
	termKeys map[string]bool
	// units counts the topics each keyphrase occurs in, of unitCount.
	units     map[string]int
	unitCount int
	// minRecur is how often an unmarked phrase must recur to be a term.
	minRecur int
	checked  map[checkKey]error // check's verdicts so far
	aliases  aliases            // the other names the study gives things
	// genericity holds generic's verdicts by phrase key.
	genericity map[string]bool
	rivals     map[[2]string]kin // rival's verdicts so far
	// centuries counts the questions whose answer is a century or a
	// decade.
	centuries int
	// firstMark is where the first bold term of a study that marks its
	// terms stands: the opening before it introduces, and gets no blanks.
	firstMark int
	used      map[studyloop.Span]bool
	// leadIns are the sources of questions asked after a lead-in
	// sentence.
	leadIns []studyloop.Span
	// sharedDefs counts the study's glossary definitions by their answer:
	// two terms defined alike ("variance", "standard deviation") cannot
	// be told apart by their definitions.
	sharedDefs map[string]int
	// cellsOf holds each topic's askable table cells (askableCells).
	cellsOf map[*unit]map[studyloop.Span]bool
	// leadOf maps the source of a cloze asked after the sentence before
	// to that sentence's span: the two go together or not at all.
	leadOf map[studyloop.Span]studyloop.Span
	// presentTense reports a study that states its matter in the present
	// tense, as a science text does: its past-tense sentences tell the
	// stories of its examples and discoveries.
	presentTense bool
	// boldStudy reports a study that sets markedEnough terms or more in
	// bold, as a textbook does: its clozes blank only a bold term where
	// it stands in bold. Blanked where it is only used again ("the
	// adaptive response takes one to two weeks to peak"), a term is one
	// of several that fit: readers rated those clozes a third useful,
	// the bold ones four in five.
	boldStudy bool
	// coverOnly, while not nil, holds clozes to the answers it accepts:
	// the bold terms no question asks yet (coverUsedMarks).
	coverOnly func(answer string) bool
	// reference reports documentation, a study with referenceCodeSpans
	// code spans or more: its tables are settings, flags and platforms to
	// look up, and are not asked. Readers rated even "What is the
	// description of --quiet?" weak: the name says it.
	reference bool
	// marks are the study's bold terms, the wrong choices of questions
	// that ask for one.
	marks []markedTerm
	// unmarked is text without its bold marks, once unmarkedText is asked.
	unmarked string
	// kinds are the study's "X is a kind of Y" statements, once kindOf
	// needs them.
	kinds []kindStatement
	// fullNames memoizes fullName.
	fullNames map[string]string
	// boldWord holds the study's one-word bold terms, lower-cased.
	boldWord map[string]bool
	// classNames are the stem keys of phrases of two words or more that
	// end two of the study's bold terms or more: "gas law" of "ideal gas
	// law" and "combined gas law" names the class, and is no wrong choice
	// beside one of its members.
	classNames map[string]bool
	// markAt finds a term of marks by its stem key.
	markAt map[string]int
	stem   stemmer
	tagged map[string][]token.Token // the tagged tokens of cloze sentences, by text
	lex    *lexicon.Lexicon
	recur  map[string]int  // phrase key to its occurrences in the whole study
	marked map[string]bool // stem keys of bold and defined terms
	// asked counts the questions per answer and offered the wrong choices
	// per choice, both by answerKey.
	asked, offered map[string]int
	// askedIn holds the topics each answer was asked in, by answerKey.
	askedIn map[string]map[int]bool
	// defined holds the terms a short answer asks the meaning of ("What
	// is osmosis?"), by answerKey.
	defined map[string]bool
	out     []studyloop.Question
}

// markListed counts the terms of a chapter's key-terms list among the
// study's marked terms.
func (a *asker) markListed(listed []fact) {
	for _, f := range listed {
		a.marked[stemKey(abbreviationInBrackets.ReplaceAllString(f.term, ""), a.stem)] = true
	}
}

// tags is the sentenceTagger of checkQuestion: the tokens the analyzer
// tagged, for the sentences clozes blank, and fresh tagging otherwise.
func (a *asker) tags(sentence string) []token.Token {
	if toks, ok := a.tagged[sentence]; ok {
		return toks
	}
	return tagSentence(sentence)
}

// check runs CheckQuestion's checks on q, once per distinct question: the
// cloze and multiple-choice lists offer the same blanks, and accept checks
// again what the lists offer.
func (a *asker) check(q studyloop.Question) error {
	k := checkKey{q.Type, q.Prompt, q.Answer, strings.Join(q.Choices, "\x00"), q.Source}
	if err, ok := a.checked[k]; ok {
		return err
	}
	err := checkQuestion(a.text, q, a.stem, a.tags)
	a.checked[k] = err
	return err
}

type checkKey struct {
	typ                     studyloop.QuestionType
	prompt, answer, choices string
	source                  studyloop.Span
}

// rival tells, once per pair, how distractor is of answer's kind, and
// notKin as well when it is a synonym or a kind of the answer.
func (a *asker) rival(answer, distractor string) kin {
	k := [2]string{answer, distractor}
	r, seen := a.rivals[k]
	if !seen {
		r = kinship(a.lex, answer, distractor, a.stem)
		if r != notKin && tooClose(a.lex, answer, distractor) {
			r = notKin
		}
		a.rivals[k] = r
	}
	return r
}

// sentenceProblem reports whether a sentence fails a precision check that
// looks only at its words, not at where a blank would go: then no question
// from it can pass, and its blanks need not be tried.
func sentenceProblem(text string) bool {
	return needsContext(text) || pointsElsewhere(text) || speaksToReader(text) || notEnglishSentence(text)
}

func newAsker(text string, opts Options, an *analyzer, units []*unit) *asker {
	stem := func(lower string) string {
		if id := an.stem(lower); id >= 0 {
			return an.stems[id]
		}
		return ""
	}
	a := &asker{
		text: text, opts: opts, stem: stem, seen: newDedup(stem), pool: map[string][]phrase{}, groups: map[int][]fact{},
		used: map[studyloop.Span]bool{}, leadOf: map[studyloop.Span]studyloop.Span{}, tagged: map[string][]token.Token{}, lex: lexicon.Default(),
		recur: map[string]int{}, units: map[string]int{}, termKeys: map[string]bool{}, marked: map[string]bool{}, asked: map[string]int{}, askedIn: map[string]map[int]bool{}, defined: map[string]bool{}, offered: map[string]int{},
		checked: map[checkKey]error{}, genericity: map[string]bool{}, aliases: findAliases(text), rivals: map[[2]string]kin{},
		sharedDefs: map[string]int{}, cellsOf: map[*unit]map[studyloop.Span]bool{},
	}
	for _, u := range units {
		for _, f := range u.facts {
			if f.kind == factDefinition {
				a.sharedDefs[answerKey(trimEnd(f.def))]++
			}
		}
	}
	words := 0
	firstBold := -1
	a.unitCount = len(units)
	for _, u := range units {
		for key, list := range u.occ {
			a.recur[key] += len(list)
			a.units[key]++
		}
		for _, b := range u.blocks {
			words += b.words
		}
	}
	a.minRecur = minRecurrence(words)
	ambiguous := ambiguousCells(units)
	for _, u := range units {
		u.facts = slices.DeleteFunc(u.facts, func(f fact) bool {
			switch f.kind {
			case factDefinition:
				return strings.HasPrefix(f.def, "See ") || notConfused.MatchString(f.def) || cutOff(a.lex, f.def) // a cross-reference, a caution or a broken line, not a definition
			case factPair:
				return !a.termPair(f)
			case factCell:
				return !plainCell(f) || ambiguous[cellKey(f)]
			}
			return false
		})
		for _, b := range u.blocks {
			for _, sp := range b.p.bold {
				a.marked[stemKey(abbreviationInBrackets.ReplaceAllString(b.p.text[sp.Start:sp.End], ""), stem)] = true
				if at := b.p.source(sp.Start, sp.End).Start; firstBold < 0 || at < firstBold {
					firstBold = at
				}
			}
		}
		for _, f := range u.facts {
			if f.kind != factCell {
				a.marked[stemKey(f.term, stem)] = true
			}
		}
	}
	if len(a.marked) >= markedEnough {
		a.firstMark = firstBold
	}
	a.presentTense = presentTense(units)
	a.reference = codeSpans(units) >= referenceCodeSpans
	a.marks = markedTerms(units, a.lex, stem)
	a.boldStudy = len(a.marks) >= markedEnough
	a.boldWord = map[string]bool{}
	for _, m := range a.marks {
		if !strings.Contains(m.text, " ") {
			a.boldWord[strings.ToLower(m.text)] = true
		}
	}
	a.classNames = classNames(a.marks, stem)
	a.addRecurringTerms(units)
	a.findLists(units)
	var all []phrase
	for _, u := range units {
		all = append(all, u.phrases[:min(len(u.phrases), phrasesPerClass)]...)
		for _, p := range u.phrases {
			if strings.Contains(p.text, " ") && a.isTerm(p) {
				a.termKeys[p.stemKey] = true
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	keys := map[string]bool{}
	for _, p := range all {
		if len(a.pool[p.class]) < phrasesPerClass && !keys[p.key] && plainWord(p.text) && a.distractorTerm(p) {
			keys[p.key] = true
			a.pool[p.class] = append(a.pool[p.class], p)
		}
	}
	groupSeen := map[int]map[string]bool{}
	for _, u := range units {
		for _, f := range u.facts {
			v := f.term
			if f.kind == factCell {
				v = f.def
			}
			if groupSeen[f.group] == nil {
				groupSeen[f.group] = map[string]bool{}
			}
			if k := stemKey(v, a.stem); !groupSeen[f.group][k] && len(a.groups[f.group]) < maxGroupFacts {
				groupSeen[f.group][k] = true
				a.groups[f.group] = append(a.groups[f.group], f)
				if f.kind != factCell {
					a.terms = append(a.terms, f)
				}
			}
		}
	}
	return a
}

// ask adds up to a topic's share of questions from u.
func (a *asker) ask(ctx context.Context, u *unit) error {
	want := u.wanted(a.opts.MaxQuestionsPerTopic)
	n := want * candidatesFactor
	src := a.rankSentences(u, minClozeTokens)
	got := a.take(ctx, u, want, [][]studyloop.Question{
		a.boldQuestions(u, n),
		a.markClozes(u, leaningSentences),
		a.shortAnswers(u, n),
		a.statedQuestions(u, n),
		eventOrder(u),
		a.multipleChoice(u, src, n),
		a.termDefinitions(u, n),
		a.clozes(u, src, n, minClozeContext, false),
	})
	if got == 0 && ctx.Err() == nil && a.minRecur < minRecurrence(chapterWords) {
		// Too little text for the usual shapes: blank a shorter sentence.
		// Not in a chapter, where a topic without a question is better
		// than a question with too little to go on ("_____ is similar in
		// prokaryotes and eukaryotes").
		src = a.rankSentences(u, minFallbackTokens)
		a.take(ctx, u, 1, [][]studyloop.Question{a.clozes(u, src, n, minFallbackContext, false)})
	}
	return ctx.Err()
}

// take adds up to want questions from lists, taking from each in turn,
// and returns how many it added. Questions whose answer was asked before
// wait for a second round, so that every term is asked once before any is
// asked twice.
func (a *asker) take(ctx context.Context, u *unit, want int, lists [][]studyloop.Question) int {
	got := 0
	later := make([][]studyloop.Question, len(lists))
	for round := 1; round <= maxAnswerRepeats && got < want; round++ {
		if round > 1 {
			lists, later = later, nil
		}
		for got < want {
			progress := false
			for i := range lists {
				if ctx.Err() != nil {
					return got
				}
				for len(lists[i]) > 0 && got < want {
					q := lists[i][0]
					lists[i] = lists[i][1:]
					q.Topic = u.topic
					if n := a.timesAsked(q); n >= round {
						if later != nil && n < maxAnswerRepeats {
							later[i] = append(later[i], q)
						}
						continue
					}
					if a.accept(q) {
						got++
						progress = true
						break
					}
				}
			}
			if !progress {
				break
			}
		}
	}
	return got
}

// ordinals are the ordinal words answers hold ("the eighteenth century").
var ordinals = map[string]string{"first": "1st", "second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th",
	"sixth": "6th", "seventh": "7th", "eighth": "8th", "ninth": "9th", "tenth": "10th", "eleventh": "11th",
	"twelfth": "12th", "thirteenth": "13th", "fourteenth": "14th", "fifteenth": "15th", "sixteenth": "16th",
	"seventeenth": "17th", "eighteenth": "18th", "nineteenth": "19th", "twentieth": "20th", "twenty-first": "21st"}

// numeralOrdinal is answer with its ordinal word in numerals ("18th
// century" for "eighteenth century"), or "" when it has none.
func numeralOrdinal(answer string) string {
	words := strings.Fields(answer)
	for i, w := range words {
		if n, ok := ordinals[strings.ToLower(w)]; ok {
			words[i] = n
			return strings.Join(words, " ")
		}
	}
	return ""
}

// accept adds q to the study unless it fails a check, repeats a question
// or its source, or offers a wrong choice offered too often already. The
// other names the study gives its answer become accepted answers.
func (a *asker) accept(q studyloop.Question) bool {
	// One question per sentence or fact: asking the same thing twice, even
	// in two forms, is a near-duplicate.
	return !a.used[q.Source] && a.acceptAgain(q)
}

// acceptAgain is accept for a question whose source another question
// asks already, about another of its terms.
func (a *asker) acceptAgain(q studyloop.Question) bool {
	lead, leads := a.leadOf[q.Source]
	if a.overlapsLeadIn(q.Source) || leads && a.used[lead] || a.check(q) != nil {
		return false
	}
	for _, c := range q.Choices {
		if c != q.Answer && a.offered[answerKey(c)] >= maxDistractorUses {
			return false
		}
	}
	if a.namesTheStudy(q) {
		return false // "_____" for "photosynthesis" in a chapter of that name: the guess every student makes
	}
	if centuryOrDecade.MatchString(q.Answer) && a.centuries >= maxCenturies {
		return false // a history's every sentence has a century; two questions of them are enough
	}
	if _, dup := a.seen.add(q.Prompt, q.Answer); dup {
		return false
	}
	key := answerKey(q.Answer)
	if a.askedIn[key] != nil && a.askedIn[key][q.Topic] && q.Type != studyloop.QuestionTermDefinition {
		return false // asked in this topic already: the next time, from another (a table's rows share values)
	}
	if q.Type != studyloop.QuestionMultipleChoice {
		q.Alternatives = a.otherAnswers(q)
		prompt := normalize(q.Prompt)
		naming := strings.HasPrefix(q.Prompt, anotherNamePrefix)
		for i := len(q.Alternatives) - 1; i >= 0; i-- {
			switch o := q.Alternatives[i]; {
			case !containsWords(prompt, normalize(o)):
			case naming:
				q.Alternatives = slices.Delete(q.Alternatives, i, i+1) // the name the question gives, not another
			default:
				return false // "Ventricular relaxation, or _____" is answered by copying
			}
		}
	}
	a.used[q.Source] = true
	if m := askedAbout.FindStringSubmatch(q.Prompt); m != nil && q.Type == studyloop.QuestionShortAnswer {
		a.defined[answerKey(m[1]+m[2])] = true
		a.asked[answerKey(m[1]+m[2])]++ // "What is hyperinflation?" asks about hyperinflation as "_____ is …" does
	}
	if strings.Contains(q.Prompt, ". What ") || leads {
		a.leadIns = append(a.leadIns, q.Source)
	}
	a.asked[key]++
	if a.askedIn[key] == nil {
		a.askedIn[key] = map[int]bool{}
	}
	a.askedIn[key][q.Topic] = true
	if centuryOrDecade.MatchString(q.Answer) {
		a.centuries++
	}
	for _, c := range q.Choices {
		if c != q.Answer {
			a.offered[answerKey(c)]++
		}
	}
	a.out = append(a.out, q)
	return true
}

// meantBy matches what follows the blank of "By _____ is meant …".
var meantBy = regexp.MustCompile(`^,? (?:is|was|we mean|I mean)\b`)

// namesTheStudy reports whether q blanks one word the study's title
// names ("energy" in "Conservation of Energy") anywhere but as the
// subject of a sentence in the present tense, which says what the thing
// is or does ("_____ is anything that takes up space"): asked in passing,
// it is the guess any student makes, the subject of the whole text.
func (a *asker) namesTheStudy(q studyloop.Question) bool {
	if len(a.titleStems)+len(a.subjectStems) == 0 || !strings.Contains(q.Prompt, Blank) {
		return false
	}
	words := contentStems(q.Answer, a.stem)
	if len(words) == 0 || len(words) > 3 || slices.ContainsFunc(words, func(st string) bool { return !a.titleStems[st] && !(a.reference && a.subjectStems[st]) }) {
		return false // "immune system" in "The Immune System", "monetary policy" in "Money, Banking, and Monetary Policy"
	}
	if a.reference {
		return true // "_____ is an HTTP client library for Python": the documented product, in any sentence
	}
	before, rest, _ := strings.Cut(q.Prompt, Blank)
	if before == "By " && meantBy.MatchString(rest) || before == "In " && strings.HasPrefix(rest, ",") {
		return false // "By _____, was meant protection against …", "In _____, a neutral stimulus is presented …": what it is
	}
	if before != "" && before != "A " && before != "An " && before != "The " {
		return true
	}
	verb := strings.Trim(firstWord(rest), ",")
	return !(verb == "is" || verb == "are" || verb == "has" || strings.HasSuffix(verb, "s") && !strings.HasSuffix(verb, "ss"))
}

// timesAsked is how often the study has asked about q's answer, or, for
// a question of what a term means, about that term.
func (a *asker) timesAsked(q studyloop.Question) int {
	n := a.asked[answerKey(q.Answer)]
	if m := askedAbout.FindStringSubmatch(q.Prompt); m != nil && q.Type == studyloop.QuestionShortAnswer {
		n = max(n, a.asked[answerKey(m[1]+m[2])])
	}
	return n
}

// askedAbout matches the short answers that ask what a term means or who
// a person was; the groups hold the term or the name.
var askedAbout = regexp.MustCompile(`^(?:What (?:is|are) (?:meant by )?(?:an? |the )?|Who (?:was|were) )(.+)\?$|^What does “(.+)” (?:mean|state)\?$`)

// isTerm reports whether keyphrase p is worth blanking: the author marked
// it, or the study keeps returning to it and it is not a generic phrase of
// general English.
func (a *asker) isTerm(p phrase) bool {
	if a.marked[p.stemKey] {
		return true
	}
	if p.class == "name1" && !p.initial && a.units[p.key] < 2 && a.unitCount >= 2 {
		return false // a one-word name of one topic only: "Tiger", the dog of a worked example
	}
	if len(a.marked) >= markedEnough && !strings.Contains(p.text, " ") {
		return false // where the author marks terms, one unmarked word is no term
	}
	return a.recur[p.key] >= a.minRecur && !a.generic(p)
}

// notConfused matches a glossary entry that warns rather than defines:
// "The term should not be confused with …", "Not to be confused with …".
var notConfused = regexp.MustCompile(`(?i)^(the term )?(should )?not (to )?be confused\b|^the term should not\b`)

// otherAnswers is q's accepted alternatives with the other answers the
// study gives for its answer added, each once: numerals for ordinals
// ("18th century"), the other names it states, same-root variants
// ("cardiovascular centers" beside "cardiac centers"), a full name ("Ivan
// Pavlov" for "Pavlov"), a substance for its particles ("calcium" for
// "calcium ions") and a bold head after an acronym ("splicing" for "RNA
// splicing").
func (a *asker) otherAnswers(q studyloop.Question) []string {
	out := q.Alternatives
	if len(strings.Fields(q.Answer)) <= 4 {
		out = append(out, numeralOrdinal(q.Answer))
	}
	out = append(out, a.aliases.of(q.Answer)...)
	out = append(out, a.variants(q.Answer)...)
	out = append(out, a.fullName(q.Answer), particleKind(q.Answer), a.markedHead(q.Answer), a.formula(q.Answer), a.spelledOut(q.Answer))
	var kept []string
	for _, o := range out {
		if o != "" && !slices.Contains(kept, o) {
			kept = append(kept, o)
		}
	}
	return kept
}

// variants returns the study's terms that name a two-word answer's thing
// with a modifier of the same root: "cardiovascular centers" and "cardiac
// centers", in either number. Modifiers that differ at their start ("sympathetic",
// "parasympathetic"; "conditioned", "unconditioned") name other things.
// spelledOut is answer with its abbreviations written out as the study
// writes them ("minimum average total cost" for "minimum ATC", where the
// text says "Average total cost (ATC)"), or "" when it has none the study
// spells out.
func (a *asker) spelledOut(answer string) string {
	words := strings.Fields(answer)
	if len(words) < 2 || len(words) > 4 {
		return ""
	}
	changed := false
	for i, w := range words {
		if !isAcronym(w) {
			continue
		}
		for _, long := range a.aliases.of(w) {
			if strings.Contains(long, " ") {
				words[i], changed = strings.ToLower(long), true
				break
			}
		}
	}
	if !changed {
		return ""
	}
	return strings.Join(words, " ")
}

// sharedPrefix is how many leading bytes x and y share.
func sharedPrefix(x, y string) int {
	n := 0
	for n < len(x) && n < len(y) && x[n] == y[n] {
		n++
	}
	return n
}

func (a *asker) variants(answer string) []string {
	words := strings.Fields(strings.ToLower(answer))
	if len(words) != 2 || utf8.RuneCountInString(words[0]) < 6 {
		return nil
	}
	root := string([]rune(words[0])[:5])
	var out []string
	for _, m := range a.marks {
		other := strings.Fields(strings.ToLower(m.text))
		if len(other) == 2 && singular(other[1]) == singular(words[1]) && other[0] != words[0] && strings.HasPrefix(other[0], root) &&
			sharedPrefix(other[0], words[0]) >= min(len(other[0]), len(words[0]))-2 { // not "neurodegenerative" and "neurodevelopmental"
			out = append(out, other[0]+" "+words[1]) // in the answer's number: "cardiac center" for "cardiovascular center"
		}
	}
	return out
}

// fullName is the fullest form the text gives of a surname answered
// alone ("Ivan Pavlov", "John B. Watson" for "Pavlov", "Watson"), or "".
// It is worked out once per answer.
func (a *asker) fullName(answer string) string {
	if full, ok := a.fullNames[answer]; ok {
		return full
	}
	full := ""
	if a.fullNames == nil {
		a.fullNames = map[string]string{}
	}
	if r, _ := utf8.DecodeRuneInString(answer); unicode.IsUpper(r) && !strings.ContainsRune(answer, ' ') && !isAcronym(answer) &&
		(a.lex.IsPerson(answer) || a.lex.Senses(strings.ToLower(answer)) == 0) {
		full = a.firstFullName(answer)
	}
	a.fullNames[answer] = full
	return full
}

// firstFullName finds the first place the text writes a name before the
// surname: up to three capitalised words or initials right before it,
// less a sentence's first word ("Later John B. Watson").
func (a *asker) firstFullName(surname string) string {
	text := a.unmarkedText()
	for at := strings.Index(text, " "+surname); at >= 0; {
		end := at + 1 + len(surname)
		if end >= len(text) || !isLetterOrDigit(rune(text[end])) {
			words := strings.Fields(text[max(0, at-60):at])
			var names []string
			for i := len(words) - 1; i >= 0 && len(names) < 3; i-- {
				r, _ := utf8.DecodeRuneInString(words[i])
				if !unicode.IsUpper(r) || strings.ContainsAny(words[i], ",;:()") || strings.HasSuffix(words[i], ".") && utf8.RuneCountInString(words[i]) > 2 {
					break // "NADPH. Two G3P": a sentence ended; "John B. Watson" holds an initial
				}
				names = append([]string{words[i]}, names...)
			}
			for len(names) > 0 && everydayWord(names[0]) && !a.lex.IsPerson(names[0]) {
				names = names[1:]
			}
			if len(names) > 0 {
				return strings.Join(append(names, surname), " ")
			}
		}
		next := strings.Index(text[end:], " "+surname)
		if next < 0 {
			break
		}
		at = end + next
	}
	return ""
}

// unmarkedText is the study's text without its bold marks, worked out
// once.
func (a *asker) unmarkedText() string {
	if a.unmarked == "" {
		a.unmarked = strings.ReplaceAll(a.text, "**", "")
	}
	return a.unmarked
}

// lowerText is the study's text in lower case, made once.
func (a *asker) lowerText() string {
	if a.lower == "" {
		a.lower = strings.ToLower(a.text)
	}
	return a.lower
}

// formula is the chemical formula of a common substance named by answer,
// or the name of one given as a formula, in the spelling the text uses
// ("CO₂" for "carbon dioxide" where the text writes CO₂); "" when the text
// uses neither spelling.
func (a *asker) formula(answer string) string {
	key := strings.ToLower(strings.TrimSpace(answer))
	for _, f := range formulas {
		switch {
		case key == f[0]:
			for _, spelling := range f[1:] {
				if standsAlone(a.text, spelling) {
					return spelling
				}
			}
		case slices.Contains(f[1:], strings.TrimSpace(answer)):
			if strings.Contains(a.lowerText(), f[0]) {
				return f[0]
			}
		}
	}
	return ""
}

// standsAlone reports whether word occurs in text with no letter or
// digit right before or after it ("O₂" inside "CO₂" does not).
func standsAlone(text, word string) bool {
	for at := 0; ; {
		i := strings.Index(text[at:], word)
		if i < 0 {
			return false
		}
		i += at
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[i+len(word):])
		if !isLetterOrDigit(before) && !isLetterOrDigit(after) && !unicode.IsNumber(after) {
			return true
		}
		at = i + len(word)
	}
}

// formulas are common substances: the name, then its formula as written
// with subscripts and without.
var formulas = [][]string{
	{"carbon dioxide", "CO₂", "CO2"}, {"carbon monoxide", "CO"}, {"water", "H₂O", "H2O"}, {"oxygen", "O₂", "O2"},
	{"nitrogen", "N₂", "N2"}, {"hydrogen", "H₂", "H2"}, {"ozone", "O₃", "O3"}, {"methane", "CH₄", "CH4"},
	{"ammonia", "NH₃", "NH3"}, {"glucose", "C₆H₁₂O₆", "C6H12O6"}, {"sodium chloride", "NaCl"},
}

// particleKind is the substance of a two-word answer that names its
// particles ("calcium" of "calcium ions", "oxygen" of "oxygen
// molecules"), which names the same thing in a blank; otherwise "".
func particleKind(answer string) string {
	words := strings.Fields(answer)
	if len(words) != 2 || !particles[strings.ToLower(words[1])] {
		return ""
	}
	substance, head := strings.ToLower(words[0]), strings.ToLower(words[1])
	if strings.HasPrefix(head, "ion") {
		switch {
		case substance == "hydrogen":
			return strings.Replace(head, "ion", "proton", 1) // a hydrogen ion is a proton; "hydrogen" is the gas
		case gasElements[substance]:
			return "" // "oxygen" names the gas, not its ions
		}
	}
	return words[0]
}

// gasElements are the elements whose name alone means their gas.
var gasElements = wordSet(`hydrogen oxygen nitrogen chlorine fluorine`)

// particles are the heads that name a substance's particles.
var particles = wordSet(`ion ions atom atoms molecule molecules`)

// markedHead is the head noun of a two-word answer whose first word is
// an acronym ("splicing" of "RNA splicing") when the study sets that head
// in bold as a term of its own, and so would accept it; otherwise "". An
// adjective ("observational learning") or an "of" ("elongation of
// translation") makes a kind of the head, which the head alone does not
// name.
func (a *asker) markedHead(answer string) string {
	words := strings.Fields(answer)
	if len(words) != 2 || !isAcronym(words[0]) || !a.boldWord[strings.ToLower(words[1])] {
		return ""
	}
	return words[1]
}

// centuryOrDecade matches an answer that names a century or a decade,
// not a year.
var centuryOrDecade = regexp.MustCompile(`(?i)\b(century|centuries|\d{3}0s)\b`)

// maxCenturies bounds the questions per study whose answer is a century
// or a decade.
const maxCenturies = 2

// chapterWords is the length from which a study reads as a chapter.
const chapterWords = 1500

// markedEnough is how many bold or defined terms a study needs before
// its unmarked single words stop counting as terms.
const markedEnough = 10

// distractorTerm reports whether keyphrase p may be offered as a wrong
// choice: it need not be central, only not generic.
func (a *asker) distractorTerm(p phrase) bool {
	if genericModifiers[strings.ToLower(firstWord(p.text))] {
		return false // "slight stimulation" is filler beside "sympathetic stimulation"
	}
	if a.classNames[p.stemKey] {
		return false
	}
	if a.marked[p.stemKey] {
		return true
	}
	if a.minRecur >= minRecurrence(chapterWords) && a.recur[p.key] < 2 {
		return false // a chapter's phrase said once ("vagal stimulation") may be another name of the answer
	}
	return !a.generic(p)
}

// classNames returns the stem keys of the phrases of two words or more
// that end two or more of marks.
func classNames(marks []markedTerm, stem func(string) string) map[string]bool {
	ending := map[string]int{}
	for _, m := range marks {
		words := strings.Fields(m.text)
		for i := 1; i+2 <= len(words); i++ {
			ending[stemKey(strings.Join(words[i:], " "), stem)]++
		}
	}
	names := map[string]bool{}
	for key, n := range ending {
		if n >= 2 {
			names[key] = true
		}
	}
	return names
}

// generic is genericPhrase for a keyphrase of the study, worked out once
// per phrase.
func (a *asker) generic(p phrase) bool {
	g, ok := a.genericity[p.key]
	if !ok {
		g = genericPhrase(a.lex, p.text, a.recur[p.key])
		a.genericity[p.key] = g
	}
	return g
}

// minRecurrence is how often an unmarked phrase must occur in a study of
// words words to be a term of it: in a chapter, a phrase said once or twice
// is an example's detail; a short note says each thing once.
func minRecurrence(words int) int {
	switch {
	case words >= chapterWords:
		return 3
	case words >= 500:
		return 2
	}
	return 1
}

func (a *asker) shortAnswers(u *unit, n int) []studyloop.Question {
	var out []studyloop.Question
	for _, f := range u.facts {
		if f.kind == factDefinition && len(out) < n && recallable(f) && a.sharedDefs[answerKey(trimEnd(f.def))] < 2 {
			out = append(out, studyloop.Question{
				Type: studyloop.QuestionShortAnswer, Prompt: askDefinition(f.term, f.def),
				Answer: trimEnd(f.def), Source: f.span,
			})
		}
	}
	for _, s := range u.sentences() {
		if len(out) >= n {
			break
		}
		if q, ok := definitionSentence(s); ok && !a.productBlurb(q) {
			out = append(out, q)
		}
	}
	return out
}

// productBlurb reports whether q asks documentation what the documented
// thing itself is ("What is Halyard?" "a fast, friendly HTTP client for
// …"): its introduction's selling line, which readers rated weak.
func (a *asker) productBlurb(q studyloop.Question) bool {
	m := askedAbout.FindStringSubmatch(q.Prompt)
	if !a.reference || m == nil {
		return false
	}
	stems := contentStems(m[1]+m[2], a.stem)
	return len(stems) > 0 && !slices.ContainsFunc(stems, func(st string) bool { return !a.titleStems[st] && !a.subjectStems[st] })
}

// recallable reports whether a glossary definition makes a fair answer to
// "What does X mean?": not an acronym's, whose expansion would answer as
// well ("What does “SQL” mean?"), nor a one-letter name's ("What does
// “S” mean?" names nothing), and short enough to recall.
func recallable(f fact) bool {
	return !isAcronym(f.term) && utf8.RuneCountInString(strings.TrimSpace(f.term)) > 1 && len(strings.Fields(f.def)) <= maxRecalledWords && !circular(f) &&
		!explainingOpeners[strings.ToLower(firstWord(f.def))]
}

// explainingOpeners open a list item that explains its term rather than
// saying what it is: "**Charles's law**: If a heated gas is kept at
// constant pressure, the container must expand."
var explainingOpeners = wordSet(`if when because since as whenever`)

// cutOff reports whether a definition stops mid-phrase: no closing
// punctuation after a word WordNet knows, but not as a noun ("… dividing
// the overall population into homogeneous").
func cutOff(lex *lexicon.Lexicon, def string) bool {
	def = strings.TrimSpace(def)
	if def == "" || strings.ContainsAny(def[len(def)-1:], ".!?)\"'”’") {
		return false
	}
	last := strings.ToLower(lastWord(def))
	return lex.Senses(last) > 0 && !lex.IsNoun(last)
}

// circular reports whether a one-word term's definition uses the term's
// own root ("caching": "saving data to a cache"): it explains nothing. A
// compound ("In object-oriented programming") and a recursion ("files and
// other directories") still explain.
func circular(f fact) bool {
	term := []rune(strings.ToLower(strings.TrimSpace(f.term)))
	if len(term) < 5 || strings.ContainsRune(string(term), ' ') {
		return false
	}
	root := string(term[:max(4, len(term)-4)])
	words := strings.Fields(strings.ToLower(f.def))
	for i, w := range words {
		w = strings.Trim(w, ".,;:()'\"")
		if strings.HasPrefix(w, root) && !strings.Contains(w, "-") && !(i > 0 && words[i-1] == "other") {
			return true
		}
	}
	return false
}

// maxRecalledWords bounds a definition a student is asked to give: a
// reader rated glossary answers of 19 to 22 words too long to recall; a
// longer definition is asked the other way, for its term.
const maxRecalledWords = 16

// askDefinition asks for the definition def of a glossary's term: "What
// does it mean to vectorize?" for "To write code ...", and otherwise
// "What does “stream” mean?", which needs no article and so cannot get a
// mass noun's ("a literate programming") wrong.
func askDefinition(term, def string) string {
	lex := lexicon.Default()
	if base, object, ok := strings.Cut(strings.TrimSuffix(term, ")"), " ("); ok && !strings.Contains(base, " ") && lex.IsVerb(base) &&
		(strings.HasPrefix(object, "a ") || strings.HasPrefix(object, "an ")) {
		return "What does it mean to " + base + " " + object + "?" // "pass (a test)"
	}
	verb := lex.IsVerb(term) || !lex.IsNoun(term) && !strings.HasSuffix(term, "ing") && !strings.HasSuffix(term, "ed") // "vectorize", not "aggregation"
	if strings.EqualFold(firstWord(def), "to") && !strings.Contains(term, " ") && verb {
		return "What does it mean to " + term + "?"
	}
	return "What does “" + term + "” mean?"
}

// citation matches a bracketed reference at the end of a text: " (Hunt,
// 2007)".
var citation = regexp.MustCompile(`\s*\([^()]*\b\d{4}[a-z]?\)$`)

// conditional matches a definition's answer that holds a condition: the
// sentence argues rather than defines.
var conditional = regexp.MustCompile(`(?i)\b(provided|if|unless)\b`)

// onlyWhen matches a definition whose difference is only when its kind
// came about: "a school of thought that arose during the 20th century".
var onlyWhen = regexp.MustCompile(`^[^,;]*\b(that|which|who) (arose|emerged|began|originated|appeared|started|developed) (in|during|around|after|before|at the)\b[^,;]*$`)

// copulas are the verbs of "X is Y" definitions, as token sequences.
var copulas = [][]string{{"is", "defined", "as"}, {"are", "defined", "as"}, {"refers", "to"}, {"refer", "to"}, {"means"}, {"is"}, {"are"}}

// definitionSentence reads s as "X is Y." with X a short noun phrase and Y
// a noun phrase, and asks "What is X?".
func definitionSentence(s *sentence) (studyloop.Question, bool) {
	if !s.tagged || len(s.toks) < 5 || !endsSentence(s.text) || strings.ContainsAny(s.text, "?\n") {
		return studyloop.Question{}, false
	}
	from := 0
	article := ""
	if s.lower[0] == "one" {
		return studyloop.Question{}, false // "One joule is the amount of energy …" defines a unit by a measurement
	}
	if t := s.lower[0]; t == "a" || t == "an" || t == "the" {
		from, article = 1, t+" "
	}
	to := from
	for to < len(s.toks) && to-from < 6 {
		switch tag := s.toks[to].Tag; {
		case strings.HasPrefix(tag, "NN"), strings.HasPrefix(tag, "JJ"), tag == "CD":
			to++
			continue
		case s.lower[to] == "of" && to > from && to+1 < len(s.toks) && strings.HasPrefix(s.toks[to-1].Tag, "NN") && (strings.HasPrefix(s.toks[to+1].Tag, "NN") || strings.HasPrefix(s.toks[to+1].Tag, "JJ")):
			to++ // "price elasticity of demand"
			continue
		}
		break
	}
	if to == from || !strings.HasPrefix(s.toks[to-1].Tag, "NN") || to >= len(s.toks) {
		return studyloop.Question{}, false
	}
	// "Cardiac output (CO) is …": the abbreviation goes with the term.
	after := to
	if after+2 < len(s.toks) && s.toks[after].Text == "(" && s.toks[after+2].Text == ")" {
		after += 3
	}
	verb := ""
	yFrom := 0
	for _, c := range copulas {
		if after+len(c) < len(s.toks) && slices.Equal(s.lower[after:after+len(c)], c) {
			verb, yFrom = c[0], after+len(c)
			break
		}
	}
	if verb == "" {
		return studyloop.Question{}, false
	}
	// A definition names a kind of thing: "X is a/an/the ...".
	switch s.lower[yFrom] {
	case "a", "an", "the", "one":
	default:
		return studyloop.Question{}, false
	}
	yTo := len(s.toks) - 1 // drop the full stop
	if yTo-yFrom < 2 {
		return studyloop.Question{}, false
	}
	if verb == "are" && s.lower[yFrom] == "the" && singularHead(s.toks[yFrom+1:yTo]) {
		return studyloop.Question{}, false // "Partitions are the unit of parallelism": many things as one thing state a role, not a kind
	}
	x := s.text[s.toks[from].Start:s.toks[to-1].End()]
	// A sentence's first word is tagged as a name by its capital alone:
	// "Bradycardia is ..." asks about "bradycardia", a noun WordNet knows.
	if from == 0 && (s.toks[0].Tag != "NNP" && s.toks[0].Tag != "NNPS" || to == 1 && lexicon.Default().IsNoun(strings.ToLower(x)) || to > 1 && everydayWord(s.toks[0].Text) && startsLower(s.toks[1].Text) ||
		to == 1 && strings.Contains(s.block.p.text, " "+lowerFirst(x))) { // "Interphase" where the paragraph writes "interphase" too
		x = lowerFirst(x)
	}
	if article == "the " && relationalNouns[strings.ToLower(x)] {
		return studyloop.Question{}, false // "What is the key?": the key to what?
	}
	if placeholderNouns[strings.ToLower(s.toks[to-1].Text)] {
		return studyloop.Question{}, false // "An extreme case is a liquidity trap": the case names nothing, the answer does
	}
	// Keep the source's article: "What is a covalent bond?", not "What
	// is covalent bond?".
	x = article + x
	be := "is"
	if verb == "are" || verb == "refer" {
		be = "are"
	}
	for k := yFrom + 2; k < yTo; k++ {
		if s.toks[k].Text == ";" {
			yTo = k // "… between actual GDP and potential GDP; it is negative in a recession": the definition ends at the semicolon
			break
		}
	}
	answer := strings.TrimSpace(bracketed.ReplaceAllString(citation.ReplaceAllString(s.text[s.toks[yFrom].Start:s.toks[yTo-1].End()], ""), ""))
	for _, next := range []string{", and the ", ", and a ", ", and an ", ", but "} {
		if kind, _, ok := strings.Cut(answer, next); ok && len(strings.Fields(kind)) >= 4 {
			answer = kind // "a partnership between a fungus and an alga, and the fungi that form mycorrhizae help …": the rest is another statement
		}
	}
	if kind, _, ok := strings.Cut(answer, ", which "); ok && len(strings.Fields(kind)) >= 5 {
		answer = kind // "the force of the contraction of the heart muscle, which controls SV, and …": the rest is not the definition
	}
	if strings.ContainsAny(answer, "$€£") {
		return studyloop.Question{}, false // "The new money is the $90,000 in additional deposits …": a worked example's figure
	}
	if onlyWhen.MatchString(answer) {
		return studyloop.Question{}, false // "a school of thought that arose during the first part of the 20th century" says when, not what
	}
	if conditional.MatchString(answer) {
		return studyloop.Question{}, false // "despotism is a legitimate mode … provided the end be …" states a judgement, not a kind
	}
	for _, w := range s.lower[yFrom:yTo] {
		if leaningWords[w] {
			return studyloop.Question{}, false // "a tool that keeps track of these changes for us": which changes?
		}
	}
	return studyloop.Question{
		Type: studyloop.QuestionShortAnswer, Prompt: "What " + be + " " + x + "?",
		Answer: answer, Source: s.span(),
	}, true
}

// placeholderNouns head a subject that names no thing of its own: "An
// extreme case is …", "One example is …".
var placeholderNouns = wordSet(`case cases example examples instance instances thing things situation situations way ways option options possibility possibilities alternative alternatives analogy analogies comparison illustration`)

// singularHead reports whether the noun phrase that toks open ends in a
// singular noun: "unit" of "unit of parallelism", not "bonds that form".
func singularHead(toks []token.Token) bool {
	head := ""
	for _, t := range toks {
		if !strings.HasPrefix(t.Tag, "NN") && !strings.HasPrefix(t.Tag, "JJ") {
			break
		}
		head = t.Tag
	}
	return head == "NN"
}

// everydayWord reports whether a capitalised word is an English word
// WordNet knows that is not only a name: "Price" (also a verb) at the
// start of "Price elasticity is…", not "Newton" or "France".
func everydayWord(w string) bool {
	lex := lexicon.Default()
	return lex.Senses(strings.ToLower(w)) > 0 && !lex.IsPlace(w) && !(lex.IsPerson(w) && lex.NounOnly(w))
}

func (a *asker) termDefinitions(u *unit, n int) []studyloop.Question {
	var out []studyloop.Question
	cells := a.askableCells(u)
	for _, f := range u.facts {
		if len(out) >= n {
			break
		}
		switch f.kind {
		case factDefinition:
			if recallable(f) {
				continue // asked the other way round by shortAnswers
			}
			fallthrough // too long to recall: give the definition, ask for the term
		case factPair:
			out = append(out, studyloop.Question{
				Type: studyloop.QuestionTermDefinition, Prompt: describePrompt(f.def),
				Answer: f.term, Source: f.span,
			})
		case factCell:
			if !cells[f.span] {
				continue
			}
			out = append(out, studyloop.Question{
				Type: studyloop.QuestionTermDefinition, Prompt: a.cellPrompt(f),
				Answer: trimEnd(f.def), Source: f.span,
			})
		}
	}
	return out
}

// askableCells returns the table cells of u that questions may ask,
// worked out once per topic: all of them in a topic that is mostly its
// tables; in one with prose, at most maxCellsPerTable a table and
// maxCellsPerColumn a column (a table's every cell would crowd out the
// prose around it).
func (a *asker) askableCells(u *unit) map[studyloop.Span]bool {
	if cells, ok := a.cellsOf[u]; ok {
		return cells
	}
	prose := 0
	for _, b := range u.blocks {
		prose += b.words
	}
	cells := map[studyloop.Span]bool{}
	perColumn, perTable := map[int]int{}, map[int]int{}
	rows, values := map[int]int{}, map[int]map[string]bool{}
	for _, f := range u.facts {
		if f.kind == factCell {
			rows[f.group]++
			if values[f.group] == nil {
				values[f.group] = map[string]bool{}
			}
			values[f.group][strings.ToLower(trimEnd(f.def))] = true
		}
	}
	colCap, tableCap := maxCellsPerColumn, maxCellsPerTable
	if prose < tableCapProse {
		colCap, tableCap = maxCellsPerColumnAlone, maxCellsPerTableAlone
	}
	for _, f := range u.facts {
		if f.kind != factCell || perColumn[f.group] >= colCap || perTable[f.table] >= tableCap {
			continue
		}
		if (measuredValue(f.def) || approximateValue.MatchString(strings.TrimSpace(f.def))) && !participleColumn(f.attr) {
			continue // "What is the pKa of hydrofluoric acid?" 3.17, "approximate elasticity" "about 0.2": a value to look up, not to learn
		}
		if a.reference {
			continue // "What is the minimum version of Windows?", "What is the description of --quiet?": read off the table or the name
		}
		if transposed(f) && columnPronoun.MatchString(f.term) {
			continue // "Cells that display it": "it" is the column's, which the question cannot say
		}
		if verbLed(a.lex, f.term) || actionVerbs[strings.ToLower(firstWord(f.term))] && strings.Contains(f.term, " ") {
			continue // "Add a reactant | Shifts right": a row named by an action, which "of" cannot ask
		}
		if rangeKey.MatchString(strings.TrimSpace(f.term)) && wholeNumber.MatchString(strings.TrimSpace(f.def)) {
			continue // "When the age interval is 0–1, what is the number dying?" 500: a life table's data
		}
		if measuredValue(f.term) && !strings.Contains(strings.TrimSpace(f.term), " ") {
			continue // "What is the typical use when the value of R is 8.314?": a row named by a constant's value is data
		}
		if header := strings.ToLower(strings.TrimSpace(f.attr)); defaultColumn[header] || defaultColumn[firstWord(header)] || f.named && typeColumn[header] {
			continue // "What is the default of broker.id?", "… the default timeout of enormous?", "… the type of deps?": a setting to look up
		}
		if percentValue.MatchString(strings.TrimSpace(f.def)) {
			continue // "What is the share of serum antibody of IgG?" "About 75–80%": a figure to look up
		}
		if yesNo[strings.ToLower(trimEnd(f.def))] {
			continue // "What is the loss possible of at-least-once?" "Yes"
		}
		if rows[f.group] >= 4 && 2*len(values[f.group]) <= rows[f.group] && oneWordEach(values[f.group]) {
			continue // a column of a few repeated words ("integer", "string", "path"): a guess among them
		}
		perColumn[f.group]++
		perTable[f.table]++
		cells[f.span] = true
	}
	a.cellsOf[u] = cells
	return cells
}

// measuredValue reports whether a table's cell holds a measured number,
// with decimals or a power of ten, with or without a unit ("3.17",
// "6.8 × 10⁻⁴", "0.39 AU"): a value to look up, where a count or a whole
// number ("6", the atomic number of carbon) may be worth knowing.
func measuredValue(cell string) bool {
	cell = strings.TrimSpace(cell)
	r, _ := utf8.DecodeRuneInString(cell)
	if !unicode.IsDigit(r) && r != '−' && r != '-' && r != '.' || !strings.ContainsAny(cell, ".×⁻") {
		return false
	}
	letters := 0
	for _, r := range cell {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters <= 4
}

// maxCellsPerColumn and maxCellsPerTable bound the questions one table
// gives in a topic with tableCapProse words of prose or more.
const (
	maxCellsPerColumn = 2
	maxCellsPerTable  = 4
	tableCapProse     = 150
	// A topic that is mostly its table is asked about more of it, not
	// all of it: a reference table of eighteen settings is no quiz.
	maxCellsPerColumnAlone = 6
	maxCellsPerTableAlone  = 12
)

// oneWordEach reports whether every value of a set is one word.
func oneWordEach(values map[string]bool) bool {
	for v := range values {
		if strings.Contains(v, " ") {
			return false
		}
	}
	return true
}

// defaultColumn are the headers of a reference table's columns of
// default values.
var defaultColumn = wordSet(`default defaults`)

// typeColumn heads a reference table's column of data types ("string",
// "list of labels"), asked of no row named in code.
var typeColumn = wordSet(`type types`)

// yesNo are the cell values that answer a yes-or-no question, which a
// table's "What is the … of …?" cannot ask.
var yesNo = wordSet(`yes no true false y n ✓ ✗ ✔ ✘`)

// describePrefix opens a prompt that gives a definition and asks for its
// term.
const describePrefix = "Which term matches this description: "

// describeVerbPrefix opens such a prompt when the definition starts with
// its verb, as glossaries write adjectives and some nouns: "describes a
// trait that is expressed in the heterozygote" asks "Which term describes
// a trait …?".
const describeVerbPrefix = "Which term "

func describePrompt(def string) string {
	def = trimEnd(def)
	if m := trailingOtherNames.FindStringIndex(def); m != nil {
		def = def[:m[0]] // "…; also called Na⁺/K⁺-ATPase" would answer it
	}
	if definitionVerbs[firstWord(def)] {
		return describeVerbPrefix + def + "?"
	}
	return describePrefix + def + "?"
}

// trailingOtherNames matches the other names a definition closes with:
// "; also called Na⁺/K⁺-ATPase", ", also known as …".
var trailingOtherNames = regexp.MustCompile(`[;,]\s*(?:also|sometimes|often|formerly)\s+(?:called|known as|named)\b.*$`)

// definitionVerbs open a definition that says what its term does.
var definitionVerbs = wordSet(`describes refers denotes means names indicates`)

// description is the definition a prompt of describePrompt's gives, or
// the prompt itself.
func description(prompt string) string {
	if d, ok := strings.CutPrefix(prompt, describePrefix); ok {
		return d
	}
	if d, ok := strings.CutPrefix(prompt, describeVerbPrefix); ok && definitionVerbs[firstWord(d)] {
		return d
	}
	return prompt
}

// cellPrompt asks for the cell f: "What is the symbol of sodium?", and
// for a row named by a range of values, with the column that holds them:
// "What is the usual bond type when the electronegativity difference is
// less than 0.4?".
func (a *asker) cellPrompt(f fact) string {
	if rangeKey.MatchString(f.term) && f.key != "" {
		return "What is the " + lowerFirst(f.attr) + " when the " + lowerFirst(f.key) + " is " + lowerFirst(f.term) + "?"
	}
	if transposed(f) {
		// "Feature | Sympathetic division | Parasympathetic division": the
		// columns are the things compared, the rows their features.
		return "In the " + lowerFirst(f.attr) + ", " + whatIsOrAre(f.term) + " the " + lowerFirst(f.term) + "?"
	}
	row := a.rowName(f)
	if participleColumn(f.attr) {
		// "Ratified" over years: "In what year was the Thirteenth
		// Amendment ratified?"
		return "In what year was " + row + " " + lowerFirst(f.attr) + "?"
	}
	return "What is the " + headerCase(f.attr) + " of " + row + "?"
}

// referenceCodeSpans is how many code spans make a study documentation.
const referenceCodeSpans = 20

// codeSpans counts the code spans of units' prose.
func codeSpans(units []*unit) int {
	n := 0
	for _, u := range units {
		for _, b := range u.blocks {
			n += len(b.p.code)
		}
	}
	return n
}

// columnPronoun matches a pronoun in a feature's name.
var columnPronoun = regexp.MustCompile(`(?i)\b(?:it|its|them|they|their)\b`)

// whatIsOrAre opens a question about a feature named by a plural noun
// with "what are" ("Cells that display it"), about others with "what is".
func whatIsOrAre(feature string) string {
	if w := strings.ToLower(firstWord(feature)); len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && lexicon.Default().IsNoun(strings.TrimSuffix(w, "s")) {
		return "what are"
	}
	return "what is"
}

// headerCase writes a column's header inside a question: lower-cased,
// unless it is a symbol ("Ka", "pH") whose capitals carry meaning.
func headerCase(attr string) string {
	if !strings.Contains(attr, " ") && utf8.RuneCountInString(attr) <= 3 {
		return attr
	}
	return lowerFirst(attr)
}

// transposed reports whether f's table compares its columns, its first
// column naming features: "Feature", "Characteristic", "Property".
func transposed(f fact) bool {
	return f.kind == factCell && featureHeaders[strings.ToLower(strings.TrimSpace(f.key))] && !columnWords[strings.ToLower(strings.TrimSpace(f.attr))]
}

// columnWords head the columns of a table whose rows are the things
// described, not features compared: "Attribute | Type | Description".
var columnWords = wordSet(`type types description meaning notes note value values default example examples purpose use units unit format required`)

// featureHeaders head the first column of a table that compares its
// columns.
var featureHeaders = wordSet(`feature features characteristic characteristics property properties aspect aspects attribute attributes criterion criteria comparison`)

// rowName names a table's row in a question: a row named by an ordinal or
// an adjective takes the first column's noun ("the Thirteenth
// Amendment" in a column "Amendment"); a common noun capitalised in its
// cell is written as the text writes it elsewhere ("water", but "Mars").
func (a *asker) rowName(f fact) string {
	lex := lexicon.Default()
	lower := strings.ToLower(f.term)
	key := strings.ToLower(strings.TrimSpace(f.key))
	switch {
	case !strings.Contains(f.term, " ") && key != "" && !strings.Contains(key, " ") && lex.IsNoun(key) && (ordinalWord(lower) || !lex.IsNoun(lower) && lex.Senses(lower) > 0):
		return "the " + f.term + " " + upperFirst(key)
	case lower != f.term && standsAlone(a.text, lower):
		return lower // "seed shape" where the text writes it so
	case lower != f.term && strings.Contains(lower, " ") && lowerFirst(f.term) == lower && (lex.IsNoun(lower) || lex.Senses(firstWord(lower)) > 0 && !lex.IsPerson(firstWord(f.term)) && !lex.IsPlace(firstWord(f.term))):
		return lower // "Formic acid", "Restaurant meals" in their cells: common nouns
	}
	return theName(f.term) // "the Emergency Banking Act"
}

// ordinalWord reports whether w is an ordinal written out ("thirteenth").
func ordinalWord(w string) bool {
	if ordinals[w] != "" {
		return true
	}
	for _, suffix := range []string{"teenth", "tieth", "hundredth"} {
		if strings.HasSuffix(w, suffix) {
			return true
		}
	}
	return false
}

// participleColumn reports whether a table column's header is a past
// participle that dates its rows ("Ratified", "Approved by Congress").
func participleColumn(attr string) bool {
	first := strings.ToLower(firstWord(attr))
	_, verb := lexicon.Default().VerbBase(first)
	return verb && strings.HasSuffix(first, "ed")
}

// rangeKey matches a table row named by a number or a range of values:
// "less than 0.4", "0.4 to 1.8", "> 1.8".
var rangeKey = regexp.MustCompile(`(?i)^(?:(?:less than|more than|greater than|fewer than|at least|at most|up to|over|under|below|above|between|exactly|about|approximately|infinite|zero)(?:[^-\pL]|$)|[<>≤≥~±∞]|\d)`)

// percentValue matches a table's cell that is a percentage or a range of
// them, roughly given or not: "0%", "−1%", "About 75–80%", "5–15% (of
// lymphocytes)".
var percentValue = regexp.MustCompile(`(?i)^(?:(?:about|approximately|around|roughly|nearly|less than|more than|over|under) )?[−-]?\d[\d.,]*\s?(?:[–-]\s?\d[\d.,]*\s?)?%`)

// actionVerbs open a table's row named by what is done rather than by a
// thing ("Add a reactant", "Increase temperature"), words WordNet also
// knows as nouns.
var actionVerbs = wordSet(`increase decrease add remove`)

// wholeNumber matches a cell that is a number alone: "500", "1,000".
var wholeNumber = regexp.MustCompile(`^[−-]?\d[\d,.]*$`)

// approximateValue matches a table's cell that gives a number roughly or
// as a bound, or a sum of money: "about 0.2", "greater than 1", "About
// $18 trillion", "−$5 million".
var approximateValue = regexp.MustCompile(`(?i)^(?:(?:less than|more than|greater than|fewer than|about|approximately|around|roughly|nearly|over|under) [−+-]?[$€£]?\d[\d.,]*(?: ?(?:thousand|million|billion|trillion|percent|%))?|[−+-]?[$€£]\d[\d.,]*(?: (?:thousand|million|billion|trillion))?)$`)

// blank is a stretch of a sentence that a cloze question hides.
type blank struct {
	from, to int // byte offsets in the sentence text
	class    string
	key      string
	// code marks a code span, which names a thing even where it stands
	// as a modifier ("the `no-store` directive").
	code bool
}

// clozeSource is a unit's sentences fit for cloze questions, richest in
// keyphrases first, with the stretches each could blank, best first.
type clozeSource struct {
	sents  []*sentence
	blanks map[*sentence][]blank
}

// rankSentences gathers the sentences of u with at least minWords words
// that clozes may blank. It records their tagged tokens for a.tags.
func (a *asker) rankSentences(u *unit, minWords int) clozeSource {
	blanks := map[*sentence][]blank{}
	score := map[*sentence]float64{}
	for _, p := range u.phrases[:min(len(u.phrases), phrasesPerTopic)] {
		if !a.isTerm(p) || !a.markedOrSpecific(p) {
			continue
		}
		for _, o := range u.occ[p.key] {
			s := o.sent
			if !clozeSentence(s, minWords) {
				continue
			}
			from := o.from
			if o.to-from >= 2 && (quantityWords[s.lower[from]] || s.toks[from].Tag == "JJR" || s.toks[from].Tag == "JJS") {
				from++ // "extra greenhouse absorbers", "the older Expires header": "extra" and "older" say nothing to recall
			}
			blanks[s] = append(blanks[s], blank{from: s.toks[from].Start, to: s.toks[o.to-1].End(), class: p.class, key: p.key})
			score[s] += p.score
		}
	}
	var sents []*sentence
	anaphoric := a.anaphoric(u)
	for _, s := range u.sentences() {
		if !clozeSentence(s, minWords) || s.hasProblem() || anaphoric[s] {
			continue
		}
		a.tagged[s.text] = s.toks
		// Bold terms are what the author marked as worth knowing: blank them first.
		var bold []blank
		marks := false
		bolds := s.block.p.bold
		first := sort.Search(len(bolds), func(i int) bool { return bolds[i].Start >= s.start })
		for _, b := range bolds[first:] {
			if b.Start >= s.start+len(s.text) {
				break
			}
			marks = true
			b.End = wordEnd(s.block.p.text, b.End)
			if b.End <= s.start+len(s.text) && len(strings.Fields(s.block.p.text[b.Start:b.End])) <= 5 && nounPhraseAt(s, b.Start-s.start, b.End-s.start) {
				from, to := markSpan(s, b)
				if from > b.Start-s.start && genericHeads[headNoun(s.text[from:to])] {
					continue // "**greater fraction**" stresses, and names no term
				}
				bold = append(bold, blank{from: from, to: to, class: boldClass(s, from, to)})
				score[s] += 10
			}
		}
		if !marks {
			// Technical text marks its names as code instead: "The
			// `no-store` directive forbids any cache …".
			bold = a.codeBlanks(s)
			marks = len(bold) > 0
			score[s] += 5 * float64(len(bold))
		}
		if marks {
			// A sentence that marks its term is asked about that term or
			// not at all: blanking a side word ("The atmosphere is
			// **transparent to shortwave** _____") skips what it teaches.
			blanks[s] = bold
		}
		if len(blanks[s]) > 0 {
			sents = append(sents, s)
		}
	}
	sort.SliceStable(sents, func(i, j int) bool {
		return score[sents[i]]/math.Sqrt(float64(len(sents[i].toks))) > score[sents[j]]/math.Sqrt(float64(len(sents[j].toks)))
	})
	return clozeSource{sents: sents, blanks: blanks}
}

// markedSome is how many terms a study marks for markedOrSpecific to hold
// its other keyphrases to a higher bar.
const markedSome = 5

// markedOrSpecific reports whether keyphrase p may be blanked in a study
// that marks its terms: p is one of them, or it names something specific
// in more than one word ("atrial systole", "Little Albert"). There an
// unmarked single word or a phrase of everyday words ("friction", "moon
// rock", "blood pressure") is rarely what the sentence teaches, and often
// one of several words that fit.
func (a *asker) markedOrSpecific(p phrase) bool {
	if a.marked[p.stemKey] {
		return true
	}
	if len(a.marked) < markedSome {
		// A study that marks few terms: any recurring keyphrase but one
		// word of everyday English ("ruler" in Mill), which too many
		// other words fit.
		return strings.Contains(p.text, " ") || !isGeneralWord(a.lex, strings.ToLower(p.text))
	}
	words := strings.Fields(p.text)
	if len(words) < 2 {
		return false
	}
	for _, w := range words {
		if !isGeneralWord(a.lex, strings.ToLower(strings.Trim(w, ".,;:'\""))) {
			return true
		}
	}
	return false
}

// markSpan returns the bytes of s that a cloze blanks for the bold span
// sp: the whole word it ends in, without an opening quantity word
// ("**extra greenhouse absorbers**" asks "greenhouse absorbers") or a
// closing other name in brackets ("**atmosphere (atm)**" asks
// "atmosphere", and the prompt drops "(atm)").
func markSpan(s *sentence, sp studyloop.Span) (from, to int) {
	from, to = sp.Start-s.start, wordEnd(s.block.p.text, sp.End)-s.start
	if first, rest, ok := strings.Cut(s.text[from:to], " "); ok && quantityWords[strings.ToLower(first)] {
		from = to - len(rest)
	}
	if m := trailingOtherName.FindStringIndex(s.text[from:to]); m != nil && m[0] > 0 {
		to = from + m[0]
	}
	return from, to
}

// codeBlanks returns the code spans of s that name something, as blanks:
// one to three words with a letter in each, not a whole statement of code
// ("max-age=3600").
func (a *asker) codeBlanks(s *sentence) []blank {
	var out []blank
	for _, c := range s.block.p.code {
		if c.Start < s.start || c.End > s.start+len(s.text) {
			continue
		}
		from, to := c.Start-s.start, c.End-s.start
		name := s.text[from:to]
		if n := len(strings.Fields(name)); n == 0 || n > 3 || strings.ContainsAny(name, "=()[]{};<>/\\\"'") || !strings.ContainsFunc(name, unicode.IsLetter) {
			continue
		}
		out = append(out, blank{from: from, to: to, class: boldClass(s, from, to), code: true})
	}
	return out
}

// clozes returns cloze questions (or, with choices, their multiple-choice
// form) from the sentences richest in keyphrases.
// Each sentence yields its first blank that makes a valid cloze with at
// least minContext words around it.
func (a *asker) clozes(u *unit, src clozeSource, n, minContext int, withChoices bool) []studyloop.Question {
	sents, blanks := src.sents, src.blanks
	var out []studyloop.Question
	// Cloze and multiple choice draw on the same sentences; accept keeps
	// one question per sentence, so a sentence with no same-kind
	// distractors still yields its cloze.
	for _, s := range sents {
		if len(out) >= n {
			break
		}
		for _, b := range blanks[s] {
			if a.unfitBlank(s, b) || !b.code && !nounPhraseAt(s, b.from, b.to) {
				continue
			}
			if a.presentTense && narrates(s) {
				break // "Pavlov would sound a tone and then give the dogs the _____"
			}
			if s.span().End <= a.firstMark {
				break // the chapter's opening, before the first term it marks, introduces
			}
			if a.boldStudy && !boldBlank(s, b) || b.code && listedCode(s, b) || a.coverOnly != nil && !a.coverOnly(s.text[b.from:b.to]) {
				continue
			}
			q := studyloop.Question{
				Type:   studyloop.QuestionCloze,
				Answer: s.text[b.from:b.to],
				Source: s.span(),
			}
			q.Prompt, q.Alternatives = clozePrompt(s, b)
			if len(strings.Fields(q.Prompt)) < minContext+1 || a.check(q) != nil {
				continue
			}
			ok := true
			if withChoices {
				if mc := a.markChoices(q, b); mc.Type == studyloop.QuestionMultipleChoice {
					q = mc // the study's marked terms of the answer's kind
				} else if q, ok = a.withDistractors(u, q, b); !ok {
					continue
				}
			}
			out = append(out, q)
			break
		}
	}
	return out
}

// boldBlank reports whether blank b of s covers a term the text sets in
// bold there.
func boldBlank(s *sentence, b blank) bool {
	for _, sp := range s.block.p.bold {
		if sp.Start < s.start+b.to && sp.End > s.start+b.from && !clauseTerm(s.block.p.text[sp.Start:sp.End]) {
			return true
		}
	}
	return false
}

// listedCode reports whether the code blank b of s is one item of an
// enumeration of code names ("GET, HEAD, OPTIONS, PUT, DELETE, or
// TRACE"): any of them would be as right.
func listedCode(s *sentence, b blank) bool {
	n := 0
	for _, sp := range s.block.p.code {
		if sp.Start >= s.start && sp.End <= s.start+len(s.text) {
			n++
		}
	}
	before := strings.TrimRight(s.text[:b.from], " `")
	return n >= 3 && (strings.HasSuffix(before, ",") || strings.HasSuffix(before, " or") || strings.HasSuffix(before, " and"))
}

// unfitBlank reports whether blank b of s fails one of the checks every
// cloze passes, from the topic's clozes and the bold terms' alike: it is
// part of a longer term, opens a participle clause, has a rival nearby, is
// an example's slot or an instance, stands in an aside, names what two
// groups share or is followed by another name of itself.
func (a *asker) unfitBlank(s *sentence, b blank) bool {
	return a.partOfTerm(s, b) || participleClause(s, b) || rivalNearby(s, b) || exampleSlot(s, b) || instanceStatement(s, b) ||
		inAside(s, b) || sameAcross(s, b) || namedAfter(s, b)
}

// markChoices is withTermChoices for a blank that is a marked term (in
// bold or code; a keyphrase's blank carries its key), and q as it is for
// any other: the study's marks are no kin of its other phrases.
func (a *asker) markChoices(q studyloop.Question, b blank) studyloop.Question {
	if b.key != "" {
		return q
	}
	return a.withTermChoices(q)
}

// sameAcross reports whether the blank names what a sentence says two
// groups share ("Prokaryotes and eukaryotes perform the same process of
// _____", "the basics of _____ are the same"): any process both have fits.
func sameAcross(s *sentence, b blank) bool {
	before := strings.Fields(strings.ToLower(s.text[:b.from]))
	n := len(before)
	if n >= 2 && before[n-2] == "the" && before[n-1] == "same" && strings.TrimSpace(s.text[b.to:]) == "." {
		return true // "all derived from the same _____.": any source fits
	}
	return n > 0 && before[n-1] == "of" && strings.Contains(strings.ToLower(s.text), "the same")
}

// namedAfter reports whether the blank is followed by another name of it
// set off by a comma, short and without an article, to the sentence's end
// or the next comma: "the _____, cranial nerve X." gives the answer away.
func namedAfter(s *sentence, b blank) bool {
	m := appositiveName.FindStringSubmatch(s.text[b.to:])
	return m != nil && strings.ContainsFunc(m[1], func(r rune) bool { return unicode.IsUpper(r) || unicode.IsDigit(r) })
}

// appositiveName matches a comma and up to four words with no article,
// then a comma or the sentence's end.
var appositiveName = regexp.MustCompile(`^, ((?:[\p{L}\p{N}'-]+ ){0,3}[\p{L}\p{N}'-]+)(?:,|\.$)`)

// rivalNearby reports whether another phrase with the blank's head noun
// and a different modifier stands in the blank's sentence or the one
// before ("cardiac muscle" beside a blank for "ventricular muscle"): the
// student could write it and be right. Numbers and ordinals do not make a
// rival ("the first two positions" beside "wobble position"), nor does a
// phrase of the other number, which would not fit the slot, nor does
// the aside right after the blank that names its kinds ("the two _____,
// the tricuspid and mitral valves,"), nor another name of the term right
// after it ("stop codons or nonsense codons").
func rivalNearby(s *sentence, b blank) bool {
	var answer []int
	for i, t := range s.toks {
		if t.Start >= b.from && t.End() <= b.to {
			answer = append(answer, i)
		}
	}
	if len(answer) < 2 || !s.tagged || properName(s.text[b.from:b.to]) {
		return false // "the Stamp Act" is not another name of "the Sugar Act"
	}
	_, named := otherNamesAfter(s, b)
	if definingSlot(s, b, named) {
		return false
	}
	head := s.stems[answer[len(answer)-1]]
	if head < 0 {
		return false
	}
	headPlural := plural(strings.ToLower(s.toks[answer[len(answer)-1]].Text))
	inAnswer := func(i int) bool { return i >= answer[0] && i <= answer[len(answer)-1] }
	aside := -1 // the end of the aside right after the blank
	if end := answer[len(answer)-1]; end+1 < len(s.toks) && s.toks[end+1].Text == "," {
		for k := end + 2; k < len(s.toks); k++ {
			if s.toks[k].Text == "," || k == len(s.toks)-1 {
				aside = k
				break
			}
		}
	}
	if named > b.to {
		for k, t := range s.toks {
			if t.End() <= named {
				aside = max(aside, k) // "stop codons or nonsense codons": another name is no rival
			}
		}
	}
	rival := func(x *sentence, same bool) bool {
		for j := 1; j < len(x.toks); j++ {
			if x.stems[j] != head || same && (inAnswer(j) || j > answer[len(answer)-1] && j <= aside) {
				continue
			}
			if plural(strings.ToLower(x.toks[j].Text)) != headPlural {
				continue // "one of the two DNA strands" cannot fill a slot for "antisense strand"
			}
			m := x.toks[j-1]
			if !strings.HasPrefix(m.Tag, "JJ") && !strings.HasPrefix(m.Tag, "NN") && m.Tag != "VBN" {
				continue
			}
			if r, _ := utf8.DecodeRuneInString(m.Text); unicode.IsUpper(r) && j-1 > 0 && !isAcronym(m.Text) {
				continue // "the Cherokee Nation" is a name, no rival of "domestic dependent nation"
			}
			if m.Tag == "CD" || ordinals[strings.ToLower(m.Text)] != "" || slices.ContainsFunc(answer, func(i int) bool { return strings.EqualFold(s.toks[i].Text, m.Text) }) {
				continue
			}
			return true
		}
		return false
	}
	if rival(s, true) {
		return true
	}
	sents := s.block.sents
	if i := slices.Index(sents, s); i > 0 {
		return rival(sents[i-1], false)
	}
	return false
}

// properName reports whether name is a proper name: every word
// capitalised but the connecting "of", "the" and "and" and numbers after
// the first ("Stamp Act", "Panic of 1837", "Treaty of New Echota").
func properName(name string) bool {
	for i, w := range strings.Fields(name) {
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) && (i == 0 || !unicode.IsDigit(r) && !nameConnectives[w]) {
			return false
		}
	}
	return name != ""
}

// nameConnectives may stand uncapitalised inside a proper name.
var nameConnectives = wordSet(`of the and`)

// definingSlot reports whether the sentence says what the blank is, in an
// aside that closes it or as the subject (its other names end at end) of
// a sentence that says what it is or states ("An _____ is one that buyers purchase
// less of …", "The _____ states that …"): what follows tells it from its
// kin ("normal good", "law of supply") named nearby.
func definingSlot(s *sentence, b blank, end int) bool {
	if m := definingAppositive.FindStringSubmatch(s.text[end:]); m != nil && len(strings.Fields(m[1])) >= 4 {
		return true // "People incur _____, the time and effort spent keeping cash low": the aside says which
	}
	from := s.body()
	if from > b.from {
		return false
	}
	if before := strings.ToLower(strings.TrimSpace(s.text[from:b.from])); before != "" && !articleOnly[before] {
		return false
	}
	return definingVerb.MatchString(s.text[end:])
}

// definingAppositive matches an aside right after a blank that says what
// it is: ", the time and effort spent …" up to the sentence's end.
var definingAppositive = regexp.MustCompile(`^, (?:the|a|an) ([^,;:()]+)\.$`)

// articleOnly are what may stand before a sentence's subject.
var articleOnly = wordSet(`a an the`)

// definingVerb matches the verb of a definition or a law right after its
// subject.
var definingVerb = regexp.MustCompile(`^ (?:(?:is|are) (?:a|an|one|the)\b|states that\b|refers to\b|means\b)`)

// boldClass is the phraseClass of the bold term at bytes [from, to) of s,
// so that multiple choice can find it rivals of its kind; "" when the
// sentence is untagged.
func boldClass(s *sentence, from, to int) string {
	i, j := -1, -1
	for k, t := range s.toks {
		if t.Start >= from && t.End() <= to {
			if i < 0 {
				i = k
			}
			j = k + 1
		}
	}
	if i < 0 || !s.tagged {
		return ""
	}
	return phraseClass(s, i, j)
}

// overlapsLeadIn reports whether span overlaps the source of a question
// asked after a lead-in sentence, which covers two sentences: neither may
// be asked again.
func (a *asker) overlapsLeadIn(span studyloop.Span) bool {
	for _, l := range a.leadIns {
		if span.Start < l.End && l.Start < span.End {
			return true
		}
	}
	return false
}

// exampleOpener matches a sentence that opens a worked example or a
// thought experiment.
var exampleOpener = regexp.MustCompile(`(?i)^(here(’|')?s an example|here is an example|in this example|for example|for instance|consider|suppose|imagine|let(’|')?s say|say that)\b`)

// instanceStatement reports whether the blank is the subject of "is" or
// "are" and a present participle follows ("The _____ is eating too much
// cotton candy"): a case of the term, not what the term is.
func instanceStatement(s *sentence, b blank) bool {
	for i, t := range s.toks {
		if t.Start < b.to {
			continue
		}
		return i+1 < len(s.toks) && beForms[s.lower[i]] && s.toks[i+1].Tag == "VBG"
	}
	return false
}

// exampleSlot reports whether blank b stands in a list of examples ("such
// as _____", "like _____", "_____ and Mercurial") or one of a pair ("X and
// the _____"), where the other would be as right, after a count ("4
// _____"), or before another name (", or …").
func exampleSlot(s *sentence, b blank) bool {
	before := strings.ToLower(strings.TrimSpace(s.text[:b.from]))
	for _, cue := range []string{"such as", " like", "including", "e.g.", "e.g.,", "such as the", "like the", "including the"} {
		if strings.HasSuffix(before, cue) {
			return true
		}
	}
	for _, conj := range []string{" and", " or", " and the", " or the"} {
		if strings.HasSuffix(before, conj) && !strings.HasSuffix(before, ","+conj) {
			return true // "the conditioned stimulus and the _____": one of a pair; ", and the" opens a clause
		}
	}
	if last := lastWord(before); len(last) > 0 && last[0] >= '0' && last[0] <= '9' {
		return true // "4 _____": a count's noun
	}
	after := strings.TrimSpace(s.text[b.to:])
	for _, conj := range []string{"and ", "or "} {
		if rest, ok := strings.CutPrefix(after, conj); ok && rest != "" && !startsLower(rest) && !strings.HasPrefix(rest, "I ") {
			return true // "_____ and Mercurial": a named sibling
		}
	}
	return strings.HasPrefix(after, ", or ") // "_____, or second-order conditioning": another name follows
}

// participleClause reports whether blank b opens with a present
// participle that no determiner or preposition makes a noun: "all
// synthesizing protein in the same direction" blanks a clause, "the
// process of splicing" a noun.
func participleClause(s *sentence, b blank) bool {
	for i, t := range s.toks {
		if t.Start < b.from {
			continue
		}
		if t.Start > b.from || t.Tag != "VBG" || i == 0 {
			return false
		}
		switch prev := s.toks[i-1]; {
		case prev.Tag == "DT" && !quantifiers[strings.ToLower(prev.Text)] && !strings.EqualFold(prev.Text, "all"): // "all synthesizing protein": a clause
			return false
		case prev.Tag == "IN" || prev.Tag == "PRP$" || prev.Tag == "POS" || prev.Tag == "JJ" || prev.Tag == "TO":
			return false
		}
		return true
	}
	return false
}

// presentTense reports whether the finite verbs of units' sentences are
// mostly in the present tense: more than twice as many as in the past.
func presentTense(units []*unit) bool {
	present, past := 0, 0
	for _, u := range units {
		for _, s := range u.sentences() {
			for _, t := range s.toks {
				switch t.Tag {
				case "VBZ", "VBP":
					present++
				case "VBD":
					past++
				}
			}
		}
	}
	return present > 2*past
}

// narrates reports whether s tells a story rather than states a fact:
// its first finite verb is "would" or "could" of a habit ("Pavlov would
// sound a tone"), or in the past tense after a definite subject ("the
// dogs did not salivate"). A finding's named author ("Garcia and Koelling
// showed …") states a fact of the field.
func narrates(s *sentence) bool {
	for i, t := range s.toks {
		if !finiteVerb(s.toks, i) {
			continue
		}
		if t.Tag == "MD" {
			return s.lower[i] == "would" || s.lower[i] == "could"
		}
		return t.Tag == "VBD" && slices.Contains(s.lower[:i], "the")
	}
	return false
}

// inAside reports whether blank b of s stands inside brackets: an
// aside ("(atrial systole)") says again what the sentence says, often in
// other words the student could give as well.
func inAside(s *sentence, b blank) bool {
	before := s.text[:b.from]
	return strings.Count(before, "(") > strings.Count(before, ")")
}

// wordEnd extends a bold span that stops inside a word ("**exon**s") to
// the end of that word, by at most three letters: an ending, not another
// word.
func wordEnd(text string, end int) int {
	for i := end; i < len(text) && i-end < 4; {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			return i
		}
		i += size
	}
	return end
}

// anaphoric finds the sentences of u that speak, in their first words, of
// "the <noun>" for a noun the sentence before introduced and the study
// does not use as a term ("... tides raise bulges of water. The bulges
// ..."): out of their paragraph the reader cannot tell which are meant.
func (a *asker) anaphoric(u *unit) map[*sentence]bool {
	out := map[*sentence]bool{}
	for _, b := range u.blocks {
		// A worked example's sentences speak of its made-up case
		// ("Harry's cotton candy"), from the one that opens it on.
		for i, s := range b.sents {
			if exampleOpener.MatchString(s.text) {
				for _, rest := range b.sents[i:] {
					out[rest] = true
				}
				break
			}
		}
		for i := 1; i < len(b.sents); i++ {
			s := b.sents[i]
			if !s.tagged || len(s.toks) < 3 {
				continue
			}
			// What the paragraph said before, up to three sentences back:
			// "the moon rock" of a thought experiment set up two sentences
			// earlier.
			var before []int
			for _, p := range b.sents[max(0, i-3):i] {
				for k, st := range p.stems {
					if !p.tagged || strings.HasPrefix(p.toks[k].Tag, "NN") {
						before = append(before, st) // named as a noun: "to form a vesicle" names no form
					}
				}
			}
			// "The bulges ...", "Where the bulges meet land, ...": a
			// definite noun among the first words.
			for d := 0; d < min(4, len(s.toks)-2); d++ {
				if s.lower[d] != "the" {
					continue
				}
				j := d + 1
				for j < len(s.toks)-1 && strings.HasPrefix(s.toks[j].Tag, "JJ") {
					j++
				}
				if !strings.HasPrefix(s.toks[j].Tag, "NN") || s.stems[j] < 0 || !slices.Contains(before, s.stems[j]) {
					continue
				}
				if k := stemKey(s.lower[j], a.stem); a.marked[k] || a.recur[a.stem(s.lower[j])] >= max(3, 2*a.minRecur) {
					continue // a term of the study stands on its own
				}
				out[s] = true
			}
		}
	}
	return out
}

// clozeSentence reports whether s reads as a whole sentence worth
// blanking: it starts with a capital, ends with a full stop that is not
// an abbreviation's, and has at least minWords words.
func clozeSentence(s *sentence, minWords int) bool {
	if !s.tagged || len(s.toks) > maxClozeTokens || strings.ContainsAny(s.text, "?\n") || notation.MatchString(s.text) {
		return false
	}
	if !endsSentence(s.text) && !wholeClause(s) || strings.HasSuffix(strings.TrimSpace(s.text), ":") {
		return false // a lead-in to a list or a formula is not a statement
	}
	if w := lastWordToken(s.lower); leadInEnd[w] {
		return false // "The three components are." lost its formula
	}
	words := 0
	for _, w := range s.lower {
		if isWord(w) {
			words++
		}
	}
	if words < minWords {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s.text)
	if !unicode.IsUpper(r) && !unicode.IsDigit(r) && !s.opensWithCode() {
		return false
	}
	n := len(s.lower)
	return n < 2 || !abbreviations[strings.TrimSuffix(s.lower[n-2], ".")] && !abbreviations[strings.TrimSuffix(s.lower[n-1], ".")]
}

// notation matches the shorthand of notes and formulas ("x = 3", "A -> B"),
// which reads badly with a blank in it.
var notation = regexp.MustCompile(` (=|->|=>|<-|~) `)

// leadInEnd are words no statement ends with: a sentence ending in one
// lost what followed it (a formula, a list, a figure).
var leadInEnd = wordSet(`is are was were be been of the a an to by as and or with for from than that which`)

// lastWordToken is the last of tokens that is a word.
func lastWordToken(tokens []string) string {
	for i := len(tokens) - 1; i >= 0; i-- {
		if isWord(tokens[i]) {
			return tokens[i]
		}
	}
	return ""
}

// wholeClause reports whether s, lacking a full stop, is a whole block
// (a list item or a one-line note) that has a finite verb: "The surface
// absorbs shortwave radiation" reads as a sentence once the stop is added.
func wholeClause(s *sentence) bool {
	if s.start != 0 || len(s.text) != len(strings.TrimSpace(s.block.p.text)) {
		return false
	}
	for _, t := range s.toks {
		switch t.Tag {
		case "VBZ", "VBP", "VBD", "MD":
			return true
		}
	}
	return false
}

// partOfTerm reports whether the blank at b and up to three words before
// it or two after form a longer term of the study ("the conditioned
// _____" for "response", where "conditioned response" is the term; "the
// wage elasticity of _____" for "labor supply"): the blank would ask part
// of a term.
func (a *asker) partOfTerm(s *sentence, b blank) bool {
	answer := s.text[b.from:b.to]
	before := strings.Fields(s.text[:b.from])
	after := strings.Fields(s.text[b.to:])
	var wider []string
	for n := 1; n <= 3 && n <= len(before); n++ {
		words := before[len(before)-n:]
		if strings.ContainsAny(strings.Join(words[1:], " "), ",;:()\"") {
			break
		}
		wider = append(wider, strings.Trim(strings.Join(words, " "), ",;:()\"")+" "+answer)
	}
	for n := 1; n <= 2 && n <= len(after); n++ {
		words := after[:n]
		if strings.ContainsAny(strings.Join(words[:n-1], " "), ".,;:()\"") {
			break
		}
		wider = append(wider, answer+" "+strings.Trim(strings.Join(words, " "), ".,;:()\""))
	}
	own := stemKey(answer, a.stem)
	for _, w := range wider {
		if k := stemKey(w, a.stem); k != own && (a.marked[k] || a.termKeys[k]) {
			return true
		}
	}
	return false
}

// clozePrompt is s with the blank at b, ending in a full stop. An
// abbreviation of the answer in brackets right after the blank ("the
// end diastolic volume (EDV) is") would give it away: it is left out of the
// prompt and returned as an answer the student may give instead.
func clozePrompt(s *sentence, b blank) (string, []string) {
	alternatives, end := otherNamesAfter(s, b)
	rest := s.text[end:]
	from := s.body()
	if from > b.from {
		from = 0 // the blank is in the opener: keep the sentence whole (the checks refuse it)
	}
	p := s.text[from:b.from]
	if from > 0 || !s.opensWithCode() {
		p = upperFirst(p) // not "Git log" for "`git log`"
	}
	p += Blank + rest
	if from == b.from {
		p = Blank + rest
	}
	if strings.Contains(p, "(") {
		p = figureInBrackets.ReplaceAllString(p, "") // "… the _____ (Figure 10.5)." needs no figure
	}
	if !endsSentence(p) {
		p += "."
	}
	if strings.Contains(p, "  ") {
		p = strings.Join(strings.Fields(p), " ") // "lists all commits  made": the source's spacing
	}
	return p, alternatives
}

// figureInBrackets matches a reference to a figure or a table in
// brackets: " (Figure 10.5)", " (see Table 2)".
var figureInBrackets = regexp.MustCompile(`\s*\((?:see )?(?:Figures?|Fig\.|Tables?)\s*\d+(?:\.\d+)*[a-z]?\)`)

// leadingOtherName matches otherNameInBrackets at the start of a text.
var leadingOtherName = regexp.MustCompile(`^\s*` + otherNameInBrackets)

// otherNamesAfter returns the other names of the blank's term that the
// sentence gives right after it, and where the text after them starts:
// "a polyribosome (or polysome)", "the end diastolic volume (EDV) or
// preload", "isovolumic contraction, also called isovolumetric
// contraction." A cloze leaves them out of its prompt (they would answer
// it) and accepts them.
func otherNamesAfter(s *sentence, b blank) ([]string, int) {
	var names []string
	end := b.to
	if rest := strings.TrimLeft(s.text[end:], " "); !strings.HasPrefix(rest, "(") && !strings.HasPrefix(rest, ",") && !strings.HasPrefix(rest, "or ") {
		return nil, end // the common case, without a regular expression
	}
	if m := leadingOtherName.FindStringSubmatchIndex(s.text[end:]); m != nil {
		abbr, name := group(s.text[end:], m, 1), group(s.text[end:], m, 2)
		if abbr == "" || abbreviates(abbr, s.text[b.from:b.to]) {
			names = append(names, abbr+name)
			end += m[1]
		}
	} else if m := foreignNameInBrackets.FindStringSubmatchIndex(s.text[end:]); m != nil {
		name := group(s.text[end:], m, 1)
		// A name in another language ("ancien régime") or a symbol in mixed
		// case ("mmHg", "kPa") answers as well as the blank's words.
		if strings.IndexFunc(name, accented) >= 0 || !strings.Contains(name, " ") && strings.IndexFunc(name, unicode.IsUpper) > 0 && utf8.RuneCountInString(name) <= 8 {
			names = append(names, name)
			end += m[1]
		}
	}
	if m := commaOtherName.FindStringSubmatchIndex(s.text[end:]); m != nil {
		names = append(names, group(s.text[end:], m, 1))
		end += m[3] // the comma or the full stop after the name stays
		if s.text[end] == ',' {
			end++
		}
	} else if m := orOtherName.FindStringSubmatchIndex(s.text[end:]); m != nil {
		from, to := end+m[4], end+m[5]
		if m[2] >= 0 || marked(s, from, to) {
			names = append(names, s.text[from:to])
			end = to // "the atrial reflex or Bainbridge reflex, associated with …"
		}
	}
	return names, end
}

// foreignNameInBrackets matches a name of up to four lower-case words in
// brackets: "the Old Regime (ancien régime)". With an accented letter in
// it, it is the term's name in the language it comes from, as right an
// answer as the English one.
var foreignNameInBrackets = regexp.MustCompile(`^\s*\((\p{Ll}[\p{L}'’-]*(?: [\p{L}'’-]+){0,3})\)`)

// accented reports whether r is a letter outside ASCII: "é" of "régime".
func accented(r rune) bool { return r > unicode.MaxASCII && unicode.IsLetter(r) }

// group returns the text of submatch i of m in text, or "".
func group(text string, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return text[m[2*i]:m[2*i+1]]
}

// marked reports whether the bytes [from, to) of s are one bold span.
func marked(s *sentence, from, to int) bool {
	for _, sp := range s.block.p.bold {
		if sp.Start-s.start == from && sp.End-s.start == to {
			return true
		}
	}
	return false
}

// commaOtherName matches another name set off by a comma right after a
// blank, to the next comma or the sentence's end: ", also called a
// solution,". Its group is the name.
var commaOtherName = regexp.MustCompile(`^, (?:also called|also known as|or) (?:an? |the )?([\p{L}\p{N}' -]{2,40}?)(?:,|\.$)`)

// orOtherName matches " or" and a name right after a blank, up to a
// comma, a semicolon or the sentence's end; group 2 is the name, and
// group 1 is set when "simply" says it is another name ("the
// Frank-Starling mechanism or simply Starling’s Law of the Heart").
// Without "simply" the name must be in bold: "stroke volume or heart
// rate" joins two things.
var orOtherName = regexp.MustCompile(`^ or (?:(simply) )?(?:an? |the )?([\p{L}\p{N}'’ -]{2,40}?)(?:[,;]|\.$)`)

// abbreviations end sentences only in appearance.
var abbreviations = map[string]bool{
	"viz": true, "etc": true, "e.g": true, "i.e": true, "cf": true, "fig": true, "vol": true,
	"no": true, "pp": true, "p": true, "prop": true, "ch": true, "sect": true, "vs": true,
}

// withDistractors turns a cloze into multiple choice with three keyphrases
// of the blank's class, from the same topic first and then the study.
func (a *asker) withDistractors(u *unit, q studyloop.Question, b blank) (studyloop.Question, bool) {
	// One everyday word ("minute", "society") has no rivals of its kind in
	// the text: any three other words are told apart by sense alone.
	if b.class == "" || !strings.Contains(q.Answer, " ") && isGeneralWord(a.lex, strings.ToLower(q.Answer)) {
		return q, false
	}
	var picked []string
	keys := []string{stemKey(q.Answer, a.stem)}
	index := indexPrompt(q.Prompt, a.stem)
	article := articleBefore(q.Prompt)
	scanned := 0
	want := headKin
	try := func(p phrase) {
		scanned++
		if len(picked) == 3 || p.class != b.class || p.key == b.key || !plainWord(p.text) || !a.distractorTerm(p) || instructionOpeners[strings.ToLower(firstWord(p.text))] || metaWords[strings.ToLower(firstWord(p.text))] {
			return
		}
		if a.offered[answerKey(p.text)] >= maxDistractorUses || a.rival(q.Answer, p.text) != want || a.aliases.same(q.Answer, p.text) {
			return
		}
		if article != "" && firstWord(indefinite(strings.ToLower(p.text))) != article {
			return // "An _____" takes only what "an" goes with
		}
		// Of a like length, so the answer does not stand out.
		if n, m := utf8.RuneCountInString(p.text), utf8.RuneCountInString(q.Answer); 2*n < m || 2*n > 3*m+4 {
			return
		}
		if notAThing(a.lex, q.Answer, p.text) {
			return
		}
		text := p.text
		if p.initial && !strings.HasPrefix(b.class, "name") && startsLower(q.Answer) {
			text = lowerFirst(text)
		}
		if b.from == 0 && startsLower(text) {
			text = upperFirst(text) // the sentence's first word, as the answer is
		}
		k := p.stemKey
		for _, have := range keys {
			if keysOverlap(k, have) {
				return
			}
		}
		if index.leaks(text) || slices.ContainsFunc(picked, func(o string) bool { return a.aliases.same(o, text) }) {
			return // two names of one thing would both be struck out
		}
		picked = append(picked, text)
		keys = append(keys, k)
	}
	// All three rivals share the answer's head noun, or all three are its
	// WordNet siblings: a mixed set lets the odd ones out be struck by form.
	for _, want = range []kin{headKin, familyKin} {
		picked, keys, scanned = picked[:0], keys[:1], 0
		for _, p := range u.phrases {
			if scanned >= distractorScan || len(picked) == 3 {
				break
			}
			try(p)
		}
		for _, p := range a.pool[b.class] {
			if len(picked) == 3 {
				break
			}
			try(p)
		}
		if len(picked) == 3 {
			break
		}
	}
	if len(picked) < 3 {
		// The study's bold and recurring terms of the answer's kind,
		// enumerations included.
		if !a.marked[stemKey(q.Answer, a.stem)] {
			return q, false
		}
		if picked = a.termChoices(q); picked == nil {
			return q, false
		}
		for i, p := range picked {
			if b.from == 0 {
				picked[i] = upperFirst(p)
			}
			if index.leaks(picked[i]) {
				return q, false
			}
		}
	}
	q.Type = studyloop.QuestionMultipleChoice
	q.Choices = shuffleIn(q.Prompt, q.Answer, picked)
	return q, true
}

func (a *asker) multipleChoice(u *unit, src clozeSource, n int) []studyloop.Question {
	var out []studyloop.Question
	for _, f := range u.facts {
		if len(out) >= n/2 {
			break
		}
		var q studyloop.Question
		answer := f.term
		switch f.kind {
		case factCell:
			if !a.askableCells(u)[f.span] || transposed(f) {
				continue // a compared column's cells are features of different kinds: no choices among them
			}
			answer = trimEnd(f.def)
			q = studyloop.Question{Prompt: a.cellPrompt(f)}
		default:
			q = studyloop.Question{Prompt: describePrompt(f.def)}
		}
		q.Type, q.Answer, q.Source = studyloop.QuestionMultipleChoice, answer, f.span
		var picked []string
		keys := []string{stemKey(answer, a.stem)}
	next:
		for _, c := range a.factDistractors(f) {
			if len(picked) == 3 {
				break
			}
			v := trimEnd(c.term)
			if f.kind == factCell {
				v = trimEnd(c.def)
			}
			if a.offered[answerKey(v)] >= maxDistractorUses || tooClose(a.lex, answer, v) || a.aliases.same(answer, v) {
				continue
			}
			if f.kind != factCell && !a.sameKind(f, c) {
				continue // "Python" (a language) among "pandas" (a package) and "class"
			}
			if f.kind == factCell && sharesStem(answer, v, a.stem) {
				continue // "Phagocytosis of bacteria" beside "Phagocytosis; cytokine release": both partly right
			}
			if n, m := utf8.RuneCountInString(v), utf8.RuneCountInString(answer); n > 2*m+8 || m > 2*n+8 {
				continue // of a like length, so the answer does not stand out
			}
			k := stemKey(v, a.stem)
			for _, have := range keys {
				if keysOverlap(k, have) {
					continue next
				}
			}
			picked = append(picked, v)
			keys = append(keys, k)
		}
		if len(picked) == 3 {
			q.Choices = shuffleIn(q.Prompt, answer, picked)
			out = append(out, q)
		}
	}
	return append(out, a.clozes(u, src, n, minClozeContext, true)...)
}

// factDistractors returns the facts that could stand beside f as wrong
// choices, likest first. A table column's values are all of one kind and
// keep their order. A glossary's terms are not: "binary" and
// "backpropagation" are alphabetical neighbours, not rivals, so a term's
// rivals, from every list of the study, are those whose definitions share
// the most content words (two at least) with its own, and the other items
// of its own list unless that list is one letter of a glossary; any other
// term is no rival.
func (a *asker) factDistractors(f fact) []fact {
	if f.kind == factCell {
		return a.groups[f.group]
	}
	own := map[string]bool{}
	for _, st := range contentStems(f.def, a.stem) {
		own[st] = true
	}
	type rival struct {
		f      fact
		shared int
	}
	var rivals []rival
	kin := !a.alphabetical(f.group)
	for _, c := range a.terms {
		n := 0
		for _, st := range contentStems(c.def, a.stem) {
			if own[st] {
				n++
			}
		}
		if kin && c.group == f.group {
			n += 2 // one list names things of one kind
		}
		if n >= 2 && c.term != f.term {
			rivals = append(rivals, rival{c, n})
		}
	}
	sort.SliceStable(rivals, func(i, j int) bool { return rivals[i].shared > rivals[j].shared })
	out := make([]fact, len(rivals))
	for i, r := range rivals {
		out[i] = r.f
	}
	return out
}

// verbLed reports whether a phrase opens with a word WordNet knows only
// as a verb: "nourish neurons" of "… take up potassium, nourish
// neurons, and …" names no thing.
func verbLed(lex *lexicon.Lexicon, phrase string) bool {
	first := strings.ToLower(firstWord(phrase))
	return strings.Contains(phrase, " ") && lex.IsVerb(first) && !lex.IsNoun(first) && lex.Senses(first) > 0 && !strings.HasSuffix(first, "ed")
}

// metaWords open a fragment that talks about a term rather than naming a
// thing: "term elasticity" of "the term elasticity refers to…".
var metaWords = wordSet(`term terms word words name names phrase label concept notion`)

// headingCase reports whether every word of a phrase of two or more words
// starts with a capital, as a heading's words do.
func headingCase(phrase string) bool {
	words := strings.Fields(phrase)
	for _, w := range words {
		if startsLower(w) {
			return false
		}
	}
	return len(words) >= 2
}

// sameKind reports whether glossary term c is of f's kind, so it can
// stand beside f as a wrong choice: the two are items of one list (not a
// glossary's letter), or share a head noun or are WordNet siblings. Two
// definitions that open alike are not enough: "A reusable software
// package" (a library) is the kind "An open source Python package" (numpy)
// is, not its rival.
func (a *asker) sameKind(f, c fact) bool {
	return c.group == f.group && !a.alphabetical(f.group) && len(a.groups[f.group]) <= maxKindList || a.rival(f.term, c.term) != notKin
}

// sharesStem reports whether two phrases share a content word's stem.
func sharesStem(x, y string, stem stemmer) bool {
	ys := contentStems(y, stem)
	return slices.ContainsFunc(contentStems(x, stem), func(st string) bool { return slices.Contains(ys, st) })
}

// maxKindList is the longest list whose terms are taken to be of one
// kind: a chapter's key terms ("memory cell", "phagocytosis",
// "secondary immune response") are not.
const maxKindList = 8

// alphabetical reports whether the terms of a group all start with one
// letter, as a glossary's "A" section does: such a list is ordered by
// spelling, not by kind.
func (a *asker) alphabetical(group int) bool {
	var first rune
	for i, f := range a.groups[group] {
		r, _ := utf8.DecodeRuneInString(strings.ToLower(f.term))
		if i > 0 && r != first {
			return false
		}
		first = r
	}
	return len(a.groups[group]) >= 2
}

// shuffleIn places answer among the distractors at a position fixed by the
// prompt, so the same study always gets the same order while answers spread
// evenly over the four positions.
func shuffleIn(prompt, answer string, distractors []string) []string {
	h := fnv.New32a()
	h.Write([]byte(prompt))
	pos := int(h.Sum32() % 4)
	out := make([]string, 0, 4)
	out = append(out, distractors[:pos]...)
	out = append(out, answer)
	return append(out, distractors[pos:]...)
}

// span is the source span of the sentence.
func (s *sentence) span() studyloop.Span {
	return s.block.p.source(s.start, s.start+len(s.text))
}

func trimEnd(s string) string {
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ".;:,"))
}

// lowerFirst lower-cases the first letter of s unless s is all capitals
// (an acronym).
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || strings.ToUpper(s) == s {
		return s
	}
	if r2, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(r2) {
		return s // "MHC class II", "CPU time": an abbreviation keeps its capitals
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// upperFirst upper-cases the first letter of s.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func startsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

// nounPhraseAt reports whether bytes [from, to) of s's text cover whole
// tokens ending in a noun, with no finite verb among them: a bold span
// that can be blanked as a term ("**stop codon**"), not an emphasised
// clause ("**includes emissions from every level**").
func nounPhraseAt(s *sentence, from, to int) bool {
	last := -1
	for i, t := range s.toks {
		if t.Start >= from && t.End() <= to {
			if finiteVerb(s.toks, i) {
				return false
			}
			last = i
		}
	}
	if last < 0 || !s.tagged {
		return last >= 0
	}
	tag := s.toks[last].Tag
	return strings.HasPrefix(tag, "NN") || tag == "CD" || tag == "VBG"
}

// firstWord is the first space-separated word of s.
func firstWord(s string) string {
	w, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return w
}

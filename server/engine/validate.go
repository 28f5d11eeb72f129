package engine

import (
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/jdkato/prose/v3/tag"
	"github.com/jdkato/prose/v3/token"
	"github.com/jdkato/prose/v3/tokenize"
	"github.com/kljensen/snowball/english"
	"github.com/studyloop/studyloop/server/studyloop"
)

// otherNameInBrackets matches another name of a term in brackets: an
// abbreviation ("(EDV)", group 1) or a name after "or" or "also called"
// ("(or polysome)", group 2).
const otherNameInBrackets = `\((?:(\p{Lu}[\p{L}\p{N}]{1,7})|(?:or|also called|also known as) ([\p{L}\p{N}' -]{2,40}))\)`

// Blank is what stands in a cloze prompt where the answer was.
const Blank = "_____"

// Limits a question must keep.
const (
	MaxAnswerChars = 200
	MaxPromptChars = 600
	// NearDuplicate is the Jaccard similarity of the content stems of two
	// questions (prompt and answer) at and above which they count as the
	// same question.
	NearDuplicate = 0.8
)

var (
	markdownMarks  = regexp.MustCompile("\\*\\*|__|`|\\]\\(|!\\[|\\[\\[|\\[\\^[^\\]]*\\]|^\\s*#{1,6}\\s|\\|\\s*-{3}|</?[a-zA-Z][^>]*>|(^|\\s)[*_~]+\\S|\\S[*_~]+($|\\s|[.,;:!?])")
	listMarker     = regexp.MustCompile(`^\s*([-*+>]|\d+[.)])\s`)
	secondQuestion = regexp.MustCompile(`(?i)\?.*\S.*\?|\band (what|why|how|when|where|who|which)\b`)
	// linkTarget matches what of a source span is not read as text: link
	// targets, HTML tags and footnote references.
	// abbreviationInBrackets matches " (EDV)", " (or polysome)" and the like.
	abbreviationInBrackets = regexp.MustCompile(`\s*` + otherNameInBrackets)
	// commaOtherNameAnywhere matches another name set off by commas:
	// ", also called a solution,".
	commaOtherNameAnywhere = regexp.MustCompile(`, (?:also called|also known as|or) (?:an? |the )?[\p{L}\p{N}'* -]{2,44}?,`)
	linkTarget             = regexp.MustCompile(`\]\([^)]*\)|<[^>]*>|\[\^[^\]]*\]`)
)

// CheckQuestion reports the first way q falls short of a well-formed
// practice question on text: it must be grounded in its source span, not
// give its answer away, be one complete question free of markdown
// (footnote references included) with no prompt, answer or choice cut
// off, blank (if a cloze) no verb its clause needs, and, for multiple
// choice, offer three distractors besides the answer whose content stems
// neither repeat nor contain one another's. Checks that span questions
// (duplicates, coverage) are Validate's.
func CheckQuestion(text string, q studyloop.Question) error {
	return checkQuestion(text, q, stemWord, tagSentence)
}

// stemmer returns the stem of a lower-cased word, or "" for stop words and
// words without letters. The generator passes one that memoizes.
type stemmer func(lower string) string

func stemWord(lower string) string {
	if !isWord(lower) || isStopWord(lower) {
		return ""
	}
	return english.Stem(lower, false)
}

func checkQuestion(text string, q studyloop.Question, stem stemmer, tags sentenceTagger) error {
	if !q.Type.Valid() {
		return fmt.Errorf("unknown type %q", q.Type)
	}
	s := q.Source
	if s.Start < 0 || s.End > len(text) || s.Start >= s.End || !utf8.ValidString(text[s.Start:s.End]) {
		return fmt.Errorf("source span [%d,%d) outside the text", s.Start, s.End)
	}
	prompt, answer := strings.TrimSpace(q.Prompt), strings.TrimSpace(q.Answer)
	switch {
	case prompt != q.Prompt || answer != q.Answer || prompt == "" || answer == "":
		return errors.New("empty or untrimmed prompt or answer")
	case utf8.RuneCountInString(answer) > MaxAnswerChars:
		return fmt.Errorf("answer longer than %d characters", MaxAnswerChars)
	case utf8.RuneCountInString(prompt) > MaxPromptChars:
		return fmt.Errorf("prompt longer than %d characters", MaxPromptChars)
	case strings.ContainsAny(prompt+answer, "\n\r\t"):
		return errors.New("line break in prompt or answer")
	}
	for _, s := range append([]string{prompt, answer}, q.Choices...) {
		unblanked := strings.ReplaceAll(s, Blank, "")
		if leftoverMarkdown(unblanked) {
			return fmt.Errorf("leftover markdown in %q", s)
		}
		if !balanced(unblanked) {
			return fmt.Errorf("unbalanced brackets or quotes in %q", s)
		}
	}
	if truncated(answer) {
		return fmt.Errorf("answer %q looks cut off", answer)
	}
	// A blank stands for a word, so a prompt ending in one is not cut off.
	if truncated(strings.TrimSuffix(strings.ReplaceAll(prompt, Blank, "x"), "?")) {
		return fmt.Errorf("prompt %q looks cut off", prompt)
	}
	for _, c := range q.Choices {
		if truncated(c) {
			return fmt.Errorf("choice %q looks cut off", c)
		}
	}
	blanks := strings.Count(prompt, Blank)
	switch {
	case blanks > 1:
		return errors.New("more than one blank")
	case blanks == 0 && !strings.HasSuffix(prompt, "?"):
		return errors.New("prompt neither asks a question nor has a blank")
	case blanks == 1 && strings.Contains(prompt, "?"):
		return errors.New("prompt both blanks and asks")
	case blanks == 1 && !endsSentence(prompt):
		return errors.New("cloze sentence is not complete")
	case secondQuestion.MatchString(prompt):
		return errors.New("more than one question in the prompt")
	case (q.Type == studyloop.QuestionCloze) != (blanks == 1 && q.Type != studyloop.QuestionMultipleChoice):
		return errors.New("only cloze questions have a blank")
	}
	// A cloze may leave out the answer's bracketed abbreviation or other
	// name, which would give it away; the rest must be as written.
	written := linkTarget.ReplaceAllString(text[q.Source.Start:q.Source.End], " ")
	source := normalize(written)
	shortened := normalize(commaOtherNameAnywhere.ReplaceAllString(abbreviationInBrackets.ReplaceAllString(figureInBrackets.ReplaceAllString(written, ""), ""), ""))
	if !containsWords(source, normalize(answer)) {
		return fmt.Errorf("answer %q not found in its source", answer)
	}
	if blanks == 1 {
		filled := strings.Replace(prompt, Blank, answer, 1)
		if words := normalize(filled); !containsWords(source, words) && !containsWords(shortened, words) && !containsWords(normalize(withoutBracketAfter(written, answer)), words) {
			return errors.New("cloze with its answer filled in is not its source sentence")
		}
		from := strings.Index(prompt, Blank)
		if toks := tags(filled); toks != nil && !keepsVerb(toks, from, from+len(answer)) {
			return fmt.Errorf("blank %q takes the verb of its clause", answer)
		} else if toks != nil && verbOnly(toks, from, from+len(answer)) {
			return fmt.Errorf("blank %q is a verb, not a term", answer)
		}
	}
	index := indexPrompt(prompt, stem)
	if index.leaks(answer) {
		return fmt.Errorf("prompt gives the answer %q away", answer)
	}
	if q.Type != studyloop.QuestionMultipleChoice && q.Choices != nil {
		return errors.New("choices on a question that is not multiple choice")
	}
	if q.Type == studyloop.QuestionMultipleChoice {
		if err := checkChoices(index, answer, q.Choices, stem); err != nil {
			return err
		}
	}
	if problem := precisionProblem(q, tags); problem != "" {
		return errors.New(problem)
	}
	return nil
}

// checkChoices checks the choices of a multiple-choice question whose
// prompt index holds.
func checkChoices(index promptIndex, answer string, choices []string, stem stemmer) error {
	if len(choices) != 4 {
		return fmt.Errorf("%d choices, want 4", len(choices))
	}
	hits := 0
	keys := make([][]string, len(choices))
	for i, c := range choices {
		if c == answer {
			hits++
		}
		if strings.TrimSpace(c) != c || c == "" {
			return errors.New("empty or untrimmed choice")
		}
		keys[i] = contentStems(c, stem)
	}
	if hits != 1 {
		return fmt.Errorf("answer among the choices %d times, want once", hits)
	}
	for i := range keys {
		for j := range keys {
			if i < j && overlap(keys[i], keys[j]) {
				return fmt.Errorf("choices %q and %q overlap", choices[i], choices[j])
			}
		}
		if choices[i] != answer && index.leaks(choices[i]) {
			return fmt.Errorf("prompt contains the choice %q", choices[i])
		}
	}
	return nil
}

// withoutBracketAfter is text without the bracket that follows answer in
// it, an other name a cloze leaves out ("millimeter of mercury (mmHg)"),
// or text as it is.
func withoutBracketAfter(text, answer string) string {
	plain := strings.ReplaceAll(text, "**", "")
	i := strings.Index(strings.ToLower(plain), strings.ToLower(answer))
	if i < 0 {
		return text
	}
	rest := plain[i+len(answer):]
	trimmed := strings.TrimLeft(rest, " *")
	if !strings.HasPrefix(trimmed, "(") {
		return text
	}
	end := strings.IndexByte(trimmed, ')')
	if end < 0 {
		return text
	}
	return plain[:i+len(answer)] + trimmed[end+1:]
}

// Validate checks a whole extraction of text: well-formed topics, every
// question passing CheckQuestion, no duplicate or near-duplicate prompts,
// and every topic holding a question itself or through a subtopic. It
// returns every problem found, joined.
func Validate(text string, ex studyloop.Extraction) error {
	var errs []error
	covered := make([]bool, len(ex.Topics))
	for i, t := range ex.Topics {
		switch {
		case t.Parent < -1 || t.Parent >= i:
			errs = append(errs, fmt.Errorf("topic %d: parent %d does not come before it", i, t.Parent))
		case strings.TrimSpace(t.Title) == "" || leftoverMarkdown(t.Title):
			errs = append(errs, fmt.Errorf("topic %d: bad title %q", i, t.Title))
		case t.Span.Start < 0 || t.Span.End > len(text) || t.Span.Start > t.Span.End:
			errs = append(errs, fmt.Errorf("topic %d: span outside the text", i))
		}
	}
	seen := newDedup(stemWord)
	for i, q := range ex.Questions {
		if q.Topic < 0 || q.Topic >= len(ex.Topics) {
			errs = append(errs, fmt.Errorf("question %d: topic %d out of range", i, q.Topic))
			continue
		}
		if err := CheckQuestion(text, q); err != nil {
			errs = append(errs, fmt.Errorf("question %d (%q): %w", i, q.Prompt, err))
		}
		if j, dup := seen.add(q.Prompt, q.Answer); dup {
			errs = append(errs, fmt.Errorf("question %d (%q) duplicates question %d (%q)", i, q.Prompt, j, ex.Questions[j].Prompt))
		}
		for t := q.Topic; t >= 0 && t < len(ex.Topics) && !covered[t]; t = ex.Topics[t].Parent {
			covered[t] = true
			if ex.Topics[t].Parent >= t {
				break
			}
		}
	}
	for i, ok := range covered {
		if !ok {
			errs = append(errs, fmt.Errorf("topic %d (%q) has no question", i, ex.Topics[i].Title))
		}
	}
	return errors.Join(errs...)
}

// leftoverMarkdown reports whether s still holds markdown syntax: emphasis
// or code marks, link or image brackets, HTML tags, table rules, heading
// or list markers.
func leftoverMarkdown(s string) bool {
	if strings.ContainsAny(s, "*_`~[]!<>|#") && markdownMarks.MatchString(s) {
		return true
	}
	return listMarker.MatchString(s)
}

// normalize lower-cases s and reduces it to words separated by single
// spaces, with a space at each end so that whole words can be matched.
func normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(' ')
	space := true
	for _, r := range s {
		if isLetterOrDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			space = false
		} else if r == '*' {
			// Emphasis marks inside a word ("**exon**s") do not split it.
			continue
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// containsWords reports whether the normalized haystack holds the
// normalized needle as whole words.
func containsWords(haystack, needle string) bool {
	return strings.TrimSpace(needle) != "" && strings.Contains(haystack, needle)
}

// contentStems returns the sorted, distinct stems of the content words of s.
func contentStems(s string, stem stemmer) []string {
	var out []string
	for _, w := range strings.Fields(normalize(s)) {
		if st := stem(w); st != "" {
			out = append(out, st)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func stemKey(s string, stem stemmer) string {
	return " " + strings.Join(contentStems(s, stem), " ") + " "
}

// overlap reports whether two choices, given as sorted distinct stems, are
// too alike to offer side by side: the same stems, or the stems of one all
// among the other's ("batch systems" and "batch systems with known run
// times"). Choices without content stems overlap only each other.
func overlap(a, b []string) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	j := 0
	for _, s := range a {
		for j < len(b) && b[j] < s {
			j++
		}
		if j == len(b) || b[j] != s {
			return false
		}
		j++
	}
	return true
}

// keysOverlap is overlap for stem keys as stemKey gives them.
func keysOverlap(a, b string) bool {
	return overlap(strings.Fields(a), strings.Fields(b))
}

// promptIndex holds what leak checks need of a prompt, computed once.
type promptIndex struct {
	norm  string
	stems []string
	stem  stemmer
}

func indexPrompt(prompt string, stem stemmer) promptIndex {
	p := strings.ReplaceAll(prompt, Blank, " ")
	return promptIndex{norm: normalize(p), stems: contentStems(p, stem), stem: stem}
}

// leaks reports whether the prompt gives away answer: the answer appears
// in it word for word, or every content word of a short answer appears in
// it in some form.
func (p promptIndex) leaks(answer string) bool {
	if containsWords(p.norm, normalize(answer)) {
		return true
	}
	stems := contentStems(answer, p.stem)
	if len(stems) == 0 || len(stems) > 3 {
		return false
	}
	for _, s := range stems {
		if _, found := slices.BinarySearch(p.stems, s); !found {
			return false
		}
	}
	return true
}

// truncated reports whether s ends mid-phrase or with an ellipsis.
func truncated(s string) bool {
	if strings.HasSuffix(s, "...") || strings.HasSuffix(s, "…") || strings.HasSuffix(s, ",") {
		return true
	}
	words := strings.Fields(normalize(s))
	if len(words) == 0 {
		return true
	}
	switch words[len(words)-1] {
	case "a", "an", "the", "and", "or", "of", "to", "with", "for", "by", "in", "that", "which":
		return len(words) > 1
	}
	return false
}

// endsSentence reports whether s ends with terminal punctuation, perhaps
// followed by closing quotes or brackets.
func endsSentence(s string) bool {
	s = strings.TrimRight(s, `"')]}”’»`)
	r, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(".!。！．", r)
}

// balanced reports whether brackets nest and straight double quotes pair.
func balanced(s string) bool {
	var stack []rune
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{', '”': '“'}
	for _, r := range s {
		switch r {
		case '(', '[', '{', '“':
			stack = append(stack, r)
		case ')', ']', '}', '”':
			if len(stack) == 0 || stack[len(stack)-1] != pairs[r] {
				return false
			}
			stack = stack[:len(stack)-1]
		}
	}
	return len(stack) == 0 && strings.Count(s, `"`)%2 == 0
}

func isLetterOrDigit(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// dedup finds duplicate and near-duplicate prompts in time linear in their
// number: exact duplicates by normalized text, near duplicates by MinHash
// signatures banded for locality-sensitive hashing, confirmed by the exact
// Jaccard similarity of the two stem sets.
type dedup struct {
	stem  stemmer
	exact map[string]int
	bands map[uint64][]int
	sets  [][]string
	// blanked holds the answer of each cloze, by index ("" for other
	// questions).
	blanked []string
}

const (
	minhashBands = 4
	minhashRows  = 3
)

func newDedup(stem stemmer) *dedup {
	return &dedup{stem: stem, exact: map[string]int{}, bands: map[uint64][]int{}}
}

// add records a question unless it duplicates an earlier one, whose index
// it then returns with true. Exact duplicates share a prompt; near
// duplicates share most content stems of prompt and answer together, so
// the same fact asked twice (a sentence blanked twice for one answer, a
// definition asked both ways) counts as one question. Two clozes of one
// sentence for two different terms are two questions, as one note gives
// two cloze cards.
func (d *dedup) add(prompt, answer string) (int, bool) {
	blanked := ""
	if strings.Contains(prompt, Blank) {
		blanked = normalize(answer)
	}
	unblanked := strings.ReplaceAll(prompt, Blank, " ")
	norm := normalize(unblanked)
	if j, ok := d.exact[norm]; ok {
		return j, true
	}
	set := contentStems(description(unblanked)+" "+answer, d.stem)
	keys := bandKeys(set)
	for _, k := range keys {
		for _, j := range d.bands[k] {
			if jaccard(set, d.sets[j]) >= NearDuplicate && (blanked == "" || d.blanked[j] == "" || blanked == d.blanked[j]) {
				return j, true
			}
		}
	}
	i := len(d.sets)
	d.sets = append(d.sets, set)
	d.blanked = append(d.blanked, blanked)
	d.exact[norm] = i
	for _, k := range keys {
		d.bands[k] = append(d.bands[k], i)
	}
	return i, false
}

func bandKeys(set []string) []uint64 {
	if len(set) == 0 {
		return nil
	}
	var sig [minhashBands * minhashRows]uint64
	for i := range sig {
		sig[i] = ^uint64(0)
	}
	for _, s := range set {
		h := fnv.New64a()
		h.Write([]byte(s))
		x := h.Sum64()
		for i := range sig {
			if v := mix(x ^ uint64(i+1)*0x9e3779b97f4a7c15); v < sig[i] {
				sig[i] = v
			}
		}
	}
	keys := make([]uint64, minhashBands)
	for b := range keys {
		k := uint64(b + 1)
		for r := range minhashRows {
			k = mix(k ^ sig[b*minhashRows+r])
		}
		keys[b] = k
	}
	return keys
}

// mix is the splitmix64 finalizer.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func jaccard(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// sentenceTagger returns the tokens of a sentence with their parts of
// speech, or nil when it cannot tag them (the check that needs them is
// then skipped). The generator passes one that reuses its own tagging.
type sentenceTagger func(sentence string) []token.Token

var defaultTagger = sync.OnceValues(func() (*tag.Tagger, error) { return tag.New() })

// tagSentence tags sentence as the generator does: prose's tokenizer and
// tagger, on sentences of at most maxTaggedTokens tokens.
func tagSentence(sentence string) []token.Token {
	tagger, err := defaultTagger()
	if err != nil {
		return nil
	}
	toks := splitFinalStop(tokenize.New().Tokenize(spacedDashes(sentence)))
	if len(toks) < 3 || len(toks) > maxTaggedTokens {
		return nil
	}
	tagger.TagTokens(toks)
	retagVerbs(toks)
	return toks
}

// clauseOpeners are the words that, after a comma, open a new clause with
// a verb of its own. "and" and "or" are not among them: after a comma they
// as often close a list.
var clauseOpeners = map[string]bool{
	"but": true, "while": true, "whereas": true, "although": true, "though": true, "because": true, "yet": true,
}

// subordinators open a subordinate clause, whose verb is not the verb of
// the clause before it ("one tectonic plate slides beneath another and
// melts as it sinks"). Most double as prepositions, so they only end the
// clause of a blank before them.
var subordinators = map[string]bool{
	"as": true, "because": true, "since": true, "while": true, "whereas": true, "although": true, "though": true,
	"if": true, "unless": true, "when": true, "whenever": true, "after": true, "before": true, "until": true,
}

// leadingSubordinators open a subordinate clause and hardly anything else,
// so a blank between one and the next comma lies in that clause ("And if
// the incident Rays flow from Q, the refracted Rays shall ...").
var leadingSubordinators = map[string]bool{
	"if": true, "because": true, "although": true, "though": true, "whereas": true, "unless": true,
	"when": true, "whenever": true, "while": true,
}

// finiteVerb reports whether token i of toks is a finite verb: a tense-
// marked form, a modal, or a base form not after "to".
func finiteVerb(toks []token.Token, i int) bool {
	switch toks[i].Tag {
	case "VBD", "VBP", "VBZ", "MD":
		return true
	case "VB":
		return i == 0 || toks[i-1].Tag != "TO"
	}
	return false
}

// clauseBoundary reports whether token i of toks ends one clause and
// opens the next: a semicolon, a comma before a clause-opening
// conjunction, or a coordinating conjunction before a finite verb (perhaps
// after an adverb), which joins two predicates that each need a verb.
func clauseBoundary(toks []token.Token, i int) bool {
	switch t := toks[i]; {
	case t.Text == ";":
		return true
	case t.Text == ",":
		return i+1 < len(toks) && clauseOpeners[strings.ToLower(toks[i+1].Text)]
	case t.Tag == "CC":
		j := i + 1
		if j < len(toks) && strings.HasPrefix(toks[j].Tag, "RB") {
			j++
		}
		return j < len(toks) && finiteVerb(toks, j)
	}
	return false
}

// verbOnly reports whether the bytes from to to of the tagged sentence
// toks are one finite verb ("organisms _____ to associate events" for
// "learn").
func verbOnly(toks []token.Token, from, to int) bool {
	var inside []int
	for i, t := range toks {
		if t.Start >= from && t.End() <= to {
			inside = append(inside, i)
		}
	}
	return len(inside) == 1 && finiteVerb(toks, inside[0])
}

// keepsVerb reports whether the clause of the tagged sentence toks that
// holds bytes [from, to), the blank of a cloze, keeps a finite verb
// outside them. Every clause has one; when none is left, the blank has
// swallowed it even if the tagger read it as a noun ("Threads of a
// process share memory" blanking "process share memory", "one tectonic
// plate slides beneath another and melts" blanking "tectonic plate
// slides").
func keepsVerb(toks []token.Token, from, to int) bool {
	start, end := 0, len(toks)
	for i, t := range toks {
		switch {
		case t.End() <= from && clauseBoundary(toks, i):
			start = i + 1
		case t.Start >= to && end == len(toks) && (clauseBoundary(toks, i) || subordinators[strings.ToLower(t.Text)]):
			end = i
		}
	}
	for i := start; i < end && toks[i].End() <= from; i++ {
		if !leadingSubordinators[strings.ToLower(toks[i].Text)] {
			continue
		}
		for k := i + 1; k < end; k++ {
			if toks[k].Text == "," {
				if toks[k].Start >= to {
					start, end = i+1, k
				}
				break
			}
		}
	}
	for i := start; i < end; i++ {
		if t := toks[i]; (t.End() <= from || t.Start >= to) && finiteVerb(toks, i) {
			return true
		}
	}
	return false
}

package engine

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jdkato/prose/v3/segment"
	"github.com/jdkato/prose/v3/tag"
	"github.com/jdkato/prose/v3/token"
	"github.com/jdkato/prose/v3/tokenize"
	"github.com/kljensen/snowball/english"
	"github.com/studyloop/studyloop/server/lexicon"
)

// Sentences longer than this many tokens are neither tagged nor used for
// questions: they are run-ons or unpunctuated text.
const maxTaggedTokens = 80

// sentence is one sentence of a block, with its tokens. Token offsets are
// relative to text.
type sentence struct {
	text   string
	block  *block
	start  int // byte offset of text within block.p.text
	toks   []token.Token
	lower  []string // lower-cased token texts
	stems  []int    // interned stem per token, -1 for punctuation and stop words
	tagged bool
	// problem caches sentenceProblem's verdict: 0 not yet asked, 1 no
	// problem, 2 a problem.
	problem int8
}

// hasProblem is sentenceProblem of s's text, worked out once: every kind
// of question asks it of the sentences it reads.
func (s *sentence) hasProblem() bool {
	if s.problem == 0 {
		s.problem = 1
		if sentenceProblem(s.text[s.body():]) {
			s.problem = 2
		}
	}
	return s.problem == 2
}

// opensWithCode reports whether s begins with a code span ("`git log`
// lists all commits …"), which starts a sentence in lower case.
func (s *sentence) opensWithCode() bool {
	for _, c := range s.block.p.code {
		if c.Start == s.start {
			return true
		}
	}
	return false
}

// body is the byte offset in s.text where s says what it says: after an
// opening marker of the writer's stance or of sequence that refers to
// nothing ("However, ", "Interestingly, ", "In addition, "), which a
// question leaves out. "Thus" and "In this case" point back and stay.
func (s *sentence) body() int {
	for _, m := range droppableOpeners {
		if len(s.lower) > len(m)+1 && slices.Equal(s.lower[:len(m)], m) && s.toks[len(m)].Text == "," {
			return s.toks[len(m)+1].Start
		}
	}
	return 0
}

// droppableOpeners are the sentence openers, as lower-case tokens, that
// body leaves out. A qualifier ("Normally, ", "In some cases, ") stays:
// without it the statement says more than the text.
var droppableOpeners = [][]string{{"however"}, {"interestingly"}, {"indeed"}, {"in", "fact"}, {"in", "addition"},
	{"additionally"}, {"furthermore"}, {"moreover"}, {"nevertheless"}, {"nonetheless"}, {"notably"}, {"importantly"},
	{"of", "course"}, {"ultimately"}, {"overall"}}

// analyzer holds prose's models and the per-study stem table.
type analyzer struct {
	seg    *segment.Segmenter
	tok    *tokenize.Tokenizer
	tagger *tag.Tagger

	stemOf map[string]int // lower-cased word to interned stem id, -1 for stop words
	stemID map[string]int // stem to interned stem id
	stems  []string       // interned stem id to stem
}

func newAnalyzer(seg *segment.Segmenter, tagger *tag.Tagger) *analyzer {
	return &analyzer{seg: seg, tok: tokenize.New(), tagger: tagger, stemOf: map[string]int{}, stemID: map[string]int{}}
}

// analyze splits every block into tagged sentences and interns its stems.
func (a *analyzer) analyze(ctx context.Context, blocks []*block) error {
	for i, b := range blocks {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		b.p.text = blankLongRuns(b.p.text)
		for _, piece := range pieces(b.p.text) {
			if err := a.sentences(ctx, b, piece[0], piece[1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// joinInitials joins the sentences the segmenter ends at a person's
// initial ("… proposed by S. J." + "Singer and …") back into one.
func joinInitials(text string, sents []segment.Sentence) []segment.Sentence {
	out := sents[:0:0]
	for _, s := range sents {
		if n := len(out); n > 0 && (mayEndInInitial(out[n-1].Text) && endsInInitial.MatchString(tail(out[n-1].Text, 64)) || endsInVersus(out[n-1].Text)) && startsUpper(s.Text) {
			prev := &out[n-1]
			prev.Text = text[prev.Start : s.Start+len(s.Text)]
			continue
		}
		out = append(out, s)
	}
	return out
}

// endsInVersus reports whether text ends in the "v." of a case's name:
// "Lochner v. New York" is one name.
func endsInVersus(text string) bool {
	return strings.HasSuffix(text, " v.") || strings.HasSuffix(text, " vs.")
}

// endsInInitial matches text that ends in a person's initials: two of
// them ("S. J."), or one after a first name or "by" ("George W.", "by
// S."); "cranial nerve X." ends a sentence.
var endsInInitial = regexp.MustCompile(`(\p{Lu}\. \p{Lu}\.|(\p{Lu}\p{Ll}+|\bby) \p{Lu}\.)$`)

// mayEndInInitial is the cheap test before endsInInitial: text ends in
// a space, a capital and a full stop.
func mayEndInInitial(text string) bool {
	n := len(text)
	if n < 3 || text[n-1] != '.' {
		return false
	}
	r, size := utf8.DecodeLastRuneInString(text[:n-1])
	return unicode.IsUpper(r) && n-1-size > 0 && text[n-2-size] == ' '
}

// tail is the last n bytes of text or fewer, cut at a rune's start.
func tail(text string, n int) string {
	if len(text) <= n {
		return text
	}
	i := len(text) - n
	for i < len(text) && !utf8.RuneStart(text[i]) {
		i++
	}
	return text[i:]
}

func startsUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(strings.TrimSpace(s))
	return unicode.IsUpper(r)
}

// pieces cuts text at long runs of whitespace, which no sentence spans
// and which slow prose's segmenter down, into [start, end) ranges.
func pieces(text string) [][2]int {
	const gap = 64
	var out [][2]int
	start, spaces := -1, 0
	for i := 0; i < len(text); i++ {
		if isSpaceByte(text[i]) {
			spaces++
			if spaces == gap && start >= 0 {
				out = append(out, [2]int{start, i - gap + 1})
				start = -1
			}
			continue
		}
		spaces = 0
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

// sentences analyses text[start:end] of block b.
func (a *analyzer) sentences(ctx context.Context, b *block, start, end int) error {
	for i, s := range joinInitials(b.p.text[start:end], a.seg.Segment(b.p.text[start:end])) {
		if i%256 == 255 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		sent := &sentence{text: s.Text, block: b, start: start + s.Start, toks: splitFinalStop(a.tok.Tokenize(spacedDashes(s.Text)))}
		sent.lower = make([]string, len(sent.toks))
		sent.stems = make([]int, len(sent.toks))
		for k, t := range sent.toks {
			lower := strings.ToLower(t.Text)
			sent.lower[k] = lower
			sent.stems[k] = a.stem(lower)
			if isWord(t.Text) {
				b.words++
			}
			if sent.stems[k] >= 0 {
				b.stems = append(b.stems, sent.stems[k])
			}
		}
		if n := len(sent.toks); n >= 3 && n <= maxTaggedTokens {
			a.tagger.TagTokens(sent.toks)
			retagVerbs(sent.toks)
			sent.tagged = true
		}
		b.sents = append(b.sents, sent)
	}
	return nil
}

// splitFinalStop splits a sentence's full stop from its last word where
// the tokenizer took the two for an abbreviation ("the Bank War."): a
// word of three letters or more that is no abbreviation ("etc.", "U.S.").
func splitFinalStop(toks []token.Token) []token.Token {
	n := len(toks)
	if n == 0 {
		return toks
	}
	last := toks[n-1]
	word, ok := strings.CutSuffix(last.Text, ".")
	if !ok || utf8.RuneCountInString(word) < 3 || strings.Contains(word, ".") || abbreviations[strings.ToLower(word)] {
		return toks
	}
	return append(toks[:n-1], token.Token{Text: word, Start: last.Start}, token.Token{Text: ".", Start: last.Start + len(word)})
}

// spacedDashes returns s with its em and en dashes written as a spaced
// hyphen of the same byte length, so that the tokenizer, which keeps a
// dash inside the word around it ("events—or"), splits there and the
// tokens' offsets still index s.
func spacedDashes(s string) string {
	if !strings.ContainsAny(s, "—–") {
		return s
	}
	return dashSpacer.Replace(s)
}

var dashSpacer = strings.NewReplacer("—", " - ", "–", " - ")

// retagVerbs corrects two confusions of the tagger between plural nouns
// and verbs, with WordNet's word lists. A present-tense verb tag on a word
// ending in -s that WordNet knows only as a noun is a plural noun
// ("Passive transport moves molecules" with "molecules" tagged a verb). A
// plural noun after a noun (or a word the tagger took for an adjective)
// that WordNet knows as a verb is one where it
// knows no noun of that spelling, where an object, an adjective or an
// adverb follows it, or where its phrase opens with "a" ("The termination
// of translation occurs when …", "transport moves molecules", "a stored
// response stays correct").
func retagVerbs(toks []token.Token) {
	lex := lexicon.Default()
	for i := range toks {
		t := &toks[i]
		lower := strings.ToLower(t.Text)
		if (t.Tag == "VBP" || t.Tag == "VBZ") && strings.HasSuffix(lower, "s") && !auxiliaries[lower] && !lex.IsVerb(lower) && !verbBase(lex, lower) && lex.IsNoun(lower) {
			t.Tag = "NNS"
		}
		if t.Tag == "NN" && i > 0 && strings.HasSuffix(lower, "s") && !lex.IsNoun(lower) && verbBase(lex, lower) {
			t.Tag = "VBZ" // "whose reaction center absorbs best": no noun of that spelling
		}
	}
	for i := 1; i < len(toks); i++ {
		t := &toks[i]
		if t.Tag != "NNS" || !strings.HasPrefix(toks[i-1].Tag, "NN") && toks[i-1].Tag != "JJ" || !verbBase(lex, strings.ToLower(t.Text)) {
			continue
		}
		object := i+1 < len(toks) && (toks[i+1].Tag == "DT" || toks[i+1].Tag == "PRP$" || toks[i+1].Tag == "NNS" || toks[i+1].Tag == "NN" || toks[i+1].Tag == "JJ" || toks[i+1].Tag == "RB" || toks[i+1].Text == "that")
		if object || singularDeterminer(toks, i) || !lex.IsNoun(strings.ToLower(t.Text)) {
			t.Tag = "VBZ"
		}
	}
}

// singularDeterminer reports whether the noun phrase that would end in
// the plural at i opens with a determiner of one thing ("a stored response
// stays"): a phrase that cannot end in a plural, so the plural is a verb.
func singularDeterminer(toks []token.Token, i int) bool {
	if toks[i-1].Tag != "NN" {
		return false
	}
	for j := i - 1; j >= 0; j-- {
		switch t := toks[j]; {
		case t.Tag == "NN" || strings.HasPrefix(t.Tag, "JJ") || t.Tag == "VBN":
			continue
		case t.Tag == "DT":
			switch strings.ToLower(t.Text) {
			case "a", "an", "each", "every", "this", "that":
				return true
			}
		}
		return false
	}
	return false
}

// verbBase reports whether lower, ending in -s, is the third person of a
// verb WordNet knows ("occurs", "moves", "catches").
func verbBase(lex *lexicon.Lexicon, lower string) bool {
	base, ok := strings.CutSuffix(lower, "s")
	if !ok {
		return false
	}
	if lex.IsVerb(base) {
		return true
	}
	base, ok = strings.CutSuffix(base, "e")
	return ok && lex.IsVerb(base)
}

// auxiliaries are the verb forms in -s that WordNet does not list as
// verbs.
var auxiliaries = wordSet(`is was has does`)

// maxTokenBytes is the longest run without whitespace that is analysed;
// longer runs (data, not words) make prose's tokenizer slow down sharply.
const maxTokenBytes = 128

// blankLongRuns replaces every run of more than maxTokenBytes bytes without
// whitespace by spaces of the same length, keeping offsets exact.
func blankLongRuns(s string) string {
	var out []byte
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && !isSpaceByte(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > maxTokenBytes {
			if out == nil {
				out = []byte(s)
			}
			for k := start; k < i; k++ {
				out[k] = ' '
			}
		}
		start = -1
	}
	if out == nil {
		return s
	}
	return string(out)
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
}

// stem returns the interned stem id of a lower-cased word, or -1 for
// stop words and tokens without letters.
func (a *analyzer) stem(lower string) int {
	if id, ok := a.stemOf[lower]; ok {
		return id
	}
	id := -1
	if isWord(lower) && !isStopWord(lower) {
		s := english.Stem(lower, false)
		known, ok := a.stemID[s]
		if !ok {
			known = len(a.stems)
			a.stemID[s] = known
			a.stems = append(a.stems, s)
		}
		id = known
	}
	a.stemOf[lower] = id
	return id
}

// isWord reports whether s holds a letter.
func isWord(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// isStopWord reports whether lower is a function word: snowball's English
// list plus words that carry no subject matter in study text.
func isStopWord(lower string) bool {
	return english.IsStopWord(lower) || extraStopWords[lower] || len(lower) < 2
}

var extraStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`also although always among another anyone anything around away
		back became become becomes can cannot could did does done due each either else enough etc even ever every
		first following former found get gets given gives go goes going got however i.e e.g let like made make makes many may
		might much must neither never new next now often one ones onto other others per perhaps rather said say
		latter least less more most same certain whole various different
		says see seen several shall shew since still such take taken thus together toward towards two upon use
		thereof therein thereby therefore whereof whereby hereof herein viz
		used uses using usually via well whereas whether within without would yet`) {
		m[w] = true
	}
	return m
}()

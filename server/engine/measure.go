package engine

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/studyloop/studyloop/server/lexicon"
	"github.com/studyloop/studyloop/server/studyloop"
)

// Report holds the mechanical figures of one extraction: what make quality
// prints per text, and what tests hold the generator to.
type Report struct {
	Words     int
	Questions int
	ByType    map[studyloop.QuestionType]int
	// TopAnswer is the answer asked most often (compared case-blind) and
	// TopAnswerCount how often.
	TopAnswer      string
	TopAnswerCount int
	// TopDistractor is the wrong choice offered most often and
	// TopDistractorCount how often.
	TopDistractor      string
	TopDistractorCount int
	// Failing counts the questions failing each precision check, by the
	// check's name (see PrecisionChecks).
	Failing map[string]int
	// Terms are the bold terms of the text (not bold labels on a line
	// of their own); TermsAsked those that some question's answer, right
	// choice or accepted alternative names, or whose definition it asks.
	Terms      int
	TermsAsked int
	// Unasked are the bold terms no question asks, in text order.
	Unasked []string
}

// PerThousandWords is the number of questions per 1,000 words of text.
func (r Report) PerThousandWords() float64 {
	if r.Words == 0 {
		return 0
	}
	return float64(r.Questions) * 1000 / float64(r.Words)
}

// boldTerm finds markdown bold spans of at most six words.
var boldTerm = regexp.MustCompile(`\*\*([^*\n]{2,80}?)\*\*|__([^_\n]{2,80}?)__`)

// Measure computes the Report of ex, extracted from text.
func Measure(text string, ex studyloop.Extraction) Report {
	r := Report{
		Words:     len(strings.Fields(text)),
		Questions: len(ex.Questions),
		ByType:    map[studyloop.QuestionType]int{},
		Failing:   map[string]int{},
	}
	answers := map[string]int{}
	distractors := map[string]int{}
	display := map[string]string{}
	asked := map[string]bool{}
	for _, q := range ex.Questions {
		r.ByType[q.Type]++
		k := answerKey(q.Answer)
		answers[k]++
		display[k] = q.Answer
		asked[askedKey(q.Answer)] = true
		for _, alt := range q.Alternatives {
			asked[askedKey(alt)] = true // "preload", accepted for "end diastolic volume", which the text says it is
		}
		if m := asksDefinition.FindStringSubmatch(q.Prompt); m != nil {
			asked[askedKey(m[1]+m[2])] = true
		}
		if m := asksVerb.FindStringSubmatch(q.Prompt); m != nil {
			asked[askedKey(m[1])] = true // "pass (a test)"
		}
		for _, c := range q.Choices {
			if c != q.Answer {
				dk := answerKey(c)
				distractors[dk]++
				display[dk] = c
			}
		}
		for _, c := range PrecisionChecks {
			if c.Fails(q) {
				r.Failing[c.Name]++
			}
		}
	}
	r.TopAnswer, r.TopAnswerCount = most(answers, display)
	r.TopDistractor, r.TopDistractorCount = most(distractors, display)
	lex := lexicon.Default()
	terms := map[string]bool{}
	for _, loc := range boldTerm.FindAllStringSubmatchIndex(text, -1) {
		if boldLine(text, loc[0], loc[1]) {
			continue // "**Objectives**" on a line of its own labels, and names no term
		}
		m := make([]string, 3)
		for i := range m {
			if loc[2*i] >= 0 {
				m[i] = text[loc[2*i]:loc[2*i+1]]
			}
		}
		t := m[1] + m[2]
		t, _, _ = strings.Cut(t, " (") // "end diastolic volume (EDV)" is asked as its words
		if labelTerm.MatchString(strings.TrimRight(t, ":. ")) || sectionNumber.MatchString(t) {
			continue // "**Answer:**", "**22.1 Tracking Inflation.**": labels and headings, no terms
		}
		if !boldNounPhrase(lex, t) {
			continue
		}
		k := askedKey(t)
		if strings.TrimSpace(k) == "" || terms[k] {
			continue
		}
		terms[k] = true
		r.Terms++
		if asked[k] {
			r.TermsAsked++
		} else {
			r.Unasked = append(r.Unasked, t)
		}
	}
	return r
}

// askedKey is how Measure matches a bold term with what questions ask:
// stems, without a bracket after the words ("end diastolic volume
// (EDV)", "pass (a test)").
func askedKey(term string) string {
	term, _, _ = strings.Cut(term, " (")
	return stemKey(term, stemWord)
}

// boldLine reports whether the bold span from to to is all its line
// holds, besides list and quotation marks: a label or a heading set in
// bold.
func boldLine(text string, from, to int) bool {
	start := strings.LastIndexByte(text[:from], '\n') + 1
	end := strings.IndexByte(text[to:], '\n')
	if end < 0 {
		end = len(text)
	} else {
		end += to
	}
	return strings.Trim(text[start:from], " \t>-*+") == "" && strings.Trim(text[to:end], " \t.:") == ""
}

// asksDefinition matches the prompts that ask for a term's definition and
// captures the term.
var asksDefinition = regexp.MustCompile(`^What (?:is meant by|is|are|does it mean to) (?:an? |the )?(.+)\?$|^What does “(.+)” mean\?$`)

// sectionNumber matches a heading's number set in bold: "22.1 ".
var sectionNumber = regexp.MustCompile(`^\d+(\.\d+)+\s`)

// asksVerb matches the prompts that ask what a verb means and captures
// the verb: "What does it mean to pass a test?".
var asksVerb = regexp.MustCompile(`^What does it mean to (\S+) `)

// boldNounPhrase reports whether t, set in bold, names a term rather than
// stressing a clause: one to four words, none of them a function word but
// an inner "of", ending in a noun (or a word too rare for the lexicon).
// "**ribosome**" and "**Kirchhoff's law**" are terms; "**equally up and
// down**" and "**emit**" are emphasis.
func boldNounPhrase(lex *lexicon.Lexicon, t string) bool {
	words := strings.Fields(strings.ToLower(t))
	if len(words) == 0 || len(words) > 4 || utf8.RuneCountInString(t) < 3 {
		return false
	}
	original := strings.Fields(t)
	for i, w := range words {
		if oneCapital(original[i]) {
			continue // "helper T cell": a letter that names, no stop word
		}
		if isStopWord(strings.Trim(w, ".,;:'\"()")) && !(w == "of" && i > 0 && i < len(words)-1) {
			return false
		}
	}
	head := strings.Trim(words[len(words)-1], ".,;:'\"()")
	return lex.IsNoun(head) || lex.Count(head) == 0 && lex.Senses(head) == 0
}

// answerKey is how answers are compared for repeats: case-blind, with
// whitespace collapsed, a leading article dropped and the last word in the
// singular ("primary transcripts" is "primary transcript").
func answerKey(s string) string {
	f := strings.Fields(strings.ToLower(s))
	if len(f) > 1 && (f[0] == "a" || f[0] == "an" || f[0] == "the") {
		f = f[1:]
	}
	if n := len(f); n > 0 {
		f[n-1] = singular(f[n-1])
	}
	return strings.Join(f, " ")
}

// singular drops the plural -s of a lower-case word ("transcripts",
// "bodies"), not the s of a word that ends in one ("process", "stimulus",
// "analysis", "physics", "species").
func singular(w string) string {
	switch {
	case len(w) <= 3 || !strings.HasSuffix(w, "s") || !plural(w) || sEnding[w]:
		return w
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	}
	return w[:len(w)-1]
}

// sEnding are words whose final s is no plural's.
var sEnding = wordSet(`species series news means lens gas`)

// most returns the key counted most often (the least key among ties) as
// display shows it, and its count.
func most(counts map[string]int, display map[string]string) (string, int) {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best, n := "", 0
	for _, k := range keys {
		if counts[k] > n {
			best, n = k, counts[k]
		}
	}
	return display[best], n
}

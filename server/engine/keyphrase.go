package engine

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/studyloop/studyloop/server/lexicon"
)

// Longest keyphrase, in tokens.
const maxPhraseTokens = 4

// phrase is a keyphrase of a topic.
type phrase struct {
	text string // surface form of its first occurrence
	key  string // its stems, space-separated: occurrences with one key are one phrase
	// stemKey is its distinct stems sorted, as stemKey(text) gives them.
	stemKey string
	class   string // what kind of thing it names, for choosing distractors
	score   float64
	// initial reports that text opens its sentence, so a capital there
	// may be only the sentence's.
	initial bool
}

// occurrence is one place a phrase appears: tokens [from, to) of a sentence.
type occurrence struct {
	sent     *sentence
	from, to int
}

// keyphrases ranks the candidate phrases of sents RAKE-style (Rose et al.
// 2010): candidates are maximal runs of content words, cut at stop words
// and punctuation and, where the sentence is tagged, restricted to
// adjective-noun runs ending in a noun; each word scores its degree over
// its frequency; a phrase scores the sum of its words, weighted by how
// often it recurs. It returns the phrases best first and, for each phrase
// key, its occurrences in text order.
func keyphrases(a *analyzer, sents []*sentence) ([]phrase, map[string][]occurrence) {
	occ := map[string][]occurrence{}
	var order []string
	freq := map[int]int{}
	degree := map[int]int{}
	for _, s := range sents {
		i := 0
		for i < len(s.toks) {
			if !candidateToken(s, i) {
				i++
				continue
			}
			j := i
			for j < len(s.toks) && candidateToken(s, j) {
				j++
			}
			for _, r := range nounRuns(s, i, j) {
				key := phraseKey(a, s, r[0], r[1])
				if _, ok := occ[key]; !ok {
					order = append(order, key)
				}
				occ[key] = append(occ[key], occurrence{s, r[0], r[1]})
				for k := r[0]; k < r[1]; k++ {
					freq[s.stems[k]]++
					degree[s.stems[k]] += r[1] - r[0]
				}
			}
			i = j
		}
	}
	phrases := make([]phrase, 0, len(order))
	for _, key := range order {
		list := occ[key]
		first := list[0]
		var score float64
		for k := first.from; k < first.to; k++ {
			id := first.sent.stems[k]
			score += float64(degree[id]) / float64(freq[id])
		}
		score *= 1 + math.Log(float64(len(list)))
		text := first.sent.text[first.sent.toks[first.from].Start:first.sent.toks[first.to-1].End()]
		phrases = append(phrases, phrase{
			text:    text,
			stemKey: sortedKey(key),
			initial: first.from == 0,
			key:     key,
			class:   phraseClass(first.sent, first.from, first.to),
			score:   score,
		})
	}
	sort.SliceStable(phrases, func(i, j int) bool {
		if phrases[i].score != phrases[j].score {
			return phrases[i].score > phrases[j].score
		}
		return phrases[i].key < phrases[j].key
	})
	return phrases, occ
}

// candidateToken reports whether token i of s may be part of a keyphrase.
func candidateToken(s *sentence, i int) bool {
	if s.stems[i] < 0 || len(s.toks[i].Text) > 40 {
		return false
	}
	for _, r := range s.toks[i].Text {
		if !(r == '-' || r == '\'' || isLetterOrDigit(r)) {
			return false
		}
	}
	if !s.tagged {
		return true
	}
	switch s.toks[i].Tag {
	case "NN", "NNS", "NNP", "NNPS", "JJ", "JJR", "JJS", "VBG", "CD":
		return true
	}
	return false
}

// nounRuns cuts tokens [i, j) of s into phrases of at most
// maxPhraseTokens tokens that end in a noun (when tagged).
func nounRuns(s *sentence, i, j int) [][2]int {
	var out [][2]int
	for i < j {
		end := min(j, i+maxPhraseTokens)
		if s.tagged {
			for end > i && !strings.HasPrefix(s.toks[end-1].Tag, "NN") {
				end--
			}
		}
		if end == i {
			i++
			continue
		}
		out = append(out, [2]int{i, end})
		i = end
	}
	return out
}

// sortedKey turns a phrase key into the form stemKey gives: distinct
// stems, sorted, with a space at each end.
func sortedKey(key string) string {
	stems := strings.Fields(key)
	slices.Sort(stems)
	return " " + strings.Join(slices.Compact(stems), " ") + " "
}

func phraseKey(a *analyzer, s *sentence, from, to int) string {
	parts := make([]string, 0, to-from)
	for k := from; k < to; k++ {
		parts = append(parts, a.stems[s.stems[k]])
	}
	return strings.Join(parts, " ")
}

// phraseClass names the kind of thing tokens [from, to) of s are, so that
// multiple-choice distractors match their answer: numbers with numbers,
// names with names, plurals with plurals.
func phraseClass(s *sentence, from, to int) string {
	last := s.toks[to-1]
	kind := "noun"
	switch {
	case isNumber(last.Text):
		kind = "number"
	case last.Tag == "NNP" || last.Tag == "NNPS":
		kind = "name"
	case last.Tag == "NNS":
		kind = "plural"
	}
	return kind + strconv.Itoa(min(to-from, 3))
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	return err == nil
}

// topicName names a topic by its two best keyphrases, preferring those the
// topic repeats and general English does not use every day.
func topicName(u *unit, lex *lexicon.Lexicon) string {
	if name := pickName(u.phrases, func(p phrase) bool {
		n := len(u.occ[p.key])
		return n >= 2 && !genericPhrase(lex, p.text, n)
	}); name != "" {
		return name
	}
	return pickName(u.phrases, func(phrase) bool { return true })
}

// pickName joins the first two keyphrases that keep, are plain words and do
// not overlap.
func pickName(phrases []phrase, keep func(phrase) bool) string {
	var picked []string
	var keys []string
	for _, p := range phrases {
		if len(picked) == 2 {
			break
		}
		if !plainWord(p.text) || !keep(p) {
			continue
		}
		overlap := false
		for _, k := range keys {
			if strings.Contains(k, p.key) || strings.Contains(p.key, k) {
				overlap = true
			}
		}
		if !overlap {
			picked = append(picked, p.text)
			keys = append(keys, p.key)
		}
	}
	if len(picked) == 0 {
		return ""
	}
	return capitalize(strings.Join(picked, ", "))
}

// plainWord reports whether s is made only of letters, digits, spaces,
// hyphens and apostrophes.
func plainWord(s string) bool {
	for _, r := range s {
		if !(r == ' ' || r == '-' || r == '\'' || isLetterOrDigit(r)) {
			return false
		}
	}
	return s != ""
}

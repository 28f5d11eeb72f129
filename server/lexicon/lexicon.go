// Package lexicon answers the questions about English words that the
// question generator asks of WordNet 3.0 (Princeton University, WordNet 3.0
// licence; see the README): how common a word is in general English, and
// how two nouns are related — the same thing, one a kind of the other, or
// two kinds of one thing.
//
// The data, derived from Debian's wordnet-base by the internal gen command,
// is embedded compressed and read on first use.
package lexicon

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

//go:embed wordnet.gz
var data []byte

// Lexicon is a read-only view of WordNet's nouns and word counts. It is
// safe for concurrent use.
type Lexicon struct {
	words      map[string]word
	hypernyms  [][]int32 // by noun synset id
	exceptions map[string]string
	verbs      map[string]bool   // one-word verb lemmas
	pastForms  map[string]string // irregular verb forms to their lemma: "led" to "lead"
}

type word struct {
	count, senses int32
	synsets       []int32 // noun senses, most frequent first
}

// Default returns the embedded lexicon, loading it on the first call.
var Default = sync.OnceValue(func() *Lexicon {
	l, err := parse(data)
	if err != nil {
		panic("lexicon: embedded data: " + err.Error())
	}
	return l
})

func parse(gz []byte) (*Lexicon, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	l := &Lexicon{words: make(map[string]word, 160_000), exceptions: map[string]string{}, verbs: map[string]bool{}, pastForms: map[string]string{}}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line := sc.Text()
		kind, rest, _ := strings.Cut(line, "\t")
		switch kind {
		case "S":
			ids, err := numbers(rest)
			if err != nil {
				return nil, fmt.Errorf("bad synset line %q: %w", line, err)
			}
			l.hypernyms = append(l.hypernyms, ids)
		case "W":
			name, rest, _ := strings.Cut(rest, "\t")
			count, rest, _ := strings.Cut(rest, "\t")
			senses, synsets, ok := strings.Cut(rest, "\t")
			c, err1 := strconv.Atoi(count)
			n, err2 := strconv.Atoi(senses)
			ids, err3 := numbers(synsets)
			if !ok || err1 != nil || err2 != nil || err3 != nil {
				return nil, fmt.Errorf("bad word line %q", line)
			}
			l.words[name] = word{int32(c), int32(n), ids}
		case "E":
			form, base, ok := strings.Cut(rest, "\t")
			if !ok {
				return nil, fmt.Errorf("bad line %q", line)
			}
			l.exceptions[form] = base
		case "V":
			l.verbs[rest] = true
		case "X":
			form, base, ok := strings.Cut(rest, "\t")
			if !ok {
				return nil, fmt.Errorf("bad line %q", line)
			}
			l.pastForms[form] = base
		default:
			return nil, fmt.Errorf("bad line %q", line)
		}
	}
	return l, sc.Err()
}

// numbers parses a comma-separated list of synset ids without allocating
// more than the result.
func numbers(s string) ([]int32, error) {
	if s == "" {
		return nil, nil
	}
	out := make([]int32, 0, strings.Count(s, ",")+1)
	n, digits := int32(0), 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if digits == 0 {
				return nil, fmt.Errorf("empty number in %q", s)
			}
			out = append(out, n)
			n, digits = 0, 0
			continue
		}
		if s[i] < '0' || s[i] > '9' || digits > 8 {
			return nil, fmt.Errorf("bad number in %q", s)
		}
		n = n*10 + int32(s[i]-'0')
		digits++
	}
	return out, nil
}

// lookup finds the entry of a word or phrase, lower-cased, trying its
// noun base forms ("cells" -> "cell", "mice" -> "mouse") when the form
// itself is not listed.
func (l *Lexicon) lookup(s string) (word, bool) {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	if w, ok := l.words[s]; ok {
		return w, true
	}
	if base, ok := l.exceptions[s]; ok {
		w, ok := l.words[base]
		return w, ok
	}
	for _, r := range nounEndings {
		if strings.HasSuffix(s, r[0]) {
			if w, ok := l.words[strings.TrimSuffix(s, r[0])+r[1]]; ok && len(w.synsets) > 0 {
				return w, true
			}
		}
	}
	return word{}, false
}

// nounEndings are WordNet's detachment rules for noun plurals.
var nounEndings = [][2]string{{"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}, {"s", ""}}

// Count is how often a word's senses were tagged in the SemCor corpus, a
// measure of how common it is in general English; 0 for words WordNet
// does not list.
func (l *Lexicon) Count(s string) int {
	w, _ := l.lookup(s)
	return int(w.count)
}

// Senses is the number of WordNet senses of a word over all parts of
// speech: general words have many, terms of a field one or two.
func (l *Lexicon) Senses(s string) int {
	w, _ := l.lookup(s)
	return int(w.senses)
}

// NounOnly reports whether every WordNet sense of s is a noun's: "Pavlov"
// is only a name, "Galilean" also an adjective.
func (l *Lexicon) NounOnly(s string) bool {
	w, ok := l.lookup(s)
	return ok && len(w.synsets) > 0 && int(w.senses) == len(w.synsets)
}

// IsNoun reports whether WordNet lists s (or its singular) as a noun.
func (l *Lexicon) IsNoun(s string) bool {
	w, ok := l.lookup(s)
	return ok && len(w.synsets) > 0
}

// Relation is how two nouns are related in WordNet.
type Relation int

// Relations, from closest to none.
const (
	Unrelated Relation = iota
	// Siblings are kinds of one thing, their common sense's direct
	// hypernym: "ribosome" and "mitochondrion" are both organelles.
	Siblings
	// Nested means one is a kind of the other: "enzyme" and "protein".
	Nested
	// Synonyms share a sense: "heart attack" and "myocardial infarction".
	Synonyms
)

// maxDepth bounds how far up the hypernym tree Relate looks for Nested.
const maxDepth = 6

// Relate tells how nouns a and b (words or WordNet phrases, any case,
// singular or plural) are related, over all their senses. Words WordNet
// does not list are Unrelated.
func (l *Lexicon) Relate(a, b string) Relation {
	wa, oka := l.lookup(a)
	wb, okb := l.lookup(b)
	if !oka || !okb || len(wa.synsets) == 0 || len(wb.synsets) == 0 {
		return Unrelated
	}
	for _, x := range wa.synsets {
		for _, y := range wb.synsets {
			if x == y {
				return Synonyms
			}
		}
	}
	upA, upB := l.ancestors(wa.synsets), l.ancestors(wb.synsets)
	for _, y := range wb.synsets {
		if _, ok := upA[y]; ok {
			return Nested
		}
	}
	for _, x := range wa.synsets {
		if _, ok := upB[x]; ok {
			return Nested
		}
	}
	// Kinship counts only the commonest senses (WordNet lists them first):
	// "ocean" as a body of water, not as "a large amount", so that it is
	// no sibling of "billions".
	upA, upB = l.ancestors(wa.synsets[:min(len(wa.synsets), siblingSenses)]), l.ancestors(wb.synsets[:min(len(wb.synsets), siblingSenses)])
	for s, da := range upA {
		if db, ok := upB[s]; ok && da <= 1 && db <= 1 {
			return Siblings
		}
	}
	return Unrelated
}

// siblingSenses is how many of a word's senses, commonest first, Relate
// compares for Siblings.
const siblingSenses = 2

// ancestors maps the hypernyms of synsets, up to maxDepth steps, to their
// distance.
func (l *Lexicon) ancestors(synsets []int32) map[int32]int {
	out := map[int32]int{}
	frontier := synsets
	for depth := 1; depth <= maxDepth && len(frontier) > 0; depth++ {
		var next []int32
		for _, s := range frontier {
			for _, h := range l.hypernyms[s] {
				if _, seen := out[h]; !seen {
					out[h] = depth
					next = append(next, h)
				}
			}
		}
		frontier = next
	}
	return out
}

// IsVerb reports whether WordNet lists s as a one-word verb in its base
// form: "vectorize", not "aggregation".
func (l *Lexicon) IsVerb(s string) bool { return l.verbs[strings.ToLower(s)] }

// VerbBase is the lemma of a verb's past form ("opened" to "open",
// "carried" to "carry", "led" to "lead"), when WordNet knows the verb.
func (l *Lexicon) VerbBase(past string) (string, bool) {
	past = strings.ToLower(past)
	if base, ok := l.pastForms[past]; ok {
		return base, true
	}
	stem, ok := strings.CutSuffix(past, "ed")
	if !ok {
		return "", false
	}
	candidates := []string{stem + "e", stem}
	if n := len(stem); n >= 2 && stem[n-1] == stem[n-2] {
		candidates = append(candidates, stem[:n-1]) // "planned" to "plan"
	}
	if y, ok := strings.CutSuffix(stem, "i"); ok {
		candidates = append(candidates, y+"y") // "carried" to "carry"
	}
	for _, c := range candidates {
		if l.verbs[c] {
			return c, true
		}
	}
	return "", false
}

// kindDepth bounds how far up the hypernym tree IsPerson and IsPlace
// look: "Jefferson" is a President, a head of state, ... and six steps up
// a person.
const kindDepth = 9

// IsPerson reports whether WordNet knows name as a person: one of its
// senses is an instance or a kind of person ("Faraday", "Watt").
func (l *Lexicon) IsPerson(name string) bool { return l.isA(name, "person") }

// IsPlace reports whether one of name's senses is a location: "France"
// and "Washington" are places, whatever else they are.
func (l *Lexicon) IsPlace(name string) bool { return l.isA(name, "location") }

// isA reports whether one of name's senses is, up to kindDepth steps, an
// instance or a kind of the first sense of noun kind.
func (l *Lexicon) isA(name, kind string) bool {
	w, ok := l.lookup(name)
	if !ok || len(w.synsets) == 0 {
		return false
	}
	k, ok := l.lookup(kind)
	if !ok || len(k.synsets) == 0 {
		return false
	}
	target := k.synsets[0]
	seen := map[int32]bool{}
	frontier := w.synsets
	for depth := 0; depth <= kindDepth && len(frontier) > 0; depth++ {
		var next []int32
		for _, s := range frontier {
			if s == target {
				return true
			}
			for _, h := range l.hypernyms[s] {
				if !seen[h] {
					seen[h] = true
					next = append(next, h)
				}
			}
		}
		frontier = next
	}
	return false
}

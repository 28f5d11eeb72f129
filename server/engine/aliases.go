package engine

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Material names many things twice: "heart rate (HR)", "a polyribosome
// (or polysome)", "classical conditioning, also called Pavlovian
// conditioning". A student who types either name is right, and a choice
// that is the other name is a second right answer. aliases collects the
// pairs a study states.

var (
	// bracketedName matches "<words> (<other name>)": an abbreviation or
	// "or", "also called", "also known as" and a name.
	bracketedName = regexp.MustCompile(`([\p{L}\p{N}'-]+(?: [\p{L}\p{N}'-]+){0,5}) \((?:(?:or|also called|also known as|i\.e\.,?) )?([\p{L}\p{N}' -]{2,40})\)`)
	// calledName matches "<words>, also called <name>" and the like.
	calledName = regexp.MustCompile(`([\p{L}\p{N}'-]+(?: [\p{L}\p{N}'-]+){0,5}),? (?:also called|also known as|otherwise known as|sometimes called) (?:an? |the )?([\p{L}\p{N}'-]+(?: [\p{L}\p{N}'-]+){0,4})(?:[,;.)]| \()`)
	// subjectCalled matches a sentence whose subject, without an
	// article, is called by another name: "White blood cells are
	// collectively called leukocytes."
	subjectCalled = regexp.MustCompile(`(?:^|[.!?] )([A-Z][\p{L}'-]+(?: [\p{L}'-]+){0,3}) (?:is|are) (?:collectively |also |commonly |often |usually )?(?:called|known as|termed) ([\p{L}'-]+(?: [\p{L}'-]+){0,3})\.`)
	// commaOr matches "<words>, or <name>," as in "thyroid hormone, or
	// thyroxin, increases ...".
	commaOr = regexp.MustCompile(`([\p{L}\p{N}'-]+(?: [\p{L}\p{N}'-]+){0,5}), or ([\p{L}\p{N}'-]+(?: [\p{L}\p{N}'-]+){0,2}),`)
)

// subjectOpeners open a subject that points at something named before
// ("This process is called …") or counts it, not a name of its own.
var subjectOpeners = wordSet(`the a an this these that those such its their his her our each every some any one two three many most other another`)

// aliases maps an answer key (see answerKey) to the other names the study
// gives the same thing.
type aliases map[string][]string

// findAliases reads the pairs of names the markdown source states. An abbreviation pairs
// with the words it abbreviates (the last few before the bracket); "or"
// pairs with as many words before it as the other name has, ending at the
// bracket or comma, and "also called" with the words before it after the
// last stop word.
func findAliases(source string) aliases {
	text := strings.ReplaceAll(source, "**", "")
	al := aliases{}
	add := al.pair
	// The patterns run only on short windows around their anchors, so
	// the cost stays linear in the text.
	eachWindow(text, " (", func(w string, at int) {
		m := matchAt(bracketedName, w, at)
		if m == nil {
			return
		}
		words := strings.Fields(m[1])
		other := strings.TrimSpace(m[2])
		if isAcronym(other) || mixedInitials(other) {
			for k := 1; k <= len(words); k++ {
				if long := strings.Join(words[len(words)-k:], " "); abbreviates(other, long) || initialism(other, long) {
					add(long, other)
					break
				}
			}
			return
		}
		if strings.Contains(m[0], "(or ") || strings.Contains(m[0], "(also ") {
			// "glia (also called glial cells or neuroglia)" gives two names,
			// and the name before the bracket is as long as the shorter.
			names := strings.Split(other, " or ")
			n := len(strings.Fields(other))
			for _, o := range names {
				n = min(n, len(strings.Fields(o)))
			}
			name := strings.Join(words[max(0, len(words)-n):], " ")
			for _, o := range names {
				add(name, o)
			}
		}
	})
	for _, anchor := range []string{" also called ", " also known as ", " otherwise known as ", " sometimes called "} {
		eachWindow(text, anchor, func(w string, at int) {
			if m := matchAt(calledName, w, at); m != nil {
				add(trailingContent(m[1]), m[2]) // "The result is excess demand, also called a shortage"
			}
		})
	}
	for _, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, " called ") && !strings.Contains(line, " known as ") && !strings.Contains(line, " termed ") {
			continue
		}
		for _, m := range subjectCalled.FindAllStringSubmatch(strings.TrimLeft(line, "-*>#0123456789. "), -1) {
			if !subjectOpeners[strings.ToLower(firstWord(m[1]))] {
				add(m[1], m[2])
			}
		}
	}
	eachWindow(text, ", or ", func(w string, at int) {
		if m := matchAt(commaOr, w, at); m != nil {
			if before := strings.TrimSpace(w[:strings.Index(w, m[0])]); strings.HasSuffix(before, ")") {
				return // "unconditioned (unlearned) responses, or reflexes": the name began before the aside
			}
			add(trailingContent(m[1]), m[2])
		}
	})
	// A glossary line may say what its acronym stands for: "- **SQL**:
	// The language … The term is an acronym for Structured Query
	// Language."
	for _, line := range strings.Split(source, "\n") {
		if !strings.Contains(line, " for ") && !strings.Contains(line, " of ") {
			continue // every statement acronymFor matches has one
		}
		if m := acronymFor.FindStringSubmatch(line); m != nil {
			if t := lineTerm.FindStringSubmatch(line); t != nil && abbreviates(t[1], m[1]) {
				add(t[1], m[1])
			}
		}
	}
	// Two bold terms joined by "or" name one thing: "**stop codons** or
	// **nonsense codons**", "**end diastolic volume (EDV)** or **preload**".
	for _, anchor := range []string{"** or **", "**, or **"} {
		eachWindow(source, anchor, func(w string, at int) {
			if m := matchAt(boldOr, w, at); m != nil {
				a := strings.TrimSpace(abbreviationInBrackets.ReplaceAllString(m[1], ""))
				b := strings.TrimSpace(abbreviationInBrackets.ReplaceAllString(m[2], ""))
				add(a, b)
			}
		})
	}
	return al
}

// mixedInitials reports whether s looks like initials written in mixed
// case, as biology writes some: "Cdk", "Cdks" (a capital, then two to
// four letters, no digits).
func mixedInitials(s string) bool {
	n := utf8.RuneCountInString(s)
	r, _ := utf8.DecodeRuneInString(s)
	return n >= 3 && n <= 5 && unicode.IsUpper(r) && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
}

// initialism reports whether every letter of short (without a plural
// "s" where long ends in one) is the initial of one word of long, the
// parts of hyphenated words counted apart: "Cdks" for "cyclin-dependent
// kinases".
func initialism(short, long string) bool {
	words := strings.FieldsFunc(strings.ToLower(long), func(r rune) bool { return r == ' ' || r == '-' })
	letters := []rune(strings.ToLower(short))
	if len(letters) == len(words)+1 && letters[len(letters)-1] == 's' && strings.HasSuffix(long, "s") {
		letters = letters[:len(letters)-1]
	}
	if len(letters) != len(words) || len(words) < 2 {
		return false
	}
	for i, w := range words {
		if r, _ := utf8.DecodeRuneInString(w); r != letters[i] {
			return false
		}
	}
	return true
}

// boldOr matches two bold terms joined by "or" or ", or".
var boldOr = regexp.MustCompile(`\*\*([^*\n]{2,60})\*\*,? or \*\*([^*\n]{2,60})\*\*`)

// matchAt returns the submatches of re's match in w that covers byte at,
// or nil.
func matchAt(re *regexp.Regexp, w string, at int) []string {
	for _, loc := range re.FindAllStringSubmatchIndex(w, -1) {
		if loc[0] <= at && at < loc[1] {
			m := make([]string, len(loc)/2)
			for i := range m {
				if loc[2*i] >= 0 {
					m[i] = w[loc[2*i]:loc[2*i+1]]
				}
			}
			return m
		}
	}
	return nil
}

// eachWindow calls f with the stretch of text around each occurrence of
// anchor, up to 80 bytes before it (from a word start) and 60 after, and
// the anchor's offset in it.
func eachWindow(text, anchor string, f func(window string, at int)) {
	for from := 0; ; {
		i := strings.Index(text[from:], anchor)
		if i < 0 {
			return
		}
		i += from
		start := max(0, i-80)
		for start > 0 && start < i && text[start-1] != ' ' && text[start-1] != '\n' {
			start++ // begin at a word, not inside one
		}
		end := min(len(text), i+len(anchor)+60)
		for end < len(text) && end > i && !utf8.RuneStart(text[end]) {
			end--
		}
		for start < i && !utf8.RuneStart(text[start]) {
			start++
		}
		f(text[start:end], i-start)
		from = i + len(anchor)
	}
}

// trailingContent is the run of words at the end of s after its last stop
// word: "More thyroid hormone" gives "thyroid hormone".
func trailingContent(s string) string {
	words := strings.Fields(s)
	i := len(words)
	for i > 0 && !isStopWord(strings.ToLower(words[i-1])) && len(words)-i < 4 {
		i--
	}
	return strings.Join(words[i:], " ")
}

// pair records a and b as two names of one thing.
func (al aliases) pair(a, b string) {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == "" || b == "" || strings.EqualFold(a, b) {
		return
	}
	if la, lb := strings.ToLower(a), strings.ToLower(b); strings.HasSuffix(la, " "+lb) || strings.HasSuffix(lb, " "+la) || strings.HasPrefix(la, lb+" ") || strings.HasPrefix(lb, la+" ") {
		return // "checkpoint" and "spindle checkpoint" (from "The M checkpoint, or spindle checkpoint"), "RNA" and "RNA transcript": a kind or a part, no other name
	}
	ka := answerKey(a)
	if !slices.Contains(al[ka], b) {
		al[ka] = append(al[ka], b)
	}
	kb := answerKey(b)
	if !slices.Contains(al[kb], a) {
		al[kb] = append(al[kb], a)
	}
}

// acronymFor matches a definition's statement of what its acronym
// stands for: "The term is an acronym for Structured Query Language."
var acronymFor = regexp.MustCompile(`\b(?:is an? (?:acronym|abbreviation) (?:for|of)|stands for|is short for) ((?:\p{Lu}[\p{L}-]*)(?: (?:\p{Lu}[\p{L}-]*|of|and|for|the))*)`)

// lineTerm matches the bold acronym that opens a line of a list.
var lineTerm = regexp.MustCompile(`^\s*(?:[-*+]\s+)?\*\*(\p{Lu}[\p{Lu}\p{N}]{1,7})\*\*`)

// of returns the other names of answer, in its number where the study
// gives them in the other ("stop codon" is also "nonsense codon" where
// the text says "stop codons or nonsense codons").
func (al aliases) of(answer string) []string {
	names := al[answerKey(answer)]
	if len(names) == 0 {
		return nil
	}
	words := strings.Fields(strings.ToLower(answer))
	last := words[len(words)-1]
	plural := singular(last) != last
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, inNumber(n, plural))
	}
	return out
}

// inNumber is name with its last word in the plural or the singular; an
// acronym stays as it is.
func inNumber(name string, plural bool) string {
	i := strings.LastIndexByte(name, ' ') + 1
	w := name[i:]
	switch {
	case isAcronym(w):
		return name
	case plural && singular(strings.ToLower(w)) == strings.ToLower(w):
		return name + "s"
	case !plural:
		if one := singular(strings.ToLower(w)); one != strings.ToLower(w) {
			return name[:i] + w[:len(one)-1] + one[len(one)-1:] // "bodies" to "body"
		}
	}
	return name
}

// same reports whether a and b name the same thing in the study.
func (al aliases) same(a, b string) bool {
	kb := answerKey(b)
	for _, o := range al.of(a) {
		if answerKey(o) == kb {
			return true
		}
	}
	return false
}

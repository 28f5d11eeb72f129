package engine

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// section is the text under one heading, up to the next heading of any
// level. The section before the first heading has no heading.
type section struct {
	heading *plain
	level   int
	start   int // source offset where the section (its heading line) starts
	blocks  []*block
	facts   []fact
}

// block is one paragraph-like run of prose: a paragraph, a list item's
// text, a definition's text. Topic boundaries fall between blocks.
type block struct {
	p     plain
	sents []*sentence
	words int   // word tokens, stop words included
	stems []int // interned content stems, in order
	item  bool  // a list item's text
}

type factKind int

const (
	factDefinition factKind = iota // "term: definition" shown in bold or in a definition list
	factPair                       // "term: definition" as a plain list item
	factCell                       // a table row's term and one of its other cells
)

// fact is a term and what the text says about it, found in markdown
// structure rather than in running prose.
type fact struct {
	kind  factKind
	term  string
	def   string
	attr  string // factCell: the column header
	key   string // factCell: the header of the rows' first column
	table int    // factCell: an id the cells of one table share
	// named reports a factCell whose row is named in code ("`deps`"), a
	// row of a reference table.
	named bool
	span  studyloop.Span
	group int // facts of one list, definition list or table column share a group
}

// newMarkdownParser returns a goldmark parser with the Table,
// DefinitionList and Footnote extensions. It is safe for concurrent use.
func newMarkdownParser() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(extension.Table, extension.DefinitionList, extension.Footnote)).Parser()
}

// parseMarkdown splits source into sections of blocks and facts.
//
// goldmark's running time grows faster than linearly on some inputs (deep
// nesting, long runs of unclosed brackets or emphasis), so the source is
// parsed in chunks cut at blank lines, and chunks that look pathological
// are read as plain paragraphs instead.
func parseMarkdown(ctx context.Context, md parser.Parser, source []byte) ([]*section, error) {
	w := &walker{ctx: ctx, source: source, current: &section{}}
	w.sections = []*section{w.current}
	for _, c := range chunks(source) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if c.plain {
			w.plainParagraphs(c.start, c.end)
			continue
		}
		w.base = c.start
		root := md.Parse(text.NewReader(source[c.start:c.end]))
		if err := w.blockChildren(root, 0); err != nil {
			return nil, err
		}
	}
	return w.sections, nil
}

type walker struct {
	ctx      context.Context
	source   []byte
	base     int // offset of the chunk being walked within source
	sections []*section
	current  *section
	groups   int
	visited  int
	// inExample is set from a worked example's bold label ("**Example
	// 9.1**", "**Check Your Learning**") to its answer line or the next
	// heading: the example's paragraphs are not the lesson's.
	inExample bool
}

func (w *walker) newGroup() int {
	w.groups++
	return w.groups
}

func (w *walker) blockChildren(n ast.Node, list int) error {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if err := w.blockNode(c, list); err != nil {
			return err
		}
	}
	return nil
}

// blockNode handles one block-level node; list is the group of the list the
// node sits in, or 0.
func (w *walker) blockNode(n ast.Node, list int) error {
	w.visited++
	if w.visited%256 == 0 {
		if err := w.ctx.Err(); err != nil {
			return err
		}
	}
	switch n := n.(type) {
	case *ast.Heading:
		p := w.inline(n)
		if strings.TrimSpace(p.text) == "" {
			return nil
		}
		start := lineStart(w.source, p.span().Start)
		w.current = &section{heading: &p, level: n.Level, start: start}
		w.inExample = false
		w.sections = append(w.sections, w.current)
	case *ast.Paragraph, *ast.TextBlock:
		if facts := w.termLines(n, list); facts != nil {
			w.current.facts = append(w.current.facts, facts...)
			return nil
		}
		w.paragraph(w.inline(n), list)
	case *ast.List:
		return w.blockChildren(n, w.newGroup())
	case *extast.Table:
		w.table(n)
	case *extast.DefinitionList:
		w.definitionList(n)
	case *ast.Blockquote:
		if w.featureBox(n) {
			return nil // "> **Work It Out**", "> **Chemistry in Everyday Life**": a box beside the text
		}
		return w.blockChildren(n, list)
	case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock, *ast.ThematicBreak:
	case *extast.FootnoteList, *extast.Footnote:
		// Footnotes are asides, gathered at the end of the document away
		// from the text they annotate: not prose to ask about.
	default:
		return w.blockChildren(n, list)
	}
	return nil
}

// featureBox reports whether a block quote is a textbook's feature box:
// its first paragraph is a label alone, in bold, that names an aside
// ("Work It Out", "Clear It Up", "Link to Learning", "Career
// Connection").
func (w *walker) featureBox(q *ast.Blockquote) bool {
	first, ok := q.FirstChild().(*ast.Paragraph)
	if !ok {
		return false
	}
	p := w.inline(first)
	label := strings.TrimRight(strings.TrimSpace(p.text), ":.")
	if len(p.bold) != 1 || p.bold[0].Start != 0 || wordEnd(p.text, p.bold[0].End) < len(strings.TrimRight(p.text, ":. ")) {
		return false
	}
	return asideHeading.MatchString(label) && !endMatterHeading.MatchString(label)
}

// paragraph files p as a fact when it reads "term: definition" (in bold, or
// as a list item), and as a prose block otherwise.
func (w *walker) paragraph(p plain, list int) {
	if strings.TrimSpace(p.text) == "" || caption.MatchString(p.text) {
		return // a caption ("Figure 4.4 A flowchart … is the bridge in the middle.") speaks of a picture the question cannot show
	}
	if len(p.bold) > 0 && p.bold[0].Start == 0 {
		label := strings.TrimRight(strings.TrimSpace(p.text[:p.bold[0].End]), ":.")
		switch {
		case exampleLabel.MatchString(label) && (numberedExample.MatchString(label) || strings.TrimSpace(p.text[p.bold[0].End:]) == ""):
			w.inExample = true
			return
		case w.inExample && answerLabel.MatchString(label):
			w.inExample = false // "**Answer:** 221 kPa" closes the example
			return
		}
	}
	if w.inExample {
		return
	}
	if len(p.bold) > 0 && p.bold[0].Start == 0 {
		if f, ok := termLine(p, p.bold[0].End, factDefinition, list); ok {
			w.current.facts = append(w.current.facts, f)
			return
		}
	}
	if list > 0 {
		for _, sep := range []string{":", " = "} {
			if i := strings.Index(p.text, sep); i > 0 && (sep == ":" || wordsOnly(p.text[:i])) {
				if f, ok := termLine(p, i, factPair, list); ok {
					w.current.facts = append(w.current.facts, f)
					return
				}
			}
		}
	}
	w.current.blocks = append(w.current.blocks, &block{p: p, item: list > 0})
}

// termLine reads p as a term ending at termEnd, a separator (colon, dash
// or a note's equals sign) and a definition.
func termLine(p plain, termEnd int, kind factKind, group int) (fact, bool) {
	term := strings.TrimSpace(p.text[:termEnd])
	term = strings.TrimRight(term, ":")
	if first, rest, ok := strings.Cut(term, " "); ok && (first == "A" || first == "An" || first == "The") && startsLower(rest) {
		term = rest // "**A key**: an immutable identifier …" defines "key"
	}
	rest := p.text[termEnd:]
	trimmed := strings.TrimLeft(rest, " \t")
	// A gloss between term and separator ("**ribosome** (Spanish:
	// *ribosoma*): ...") belongs to neither.
	if strings.HasPrefix(trimmed, "(") {
		if end := closingBracket(trimmed); end > 0 && end < 120 {
			trimmed = strings.TrimLeft(trimmed[end+1:], " \t")
		}
	}
	sep := false
	for _, s := range []string{":", "—", "–", "-", "="} {
		if strings.HasPrefix(trimmed, s) {
			trimmed, sep = trimmed[len(s):], true
			break
		}
	}
	if !sep && !strings.HasSuffix(strings.TrimSpace(p.text[:termEnd]), ":") {
		return fact{}, false
	}
	trimmed = strings.TrimSpace(trimmed)
	if m := seeAlso.FindStringIndex(trimmed); m != nil && m[1] < len(trimmed) {
		trimmed = trimmed[m[1]:] // "See mean. Calculated from …"
	}
	first := firstSentence(trimmed)
	if rest := strings.TrimSpace(trimmed[len(first):]); rest != "" && notConfused.MatchString(first) {
		first = firstSentence(rest) // "The term should not be confused with parameter. An argument is …"
	}
	def := ownDefinition(term, first)
	if term == "" || def == "" || len(strings.Fields(term)) > 6 || len(strings.Fields(def)) < 2 || labelTerm.MatchString(term) || condition.MatchString(term) || clauseTerm(term) || valueList.MatchString(def) {
		return fact{}, false // "P above minimum ATC: the firm earns a profit" states a case, not a term
	}
	return fact{kind: kind, term: term, def: def, span: p.span(), group: group}, true
}

// valueList matches a "definition" that only lists values: "boolean,
// string, number, or json".
var valueList = regexp.MustCompile(`^[\p{L}\p{N}_-]+(?:, [\p{L}\p{N}_-]+)*,? (?:or|and) [\p{L}\p{N}_-]+\.?$`)

// clauseTerm reports whether a line's bold opening is a clause rather
// than a term: "**A customs union goes further**: members drop …", "**The
// request method is idempotent**: GET, HEAD, …".
func clauseTerm(term string) bool {
	words := strings.Fields(strings.ToLower(term))
	if len(words) < 3 {
		return false
	}
	for _, w := range words[1:] {
		if clauseVerbs[strings.Trim(w, ".,;:")] {
			return true
		}
	}
	return false
}

// clauseVerbs are finite verbs a term does not hold.
var clauseVerbs = wordSet(`is are was were goes go has have does do can cannot must should will may`)

// caption matches a paragraph that opens with a figure's or a table's
// number: "Figure 12.1 Garden pea plants …", "Table 16.1 The
// Reconstruction Amendments".
var caption = regexp.MustCompile(`^\s*(?:Figure|Fig\.|Table|Chart|Map|Photo|Image|Illustration)\s+\d+(?:\.\d+)*[a-z]?(?:[.:]|\s)`)

// exampleLabel matches the bold labels that open a worked example or an
// exercise set in a paragraph of its own: "**Example 9.1**", "**Solution**",
// "**Check Your Learning**". numberedExample matches those that may carry
// the example's title on the same line.
var (
	exampleLabel    = regexp.MustCompile(`(?i)^(example|worked example|solution|check your (learning|understanding)|try it|exercise|practice problem)s?(\s+\d+(\.\d+)*)?\b`)
	numberedExample = regexp.MustCompile(`(?i)^(worked )?example\s+\d+(\.\d+)*\b`)
	answerLabel     = regexp.MustCompile(`(?i)^answers?$`)
)

// labelTerm matches the bold labels of worked examples and exercises
// ("**Answer:** 221 kPa", "**Step 2:** …"), which head a line as a term
// does but name nothing.
var labelTerm = regexp.MustCompile(`(?i)^(answers?|solutions?|hints?|notes?|tips?|warning|caution|check your (learning|understanding)|examples?|exercises?|problems?|questions?|steps?|strategy|analysis|discussion|given|find|result|reasoning|explanation|cause|causes|fix|fixes|symptoms?|diagnosis|workaround|resolution|usage|syntax|important|see also)(\s+\d+(\.\d+)*)?\.?$`)

// wordsOnly reports whether s is made of letters, spaces and hyphens
// only, as a note's "joint prob = 2+ variables at once" names its term;
// "P(A and B) = …" is a formula.
func wordsOnly(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && r != ' ' && r != '-' {
			return false
		}
	}
	return strings.TrimSpace(s) != ""
}

// closingBracket returns the index of the bracket that closes the one
// text opens with, counting nested pairs ("(Spanish: resultado real (de
// una prueba))"), or -1.
func closingBracket(text string) int {
	depth := 0
	for i, r := range text {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// condition matches a list item's opening that compares rather than
// names: "P above minimum ATC", "MR > MC".
var condition = regexp.MustCompile(`(?i)\b(above|below|greater than|less than|more than|exceeds?|equals?)\b|[<>=≤≥]`)

// ownDefinition is def without an opening that restates its term: "An
// algorithm is a set of steps …" defines "algorithm" as "A set of steps
// …", "Short for “permanent link”, a URL …" as "A URL …" (the expansion is
// another name, not what the term means).
func ownDefinition(term, def string) string {
	if m := shortFor.FindStringIndex(def); m != nil {
		return upperFirst(def[m[1]:])
	}
	whole := def
	if m := fieldOpener.FindStringIndex(def); m != nil {
		def = def[m[1]:] // "In deep learning, an epoch is …"
	}
	base, _, _ := strings.Cut(term, " (") // "hidden layer (deep learning)"
	lower, t := strings.ToLower(def), strings.ToLower(base)
	for _, article := range []string{"", "a ", "an ", "the "} {
		if !strings.HasPrefix(lower, article+t+" ") {
			continue
		}
		rest := def[len(article)+len(t)+1:]
		if m := restatingVerb.FindStringIndex(rest); m != nil && len(strings.Fields(rest[m[1]:])) >= 3 {
			return upperFirst(rest[m[1]:])
		}
	}
	return whole
}

// fieldOpener matches the field a definition opens with: "In deep
// learning, ", "In artificial neural networks, ".
var fieldOpener = regexp.MustCompile(`^In (?:[\pL-]+ ){0,3}[\pL-]+, `)

// seeAlso matches a definition's opening that sends the reader to
// another entry: "See mean.".
var seeAlso = regexp.MustCompile(`^See (?:also )?[\pL -]{2,40}\.\s+`)

// shortFor matches a definition's opening that expands an abbreviation:
// "Short for “YAML Ain’t Markup Language”, ".
var shortFor = regexp.MustCompile(`^Short for (?:"[^"]{2,80}"|“[^”]{2,80}”|[\pL -]{2,60}), `)

// restatingVerb matches the "is" or "refers to" of a definition that
// opens with its own term, after a qualifier: "in programming is ".
var restatingVerb = regexp.MustCompile(`^(?:in [\pL -]{2,40}? )?(?:is|are|refers to) `)

// firstSentence cuts a definition to its first sentence: the rest
// (examples, cross-references) is more than an answer should hold.
// An initial ("W. E. B. Du Bois") ends no sentence.
func firstSentence(def string) string {
	for i := 0; i+2 < len(def); i++ {
		if def[i] == '.' && def[i+1] == ' ' && i > 20 {
			if r := def[i+2]; r >= 'A' && r <= 'Z' && !abbreviations[strings.ToLower(lastWord(def[:i]))] && !oneCapital(lastWord(def[:i])) {
				return def[:i+1]
			}
		}
	}
	return def
}

// oneCapital reports whether w is one capital letter, as a person's
// initials are before their full stops.
func oneCapital(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w) && unicode.IsUpper(r)
}

// lastWord is the last whitespace-separated word of s.
func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

func (w *walker) table(t *extast.Table) {
	var headers []string
	var rows [][]plain
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []plain
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, w.inline(c))
		}
		if _, ok := r.(*extast.TableHeader); ok {
			for _, c := range cells {
				headers = append(headers, strings.TrimSpace(c.text))
			}
			continue
		}
		rows = append(rows, cells)
	}
	if len(headers) < 2 || repeatsHeader(headers) || slices.Contains(headers, "") {
		return // "Year | Rate | Year | Rate", "Assets | | Liabilities | |": tables set beside each other, whose cells no header names alone
	}
	base := w.groups
	w.groups += len(headers)
	for _, cells := range rows {
		if len(cells) < 2 {
			continue
		}
		term := strings.TrimSpace(cells[0].text)
		if term == "" {
			continue
		}
		code := len(cells[0].code) > 0 && cells[0].code[0].Start <= len(cells[0].text)-len(strings.TrimLeft(cells[0].text, " "))
		for j := 1; j < len(cells) && j < len(headers); j++ {
			def := strings.TrimSpace(cells[j].text)
			if def == "" || headers[j] == "" {
				continue
			}
			span := studyloop.Span{Start: cells[0].span().Start, End: cells[j].span().End}
			w.current.facts = append(w.current.facts, fact{
				kind: factCell, term: term, def: def, attr: headers[j], key: headers[0], span: span, group: base + j, table: base + 1, named: code,
			})
		}
	}
}

// repeatsHeader reports whether a table's header names two columns
// alike.
func repeatsHeader(headers []string) bool {
	seen := map[string]bool{}
	for _, h := range headers {
		h = strings.ToLower(h)
		if h != "" && seen[h] {
			return true
		}
		seen[h] = true
	}
	return false
}

func (w *walker) definitionList(dl *extast.DefinitionList) {
	group := w.newGroup()
	var term *plain
	for c := dl.FirstChild(); c != nil; c = c.NextSibling() {
		switch c.(type) {
		case *extast.DefinitionTerm:
			p := w.inline(c)
			term = &p
		case *extast.DefinitionDescription:
			var b plainBuilder
			w.inlineInto(&b, c)
			def := b.build()
			if term == nil || strings.TrimSpace(term.text) == "" || strings.TrimSpace(def.text) == "" {
				continue
			}
			span := studyloop.Span{Start: term.span().Start, End: def.span().End}
			w.current.facts = append(w.current.facts, fact{
				kind: factDefinition, term: strings.TrimSpace(term.text), def: strings.TrimSpace(def.text), span: span, group: group,
			})
		}
	}
}

// termLines reads a paragraph of two lines or more, each of them a bold
// term, a separator and its definition ("**subsidy**: a payment …" on
// one line, "**tariff**: a tax …" on the next), as one fact per line;
// nil when any line is not.
func (w *walker) termLines(n ast.Node, list int) []fact {
	if first, ok := n.FirstChild().(*ast.Emphasis); !ok || first.Level < 2 || n.Lines().Len() < 2 {
		return nil // most paragraphs: no bold term opens them, or one line
	}
	var lines []plain
	var b plainBuilder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		t, ok := c.(*ast.Text)
		if !ok || !t.SoftLineBreak() && !t.HardLineBreak() {
			w.inlineNode(&b, c)
			continue
		}
		b.addSource(w.source, w.base+t.Segment.Start, w.base+t.Segment.Stop)
		lines = append(lines, b.build())
		b = plainBuilder{}
	}
	lines = append(lines, b.build())
	if len(lines) < 2 {
		return nil
	}
	var facts []fact
	for _, p := range lines {
		if len(p.bold) == 0 || p.bold[0].Start != 0 {
			return nil
		}
		f, ok := termLine(p, p.bold[0].End, factDefinition, list)
		if !ok {
			return nil
		}
		facts = append(facts, f)
	}
	return facts
}

// inline returns the visible text of n's inline content.
func (w *walker) inline(n ast.Node) plain {
	var b plainBuilder
	w.inlineInto(&b, n)
	return b.build()
}

func (w *walker) inlineInto(b *plainBuilder, n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.inlineNode(b, c)
	}
}

// inlineNode adds the visible text of the inline node c to b.
func (w *walker) inlineNode(b *plainBuilder, c ast.Node) {
	switch c := c.(type) {
	case *ast.Text:
		b.addSource(w.source, w.base+c.Segment.Start, w.base+c.Segment.Stop)
		if c.SoftLineBreak() || c.HardLineBreak() {
			b.space(w.base + c.Segment.Stop)
		}
	case *ast.String:
		b.addVirtual(string(c.Value), b.lastSource())
	case *ast.Emphasis:
		start := b.b.Len()
		w.inlineInto(b, c)
		if c.Level >= 2 && b.b.Len() > start {
			b.bold = append(b.bold, studyloop.Span{Start: start, End: b.b.Len()})
		}
	case *ast.CodeSpan:
		start := b.b.Len()
		w.inlineInto(b, c)
		if b.b.Len() > start {
			b.code = append(b.code, studyloop.Span{Start: start, End: b.b.Len()})
		}
	case *ast.Image, *ast.RawHTML, *ast.AutoLink, *extast.FootnoteLink, *extast.FootnoteBacklink:
	default:
		if c.Type() == ast.TypeBlock {
			b.space(b.lastSource())
		}
		w.inlineInto(b, c)
	}
}

// plainParagraphs files source[start:end] as paragraphs split at blank
// lines, without reading any markdown in them.
func (w *walker) plainParagraphs(start, end int) {
	for start < end {
		stop := bytes.Index(w.source[start:end], []byte("\n\n"))
		if stop < 0 {
			stop = end
		} else {
			stop += start
		}
		var b plainBuilder
		b.addVerbatim(w.source, start, stop)
		if p := b.build(); strings.TrimSpace(p.text) != "" {
			w.current.blocks = append(w.current.blocks, &block{p: p})
		}
		start = stop + 2
	}
}

// Chunking limits. A chunk ends at the first blank line (outside a fenced
// code block) after chunkSoftLimit bytes, and at any line after
// chunkHardLimit bytes. A chunk with a line longer than maxMarkdownLine
// or nested deeper than maxMarkdownDepth is read as plain text.
const (
	chunkSoftLimit   = 32 << 10
	chunkHardLimit   = 160 << 10
	maxMarkdownLine  = 8 << 10
	maxMarkdownDepth = 24
)

type chunk struct {
	start, end int
	plain      bool
}

// chunks cuts source into pieces goldmark parses in time linear in their
// size.
func chunks(source []byte) []chunk {
	var out []chunk
	cur := chunk{}
	fence := ""
	for pos := 0; pos < len(source); {
		end := bytes.IndexByte(source[pos:], '\n')
		if end < 0 {
			end = len(source)
		} else {
			end += pos + 1
		}
		line := source[pos:end]
		if len(line) > maxMarkdownLine || nesting(line) > maxMarkdownDepth {
			cur.plain = true
		}
		trimmed := strings.TrimLeft(string(line), " ")
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
		case fence != "" && strings.HasPrefix(trimmed, fence):
			fence = ""
		}
		blank := strings.TrimSpace(string(line)) == ""
		size := end - cur.start
		if (size >= chunkSoftLimit && blank && fence == "") || size >= chunkHardLimit {
			cur.end = end
			out = append(out, cur)
			cur = chunk{start: end}
			fence = ""
		}
		pos = end
	}
	if cur.start < len(source) {
		cur.end = len(source)
		out = append(out, cur)
	}
	return out
}

// nesting counts the container markers (block quotes, list bullets and
// numbers, two-space indents) that open line.
func nesting(line []byte) int {
	depth, i := 0, 0
	for i < len(line) {
		switch {
		case line[i] == ' ' && i+1 < len(line) && line[i+1] == ' ':
			i += 2
		case line[i] == '>' || ((line[i] == '-' || line[i] == '*' || line[i] == '+') && i+1 < len(line) && line[i+1] == ' '):
			i++
		case line[i] == ' ' || line[i] == '\t':
			i++
			continue
		case line[i] >= '0' && line[i] <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j < len(line) && (line[j] == '.' || line[j] == ')') {
				i = j + 1
			} else {
				return depth
			}
		default:
			return depth
		}
		depth++
	}
	return depth
}

// lineStart returns the offset of the start of the line holding offset i.
func lineStart(source []byte, i int) int {
	for i > 0 && source[i-1] != '\n' {
		i--
	}
	return i
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// asideHeading matches the headings of sections that are not core content:
// summaries and reviews (they repeat what was asked already), objectives,
// exercises and worked examples (they depend on their numbers and
// figures), boxed features, reading lists.
var asideHeading = regexp.MustCompile(`(?i)^\s*(\d+(\.\d+)*\.?\s+)?(key (concepts|terms|points|takeaways|ideas)( and summary)?|(chapter |section )?(summary|review)|summary of .*|review questions|((section|chapter) )?learning (objectives|outcomes)|objectives|exercises?|problems|practice( problems| questions)?|homework( problems)?|check your (understanding|learning)|critical thinking( questions)?|discussion questions|self[- ]check|quiz|answers?( to .*)?|solutions?|further reading|references|bibliography|sources|notes|footnotes|acknowledg(e)?ments|link to learning|glossary|(everyday|career|clinical|real[- ]world|micro|eukaryotic|ethics|evolution) connections?|clear it up|work it out|link it up|bring it home|my story|defining american|americana|click and explore|(chemistry|biology|physics|psychology) in everyday life|how sciences interconnect|portrait of an? (chemist|scientist|physicist)|careers? in .*|interactive link|dig deeper|case in point|clinical focus|eye on ethics|disorders of (the )?.*|aging and (the )?.*|homeostatic imbalances?|connect the concepts|art connection|visual connection|scientific method connection|(worked )?examples?( \d+(\.\d+)*)?(\s*[:.].*)?|try it( yourself)?|your turn|instructions|ingredients|introduction|chapter outline|stop and think|primary sources?)\s*([.:].*)?$`)

// boxHeading reports whether s, four or more levels deep, heads a boxed
// feature or worked example rather than a section: its title asks a
// question ("That Will Be How Much?") or sets a task ("Finding the Price
// Elasticity of Demand").
func boxHeading(s *section) bool {
	if s.level < 4 {
		return false
	}
	title := cleanTitle(s.heading.text)
	return strings.HasSuffix(title, "?") || taskHeading.MatchString(title)
}

// soleSubsection reports whether sections[i], four or more levels deep,
// is the only subsection of a section with prose of its own: a textbook's
// real subsections come in twos and more ("Initiation", "Elongation",
// "Termination"), while a boxed feature ("Classical Conditioning at
// Stingray City", "Heart: Broken Heart Syndrome") stands alone beside
// the section's text.
func soleSubsection(sections []*section, i int) bool {
	level := sections[i].level
	if level < 4 || sections[i].heading == nil {
		return false
	}
	parent := i - 1
	for parent >= 0 && sections[parent].level >= level {
		parent--
	}
	if parent < 0 || len(sections[parent].blocks) == 0 {
		return false
	}
	for j := parent + 1; j < len(sections) && sections[j].level >= level; j++ {
		if j != i && sections[j].level == level {
			return false
		}
	}
	return true
}

// termListHeading matches the headings of a chapter's list of its key
// terms.
var termListHeading = regexp.MustCompile(`(?i)^\s*(\d+(\.\d+)*\.?\s+)?(key terms|vocabulary|glossary|terms to know|important terms)\s*$`)

// listedTerms returns the definitions of a chapter's list of key terms
// ("Vocabulary", "Key Terms"), which skipAsides leaves out with the
// summary it often sits in: they say which of the chapter's words are its
// terms, and what they mean.
func listedTerms(sections []*section) []fact {
	var out []fact
	for _, s := range sections {
		if s.heading == nil || !termListHeading.MatchString(cleanTitle(s.heading.text)) {
			continue
		}
		for _, f := range s.facts {
			if f.kind == factDefinition || f.kind == factPair {
				out = append(out, f) // "**term**: …", a definition list, or a plain "term: …" line
			}
		}
	}
	return out
}

// afterList returns the blocks after the last list item of blocks, or
// none when no list item is among them.
func afterList(blocks []*block) []*block {
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].item {
			return blocks[i+1:]
		}
	}
	return nil
}

// backToText returns the blocks of a feature box's section from the
// first one after its opening block that sets a term in bold: a box
// ("Clear It Up", "Primary Sources") seldom defines the chapter's key
// terms, so there the section's own text has resumed under the box's
// heading. It returns nil when no such block follows.
func backToText(blocks []*block) []*block {
	for i := 1; i < len(blocks); i++ {
		if !blocks[i].item && len(blocks[i].p.bold) > 0 {
			return blocks[i:]
		}
	}
	return nil
}

// endMatterHeading matches the headings of a chapter's end matter and
// openers, whose every entry may set a term in bold: none of it is the
// section's text resuming.
var endMatterHeading = regexp.MustCompile(`(?i)^\s*(\d+(\.\d+)*\.?\s+)?(key |chapter |section )?(concepts|terms|points|takeaways|ideas|summary|review|questions|exercises?|problems|practice|homework|quiz|answers?|solutions?|glossary|references|bibliography|sources|further reading|notes|footnotes|acknowledg(e)?ments|objectives|outcomes|learning (objectives|outcomes)|introduction|chapter outline|check your)\b`)

// taskHeading matches the titles of worked examples.
var taskHeading = regexp.MustCompile(`^(Finding|Calculating|Computing|Using|Solving|Applying|Working|Estimating|Determining|Example)\b`)

// objectivesHeading matches the heading of the box of learning objectives
// an open textbook opens a section with.
var objectivesHeading = regexp.MustCompile(`(?i)^\s*((section|chapter) )?(learning )?(objectives|outcomes)\s*$`)

// skipAsides drops the sections whose headings name asides, with every
// section nested under them. A box of objectives is followed by its
// section's opening text under no heading of its own, so the prose after
// its list goes back to the section it opens; so does the text after a
// feature box (backToText), which has no heading to say where the box
// ends either.
func skipAsides(sections []*section) []*section {
	out := sections[:0:0]
	skipBelow := 0 // while > 0, sections deeper than this level are skipped
	for i, s := range sections {
		if s.heading != nil && skipBelow > 0 && s.level <= skipBelow {
			skipBelow = 0
		}
		if skipBelow > 0 {
			continue
		}
		if s.heading != nil && (asideHeading.MatchString(cleanTitle(s.heading.text)) || boxHeading(s) || soleSubsection(sections, i)) {
			skipBelow = s.level
			title := cleanTitle(s.heading.text)
			rest := afterList(s.blocks)
			if !objectivesHeading.MatchString(title) {
				rest = nil
				if !endMatterHeading.MatchString(title) {
					rest = backToText(s.blocks)
				}
			}
			// The nearest section kept before it encloses it when it is of a
			// higher level (its objectives box, skipped, may stand between).
			if len(rest) > 0 && len(out) > 0 && out[len(out)-1].level < s.level {
				opened := *out[len(out)-1]
				opened.blocks = append(slices.Clip(opened.blocks), rest...)
				out[len(out)-1] = &opened
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

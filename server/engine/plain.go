package engine

import (
	"sort"
	"strings"

	"github.com/studyloop/studyloop/server/studyloop"
)

// plain is the visible text of one markdown block (a paragraph, a heading,
// a list item's text, a table cell), with markup removed, together with a
// map back to byte offsets of the original source.
type plain struct {
	text string
	runs []run // sorted by at; each maps text[at:at+n] to source[src:src+n]
	bold []studyloop.Span
	code []studyloop.Span // code spans (`git log`), in order
}

// run maps n bytes of plain text starting at at to source bytes starting at
// src. A run with verbatim false stands for text that does not appear in
// the source as such (an entity or a line break) and is mapped to src.
type run struct {
	at, src, n int
	verbatim   bool
}

// plainBuilder accumulates a plain text run by run.
type plainBuilder struct {
	b    strings.Builder
	runs []run
	bold []studyloop.Span
	code []studyloop.Span
}

// addSource appends source[start:end], dropping backslashes that escape
// ASCII punctuation, as markdown renders them.
func (p *plainBuilder) addSource(source []byte, start, end int) {
	i := start
	for i < end {
		j := i
		for j < end && !(source[j] == '\\' && j+1 < end && isASCIIPunct(source[j+1])) {
			j++
		}
		if j > i {
			p.runs = append(p.runs, run{at: p.b.Len(), src: i, n: j - i, verbatim: true})
			p.b.Write(source[i:j])
		}
		if j < end {
			j++ // skip the escaping backslash; the escaped byte starts the next run
		}
		i = j
	}
}

// addVerbatim appends source[start:end] as it is, with line breaks read as
// spaces (the same length, so offsets stay exact).
func (p *plainBuilder) addVerbatim(source []byte, start, end int) {
	if start >= end {
		return
	}
	p.runs = append(p.runs, run{at: p.b.Len(), src: start, n: end - start, verbatim: true})
	for _, c := range source[start:end] {
		if c == '\n' || c == '\r' {
			c = ' '
		}
		p.b.WriteByte(c)
	}
}

// addVirtual appends s, which has no verbatim counterpart in the source, and
// maps it to the source offset src.
func (p *plainBuilder) addVirtual(s string, src int) {
	if s == "" {
		return
	}
	p.runs = append(p.runs, run{at: p.b.Len(), src: src, n: len(s)})
	p.b.WriteString(s)
}

// space appends a single space unless the text is empty or already ends in
// whitespace.
func (p *plainBuilder) space(src int) {
	s := p.b.String()
	if s == "" || s[len(s)-1] == ' ' || s[len(s)-1] == '\n' {
		return
	}
	p.addVirtual(" ", src)
}

func (p *plainBuilder) lastSource() int {
	if len(p.runs) == 0 {
		return 0
	}
	r := p.runs[len(p.runs)-1]
	if r.verbatim {
		return r.src + r.n
	}
	return r.src
}

func (p *plainBuilder) build() plain {
	return plain{text: p.b.String(), runs: p.runs, bold: p.bold, code: p.code}
}

func isASCIIPunct(c byte) bool {
	return c < 128 && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

// source maps the plain-text byte range [start, end) to a source span that
// covers it.
func (p plain) source(start, end int) studyloop.Span {
	if len(p.runs) == 0 || start >= end {
		return studyloop.Span{}
	}
	return studyloop.Span{Start: p.offset(start, false), End: p.offset(end-1, true)}
}

// offset maps one plain-text byte to the source; after asks for the offset
// just past that byte.
func (p plain) offset(i int, after bool) int {
	k := sort.Search(len(p.runs), func(k int) bool { return p.runs[k].at > i }) - 1
	if k < 0 {
		k = 0
	}
	r := p.runs[k]
	if !r.verbatim {
		return r.src
	}
	off := r.src + i - r.at
	if after {
		off++
	}
	return off
}

// span is the source span of the whole plain text.
func (p plain) span() studyloop.Span { return p.source(0, len(p.text)) }

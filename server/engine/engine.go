// Package engine is the offline question generator: it turns study text
// (plain text or markdown) into topics and practice questions with no
// network, no GPU and no configuration.
//
// The pipeline, in order:
//
//  1. Parse. goldmark (with the Table, DefinitionList and Footnote
//     extensions) reads the text as markdown. Headings open sections;
//     paragraphs and list items become prose blocks with their markup
//     stripped but a map back to byte offsets of the original text;
//     "term: definition" list items, bold-term lines, definition lists and
//     table rows become facts; footnotes are left out.
//  2. Analyse. prose/v3 splits each block into sentences and tokens and
//     tags the parts of speech of sentences short enough to question;
//     snowball stems every content word (stop words dropped).
//  3. Segment. Headings become topics, nested by level. Text without
//     headings, and sections too long to be one topic, are cut by lexical
//     cohesion (TextTiling, boundaries snapped to paragraph breaks) into
//     topics named by their top keyphrases.
//  4. Rank. Each topic's keyphrases are ranked RAKE-style over its
//     adjective-noun runs.
//  5. Ask. Each topic gets short-answer questions ("X is Y" sentences,
//     definition lists, bold-term lines), term-definition pairs (lists,
//     tables), cloze questions (a keyphrase or bold term blanked in the
//     sentences richest in keyphrases) and multiple choice (three
//     distractors of the answer's kind from the same topic, list, column
//     or study, the answer's position fixed by a hash of the prompt), taken
//     in turn up to a share proportional to the topic's length. A topic
//     that gets none that way has a shorter sentence blanked, so every
//     topic with a complete sentence keeps a question.
//  6. Check. Every question passes CheckQuestion and a study-wide
//     near-duplicate filter (Validate runs the same checks over a whole
//     extraction); topics left without any question are dropped.
//
// Every step is linear in the text or bounded per topic, output depends
// only on the input, and ctx is checked in every loop.
package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/jdkato/prose/v3/segment"
	"github.com/jdkato/prose/v3/tag"
	"github.com/studyloop/studyloop/server/lexicon"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/yuin/goldmark/parser"
)

// Options tune the offline generator. A nil *Options means the defaults.
type Options struct {
	// MaxQuestionsPerTopic caps the questions of one topic; zero means 12.
	// A topic gets about one question per 150 words, at least two where
	// the text allows.
	MaxQuestionsPerTopic int
	// MinTopicWords is the smallest topic cut from text without headings;
	// zero means 80.
	MinTopicWords int
	// MaxTopicWords is the length above which a section is cut into
	// subtopics; zero means 1500.
	MaxTopicWords int
}

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.MaxQuestionsPerTopic <= 0 {
		out.MaxQuestionsPerTopic = 12
	}
	if out.MinTopicWords <= 0 {
		out.MinTopicWords = 80
	}
	if out.MaxTopicWords <= 0 {
		out.MaxTopicWords = 1500
	}
	out.MinTopicWords = min(out.MinTopicWords, out.MaxTopicWords/2)
	return out
}

// Offline is the default studyloop.Generator. It is safe for concurrent use.
type Offline struct {
	opts   Options
	md     parser.Parser
	seg    *segment.Segmenter
	tagger *tag.Tagger
}

var _ studyloop.Generator = (*Offline)(nil)

// NewOffline returns the offline generator, loading prose's sentence and
// part-of-speech models (once per process).
func NewOffline(opts *Options) (*Offline, error) {
	seg, err := segment.New()
	if err != nil {
		return nil, err
	}
	tagger, err := tag.New()
	if err != nil {
		return nil, err
	}
	return &Offline{opts: opts.withDefaults(), md: newMarkdownParser(), seg: seg, tagger: tagger}, nil
}

// Generate extracts the topics of text and the questions about them. It
// fails with a studyloop.EINVALID error when the text is mostly not in
// English or holds nothing to ask about, and with ctx's error when ctx
// ends first.
func (g *Offline) Generate(ctx context.Context, title, text string) (studyloop.Extraction, error) {
	if err := ctx.Err(); err != nil {
		return studyloop.Extraction{}, err
	}
	if lang, sure := mainLanguage(text); sure && lang != "English" {
		return studyloop.Extraction{}, studyloop.Errorf(studyloop.EINVALID,
			"This material reads as %s. Studyloop writes its questions in English only, so it made none rather than mix languages; add the material in English.", lang)
	}
	sections, err := parseMarkdown(ctx, g.md, []byte(text))
	if err != nil {
		return studyloop.Extraction{}, err
	}
	keyTerms := listedTerms(sections)
	if core := skipAsides(sections); hasContent(core) {
		sections = core
	}
	an := newAnalyzer(g.seg, g.tagger)
	for _, s := range sections {
		if err := an.analyze(ctx, s.blocks); err != nil {
			return studyloop.Extraction{}, err
		}
	}
	b := &builder{ctx: ctx, opts: g.opts, an: an, title: cleanTitle(title)}
	if err := b.topics(sections, len(text)); err != nil {
		return studyloop.Extraction{}, err
	}
	ask := newAsker(text, g.opts, an, b.units)
	ask.titleStems = map[string]bool{}
	for _, st := range contentStems(b.title, ask.stem) {
		ask.titleStems[st] = true
	}
	ask.subjectStems = map[string]bool{}
	if len(b.topicList) > 0 {
		for _, st := range contentStems(b.topicList[0].Title, ask.stem) {
			ask.subjectStems[st] = true // the first heading names what the material is about
		}
	}
	ask.markListed(keyTerms)
	for _, u := range b.units {
		if err := ask.ask(ctx, u); err != nil {
			return studyloop.Extraction{}, err
		}
	}
	ask.coverMarks(ctx, b.units)
	ask.coverListed(ctx, keyTerms, b.units)
	ask.coverUsedMarks(ctx, b.units)
	if len(ask.out) == 0 && ask.boldStudy {
		// Bold terms none of whose sentences can be asked (a notebook's
		// bold labels): the terms where they are used again are better
		// than nothing.
		ask.boldStudy = false
		for _, u := range b.units {
			if err := ask.ask(ctx, u); err != nil {
				return studyloop.Extraction{}, err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return studyloop.Extraction{}, err
	}
	if len(ask.out) == 0 {
		return studyloop.Extraction{}, studyloop.Errorf(studyloop.EINVALID,
			"No practice questions could be made from this text: it needs complete sentences, definitions or term lists.")
	}
	return prune(b.topicList, ask.out), nil
}

// builder turns sections into topics and the units of content under them.
type builder struct {
	ctx       context.Context
	opts      Options
	an        *analyzer
	title     string
	topicList []studyloop.Topic
	units     []*unit
}

type open struct{ level, topic int }

func (b *builder) topics(sections []*section, textLen int) error {
	var stack []open
	for _, s := range sections {
		if err := b.ctx.Err(); err != nil {
			return err
		}
		if s.heading == nil {
			b.segments(-1, s.blocks, s.facts)
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= s.level {
			b.topicList[stack[len(stack)-1].topic].Span.End = s.start
			stack = stack[:len(stack)-1]
		}
		parent := -1
		if len(stack) > 0 {
			parent = stack[len(stack)-1].topic
		}
		t := len(b.topicList)
		title := cleanTitle(s.heading.text)
		if title == "" {
			title = "Part " + strconv.Itoa(t+1)
		}
		b.topicList = append(b.topicList, studyloop.Topic{
			Parent: parent, Title: title, Span: studyloop.Span{Start: s.start, End: textLen},
		})
		stack = append(stack, open{s.level, t})
		words := 0
		for _, bl := range s.blocks {
			words += bl.words
		}
		if words <= b.opts.MaxTopicWords {
			b.addUnit(t, s.blocks, s.facts)
			continue
		}
		// An over-long section: its facts stay with the heading, its prose
		// is cut into subtopics.
		b.addUnit(t, nil, s.facts)
		b.segments(t, s.blocks, nil)
	}
	return nil
}

// segments cuts heading-less blocks into topics under parent by lexical
// cohesion, naming each by its keyphrases.
func (b *builder) segments(parent int, blocks []*block, facts []fact) {
	if len(blocks) == 0 && len(facts) == 0 {
		return
	}
	starts := tile(blocks, b.opts.MinTopicWords, b.opts.MaxTopicWords)
	if len(starts) == 0 {
		starts = []int{0}
	}
	for i, from := range starts {
		to := len(blocks)
		if i+1 < len(starts) {
			to = starts[i+1]
		}
		t := len(b.topicList)
		span := studyloop.Span{}
		if to > from {
			span = studyloop.Span{Start: blocks[from].p.span().Start, End: blocks[to-1].p.span().End}
		}
		var own []fact
		if i == 0 {
			own = facts
		}
		for _, f := range own {
			if span.End == 0 || f.span.Start < span.Start {
				span.Start = f.span.Start
			}
			span.End = max(span.End, f.span.End)
		}
		b.topicList = append(b.topicList, studyloop.Topic{Parent: parent, Span: span})
		u := b.addUnit(t, blocks[from:to], own)
		name := topicName(u, lexicon.Default())
		if name == "" {
			name = b.title
		}
		if name == "" {
			name = "Part " + strconv.Itoa(len(b.topicList))
		}
		b.topicList[t].Title = name
	}
}

func (b *builder) addUnit(topic int, blocks []*block, facts []fact) *unit {
	u := &unit{topic: topic, blocks: blocks, facts: facts}
	u.phrases, u.occ = keyphrases(b.an, u.sentences())
	b.units = append(b.units, u)
	return u
}

// cleanTitle collapses the whitespace of a heading and drops what would
// read as markdown out of context: emphasis, code and heading marks, and
// a leading list marker.
func cleanTitle(s string) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune("*_`#~|<>[]", r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	for s != "" && listMarker.MatchString(s+" ") {
		s = strings.TrimSpace(listMarker.ReplaceAllString(s+" ", ""))
	}
	return s
}

// prune drops topics with no question in themselves or a subtopic and
// renumbers what is left.
func prune(topics []studyloop.Topic, questions []studyloop.Question) studyloop.Extraction {
	keep := make([]bool, len(topics))
	for _, q := range questions {
		for t := q.Topic; t >= 0 && !keep[t]; t = topics[t].Parent {
			keep[t] = true
		}
	}
	index := make([]int, len(topics))
	var out studyloop.Extraction
	for i, t := range topics {
		index[i] = -1
		if !keep[i] {
			continue
		}
		index[i] = len(out.Topics)
		if t.Parent >= 0 {
			t.Parent = index[t.Parent]
		}
		out.Topics = append(out.Topics, t)
	}
	for _, q := range questions {
		q.Topic = index[q.Topic]
		out.Questions = append(out.Questions, q)
	}
	return out
}

// hasContent reports whether sections hold any prose or fact.
func hasContent(sections []*section) bool {
	for _, s := range sections {
		if len(s.blocks) > 0 || len(s.facts) > 0 {
			return true
		}
	}
	return false
}

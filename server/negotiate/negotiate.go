// Package negotiate chooses a response media type from a request's Accept
// header, and a content coding from its Accept-Encoding header (see
// AcceptEncoding), following proactive negotiation in RFC 9110 §12.
//
// The Accept rules, in the order they apply:
//
//   - Each offered type takes the quality of the most specific media range
//     that matches it (§12.5.1): "type/subtype" beats "type/*", which beats
//     "*/*", whatever their q-values. So "text/html;q=0, */*" rejects HTML.
//     When one range appears more than once at the same specificity, the
//     first occurrence counts.
//   - q=0 means "not acceptable" (§12.4.2); the default q is 1.
//   - The offer with the highest quality wins. Equal qualities are broken by
//     the header position of the range that gave each offer its quality
//     (RFC 9110 leaves this open; agents such as Claude Code send
//     "text/markdown, text/html, */*" meaning "markdown first"), and then by
//     the order of the offers, so a bare "*/*" picks the first offer.
//   - Several Accept field lines are one list, in order (§5.3).
//   - Type, subtype and parameter names compare case-insensitively.
//     Parameters other than q, and accept-ext parameters after q, are parsed
//     but do not restrict matching.
//   - No Accept header, an empty one, or a malformed one (a range without a
//     slash, "*/html", a bad token, a q outside 0-1 or with more than three
//     decimals, an unterminated quoted string) is treated as absent: every
//     offer is acceptable and the first one wins. RFC 9110 lets a server
//     disregard a field it cannot parse; doing so keeps a broken client on
//     the default representation instead of a 406.
//
// A Chooser, and Encodings for Accept-Encoding, remember their answers for
// recently seen single-line headers in a small fixed table, since real
// traffic repeats a handful of headers (each browser's, each agent's); a
// repeated header costs a hash and a comparison. Parsing a header does not
// allocate; remembering a new one allocates one small entry.
package negotiate

import (
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
)

// MaxOffers is the largest number of media types one Chooser may offer.
const MaxOffers = 8

// Chooser picks among a fixed list of offered media types. It is safe for
// concurrent use and must not be copied after first use.
type Chooser struct {
	offers     []offer
	remembered memo[int]
}

// memo is a direct-mapped table of the answers for recently seen
// single-line headers, indexed by a hash of the header; a collision
// replaces the older entry. Its zero value is ready to use.
type memo[T any] struct {
	seedOnce sync.Once
	seed     maphash.Seed
	slots    [rememberedSlots]atomic.Pointer[rememberedAnswer[T]]
}

// The answer table: rememberedSlots entries (a power of two), each for a
// header of at most maxRememberedLen bytes.
const (
	rememberedSlots  = 256
	maxRememberedLen = 1024
)

type rememberedAnswer[T any] struct {
	header string
	answer T
}

// answer returns the remembered answer for lines, or works it out with
// parse and remembers it. Only one field line of at most maxRememberedLen
// bytes is remembered.
func (m *memo[T]) answer(lines []string, parse func([]string) T) T {
	if len(lines) != 1 || len(lines[0]) > maxRememberedLen {
		return parse(lines)
	}
	m.seedOnce.Do(func() { m.seed = maphash.MakeSeed() })
	header := lines[0]
	slot := &m.slots[maphash.String(m.seed, header)&(rememberedSlots-1)]
	if r := slot.Load(); r != nil && r.header == header {
		return r.answer
	}
	a := parse(lines)
	slot.Store(&rememberedAnswer[T]{header: strings.Clone(header), answer: a})
	return a
}

type offer struct {
	typ, subtype string // lower case
}

// New returns a Chooser for the given media types (such as "text/html"),
// in order of the server's preference. Parameters in an offer are ignored.
func New(offers ...string) (*Chooser, error) {
	if len(offers) == 0 || len(offers) > MaxOffers {
		return nil, fmt.Errorf("negotiate: need 1 to %d offers, got %d", MaxOffers, len(offers))
	}
	c := &Chooser{}
	for _, o := range offers {
		mt, _, _ := strings.Cut(o, ";")
		typ, sub, ok := strings.Cut(strings.TrimSpace(mt), "/")
		if !ok || !isToken(typ) || !isToken(sub) || typ == "*" || sub == "*" {
			return nil, fmt.Errorf("negotiate: offer %q is not a concrete media type", o)
		}
		c.offers = append(c.offers, offer{strings.ToLower(typ), strings.ToLower(sub)})
	}
	return c, nil
}

// Specificity levels of a media range; zero means "no range matched".
const (
	matchNone  = iota
	matchAny   // */*
	matchType  // type/*
	matchExact // type/subtype
)

// match is the best range found so far for one offer.
type match struct {
	specificity int
	q           int // quality in thousandths, 0-1000
	position    int // index of the range in the joined header
}

// Choose returns the index of the offer the Accept field values prefer, or
// -1 when the header accepts none of them (answer 406). Pass the request's
// field lines as they are, for example r.Header["Accept"].
func (c *Chooser) Choose(accept []string) int {
	if len(accept) == 0 {
		return 0 // no Accept header: anything is acceptable
	}
	return c.remembered.answer(accept, c.choose)
}

// choose parses the header and applies the rules of the package comment.
func (c *Chooser) choose(accept []string) int {
	var best [MaxOffers]match
	position := 0
	present := false
	for _, line := range accept {
		for rest := line; ; {
			var elem string
			var ok bool
			elem, rest, ok = cutUnquoted(rest, ',')
			if !ok {
				return 0 // an unterminated quoted string: as if absent
			}
			if elem = trimOWS(elem); elem != "" {
				r, ok := parseRange(elem)
				if !ok {
					return 0
				}
				present = true
				for i, o := range c.offers {
					s := r.matches(o)
					if s > best[i].specificity {
						best[i] = match{specificity: s, q: r.q, position: position}
					}
				}
				position++
			}
			if rest == "" {
				break
			}
		}
	}
	if !present {
		return 0
	}
	chosen := -1
	for i := range c.offers {
		m := best[i]
		if m.specificity == matchNone || m.q == 0 {
			continue
		}
		if chosen < 0 || m.q > best[chosen].q || (m.q == best[chosen].q && m.position < best[chosen].position) {
			chosen = i
		}
	}
	return chosen
}

// mediaRange is one parsed element of an Accept header.
type mediaRange struct {
	typ, subtype string // as written; "*" for wildcards
	q            int
}

func (r mediaRange) matches(o offer) int {
	switch {
	case r.typ == "*":
		return matchAny
	case !strings.EqualFold(r.typ, o.typ):
		return matchNone
	case r.subtype == "*":
		return matchType
	case strings.EqualFold(r.subtype, o.subtype):
		return matchExact
	}
	return matchNone
}

// cutUnquoted splits s at the first sep outside a quoted string. When there
// is none it returns s and "", with closed false if a quoted string is left
// unterminated.
func cutUnquoted(s string, sep byte) (before, after string, closed bool) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case c == sep && !quoted:
			return s[:i], s[i+1:], true
		}
	}
	return s, "", !quoted
}

// parseRange parses media-range [weight] [accept-ext], RFC 9110 §12.5.1.
func parseRange(s string) (mediaRange, bool) {
	var r mediaRange
	mt, params, _ := strings.Cut(s, ";")
	mt = trimOWS(mt)
	typ, sub, ok := strings.Cut(mt, "/")
	if !ok || !isToken(typ) || !isToken(sub) || (typ == "*" && sub != "*") {
		return r, false
	}
	r.typ, r.subtype = typ, sub
	r.q, ok = parseWeight(params)
	return r, ok
}

// parseWeight reads the q parameter from the parameters after an element
// of Accept or Accept-Encoding (";" separated, without the leading ";"),
// in thousandths; 1000 when there is none. Other well-formed parameters
// are skipped.
func parseWeight(params string) (q int, ok bool) {
	q = 1000
	for params != "" {
		var p string
		p, params, _ = cutUnquoted(params, ';')
		p = trimOWS(p)
		if p == "" {
			continue
		}
		// No whitespace around "=" (RFC 9110 §5.6.6): "q =0" is no
		// weight, and the element is refused, not read as q=0.
		name, value, ok := strings.Cut(p, "=")
		if !ok || !isToken(name) || !isValue(value) {
			return 0, false
		}
		if strings.EqualFold(name, "q") {
			if q, ok = parseQ(value); !ok {
				return 0, false
			}
		}
	}
	return q, true
}

// parseQ parses a qvalue (RFC 9110 §12.4.2): 0 to 1 with at most three
// decimals, returned in thousandths.
func parseQ(s string) (int, bool) {
	if len(s) == 0 || len(s) > 5 || (s[0] != '0' && s[0] != '1') {
		return 0, false
	}
	q := int(s[0]-'0') * 1000
	if len(s) == 1 {
		return q, true
	}
	if s[1] != '.' {
		return 0, false
	}
	scale := 100
	for i := 2; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		q += int(c-'0') * scale
		scale /= 10
	}
	if q > 1000 {
		return 0, false
	}
	return q, true
}

func trimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// isToken reports whether s is an RFC 9110 token (§5.6.2).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !tokenChar[s[i]] {
			return false
		}
	}
	return true
}

// isValue reports whether s is a token or a well-formed quoted string.
func isValue(s string) bool {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		for i := 1; i < len(s)-1; i++ {
			switch c := s[i]; {
			case c == '\\':
				i++
				if i >= len(s)-1 {
					return false
				}
			case c == '"', c < 0x20 && c != '\t', c == 0x7f:
				return false
			}
		}
		return true
	}
	return isToken(s)
}

var tokenChar = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

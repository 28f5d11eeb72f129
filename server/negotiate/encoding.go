package negotiate

import "strings"

// Content codings, Accept-Encoding, RFC 9110 §12.5.3.

// Coding is a content coding the server can send (RFC 9110 §8.4.1).
type Coding uint8

// The codings this package knows. Any other coding in a header is read but
// never offered.
const (
	Identity Coding = iota // no coding
	Gzip                   // "gzip" (also accepted as "x-gzip")
	Brotli                 // "br", RFC 7932
	Zstd                   // "zstd", RFC 8878
	codingCount
)

// String returns the coding's name as written in Content-Encoding.
func (c Coding) String() string {
	switch c {
	case Gzip:
		return "gzip"
	case Brotli:
		return "br"
	case Zstd:
		return "zstd"
	}
	return "identity"
}

// Qualities is what an Accept-Encoding header says of each Coding: its
// quality in thousandths, 0 meaning not acceptable.
type Qualities struct {
	q [codingCount]uint16
}

// Of returns the quality of c, 0 to 1000.
func (q Qualities) Of(c Coding) int {
	if c >= codingCount {
		return 0
	}
	return int(q.q[c])
}

// Choose returns the index of the offer with the highest quality, the
// first of them on a tie, or -1 when no offer is acceptable. Listing the
// offers smallest first makes a tie go to the fewest bytes.
func (q Qualities) Choose(offers []Coding) int {
	chosen, best := -1, 0
	for i, c := range offers {
		if v := q.Of(c); v > best {
			chosen, best = i, v
		}
	}
	return chosen
}

// identityOnly is the answer for no Accept-Encoding header, an empty or a
// malformed one: identity only. RFC 9110 allows any coding when the field
// is absent, but a client that sends none may not decode any.
var identityOnly = Qualities{q: [codingCount]uint16{Identity: 1000}}

// AcceptEncoding reads the Accept-Encoding field lines of a request, such
// as r.Header["Accept-Encoding"], following RFC 9110 §12.5.3:
//
//   - A coding takes the quality of its own entry, else that of "*", else
//     0. Names compare case-insensitively; "x-gzip" is gzip (§8.4.1.3).
//     When a coding is listed twice, the first entry counts.
//   - Identity is acceptable unless excluded by "identity;q=0", or by
//     "*;q=0" without an entry of its own. When neither it nor "*" is
//     listed its quality is the lowest above zero (0.001), so any coding
//     the client names is preferred to none.
//   - No header, an empty one or a malformed one (a bad token, a q outside
//     0-1 or with more than three decimals, an unterminated quoted string)
//     means identity only, so a broken client still gets a readable answer.
//
// Reading the header does not allocate.
func AcceptEncoding(lines []string) Qualities {
	var q Qualities
	var listed [codingCount]bool
	star, starListed, present := 0, false, false
	for _, line := range lines {
		for rest := line; ; {
			var elem string
			var ok bool
			elem, rest, ok = cutUnquoted(rest, ',')
			if !ok {
				return identityOnly
			}
			if elem = trimOWS(elem); elem != "" {
				name, params, _ := strings.Cut(elem, ";")
				name = trimOWS(name)
				weight, ok := parseWeight(params)
				if !ok || !isToken(name) {
					return identityOnly
				}
				present = true
				if name == "*" {
					if !starListed {
						star, starListed = weight, true
					}
				} else if c, known := codingNamed(name); known && !listed[c] {
					q.q[c], listed[c] = uint16(weight), true
				}
			}
			if rest == "" {
				break
			}
		}
	}
	if !present {
		return identityOnly
	}
	for c := range codingCount {
		if listed[c] {
			continue
		}
		switch {
		case starListed:
			q.q[c] = uint16(star)
		case c == Identity:
			q.q[c] = 1
		}
	}
	return q
}

// Encodings reads Accept-Encoding headers as AcceptEncoding does,
// remembering its answers for recently seen headers as a Chooser does. Its
// zero value is ready to use; it is safe for concurrent use and must not be
// copied after first use.
type Encodings struct {
	remembered memo[Qualities]
}

// Read returns what the Accept-Encoding field lines say of each coding.
func (e *Encodings) Read(lines []string) Qualities {
	if len(lines) == 0 {
		return identityOnly
	}
	return e.remembered.answer(lines, AcceptEncoding)
}

// codingNamed returns the Coding a header names, if it is one this package
// knows.
func codingNamed(name string) (Coding, bool) {
	switch len(name) {
	case 2:
		return Brotli, strings.EqualFold(name, "br")
	case 4:
		if strings.EqualFold(name, "gzip") {
			return Gzip, true
		}
		return Zstd, strings.EqualFold(name, "zstd")
	case 6:
		return Gzip, strings.EqualFold(name, "x-gzip")
	case 8:
		return Identity, strings.EqualFold(name, "identity")
	}
	return 0, false
}

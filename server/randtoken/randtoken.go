// Package randtoken makes the service's random secrets: session and form
// tokens, OAuth authorization codes, access and refresh tokens and grant
// family ids. Each is 256 bits from crypto/rand, base64url-encoded without
// padding (43 characters), so it goes into a cookie, a URL or a header as
// it is.
package randtoken

import (
	"crypto/rand"
	"encoding/base64"
)

// size is a token's length in random bytes.
const size = 32

// New returns a new token.
func New() string {
	b := make([]byte, size)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}

// WellFormed reports whether s has the form of a token New makes.
func WellFormed(s string) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == size
}

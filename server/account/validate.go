package account

import (
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/studyloop/studyloop/server/studyloop"
)

// Password length limits, counted in characters. The maximum only keeps
// hashing bounded; any characters are allowed.
const (
	MinPasswordChars = 10
	MaxPasswordChars = 256
)

// maxEmailBytes is the longest address SMTP can deliver to (RFC 5321).
const maxEmailBytes = 254

// NormalizeEmail returns the canonical form of an email address, the one
// stored and compared: surrounding space trimmed and all letters lower case.
// Anything that is not a single bare address is an EINVALID error.
func NormalizeEmail(email string) (string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	invalid := studyloop.Errorf(studyloop.EINVALID, "Enter an email address such as name@example.com.")
	if email == "" || len(email) > maxEmailBytes || !utf8.ValidString(email) {
		return "", invalid
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Name != "" || addr.Address != email {
		return "", invalid
	}
	at := strings.LastIndexByte(email, '@')
	if at < 1 || !strings.Contains(email[at+1:], ".") {
		return "", invalid
	}
	return email, nil
}

// ValidatePassword checks a new password's length.
func ValidatePassword(password string) error {
	n := utf8.RuneCountInString(password)
	switch {
	case n < MinPasswordChars:
		return studyloop.Errorf(studyloop.EINVALID, "Choose a password of at least %d characters.", MinPasswordChars)
	case n > MaxPasswordChars:
		return studyloop.Errorf(studyloop.EINVALID, "Choose a password of at most %d characters.", MaxPasswordChars)
	}
	return nil
}

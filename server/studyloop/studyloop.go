// Package studyloop holds the domain types of the service: users, studies,
// topics, questions and the errors the rest of the program speaks in. It
// imports only the standard library, so the rules it states can be read and
// tested without a database or HTTP.
package studyloop

import (
	"errors"
	"fmt"
	"time"
)

// MaxStudyTextChars is the largest study text accepted, counted in Unicode
// characters (the contract's 400,000-character limit).
const MaxStudyTextChars = 400_000

// User is a student account.
type User struct {
	ID           int64
	Email        string
	PasswordHash string
	CreatedAt    time.Time
}

// StudyStatus is where a study is in its processing.
type StudyStatus string

// The four study states of the contract.
const (
	StatusUploaded   StudyStatus = "uploaded"
	StatusProcessing StudyStatus = "processing"
	StatusReady      StudyStatus = "ready"
	StatusFailed     StudyStatus = "failed"
)

// Valid reports whether s is one of the four states.
func (s StudyStatus) Valid() bool {
	switch s {
	case StatusUploaded, StatusProcessing, StatusReady, StatusFailed:
		return true
	}
	return false
}

// Error codes. Each maps to one HTTP status and one user-facing wording in the
// surfaces that report it.
const (
	ECONFLICT     = "conflict"
	EINTERNAL     = "internal"
	EINVALID      = "invalid"
	ENOTFOUND     = "not_found"
	EUNAUTHORIZED = "unauthorized"
	ETOOLARGE     = "too_large"
)

// Error is an application error with a code and a message safe to show a user.
type Error struct {
	Code    string
	Message string
	// Field names the form field the error is about, such as "title",
	// "text" or "pages", so that a form can show it there; "" when it is
	// about no one field.
	Field string
}

// In sets the field e is about and returns e, for errors just made:
// Errorf(EINVALID, "…").In("title").
func (e *Error) In(field string) *Error {
	e.Field = field
	return e
}

// InField returns err as an error about field: a copy of its *Error with
// Field set. Other errors, and nil, come back as they are.
func InField(err error, field string) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Field = field
	return &c
}

// ErrorField returns the field err is about, "" when none.
func ErrorField(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

func (e *Error) Error() string { return fmt.Sprintf("studyloop: %s: %s", e.Code, e.Message) }

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err if it is (or wraps) an *Error, EINTERNAL
// for any other non-nil error and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-facing message of err, or a generic one for
// internal errors so that details never leak.
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Message
	}
	return "Internal error."
}

// Package respond writes the answers of every HTTP surface of Studyloop
// except the JSON-RPC messages of /mcp: the one table from domain error
// codes (studyloop.E…) to HTTP status, the one answer to an internal
// error, JSON bodies in and out, and HTML pages from templ components.
//
// A new error code gets its status in statuses; a surface that reports
// errors asks Status for it rather than keeping a mapping of its own.
package respond

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/a-h/templ"

	"github.com/studyloop/studyloop/server/studyloop"
)

// statuses is the HTTP status of each domain error code. Any other code,
// EINTERNAL included, is a 500.
var statuses = map[string]int{
	studyloop.EINVALID:      http.StatusUnprocessableEntity,
	studyloop.ENOTFOUND:     http.StatusNotFound,
	studyloop.ECONFLICT:     http.StatusConflict,
	studyloop.EUNAUTHORIZED: http.StatusUnauthorized,
	studyloop.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	studyloop.EQUOTA:        http.StatusTooManyRequests,
}

// Status returns the HTTP status that reports an error with the given
// domain code.
func Status(code string) int {
	if s, ok := statuses[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// StatusOf returns the HTTP status that reports err (Status of its code).
func StatusOf(err error) int { return Status(studyloop.ErrorCode(err)) }

// ServerErrorText is what a person or client is told of an internal
// error; the details go to the log only.
const ServerErrorText = "Something went wrong on our side."

// LogServerError logs an internal error with the request it broke, for
// surfaces that answer it in a format of their own (an RFC 6749 error, a
// page).
func LogServerError(logger *slog.Logger, r *http.Request, err error) {
	logger.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
}

// ServerError logs err with the request and answers 500 with
// ServerErrorText.
func ServerError(logger *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	LogServerError(logger, r, err)
	http.Error(w, ServerErrorText, http.StatusInternalServerError)
}

// CutOff answers a request whose context ended before its work did (the
// client left, or the server's read deadline passed while the body was
// arriving): 408 with Connection: close and no body. That is no server
// error, whatever error the interrupted work returned: a store does not
// always report it in the context's words (SQLite says its statement was
// interrupted).
func CutOff(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusRequestTimeout)
}

// JSON writes v as a JSON body, followed by a newline, with the given
// status. A value that cannot be encoded is a programming error; it is
// answered as an internal error.
func JSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, ServerErrorText, http.StatusInternalServerError)
		return
	}
	EncodedJSON(w, status, append(data, '\n'))
}

// EncodedJSON writes an already encoded JSON body with the given status.
func EncodedJSON(w http.ResponseWriter, status int, data []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(status)
	w.Write(data) //nolint:errcheck // the client went away
}

// Errors of DecodeJSON besides the *http.MaxBytesError of a body over its
// limit.
var (
	// ErrUnreadable: the body could not be read.
	ErrUnreadable = errors.New("respond: the request body could not be read")
	// ErrNotJSON: the body does not begin with a JSON value of the
	// destination's type.
	ErrNotJSON = errors.New("respond: the request body is not JSON of the expected shape")
	// ErrTrailingData: the body has more after its JSON value.
	ErrTrailingData = errors.New("respond: the request body has more after its JSON value")
)

// DecodeJSON reads a request body of at most limit bytes holding one JSON
// value and nothing after it into v. A body over the limit is cut off
// unread and reported as an *http.MaxBytesError (errors.As), so the
// caller can answer 413; other failures wrap ErrUnreadable, ErrNotJSON or
// ErrTrailingData.
func DecodeJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
			return tooLarge
		}
		return fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	return UnmarshalOne(body, v)
}

// UnmarshalOne decodes data, which must hold one JSON value and nothing
// after it, into v. Its errors wrap ErrNotJSON or ErrTrailingData.
func UnmarshalOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", ErrNotJSON, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return ErrTrailingData
	}
	return nil
}

// HTML renders a page with the given status. A failure to render after
// the status went out is logged: the page is cut short.
func HTML(logger *slog.Logger, w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := c.Render(r.Context(), w); err != nil {
		logger.ErrorContext(r.Context(), "render", "method", r.Method, "path", r.URL.Path, "err", err)
	}
}

// Package respondtest holds the one table of domain error codes and the
// HTTP status each surface must report them with. Every surface's tests
// (the pages, the JSON endpoints, OAuth, the tool errors of /mcp) walk
// it, so a code mapped differently anywhere fails a test.
package respondtest

import (
	"net/http"

	"github.com/studyloop/studyloop/server/studyloop"
)

// Case is one domain error code and the HTTP status that reports it.
type Case struct {
	Code   string
	Status int
}

// Cases lists every domain error code, and one that no surface knows.
var Cases = []Case{
	{studyloop.EINVALID, http.StatusUnprocessableEntity},
	{studyloop.ENOTFOUND, http.StatusNotFound},
	{studyloop.ECONFLICT, http.StatusConflict},
	{studyloop.EUNAUTHORIZED, http.StatusUnauthorized},
	{studyloop.ETOOLARGE, http.StatusRequestEntityTooLarge},
	{studyloop.EQUOTA, http.StatusTooManyRequests},
	{studyloop.EINTERNAL, http.StatusInternalServerError},
	{"no_such_code", http.StatusInternalServerError},
}

// Err is an error with the case's code.
func (c Case) Err() error { return studyloop.Errorf(c.Code, "A %s error.", c.Code) }

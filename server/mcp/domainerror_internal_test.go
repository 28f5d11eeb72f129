package mcp

import (
	"net/http"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/respond/respondtest"
)

// TestDomainErrorPerCode: /mcp maps each domain code as the other surfaces
// do (respondtest.Cases): a 404 is "Study not found", another 4xx a tool
// error with the domain's message, anything else an internal error.
func TestDomainErrorPerCode(t *testing.T) {
	for _, c := range respondtest.Cases {
		err := domainError(c.Err(), "st_1")
		te, isToolError := err.(*toolError)
		switch {
		case c.Status == http.StatusNotFound:
			if !isToolError || !strings.HasPrefix(te.msg, "Study not found") {
				t.Errorf("%s: %v, want the study-not-found tool error", c.Code, err)
			}
		case c.Status < http.StatusInternalServerError:
			if !isToolError || te.msg != "A "+c.Code+" error." {
				t.Errorf("%s: %v, want a tool error with the domain's message", c.Code, err)
			}
		case isToolError:
			t.Errorf("%s: tool error %q, want an internal error", c.Code, te.msg)
		}
	}
}

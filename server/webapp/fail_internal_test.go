package webapp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/respond/respondtest"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// TestFailStatusPerCode: a page reporting an error answers the status of
// the one table (respondtest.Cases), and an internal error shows only the
// generic text.
func TestFailStatusPerCode(t *testing.T) {
	a := New(storetest.Open(t, "sqlite"), nil, nil, slog.New(slog.DiscardHandler), nil)
	for _, c := range respondtest.Cases {
		t.Run(c.Code, func(t *testing.T) {
			w := httptest.NewRecorder()
			r := httptest.NewRequest("GET", "/app/studies/x", nil)
			r = r.WithContext(studyloop.ContextWithUserID(r.Context(), 1))
			a.fail(w, r, c.Err())
			if w.Code != c.Status {
				t.Errorf("status %d, want %d", w.Code, c.Status)
			}
			internal := c.Status == 500
			if strings.Contains(w.Body.String(), respond.ServerErrorText) != internal || strings.Contains(w.Body.String(), "A "+c.Code+" error.") == internal {
				t.Errorf("internal=%v, but the page says %.300q", internal, w.Body)
			}
		})
	}
}

// TestFailOfACutOffRequest: work stopped because its request was cut off
// is no server error: 408, nothing logged as one.
func TestFailOfACutOffRequest(t *testing.T) {
	var logs strings.Builder
	a := New(storetest.Open(t, "sqlite"), nil, nil, slog.New(slog.NewTextHandler(&logs, nil)), nil)
	ctx, cancel := context.WithCancel(studyloop.ContextWithUserID(context.Background(), 1))
	cancel()
	r := httptest.NewRequest("POST", "/app/studies/pdf", nil).WithContext(ctx)
	w := httptest.NewRecorder()
	a.fail(w, r, fmt.Errorf("store: list studies: %w", context.Canceled))
	if w.Code != http.StatusRequestTimeout || logs.Len() != 0 {
		t.Errorf("status %d, log %q; want 408 and no log", w.Code, logs.String())
	}
	// A cut-off request whose store error does not name the context (an
	// interrupted SQLite statement) is cut off too.
	w = httptest.NewRecorder()
	a.fail(w, r, errors.New("store: list studies: interrupted (9)"))
	if w.Code != http.StatusRequestTimeout || logs.Len() != 0 {
		t.Errorf("status %d, log %q for an interrupted statement of a cut-off request; want 408 and no log", w.Code, logs.String())
	}
	// The same error on a request still open is the server's.
	r = httptest.NewRequest("POST", "/app/studies/pdf", nil).WithContext(studyloop.ContextWithUserID(context.Background(), 1))
	w = httptest.NewRecorder()
	a.fail(w, r, fmt.Errorf("store: list studies: %w", context.Canceled))
	if w.Code != http.StatusInternalServerError {
		t.Errorf("status %d for an open request, want 500", w.Code)
	}
}

package respond_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/respond/respondtest"
	"github.com/studyloop/studyloop/templates"
)

func TestStatus(t *testing.T) {
	for _, c := range respondtest.Cases {
		if got := respond.Status(c.Code); got != c.Status {
			t.Errorf("Status(%q) = %d, want %d", c.Code, got, c.Status)
		}
		if got := respond.StatusOf(c.Err()); got != c.Status {
			t.Errorf("StatusOf(%q error) = %d, want %d", c.Code, got, c.Status)
		}
	}
	if got := respond.StatusOf(errors.New("disk on fire")); got != http.StatusInternalServerError {
		t.Errorf("StatusOf(plain error) = %d, want 500", got)
	}
}

func TestServerErrorLogsTheRequestAndHidesTheError(t *testing.T) {
	var log bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&log, nil))
	w := httptest.NewRecorder()
	respond.ServerError(logger, w, httptest.NewRequest("POST", "/app/studies", nil), errors.New("disk on fire"))
	if w.Code != http.StatusInternalServerError || strings.TrimSpace(w.Body.String()) != respond.ServerErrorText {
		t.Errorf("answer %d %q, want 500 %q", w.Code, w.Body, respond.ServerErrorText)
	}
	var line map[string]any
	if err := json.Unmarshal(log.Bytes(), &line); err != nil {
		t.Fatalf("log %q: %v", log.String(), err)
	}
	if line["method"] != "POST" || line["path"] != "/app/studies" || line["err"] != "disk on fire" {
		t.Errorf("log line %v lacks the method, path or error", line)
	}
}

func TestJSON(t *testing.T) {
	w := httptest.NewRecorder()
	respond.JSON(w, http.StatusCreated, map[string]string{"a": "b"})
	if w.Code != http.StatusCreated || w.Body.String() != "{\"a\":\"b\"}\n" ||
		w.Header().Get("Content-Type") != "application/json" || w.Header().Get("Content-Length") != "10" {
		t.Errorf("got %d %q %v", w.Code, w.Body, w.Header())
	}
	w = httptest.NewRecorder()
	respond.JSON(w, http.StatusOK, func() {}) // cannot be encoded
	if w.Code != http.StatusInternalServerError {
		t.Errorf("unencodable value: status %d, want 500", w.Code)
	}
}

func TestDecodeJSON(t *testing.T) {
	const limit = 16
	tests := []struct {
		body string
		want error // nil, a sentinel, or errTooLarge
	}{
		{`{"a":"0123456"}`, nil},           // 15 bytes
		{`{"a":"01234567"}`, nil},          // 16 bytes: at the limit
		{`{"a":"012345678"}`, errTooLarge}, // 17 bytes
		{`{"a":1}`, respond.ErrNotJSON},
		{`[1]`, respond.ErrNotJSON},
		{`{"a":"x"} {}`, respond.ErrTrailingData},
		{``, respond.ErrNotJSON},
	}
	for _, tt := range tests {
		var v struct{ A string }
		r := httptest.NewRequest("POST", "/", strings.NewReader(tt.body))
		err := respond.DecodeJSON(httptest.NewRecorder(), r, limit, &v)
		switch {
		case tt.want == errTooLarge:
			if !errors.As(err, new(*http.MaxBytesError)) {
				t.Errorf("%q: err %v, want *http.MaxBytesError", tt.body, err)
			}
		case !errors.Is(err, tt.want):
			t.Errorf("%q: err %v, want %v", tt.body, err, tt.want)
		}
	}
}

var errTooLarge = errors.New("too large")

func TestHTML(t *testing.T) {
	w := httptest.NewRecorder()
	respond.HTML(slog.New(slog.DiscardHandler), w, httptest.NewRequest("GET", "/", nil), http.StatusTeapot,
		templates.AppPage(templates.PageProps{Title: "Short and stout"}))
	if w.Code != http.StatusTeapot || w.Header().Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(w.Body.String(), "Short and stout") {
		t.Errorf("got %d %v %.200q", w.Code, w.Header(), w.Body)
	}
}

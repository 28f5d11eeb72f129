package oauth_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/oauth"
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// TestRequireTokenLogsAFailedCheck: when the token cannot be looked up
// (here the database is closed), the answer is the RFC 6750 server_error
// with the status of an internal error, and the cause is logged with the
// request.
func TestRequireTokenLogsAFailedCheck(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	db.Close()
	cfg := config.Config{BaseURL: "https://studyloop.example"}
	var log bytes.Buffer
	h := oauth.RequireToken(oauth.New(db, nil, cfg, nil), cfg, slog.New(slog.NewJSONHandler(&log, nil)))(http.NotFoundHandler())
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer slat_some-token")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var body struct{ Error string }
	json.Unmarshal(w.Body.Bytes(), &body) //nolint:errcheck // checked below
	if w.Code != respond.Status(studyloop.EINTERNAL) || body.Error != "server_error" {
		t.Errorf("answer %d %s, want 500 server_error", w.Code, w.Body)
	}
	if !strings.Contains(log.String(), `"method":"POST"`) || !strings.Contains(log.String(), `"path":"/mcp"`) {
		t.Errorf("log %q does not name the request", log.String())
	}
}

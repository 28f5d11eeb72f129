package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"

	"github.com/studyloop/studyloop/server/mcp"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// conformanceEnv names the variable holding the command that runs the
// official MCP conformance suite (@modelcontextprotocol/conformance);
// make conformance sets it.
const conformanceEnv = "MCP_CONFORMANCE"

// TestConformance runs the official MCP conformance suite's server
// scenarios against the endpoint on loopback, at 2026-07-28 and at
// 2025-11-25. The suite sends no bearer token, so every request is served
// as one student. Checks that need the suite's own diagnostic tools
// (test_missing_capability and the like) or features this server does not
// have (prompts, resources, subscriptions) are listed in
// testdata/conformance-baseline.yml; any other failure, or a listed one
// that passes, fails the test. It runs only when MCP_CONFORMANCE is set.
func TestConformance(t *testing.T) {
	command := os.Getenv(conformanceEnv)
	if command == "" {
		t.Skipf("%s is not set; make conformance runs the suite (it needs Node 22 through npx)", conformanceEnv)
	}
	db := storetest.Open(t, "sqlite")
	srv, err := mcp.New(mcp.Options{Store: db, Mastery: storetest.Service(db), Info: testInfo})
	if err != nil {
		t.Fatal(err)
	}
	student := storetest.Student(t, db, "conformance@example.com")
	asStudent := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(studyloop.ContextWithUserID(r.Context(), student)))
		})
	}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	guard, err := mcp.Guard(mcp.GuardOptions{BaseURL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("POST /mcp", guard(asStudent(srv)))
	mux.Handle("OPTIONS /mcp", guard(nil))
	mux.Handle("GET /mcp", mcp.HandleGet(connectPage))
	mux.Handle("DELETE /mcp", guard(mcp.HandleMethodNotAllowed()))

	runs := []struct {
		version   string
		scenarios []string
	}{
		{"2026-07-28", []string{"server-stateless", "tools-list", "dns-rebinding-protection", "caching", "http-header-validation"}},
		{"2025-11-25", []string{"server-initialize", "ping", "tools-list", "dns-rebinding-protection"}},
	}
	for _, run := range runs {
		for _, scenario := range run.scenarios {
			t.Run(run.version+"/"+scenario, func(t *testing.T) {
				cmd := exec.Command("sh", "-c", command+` server --url "$1" --scenario "$2" --spec-version "$3" --expected-failures testdata/conformance-baseline.yml`,
					"conformance", ts.URL+"/mcp", scenario, run.version)
				out, err := cmd.CombinedOutput()
				t.Logf("%s", out)
				if err != nil {
					t.Errorf("%s at %s: %v", scenario, run.version, err)
				}
			})
		}
	}
}

package web_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/studyloop/studyloop/server/store/storetest"
)

// TestConformanceAuthorization runs the official MCP conformance suite's
// authorization-server-metadata-endpoint scenario (2026-07-28) against the
// whole server on loopback. It runs only when MCP_CONFORMANCE holds the
// command that starts the suite (make conformance sets it); server/mcp's
// TestConformance runs the MCP scenarios.
func TestConformanceAuthorization(t *testing.T) {
	command := os.Getenv("MCP_CONFORMANCE")
	if command == "" {
		t.Skip("MCP_CONFORMANCE is not set; make conformance runs the suite (it needs Node 22 through npx)")
	}
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	cmd := exec.Command("sh", "-c", command+` authorization --url "$1" --scenario authorization-server-metadata-endpoint --spec-version 2026-07-28`,
		"conformance", s.base)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("authorization-server-metadata-endpoint: %v", err)
	}
}

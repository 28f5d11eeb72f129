package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/studyloop/studyloop/server/mcp"
	"github.com/studyloop/studyloop/server/store/storetest"
)

func TestReadServerCard(t *testing.T) {
	card := func(versions string) string {
		return `{"$schema":"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
			"name":"io.github.studyloop/studyloop","title":"Studyloop","version":"1.2.3","description":"d",
			"websiteUrl":"https://studyloop.example/",
			"remotes":[{"type":"streamable-http","url":"https://studyloop.example/mcp","supportedProtocolVersions":` + versions + `}]}`
	}
	tests := []struct {
		name, data, wantErr string
	}{
		{"agrees", card(`["2026-07-28","2025-11-25","2025-06-18","2025-03-26"]`), ""},
		{"a newer version listed", card(`["2027-01-01","2026-07-28","2025-11-25","2025-06-18","2025-03-26"]`), "protocol versions"},
		{"2026-07-28 missing", card(`["2025-11-25","2025-06-18","2025-03-26"]`), "protocol versions"},
		{"a version missing", card(`["2025-11-25"]`), "protocol versions"},
		{"other order", card(`["2025-03-26","2025-06-18","2025-11-25","2026-07-28"]`), "protocol versions"},
		{"no remote", `{"name":"a/b","version":"1.0.0","remotes":[]}`, "no streamable-http remote"},
		{"no version", `{"name":"a/b","remotes":[]}`, "no name or version"},
		{"not JSON", `{`, "server card"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := mcp.ReadServerCard(fstest.MapFS{mcp.ServerCardPath: {Data: []byte(tt.data)}})
			if tt.wantErr == "" {
				if err != nil || info != (mcp.ServerInfo{Name: "io.github.studyloop/studyloop", Title: "Studyloop", Version: "1.2.3", WebsiteURL: "https://studyloop.example/"}) {
					t.Fatalf("info %+v, err %v", info, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err %v, want one mentioning %q", err, tt.wantErr)
			}
		})
	}
	if _, err := mcp.ReadServerCard(fstest.MapFS{}); err == nil {
		t.Error("a site without a card was accepted")
	}
}

// TestUnwiredServer checks the endpoint refuses to answer when mounted
// without the bearer middleware or for another method.
func TestUnwiredServer(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	srv, err := mcp.New(mcp.Options{Store: db, Mastery: storetest.Service(db), Info: testInfo})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	res, err := http.Post(ts.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST without a user: status %d, want 401", res.StatusCode)
	}
	res, err = http.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "POST" {
		t.Errorf("GET: status %d Allow %q", res.StatusCode, res.Header.Get("Allow"))
	}
	if _, err := mcp.New(mcp.Options{Mastery: storetest.Service(db), Info: testInfo}); err == nil {
		t.Error("New without a store succeeded")
	}
	if _, err := mcp.New(mcp.Options{Store: db, Info: testInfo}); err == nil {
		t.Error("New without mastery succeeded")
	}
	if _, err := mcp.New(mcp.Options{Store: db, Mastery: storetest.Service(db)}); err == nil {
		t.Error("New without a name succeeded")
	}
	if _, err := mcp.Guard(mcp.GuardOptions{BaseURL: "not a url"}); err == nil {
		t.Error("Guard without an origin succeeded")
	}
}

package mcp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/mcp"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/wiretest"
)

// TestPostRules sends the requests of testdata/post-rules.txtar, one
// transport rule of POST /mcp each, and compares the answers with those
// recorded there (go test -update records them anew). No answer may carry
// a session id.
func TestPostRules(t *testing.T) {
	e := newEnv(t, storetest.Open(t, "sqlite"))
	allowing := newEnv(t, storetest.Open(t, "sqlite"), "mcp.studyloop.example", "app.studyloop.example:443")
	golden := wiretest.Open(t, "testdata/post-rules.txtar", "Content-Type", "Mcp-Session-Id", "WWW-Authenticate")
	golden.Rewrite = oneJSONWording
	for _, c := range golden.Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			target := e
			if strings.HasPrefix(c.Name, "allowed-") {
				target = allowing
			}
			defaults := http.Header{
				"Content-Type":  {"application/json"},
				"Accept":        {"application/json, text/event-stream"},
				"Authorization": {fmt.Sprintf("Bearer user-%d", target.alice)},
			}
			res, err := http.DefaultClient.Do(c.Request(t, strings.TrimSuffix(target.url, "/mcp"), defaults))
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, c, res)
		})
	}
}

// oneJSONWording settles the wording of the JSON decoder's messages
// quoted in answers, which picks "cannot" or "unable to" at random once a
// process so that nobody comes to rely on either.
func oneJSONWording(body []byte) []byte {
	return bytes.ReplaceAll(body, []byte("json: unable to "), []byte("json: cannot "))
}

// TestUnsupportedVersionNamesSupported checks the 400 for a protocol
// version not spoken tells the client what to use instead, in the message
// and in data (UnsupportedProtocolVersionError of 2026-07-28).
func TestUnsupportedVersionNamesSupported(t *testing.T) {
	e := newEnv(t, storetest.Open(t, "sqlite"))
	r := e.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "MCP-Protocol-Version", "2027-01-01")
	if r.status != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", r.status)
	}
	var out struct {
		Error struct {
			Code    int
			Message string
			Data    struct {
				Supported []string `json:"supported"`
				Requested string   `json:"requested"`
			}
		}
	}
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatal(err)
	}
	if out.Error.Code != -32022 || !slices.Equal(out.Error.Data.Supported, mcp.ProtocolVersions) || out.Error.Data.Requested != "2027-01-01" {
		t.Errorf("error %+v, want -32022 with supported %v and requested 2027-01-01", out.Error, mcp.ProtocolVersions)
	}
	for _, want := range append([]string{"2027-01-01", "initialize", "server/discover"}, mcp.ProtocolVersions...) {
		if !strings.Contains(out.Error.Message, want) {
			t.Errorf("message %q does not mention %s", out.Error.Message, want)
		}
	}
}

// TestBodyLimit checks that a body of exactly 4 MiB is read and one byte
// more gets 413, and that a 400,000-character text fits.
func TestBodyLimit(t *testing.T) {
	e := newEnv(t, storetest.Open(t, "sqlite"))
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	pad := func(n int) string { return ping[:len(ping)-1] + `,"x":"` + strings.Repeat("a", n-len(ping)-7) + `"}` }
	if body := pad(mcp.MaxBodyBytes); len(body) != mcp.MaxBodyBytes {
		t.Fatalf("padding made %d bytes", len(body))
	}
	if r := e.post(t, pad(mcp.MaxBodyBytes)); r.status != http.StatusOK {
		t.Errorf("4 MiB body: status %d, want 200", r.status)
	}
	r := e.post(t, pad(mcp.MaxBodyBytes+1))
	if r.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("4 MiB + 1 body: status %d, want 413", r.status)
	}
	if out := r.rpc(t); out.Error == nil || !strings.Contains(out.Error.Message, "4 MiB") {
		t.Errorf("413 body %s does not state the limit", r.body)
	}

	// 400,000 three-byte characters, each sent as a \u escape: 2.4 MB.
	text := strings.Repeat(`\u8a9e`, 400_000)
	r = e.post(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_study","arguments":{"text":"`+text+`"}}}`)
	if r.status != http.StatusOK {
		t.Fatalf("400,000-character study: status %d", r.status)
	}
	var res toolResult
	json.Unmarshal(r.rpc(t).Result, &res)
	if res.IsError {
		t.Fatalf("400,000-character study refused: %s", res.Content[0].Text)
	}
}

// TestInitialize checks version negotiation and what initialize says about
// the server.
func TestInitialize(t *testing.T) {
	e := newEnv(t, storetest.Open(t, "sqlite"))
	tests := []struct{ asked, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2025-11-25"},
		{"2026-07-28", "2025-11-25"},
		{"", "2025-11-25"},
		{"next week", "2025-11-25"},
	}
	for _, tt := range tests {
		t.Run(tt.asked, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + tt.asked + `","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`
			r := e.post(t, body)
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			var res struct {
				ProtocolVersion string `json:"protocolVersion"`
				ServerInfo      struct {
					Name, Title, Version string
				} `json:"serverInfo"`
				Capabilities struct {
					Tools *struct{} `json:"tools"`
				} `json:"capabilities"`
				Instructions string `json:"instructions"`
			}
			if err := json.Unmarshal(r.rpc(t).Result, &res); err != nil {
				t.Fatal(err)
			}
			if res.ProtocolVersion != tt.want {
				t.Errorf("protocolVersion=%q, want %q", res.ProtocolVersion, tt.want)
			}
			if res.ServerInfo.Name != testInfo.Name || res.ServerInfo.Title != testInfo.Title || res.ServerInfo.Version != testInfo.Version {
				t.Errorf("serverInfo=%+v, want %+v", res.ServerInfo, testInfo)
			}
			if res.Capabilities.Tools == nil {
				t.Error("capabilities.tools missing")
			}
			for _, tool := range []string{"create_study", "get_study_status", "list_studies", "get_mastery"} {
				if !strings.Contains(res.Instructions, tool) {
					t.Errorf("instructions do not mention %s", tool)
				}
			}
		})
	}
}

// TestToolsList checks the four tool definitions.
func TestToolsList(t *testing.T) {
	e := newEnv(t, storetest.Open(t, "sqlite"))
	var res struct {
		Tools []struct {
			Name, Title, Description string
			InputSchema              struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			} `json:"inputSchema"`
			OutputSchema *struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"outputSchema"`
			Annotations *struct {
				ReadOnlyHint bool `json:"readOnlyHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(e.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`).rpc(t).Result, &res); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		readOnly bool
		props    []string
		required []string
	}{
		"create_study":     {false, []string{"text", "title"}, []string{"text"}},
		"get_study_status": {true, []string{"study_id"}, []string{"study_id"}},
		"list_studies":     {true, []string{"status", "limit", "cursor"}, nil},
		"get_mastery":      {true, []string{"study_id"}, nil},
	}
	if len(res.Tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(res.Tools), len(want))
	}
	for _, tool := range res.Tools {
		w, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %q", tool.Name)
			continue
		}
		if tool.Title == "" || len(tool.Description) < 40 {
			t.Errorf("%s: title %q, description %q: want both, described", tool.Name, tool.Title, tool.Description)
		}
		if tool.InputSchema.Type != "object" || tool.OutputSchema == nil || tool.OutputSchema.Type != "object" {
			t.Errorf("%s: input schema type %q, output schema %v", tool.Name, tool.InputSchema.Type, tool.OutputSchema)
		}
		if tool.Annotations == nil || tool.Annotations.ReadOnlyHint != w.readOnly {
			t.Errorf("%s: annotations %+v, want readOnlyHint %v", tool.Name, tool.Annotations, w.readOnly)
		}
		if strings.Join(tool.InputSchema.Required, ",") != strings.Join(w.required, ",") {
			t.Errorf("%s: required %v, want %v", tool.Name, tool.InputSchema.Required, w.required)
		}
		for _, p := range w.props {
			var prop struct{ Description string }
			json.Unmarshal(tool.InputSchema.Properties[p], &prop)
			if len(prop.Description) < 20 {
				t.Errorf("%s: property %s has description %q", tool.Name, p, prop.Description)
			}
		}
		if tool.Name == "create_study" {
			var text struct{ MinLength, MaxLength int }
			json.Unmarshal(tool.InputSchema.Properties["text"], &text)
			if text.MinLength != 1 || text.MaxLength != 400_000 {
				t.Errorf("create_study text limits %+v, want 1 to 400,000", text)
			}
		}
	}
}

// TestCORSAndMethods checks the preflight, CORS headers on answers, GET
// dispatch and DELETE.
func TestCORSAndMethods(t *testing.T) {
	e := newEnv(t, storetest.Open(t, "sqlite"))
	origin := strings.TrimSuffix(e.url, "/mcp")

	t.Run("preflight without auth", func(t *testing.T) {
		r := e.do(t, http.MethodOptions, "", "Authorization", "", "Origin", origin,
			"Access-Control-Request-Method", "POST",
			"Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version")
		if r.status != http.StatusNoContent {
			t.Fatalf("status %d, want 204", r.status)
		}
		allow := strings.ToLower(r.header.Get("Access-Control-Allow-Headers"))
		for _, h := range []string{"authorization", "content-type", "accept", "mcp-protocol-version", "mcp-session-id"} {
			if !strings.Contains(allow, h) {
				t.Errorf("Access-Control-Allow-Headers %q lacks %s", allow, h)
			}
		}
		if got := r.header.Get("Access-Control-Allow-Origin"); got != origin {
			t.Errorf("Access-Control-Allow-Origin=%q, want %q", got, origin)
		}
		if !strings.Contains(r.header.Get("Access-Control-Allow-Methods"), "POST") {
			t.Errorf("Access-Control-Allow-Methods=%q", r.header.Get("Access-Control-Allow-Methods"))
		}
	})
	t.Run("preflight from a foreign origin", func(t *testing.T) {
		r := e.do(t, http.MethodOptions, "", "Authorization", "", "Origin", "https://evil.example", "Access-Control-Request-Method", "POST")
		if r.status != http.StatusForbidden {
			t.Fatalf("status %d, want 403", r.status)
		}
	})
	t.Run("401 exposes WWW-Authenticate", func(t *testing.T) {
		r := e.post(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Authorization", "", "Origin", origin)
		if r.status != http.StatusUnauthorized || r.header.Get("WWW-Authenticate") == "" {
			t.Fatalf("status %d, WWW-Authenticate %q", r.status, r.header.Get("WWW-Authenticate"))
		}
		if !strings.Contains(r.header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
			t.Errorf("Access-Control-Expose-Headers=%q", r.header.Get("Access-Control-Expose-Headers"))
		}
		if r.header.Get("Access-Control-Allow-Origin") != origin {
			t.Errorf("Access-Control-Allow-Origin=%q", r.header.Get("Access-Control-Allow-Origin"))
		}
	})

	gets := []struct {
		accept     string
		wantStatus int
	}{
		{"text/event-stream", 405},
		{"text/event-stream, application/json", 405},
		{"TEXT/EVENT-STREAM;q=0.9", 405},
		{"text/event-stream, */*", 405},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", 200},
		{"text/event-stream, text/html", 200},
		{"text/event-stream;q=0, text/html", 200},
		{"text/html;q=0, text/event-stream", 405},
		{"application/json", 200},
		{"image/png", 200},
		{"", 200},
	}
	for _, g := range gets {
		t.Run("GET "+g.accept, func(t *testing.T) {
			r := e.do(t, http.MethodGet, "", "Accept", g.accept, "Content-Type", "")
			if r.status != g.wantStatus {
				t.Fatalf("status %d, want %d", r.status, g.wantStatus)
			}
			if g.wantStatus == 405 && (r.header.Get("Allow") != "POST" || r.header.Get("Vary") != "Accept") {
				t.Errorf("Allow=%q Vary=%q, want POST and Accept", r.header.Get("Allow"), r.header.Get("Vary"))
			}
		})
	}
	t.Run("DELETE", func(t *testing.T) {
		r := e.do(t, http.MethodDelete, "", "Mcp-Session-Id", "abc")
		if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "POST" {
			t.Fatalf("status %d Allow %q, want 405 POST", r.status, r.header.Get("Allow"))
		}
	})
}

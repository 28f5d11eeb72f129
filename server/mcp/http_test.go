package mcp_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/mcp"
	"github.com/studyloop/studyloop/server/store/storetest"
)

// TestPostRules checks every transport rule of POST /mcp against the
// running endpoint.
func TestPostRules(t *testing.T) {
	e := newEnv(t, storetest.Open(t, "sqlite"))
	tests := []struct {
		name       string
		body       string
		headers    []string
		wantStatus int
		wantCode   int    // JSON-RPC error code; 0 for a result or no body
		wantID     string // the id the answer must carry, "" when no body
	}{
		{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil, 200, 0, `1`},
		{"string id echoed", `{"jsonrpc":"2.0","id":"abc-1","method":"ping"}`, nil, 200, 0, `"abc-1"`},
		{"ping with empty params", `{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}`, nil, 200, 0, `2`},
		{"tools/list without initialize", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, nil, 200, 0, `3`},
		{"incoming session id ignored", `{"jsonrpc":"2.0","id":4,"method":"ping"}`, []string{"Mcp-Session-Id", "abc"}, 200, 0, `4`},
		{"Accept with JSON only", `{"jsonrpc":"2.0","id":5,"method":"ping"}`, []string{"Accept", "application/json"}, 200, 0, `5`},
		{"no Accept", `{"jsonrpc":"2.0","id":6,"method":"ping"}`, []string{"Accept", ""}, 200, 0, `6`},
		{"charset parameter", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, []string{"Content-Type", "application/json; charset=utf-8"}, 200, 0, `7`},

		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, 202, 0, ""},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/whatever","params":{"a":1}}`, nil, 202, 0, ""},
		{"client response", `{"jsonrpc":"2.0","id":9,"result":{}}`, nil, 202, 0, ""},
		{"client error response", `{"jsonrpc":"2.0","id":9,"error":{"code":-1,"message":"no"}}`, nil, 202, 0, ""},
		{"client error response, id null", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, nil, 202, 0, ""},
		{"client result response, id null", `{"jsonrpc":"2.0","id":null,"result":{}}`, nil, 400, -32600, `null`},

		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, nil, 400, -32600, `null`},
		{"batch of one", ` [{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, 400, -32600, `null`},
		{"empty batch", `[]`, nil, 400, -32600, `null`},
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":"ping"`, nil, 400, -32700, `null`},
		{"malformed batch", `[{"jsonrpc":`, nil, 400, -32700, `null`},
		{"empty body", ``, nil, 400, -32700, `null`},
		{"not an object", `"ping"`, nil, 400, -32600, `null`},
		{"null", `null`, nil, 400, -32600, `null`},
		{"missing jsonrpc", `{"id":1,"method":"ping"}`, nil, 400, -32600, `1`},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, nil, 400, -32600, `1`},
		{"numeric jsonrpc", `{"jsonrpc":2.0,"id":1,"method":"ping"}`, nil, 400, -32600, `1`},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, nil, 400, -32600, `null`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, nil, 400, -32600, `null`},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":5}`, nil, 400, -32600, `1`},
		{"no method, no result", `{"jsonrpc":"2.0","id":1}`, nil, 400, -32600, `1`},
		{"params not an object", `{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`, nil, 400, -32602, `1`},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, nil, 200, -32601, `1`},
		{"2026 discovery method", `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, nil, 200, -32601, `1`},
		{"unknown tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_everything"}}`, nil, 200, -32602, `1`},
		{"tools/call without name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`, nil, 200, -32602, `1`},
		{"tools/call params of wrong shape", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, nil, 200, -32602, `1`},
		{"initialize params of wrong shape", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7}}`, nil, 200, -32602, `1`},

		{"text/plain body", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Content-Type", "text/plain"}, 415, -32600, `null`},
		{"form body", `jsonrpc=2.0`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, -32600, `null`},
		{"no content type", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Content-Type", ""}, 415, -32600, `null`},

		{"protocol version absent", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil, 200, 0, `1`},
		{"protocol version 2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"MCP-Protocol-Version", "2025-11-25"}, 200, 0, `1`},
		{"protocol version 2025-06-18", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"MCP-Protocol-Version", "2025-06-18"}, 200, 0, `1`},
		{"protocol version 2025-03-26", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"MCP-Protocol-Version", "2025-03-26"}, 200, 0, `1`},
		{"protocol version 2024-11-05", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"MCP-Protocol-Version", "2024-11-05"}, 400, -32022, `1`},
		{"protocol version garbage", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"MCP-Protocol-Version", "latest"}, 400, -32022, `1`},
		{"protocol version garbage on a notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, []string{"MCP-Protocol-Version", "2027-01-01"}, 400, -32022, `null`},
		{"2026 _meta without the header", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, nil, 400, -32020, `1`},
		{"2026 _meta with a 2025 header", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, []string{"MCP-Protocol-Version", "2025-11-25"}, 400, -32020, `1`},

		{"foreign Origin", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Origin", "https://evil.example"}, 403, -32600, `null`},
		{"null Origin", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Origin", "null"}, 403, -32600, `null`},
		{"foreign Host", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Host", "evil.example"}, 403, -32600, `null`},
		{"foreign Host before auth", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Host", "evil.example", "Authorization", ""}, 403, -32600, `null`},
		{"allowed Host", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Host", "mcp.studyloop.example"}, 200, 0, `1`},
		{"allowed Origin", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Origin", "https://app.studyloop.example"}, 200, 0, `1`},
		{"no token", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Authorization", ""}, 401, 0, ""},
	}
	e2 := newEnv(t, storetest.Open(t, "sqlite"), "mcp.studyloop.example", "app.studyloop.example:443")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := e
			if strings.HasPrefix(tt.name, "allowed") {
				target = e2
			}
			r := target.post(t, tt.body, tt.headers...)
			if r.status != tt.wantStatus {
				t.Fatalf("status=%d, want %d (body %s)", r.status, tt.wantStatus, r.body)
			}
			if got := r.header.Get("Mcp-Session-Id"); got != "" {
				t.Errorf("Mcp-Session-Id=%q, want none", got)
			}
			if tt.wantID == "" {
				if tt.wantStatus == 202 && len(r.body) != 0 {
					t.Errorf("202 with body %q", r.body)
				}
				return
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type=%q, want application/json", ct)
			}
			out := r.rpc(t)
			if string(out.ID) != tt.wantID {
				t.Errorf("id=%s, want %s", out.ID, tt.wantID)
			}
			switch {
			case tt.wantCode == 0 && out.Error != nil:
				t.Errorf("error %d %q, want a result", out.Error.Code, out.Error.Message)
			case tt.wantCode == 0 && out.Result == nil:
				t.Errorf("no result in %s", r.body)
			case tt.wantCode != 0 && (out.Error == nil || out.Error.Code != tt.wantCode):
				t.Errorf("body %s, want error code %d", r.body, tt.wantCode)
			case tt.wantCode != 0 && out.Result != nil:
				t.Errorf("both result and error in %s", r.body)
			}
		})
	}
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

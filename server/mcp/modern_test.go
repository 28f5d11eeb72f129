package mcp_test

import (
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

// meta2026 is the _meta a 2026-07-28 client sends with every request.
const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// post2026 sends a 2026-07-28 request: the version header, Mcp-Method and,
// for tools/call, Mcp-Name as a client sends them, then the given headers
// (an empty value removes one).
func (e *env) post2026(tb testing.TB, body string, headers ...string) reply {
	tb.Helper()
	var msg struct {
		Method string
		Params struct{ Name string }
	}
	json.Unmarshal([]byte(body), &msg)
	std := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", msg.Method}
	if msg.Method == "tools/call" {
		std = append(std, "Mcp-Name", msg.Params.Name)
	}
	return e.post(tb, body, append(std, headers...)...)
}

// result2026 is what every 2026 result carries.
type result2026 struct {
	ResultType string `json:"resultType"`
	Meta       struct {
		ServerInfo *struct{ Name, Title, Version string } `json:"io.modelcontextprotocol/serverInfo"`
	} `json:"_meta"`
}

func (r result2026) check(tb testing.TB) {
	tb.Helper()
	if r.ResultType != "complete" {
		tb.Errorf("resultType %q, want complete", r.ResultType)
	}
	if si := r.Meta.ServerInfo; si == nil || si.Name != testInfo.Name || si.Version != testInfo.Version || si.Title != testInfo.Title {
		tb.Errorf("_meta serverInfo %+v, want %+v", si, testInfo)
	}
}

// TestModernErrors sends the 2026-07-28 requests of
// testdata/modern-errors.txtar and compares the answers with those
// recorded there (go test -update records them anew): each refusal's HTTP
// status, JSON-RPC code and message, with the request's id, and the
// results that go through.
func TestModernErrors(t *testing.T) {
	e := newEnv(t, storetest.Open(t, "sqlite"))
	golden := wiretest.Open(t, "testdata/modern-errors.txtar", "Content-Type")
	golden.Rewrite = oneJSONWording
	defaults := http.Header{
		"Content-Type":  {"application/json"},
		"Accept":        {"application/json, text/event-stream"},
		"Authorization": {fmt.Sprintf("Bearer user-%d", e.alice)},
	}
	for _, c := range golden.Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			res, err := http.DefaultClient.Do(c.Request(t, strings.TrimSuffix(e.url, "/mcp"), defaults))
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, c, res)
		})
	}
}

// TestModernNotifications checks that notifications and client responses
// of 2026 clients are accepted with 202 and no body.
func TestModernNotifications(t *testing.T) {
	e := newEnv(t, storetest.Open(t, "sqlite"))
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
	} {
		if r := e.post2026(t, body); r.status != http.StatusAccepted || len(r.body) != 0 {
			t.Errorf("%s: status %d body %q, want 202 and none", body, r.status, r.body)
		}
	}
}

// TestDiscover checks server/discover: the versions spoken, the tools
// capability, the instructions and the caching hints.
func TestDiscover(t *testing.T) {
	e := newEnv(t, storetest.Open(t, "sqlite"))
	r := e.post2026(t, `{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{`+meta2026+`}}`)
	var res struct {
		result2026
		SupportedVersions []string `json:"supportedVersions"`
		Capabilities      struct {
			Tools *struct{} `json:"tools"`
		} `json:"capabilities"`
		Instructions string `json:"instructions"`
		TTLMs        *int   `json:"ttlMs"`
		CacheScope   string `json:"cacheScope"`
	}
	if err := json.Unmarshal(r.rpc(t).Result, &res); err != nil || r.status != 200 {
		t.Fatalf("status %d, %v: %s", r.status, err, r.body)
	}
	res.check(t)
	if !slices.Equal(res.SupportedVersions, mcp.ProtocolVersions) || res.SupportedVersions[0] != "2026-07-28" {
		t.Errorf("supportedVersions %v, want %v", res.SupportedVersions, mcp.ProtocolVersions)
	}
	if res.Capabilities.Tools == nil || !strings.Contains(res.Instructions, "create_study") {
		t.Errorf("capabilities %+v, instructions %q", res.Capabilities, res.Instructions)
	}
	if res.TTLMs == nil || *res.TTLMs != 3_600_000 || res.CacheScope != "public" {
		t.Errorf("ttlMs %v cacheScope %q, want 3600000 and public", res.TTLMs, res.CacheScope)
	}
}

// TestModernToolsList checks that tools/list in 2026 lists the same tools,
// in the same fixed order, as in 2025, with the caching hints.
func TestModernToolsList(t *testing.T) {
	e := newEnv(t, storetest.Open(t, "sqlite"))
	type list struct {
		Tools      []json.RawMessage `json:"tools"`
		TTLMs      *int              `json:"ttlMs"`
		CacheScope *string           `json:"cacheScope"`
	}
	var legacy, modern list
	json.Unmarshal(e.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`).rpc(t).Result, &legacy)
	for range 2 {
		raw := e.post2026(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta2026+`}}`).rpc(t).Result
		var again list
		json.Unmarshal(raw, &again)
		if modern.Tools != nil && !slices.EqualFunc(modern.Tools, again.Tools, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
			t.Error("two 2026 tools/list answers differ")
		}
		modern = again
	}
	if len(modern.Tools) != 4 || !slices.EqualFunc(modern.Tools, legacy.Tools, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
		t.Errorf("2026 tools differ from 2025 tools:\n%s\n%s", modern.Tools, legacy.Tools)
	}
	if modern.TTLMs == nil || *modern.TTLMs != 3_600_000 || modern.CacheScope == nil || *modern.CacheScope != "public" {
		t.Errorf("ttlMs %v cacheScope %v, want 3600000 and public", modern.TTLMs, modern.CacheScope)
	}
	if legacy.TTLMs != nil || legacy.CacheScope != nil {
		t.Error("the 2025 tools/list carries 2026 caching hints")
	}
}

// TestModernToolResultsMatch checks that each tool answers a 2026 call with
// the same content and structured content as a 2025 one, errors included.
func TestModernToolResultsMatch(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	e := newEnv(t, db)
	st, qs := storetest.ReadyStudy(t, db, e.alice, "Cells", 3, 4)
	mustAnswerAll(t, db, e.alice, qs)
	calls := []struct{ name, args string }{
		{"get_study_status", `{"study_id":"` + st.ID + `"}`},
		{"get_study_status", `{"study_id":"st_missing"}`},
		{"list_studies", `{"status":"ready"}`},
		{"get_mastery", `{"study_id":"` + st.ID + `"}`},
		{"get_mastery", `{}`},
		{"create_study", `{"text":""}`},
	}
	for _, c := range calls {
		t.Run(c.name+" "+c.args, func(t *testing.T) {
			params := `"name":"` + c.name + `","arguments":` + c.args
			legacy := e.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+params+`}}`).rpc(t)
			r := e.post2026(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+params+`,`+meta2026+`}}`)
			modern := r.rpc(t)
			if r.status != 200 || modern.Error != nil {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			var a, b struct {
				result2026
				Content           json.RawMessage `json:"content"`
				StructuredContent json.RawMessage `json:"structuredContent"`
				IsError           bool            `json:"isError"`
			}
			json.Unmarshal(legacy.Result, &a)
			json.Unmarshal(modern.Result, &b)
			b.check(t)
			if string(a.Content) != string(b.Content) || string(a.StructuredContent) != string(b.StructuredContent) || a.IsError != b.IsError {
				t.Errorf("2025 result %s\n2026 result %s", legacy.Result, modern.Result)
			}
			if a.ResultType != "" {
				t.Errorf("the 2025 result carries resultType %q", a.ResultType)
			}
		})
	}
}

// TestModernGet checks that a 2026 client's GET and DELETE get 405 while
// a browser still gets the connect page.
func TestModernGet(t *testing.T) {
	e := newEnv(t, storetest.Open(t, "sqlite"))
	tests := []struct {
		method, accept string
		wantStatus     int
	}{
		{http.MethodGet, "application/json, text/event-stream", 405},
		{http.MethodGet, "application/json", 405},
		{http.MethodGet, "", 405},
		{http.MethodGet, "text/html", 200},
		{http.MethodDelete, "application/json", 405},
	}
	for _, tt := range tests {
		r := e.do(t, tt.method, "", "Accept", tt.accept, "Content-Type", "", "MCP-Protocol-Version", "2026-07-28")
		if r.status != tt.wantStatus {
			t.Errorf("%s Accept %q: status %d, want %d", tt.method, tt.accept, r.status, tt.wantStatus)
		}
		if tt.wantStatus == 405 && r.header.Get("Allow") != "POST" {
			t.Errorf("%s Accept %q: Allow %q", tt.method, tt.accept, r.header.Get("Allow"))
		}
	}
}

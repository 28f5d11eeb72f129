package mcp_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/store/storetest"
)

// TestStrictJSONRPC checks that a body is read one way only: invalid
// UTF-8, repeated members, members differing only in case and ids that are
// not short strings or safe integers are refused with id null, and the id
// sent is never echoed; limits are tested at the boundary.
func TestStrictJSONRPC(t *testing.T) {
	e := newEnv(t, storetest.Open(t, "sqlite"))
	idOfLen := func(n int) string { return `"` + strings.Repeat("i", n-2) + `"` } // n bytes with the quotes
	ping := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` }
	tests := []struct {
		name       string
		body       string
		wantStatus int
		wantCode   int    // 0: a result
		wantID     string // the id the answer carries
	}{
		{"invalid UTF-8 in a string id", "{\"jsonrpc\":\"2.0\",\"id\":\"a\xff\",\"method\":\"ping\"}", 400, -32700, `null`},
		{"invalid UTF-8 in the method", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\xc3ng\"}", 400, -32700, `null`},
		{"invalid UTF-8 in params", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xed\xa0\x80\"}}", 400, -32700, `null`},
		{"invalid UTF-8 in a tool argument", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"create_study\",\"arguments\":{\"text\":\"\xc0\xaf\"}}}", 400, -32700, `null`},
		{"escaped lone surrogate", `{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`, 400, -32700, `null`},
		{"byte order mark", "\xef\xbb\xbf" + ping(`1`), 400, -32700, `null`},
		{"trailing data", ping(`1`) + ` {}`, 400, -32700, `null`},
		{"escaped UTF-8 is fine", `{"jsonrpc":"2.0","id":"caf\u00e9","method":"ping"}`, 200, 0, `"caf\u00e9"`},

		{"upper-case members", `{"JSONRPC":"2.0","ID":1,"METHOD":"ping"}`, 400, -32600, `null`},
		{"a case variant beside the member", `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/call"}`, 400, -32600, `null`},
		{"a case variant of id", `{"jsonrpc":"2.0","id":1,"Id":2,"method":"ping"}`, 400, -32600, `null`},
		{"other members are ignored", `{"jsonrpc":"2.0","id":1,"method":"ping","trace":"x"}`, 200, 0, `1`},
		{"case variant in tools/call params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"NAME":"list_studies"}}`, 200, -32602, `1`},

		{"repeated method", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`, 400, -32600, `null`},
		{"repeated id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, 400, -32600, `null`},
		{"repeated jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"ping","jsonrpc":"1.0"}`, 400, -32600, `null`},
		{"repeated member in params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_studies","name":"create_study"}}`, 400, -32600, `null`},
		{"repeated member in arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_mastery","arguments":{"study_id":"a","study_id":"b"}}}`, 400, -32600, `null`},
		{"same name, other escapes", `{"jsonrpc":"2.0","id":1,"method":"ping","\u006dethod":"tools/list"}`, 400, -32600, `null`},

		{"string id at the limit", ping(idOfLen(256)), 200, 0, idOfLen(256)},
		{"string id over the limit", ping(idOfLen(257)), 400, -32600, `null`},
		{"largest integer id", ping(`9007199254740991`), 200, 0, `9007199254740991`},
		{"integer id over the limit", ping(`9007199254740992`), 400, -32600, `null`},
		{"smallest integer id", ping(`-9007199254740991`), 200, 0, `-9007199254740991`},
		{"integer id under the limit", ping(`-9007199254740992`), 400, -32600, `null`},
		{"long integer id", ping(strings.Repeat("9", 400)), 400, -32600, `null`},
		{"zero id", ping(`0`), 200, 0, `0`},
		{"fractional id", ping(`1.5`), 400, -32600, `null`},
		{"exponent id", ping(`1e3`), 400, -32600, `null`},
		{"negative zero id", ping(`-0`), 200, 0, `-0`},
		{"boolean id", ping(`true`), 400, -32600, `null`},
		{"array id", ping(`[1]`), 400, -32600, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.post(t, tt.body)
			if r.status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.status, tt.wantStatus, r.body)
			}
			out := r.rpc(t) // the answer is valid JSON whatever was sent
			if string(out.ID) != tt.wantID {
				t.Errorf("id %s, want %s", out.ID, tt.wantID)
			}
			if tt.wantCode == 0 {
				if out.Error != nil {
					t.Fatalf("error %d %s, want a result", out.Error.Code, out.Error.Message)
				}
				return
			}
			if out.Error == nil || out.Error.Code != tt.wantCode {
				t.Fatalf("body %s, want error %d", r.body, tt.wantCode)
			}
			if tt.wantID == `null` && bytes.Contains(r.body, []byte("iiii")) {
				t.Errorf("the refused id is echoed: %s", r.body)
			}
		})
	}
}

package mcp_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/studyloop/studyloop/server/store/storetest"
)

// FuzzPost posts arbitrary bodies, with an arbitrary protocol version
// header (and, for 2026-07-28, the body's method in Mcp-Method), to the
// running endpoint. The answer is never a 5xx: it is 202 with no body, or
// one of the documented statuses carrying one valid JSON-RPC response whose
// id is null, a string of at most 256 bytes or an integer within ±(2^53-1).
// A body that gets a result is valid UTF-8 JSON with unique member names.
// make fuzz runs it for 10 minutes.
func FuzzPost(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"abc"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_study","arguments":{"text":"# Notes\nCells divide."}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_studies","arguments":{"status":"ready","limit":5,"cursor":"MTIzLnN0X3g"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_study_status","arguments":{"study_id":"st_x"}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get_mastery","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_mastery","arguments":null}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":8,"result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-0.5,"method":"ping","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","jsonrpc":"1.0"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\",\"method\":\"ping\"}",
		`{"JSONRPC":"2.0","ID":1,"METHOD":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("x", 300) + `","method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta2026 + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_mastery","arguments":{},` + meta2026 + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{`, ``, `null`, `123`, `"s"`, `{"a":[[[[[[[[[[]]]]]]]]]]}`,
	}
	for i, s := range seeds {
		version := []string{"", "2025-11-25", "2026-07-28"}[i%3]
		f.Add([]byte(s), version)
	}
	e := newEnv(f, storetest.Open(f, "sqlite"))
	f.Fuzz(func(t *testing.T, body []byte, version string) {
		req, err := http.NewRequest(http.MethodPost, e.url, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer user-1")
		if version != "" {
			req.Header["Mcp-Protocol-Version"] = []string{version}
			var msg struct {
				Method string
				Params struct{ Name string }
			}
			json.Unmarshal(body, &msg)
			req.Header["Mcp-Method"] = []string{msg.Method}
			req.Header["Mcp-Name"] = []string{msg.Params.Name}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			// The client refuses some header values before sending.
			t.Skip(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		switch resp.StatusCode {
		case http.StatusAccepted:
			if buf.Len() != 0 {
				t.Fatalf("202 with body %q", buf.Bytes())
			}
			return
		case http.StatusOK, http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		default:
			t.Fatalf("status %d for body %q: %s", resp.StatusCode, body, buf.Bytes())
		}
		var msg map[string]json.RawMessage
		if err := json.Unmarshal(buf.Bytes(), &msg); err != nil {
			t.Fatalf("status %d, body %q is not a JSON object: %v", resp.StatusCode, buf.Bytes(), err)
		}
		if string(msg["jsonrpc"]) != `"2.0"` {
			t.Fatalf("jsonrpc %s in %s", msg["jsonrpc"], buf.Bytes())
		}
		id, ok := msg["id"]
		if !ok || !answerID(id) {
			t.Fatalf("id %q in %s", id, buf.Bytes())
		}
		_, hasResult := msg["result"]
		rawErr, hasError := msg["error"]
		if hasResult == hasError {
			t.Fatalf("want exactly one of result and error: %s", buf.Bytes())
		}
		if hasError {
			var rerr struct {
				Code    *int    `json:"code"`
				Message *string `json:"message"`
			}
			if err := json.Unmarshal(rawErr, &rerr); err != nil || rerr.Code == nil || rerr.Message == nil {
				t.Fatalf("error object %s", rawErr)
			}
		} else if resp.StatusCode != http.StatusOK {
			t.Fatalf("result with status %d", resp.StatusCode)
		} else if !jsontext.Value(body).IsValid() {
			t.Fatalf("body %q is not strict JSON but got a result", body)
		}
	})
}

// answerID reports whether an answer's id is one the server may send:
// null, a string of at most 256 bytes, or an integer within ±(2^53-1).
func answerID(id json.RawMessage) bool {
	switch {
	case string(id) == "null":
		return true
	case len(id) > 0 && id[0] == '"':
		return len(id) <= 256
	}
	n, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil && n >= -(1<<53-1) && n <= 1<<53-1
}

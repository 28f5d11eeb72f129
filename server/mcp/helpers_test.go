package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/mcp"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// testInfo is the identity the unit tests give the server; the test
// against the built site reads the real one from the server card.
var testInfo = mcp.ServerInfo{Name: "io.github.studyloop/studyloop", Title: "Studyloop", Version: "1.0.0", WebsiteURL: "https://studyloop.example/"}

// The real storage is what the tools need.
var _ mcp.Store = (*store.DB)(nil)

// env is a running /mcp endpoint over a real database, with two students.
type env struct {
	url        string
	db         *store.DB
	alice, bob int64
	notified   chan struct{}
}

// testAuth stands in for the bearer middleware in the unit tests: the
// token "user-N" authenticates user N. The end-to-end test runs the real
// OAuth flow instead.
func testAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer user-")
		id, err := strconv.ParseInt(tok, 10, 64)
		if !ok || err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(studyloop.ContextWithUserID(r.Context(), id)))
	})
}

// connectPage stands in for the site's negotiated connect page.
var connectPage = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, "<!doctype html><title>Connect</title>")
})

// newEnv starts the endpoint, wired as routes.go wires it, on loopback.
func newEnv(tb testing.TB, db *store.DB, allowedHosts ...string) *env {
	tb.Helper()
	e := &env{db: db, notified: make(chan struct{}, 1000)}
	srv, err := mcp.New(mcp.Options{
		Store:   db,
		Mastery: storetest.Service(db),
		Info:    testInfo,
		Notify:  func() { e.notified <- struct{}{} },
	})
	if err != nil {
		tb.Fatal(err)
	}
	mux := http.NewServeMux()
	ts := httptest.NewUnstartedServer(mux)
	ts.Start()
	tb.Cleanup(ts.Close)
	e.url = ts.URL + "/mcp"
	guard, err := mcp.Guard(mcp.GuardOptions{BaseURL: ts.URL, AllowedHosts: allowedHosts})
	if err != nil {
		tb.Fatal(err)
	}
	mux.Handle("POST /mcp", guard(testAuth(srv)))
	mux.Handle("OPTIONS /mcp", guard(nil))
	mux.Handle("GET /mcp", mcp.HandleGet(connectPage))
	mux.Handle("DELETE /mcp", guard(mcp.HandleMethodNotAllowed()))
	e.alice = storetest.Student(tb, db, "alice@example.com")
	e.bob = storetest.Student(tb, db, "bob@example.com")
	return e
}

// mustAnswerAll answers every question once, cycling through ratings.
func mustAnswerAll(tb testing.TB, db *store.DB, userID int64, qs []studyloop.Question) {
	tb.Helper()
	ratings := []fsrs.Rating{fsrs.Good, fsrs.Good, fsrs.Again, fsrs.Hard, fsrs.Easy}
	at := time.Now().Add(-time.Hour)
	for i, q := range qs {
		if _, err := storetest.Service(db).RecordAnswer(context.Background(), userID, q.ID, ratings[i%len(ratings)], at.Add(time.Duration(i)*time.Second)); err != nil {
			tb.Fatalf("answer: %v", err)
		}
	}
}

// reply is an HTTP answer from /mcp.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// rpcReply is a decoded JSON-RPC response.
type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (r reply) rpc(tb testing.TB) rpcReply {
	tb.Helper()
	var out rpcReply
	if err := json.Unmarshal(r.body, &out); err != nil {
		tb.Fatalf("status %d body %q is not JSON: %v", r.status, r.body, err)
	}
	if out.JSONRPC != "2.0" {
		tb.Fatalf("jsonrpc=%q in %s", out.JSONRPC, r.body)
	}
	return out
}

// do sends a request to /mcp. headers are key, value pairs; the defaults
// are a JSON content type, the Accept of MCP clients and alice's token.
func (e *env) do(tb testing.TB, method, body string, headers ...string) reply {
	tb.Helper()
	req, err := http.NewRequest(method, e.url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", fmt.Sprintf("Bearer user-%d", e.alice))
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: data}
}

func (e *env) post(tb testing.TB, body string, headers ...string) reply {
	tb.Helper()
	return e.do(tb, http.MethodPost, body, headers...)
}

// toolResult is a decoded tools/call result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// call calls a tool as the given user and returns its result, failing the
// test on any protocol error. A successful result must carry the same JSON
// as structured content and as text.
func (e *env) call(tb testing.TB, userID int64, name string, args any) toolResult {
	tb.Helper()
	params, err := json.Marshal(map[string]any{"name": name, "arguments": args})
	if err != nil {
		tb.Fatal(err)
	}
	r := e.post(tb, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":`+string(params)+`}`,
		"Authorization", fmt.Sprintf("Bearer user-%d", userID))
	if r.status != http.StatusOK {
		tb.Fatalf("tools/call %s: status %d: %s", name, r.status, r.body)
	}
	out := r.rpc(tb)
	if out.Error != nil {
		tb.Fatalf("tools/call %s: error %d %s", name, out.Error.Code, out.Error.Message)
	}
	var res toolResult
	if err := json.Unmarshal(out.Result, &res); err != nil {
		tb.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		tb.Fatalf("content = %+v, want one text item", res.Content)
	}
	if !res.IsError {
		var structured, text any
		if err := json.Unmarshal(res.StructuredContent, &structured); err != nil {
			tb.Fatalf("structuredContent: %v", err)
		}
		if err := json.Unmarshal([]byte(res.Content[0].Text), &text); err != nil {
			tb.Fatalf("text content is not JSON: %v", err)
		}
		a, _ := json.Marshal(structured)
		b, _ := json.Marshal(text)
		if !bytes.Equal(a, b) {
			tb.Fatalf("structuredContent %s differs from text %s", a, b)
		}
	}
	return res
}

// decode decodes a successful tool result's structured content.
func decode[T any](tb testing.TB, res toolResult) T {
	tb.Helper()
	var v T
	if res.IsError {
		tb.Fatalf("tool error: %s", res.Content[0].Text)
	}
	if err := json.Unmarshal(res.StructuredContent, &v); err != nil {
		tb.Fatal(err)
	}
	return v
}

// errorText returns a tool error's message, failing when the call did not
// fail.
func errorText(tb testing.TB, res toolResult) string {
	tb.Helper()
	if !res.IsError {
		tb.Fatalf("want a tool error, got %s", res.StructuredContent)
	}
	return res.Content[0].Text
}

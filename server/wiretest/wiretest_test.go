package wiretest

import (
	"net/http"
	"testing"
)

func TestParseRequest(t *testing.T) {
	tests := []struct {
		name, section string
		method, path  string
		header        http.Header
		body          string
	}{
		{"body", "POST /mcp\n\n{\"a\":1}\n", "POST", "/mcp", http.Header{}, `{"a":1}`},
		{"empty body", "POST /mcp\n\n\n", "POST", "/mcp", http.Header{}, ""},
		{"no body at all", "GET /x\n", "GET", "/x", http.Header{}, ""},
		{"leading space kept", "POST /mcp\n\n [1]\n", "POST", "/mcp", http.Header{}, " [1]"},
		{"body ending in a newline", "POST /mcp\n\nline\n\n", "POST", "/mcp", http.Header{}, "line\n"},
		{"headers", "POST /mcp\ncontent-type: text/plain\nAuthorization:\nMcp-Name:  spaced \n\nx\n", "POST", "/mcp",
			http.Header{"Content-Type": {"text/plain"}, "Authorization": {""}, "Mcp-Name": {" spaced "}}, "x"},
	}
	for _, tt := range tests {
		c, err := parseRequest(tt.name, []byte(tt.section))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if c.Method != tt.method || c.Path != tt.path || c.Body != tt.body || len(c.Header) != len(tt.header) {
			t.Errorf("%s: %s %s %v %q, want %s %s %v %q", tt.name, c.Method, c.Path, c.Header, c.Body, tt.method, tt.path, tt.header, tt.body)
			continue
		}
		for k, v := range tt.header {
			if c.Header.Get(k) != v[0] {
				t.Errorf("%s: header %s = %q, want %q", tt.name, k, c.Header.Get(k), v[0])
			}
		}
	}
	for _, bad := range []string{"", "POST\n", "POST /x\nno colon here\n\n"} {
		if _, err := parseRequest("bad", []byte(bad)); err == nil {
			t.Errorf("parseRequest(%q): no error", bad)
		}
	}
}

func TestRequestAppliesDefaultsAndOverrides(t *testing.T) {
	c := Case{Method: "POST", Path: "/mcp", Body: "{}", Header: http.Header{
		"Accept": {"application/json"}, "Authorization": {""}, "Host": {"evil.example"},
	}}
	req := c.Request(t, "http://127.0.0.1:1", http.Header{
		"Accept": {"text/html"}, "Authorization": {"Bearer x"}, "Content-Type": {"application/json"},
	})
	if req.Header.Get("Accept") != "application/json" || req.Header.Get("Authorization") != "" ||
		req.Header.Get("Content-Type") != "application/json" || req.Host != "evil.example" || req.URL.String() != "http://127.0.0.1:1/mcp" {
		t.Fatalf("request %s %v host %s", req.URL, req.Header, req.Host)
	}
}

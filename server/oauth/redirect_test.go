package oauth

import (
	"testing"

	"golang.org/x/oauth2"
)

func TestCheckRedirectURI(t *testing.T) {
	tests := []struct {
		uri string
		ok  bool
	}{
		{"https://app.example/callback", true},
		{"https://app.example:8443/cb?x=1", true},
		{"http://127.0.0.1/callback", true},
		{"http://127.0.0.1:8976/callback", true},
		{"http://[::1]:8976/callback", true},
		{"http://localhost:3000/cb", true},
		{"http://LOCALHOST/cb", true},
		{"http://app.example/callback", false},                       // remote http
		{"http://10.0.0.1/callback", false},                          // private, not loopback
		{"http://127.0.0.1.evil.example/cb", false},                  // lookalike host
		{"http://localhost.evil.example/cb", false},                  // lookalike host
		{"https://app.example/cb#frag", false},                       // fragment
		{"https://app.example/cb#", false},                           // empty fragment
		{"https://user:pw@app.example/cb", false},                    // user info
		{"https://user@app.example/cb", false},                       // user info
		{"/callback", false},                                         // relative
		{"app.example/callback", false},                              // no scheme
		{"javascript:alert(1)", false},                               // dangerous scheme
		{"myapp://callback", false},                                  // private-use scheme
		{"https:///path-only", false},                                // no host
		{"https://app.example/c b", false},                           // space
		{"https://app.example/cb\n", false},                          // control character
		{"https://\u0430pp.example/cb", false},                       // Cyrillic a: a lookalike host on the consent page
		{"https://app.example/\u202ebc", false},                      // bidi override in the path
		{"https://xn--pp-8kc.example/cb", true},                      // an international host in its ASCII (xn--) form
		{"", false},                                                  // empty
		{"https://app.example/" + string(make([]byte, 2001)), false}, // too long
	}
	for _, tt := range tests {
		if got := checkRedirectURI(tt.uri) == ""; got != tt.ok {
			t.Errorf("checkRedirectURI(%q) ok=%v, want %v (%s)", tt.uri, got, tt.ok, checkRedirectURI(tt.uri))
		}
	}
}

func TestMatchRedirectURI(t *testing.T) {
	registered := []string{"https://app.example/cb", "http://127.0.0.1/callback", "http://localhost:3000/cb?mode=cli", "http://[::1]/cb"}
	tests := []struct {
		presented string
		want      bool
	}{
		{"https://app.example/cb", true},
		{"https://app.example/cb/", false},              // exact comparison
		{"https://APP.example/cb", false},               // exact comparison
		{"https://app.example:443/cb", false},           // port only ignored on loopback
		{"https://app.example/cb?x=1", false},           // query added
		{"http://127.0.0.1/callback", true},             // registered as is
		{"http://127.0.0.1:51234/callback", true},       // any port on loopback
		{"http://127.0.0.1:51234/other", false},         // loopback path change
		{"http://127.0.0.1:51234/callback?x=1", false},  // loopback query change
		{"http://localhost:51234/callback", false},      // localhost is not 127.0.0.1
		{"http://localhost:9/cb?mode=cli", true},        // port differs, query same
		{"http://[::1]:4000/cb", true},                  // IPv6 loopback
		{"https://127.0.0.1:51234/callback", false},     // scheme differs
		{"http://user@127.0.0.1:51234/callback", false}, // user info
		{"http://127.0.0.1:51234/callback#x", false},    // fragment
		{"", false},
	}
	for _, tt := range tests {
		if got := matchRedirectURI(registered, tt.presented); got != tt.want {
			t.Errorf("matchRedirectURI(%q) = %v, want %v", tt.presented, got, tt.want)
		}
	}
}

func TestCanonicalResource(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://studyloop.example/mcp", "https://studyloop.example/mcp"},
		{"HTTPS://StudyLoop.Example/mcp/", "https://studyloop.example/mcp"},
		{"https://studyloop.example:443/mcp", "https://studyloop.example/mcp"},
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/mcp"},
		{"https://studyloop.example/", "https://studyloop.example"},
		{"https://studyloop.example/MCP", "https://studyloop.example/MCP"}, // paths are case-sensitive
		{"https://studyloop.example/mcp#x", ""},
		{"/mcp", ""},
		{"mcp", ""},
	}
	for _, tt := range tests {
		if got := canonicalResource(tt.in); got != tt.want {
			t.Errorf("canonicalResource(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestVerifyS256(t *testing.T) {
	// The challenge is computed by golang.org/x/oauth2, an independent
	// implementation of RFC 7636.
	verifier := oauth2.GenerateVerifier()
	challenge := oauth2.S256ChallengeFromVerifier(verifier)
	if !verifyS256(verifier, challenge) {
		t.Fatal("a verifier does not verify against its own challenge")
	}
	for _, bad := range []struct{ v, c string }{{verifier + "x", challenge}, {verifier, challenge[:42]}, {verifier, ""}, {"", challenge}, {verifier, verifier}} {
		if verifyS256(bad.v, bad.c) {
			t.Errorf("verifyS256(%q, %q) = true", bad.v, bad.c)
		}
	}
}

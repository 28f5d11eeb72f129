package web_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/store/storetest"
)

// Body kinds of the POST routes, as the caps test writes them.
const (
	formKind      = "form"      // application/x-www-form-urlencoded, with csrf_token
	jsonKind      = "json"      // a JSON object
	jsonRPCKind   = "jsonrpc"   // a JSON-RPC request to /mcp, with a bearer token
	multipartKind = "multipart" // an upload form, csrf_token first
)

// bodyCap is the cap one POST route puts on its body.
type bodyCap struct {
	pattern string // as routes.go registers it
	path    string // a path the pattern matches
	limit   int64
	kind    string
}

// postRouteCaps lists every POST route of routes.go with its cap. A route
// added without an entry here fails TestEveryPOSTRouteIsCapped.
var postRouteCaps = []bodyCap{
	{"POST /signup", "/signup", 64 << 10, formKind},
	{"POST /signin", "/signin", 64 << 10, formKind},
	{"POST /signout", "/signout", 64 << 10, formKind},
	{"POST /signin/forgot", "/signin/forgot", 64 << 10, formKind},
	{"POST /reset", "/reset", 64 << 10, formKind},
	{"POST /oauth/authorize", "/oauth/authorize", 64 << 10, formKind},
	{"POST /oauth/register", "/oauth/register", 64 << 10, jsonKind},
	{"POST /oauth/token", "/oauth/token", 64 << 10, formKind},
	{"POST /oauth/revoke", "/oauth/revoke", 64 << 10, formKind},
	{"POST /app/studies", "/app/studies", 4 << 20, formKind},
	{"POST /app/studies/pdf", "/app/studies/pdf", 41 << 20, multipartKind},
	{"POST /app/studies/photos", "/app/studies/photos", 41 << 20, multipartKind},
	{"POST /app/studies/{id}/rename", "/app/studies/st_x/rename", 64 << 10, formKind},
	{"POST /app/studies/{id}/settings", "/app/studies/st_x/settings", 64 << 10, formKind},
	{"POST /app/studies/{id}/delete", "/app/studies/st_x/delete", 64 << 10, formKind},
	{"POST /app/studies/{id}/questions/{qid}", "/app/studies/st_x/questions/1", 64 << 10, formKind},
	{"POST /app/studies/{id}/questions/{qid}/suspend", "/app/studies/st_x/questions/1/suspend", 64 << 10, formKind},
	{"POST /app/studies/{id}/questions/{qid}/delete", "/app/studies/st_x/questions/1/delete", 64 << 10, formKind},
	{"POST /app/studies/{id}/practice/check", "/app/studies/st_x/practice/check", 64 << 10, formKind},
	{"POST /app/studies/{id}/practice", "/app/studies/st_x/practice", 64 << 10, formKind},
	{"POST /app/practice/check", "/app/practice/check", 64 << 10, formKind},
	{"POST /app/practice", "/app/practice", 64 << 10, formKind},
	{"POST /app/account/password", "/app/account/password", 64 << 10, formKind},
	{"POST /app/account/delete", "/app/account/delete", 64 << 10, formKind},
	{"POST /app/assistants/{id}/revoke", "/app/assistants/1/revoke", 64 << 10, formKind},
	{"POST /de/app/", "/de/app/studies", 4 << 20, formKind},
	{"POST /mcp", "/mcp", 4 << 20, jsonRPCKind},
}

// postPatternsInRoutes reads routes.go and returns every pattern it
// registers that takes a POST: "POST ..." and patterns without a method.
func postPatternsInRoutes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "routes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || (sel.Sel.Name != "Handle" && sel.Sel.Name != "HandleFunc") {
			return true
		}
		switch arg := call.Args[0].(type) {
		case *ast.BasicLit:
			pattern, err := strconv.Unquote(arg.Value)
			if err != nil {
				t.Fatal(err)
			}
			if method, _, found := strings.Cut(pattern, " "); !found || method == http.MethodPost {
				patterns = append(patterns, pattern)
			}
		case *ast.BinaryExpr:
			// "GET "+path in a loop: only GET and OPTIONS may be built.
			prefix, ok := arg.X.(*ast.BasicLit)
			if !ok || !(strings.HasPrefix(prefix.Value, `"GET `) || strings.HasPrefix(prefix.Value, `"OPTIONS `)) {
				t.Errorf("routes.go builds a pattern this test cannot read: write POST patterns as literals")
			}
		default:
			t.Errorf("routes.go registers a pattern this test cannot read: write POST patterns as literals")
		}
		return true
	})
	return patterns
}

// TestEveryPOSTRouteHasACap fails when routes.go registers a route taking a
// POST that postRouteCaps does not list, or postRouteCaps lists one that
// routes.go no longer has.
func TestEveryPOSTRouteHasACap(t *testing.T) {
	var listed []string
	for _, c := range postRouteCaps {
		listed = append(listed, c.pattern)
	}
	registered := postPatternsInRoutes(t)
	for _, p := range registered {
		if !slices.Contains(listed, p) {
			t.Errorf("routes.go registers %q, which has no body cap in postRouteCaps", p)
		}
	}
	for _, p := range listed {
		if !slices.Contains(registered, p) {
			t.Errorf("postRouteCaps lists %q, which routes.go does not register", p)
		}
	}
}

// TestEveryPOSTRouteIsCapped sends every POST route a body of exactly its
// cap, which must pass the cap (whatever the route then makes of it), and
// one of a byte more, which must get 413 without credentials: the cap
// comes before any session, CSRF or bearer token check. A body of unknown
// length (chunked) running far past the cap must get 413 with credentials,
// the server having stopped reading soon after the cap.
func TestEveryPOSTRouteIsCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("sends some hundred MiB over loopback")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s := startAuthServer(t, storetest.Open(t, "sqlite"), map[string]string{"SMTP_URL": "smtp://127.0.0.1:1", "MAIL_FROM": "Studyloop <noreply@studyloop.example>"})
	b := newBrowser(t, s)
	b.signUp(t, "", "ada@example.com", "long enough password")
	csrf := b.get(t, "/app").csrf(t)
	accessToken := mcpAccessToken(t, s, "grace@example.com")
	signedIn := func(h http.Header) http.Header {
		h.Set("Cookie", b.cookieHeader(t))
		return h
	}

	// A wrong token: a body that passes the cap is refused afterwards,
	// with anything but 413, and changes nothing.
	const wrongToken = "not-the-token"
	for _, c := range postRouteCaps {
		t.Run(c.pattern, func(t *testing.T) {
			under := sendRaw(t, s.base, c.path, signedIn(capBodyHeader(c, accessToken)), capBody(c, wrongToken, c.limit), c.limit)
			if under.status == http.StatusRequestEntityTooLarge {
				t.Errorf("%d bytes, the cap: 413, want the body read: %s", c.limit, under.body)
			}
			over := sendRaw(t, s.base, c.path, capBodyHeader(c, ""), capBody(c, wrongToken, c.limit+1), c.limit+1)
			if over.status != http.StatusRequestEntityTooLarge {
				t.Errorf("%d bytes, one over the cap, no credentials: status %d, want 413: %.200s", c.limit+1, over.status, over.body)
			}
			if len(over.body) > 1000 || !strings.Contains(strings.ToLower(over.body), "too large") && !strings.Contains(over.body, "larger than") {
				t.Errorf("413 body %q: want a short message", over.body)
			}
			// Streamed past the cap with valid credentials, so that only the
			// cap can stop it.
			const beyond = 64 << 20
			streamed := sendRaw(t, s.base, c.path, signedIn(capBodyHeader(c, accessToken)), capBody(c, csrf, c.limit+beyond), -1)
			if streamed.status != http.StatusRequestEntityTooLarge {
				t.Errorf("%d bytes chunked: status %d, want 413: %.200s", c.limit+beyond, streamed.status, streamed.body)
			}
			// Loopback socket buffers hold a few MiB the server never read.
			if slack := int64(16 << 20); streamed.sent > c.limit+slack {
				t.Errorf("%d bytes chunked: the server took %d bytes, over the cap and %d more", c.limit+beyond, streamed.sent, slack)
			}
		})
	}
	assertEmptyDir(t, tmp)
}

// TestHugeMultipartToAFormRouteRefusedEarly streams 1 GiB of multipart to
// the pasted-text form without a CSRF token, as an attacker with an account
// would, declared and chunked: it is refused having read almost nothing,
// fast, and leaves no temporary file.
func TestHugeMultipartToAFormRouteRefusedEarly(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	b := newBrowser(t, s)
	b.signUp(t, "", "ada@example.com", "long enough password")
	c := bodyCap{path: "/app/studies", kind: multipartKind}
	const size = 1 << 30
	for _, length := range []int64{size, -1} {
		h := capBodyHeader(c, "")
		h.Set("Cookie", b.cookieHeader(t))
		got := sendRaw(t, s.base, c.path, h, capBody(c, "", size), length)
		if got.status != http.StatusRequestEntityTooLarge && got.status != http.StatusUnsupportedMediaType {
			t.Errorf("1 GiB multipart (length %d): status %d, want 413 or 415: %.200s", length, got.status, got.body)
		}
		if got.sent > 32<<20 {
			t.Errorf("1 GiB multipart (length %d): the server took %d bytes before refusing", length, got.sent)
		}
		// Generous for a busy machine; the refusal takes milliseconds.
		if got.elapsed > 10*time.Second {
			t.Errorf("1 GiB multipart (length %d): refused after %v", length, got.elapsed)
		}
		assertEmptyDir(t, tmp)
	}
}

// capBodyHeader is the request header for a body of c's kind; token is a
// bearer token for /mcp ("" for none).
func capBodyHeader(c bodyCap, token string) http.Header {
	h := http.Header{}
	switch c.kind {
	case formKind:
		h.Set("Content-Type", "application/x-www-form-urlencoded")
	case jsonKind:
		h.Set("Content-Type", "application/json")
	case jsonRPCKind:
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			h.Set("Authorization", "Bearer "+token)
		}
	case multipartKind:
		h.Set("Content-Type", "multipart/form-data; boundary="+capBoundary)
	}
	return h
}

const capBoundary = "capboundary"

// capBody is a body of c's kind of exactly size bytes, padded with a field
// of repeated letters and produced as it is read; csrf is the form's token.
func capBody(c bodyCap, csrf string, size int64) io.Reader {
	var head, tail string
	switch c.kind {
	case formKind:
		head, tail = url.Values{"csrf_token": {csrf}}.Encode()+"&pad=", ""
	case jsonKind:
		head, tail = `{"pad":"`, `"}`
	case jsonRPCKind:
		head, tail = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`, `"}}`
	case multipartKind:
		head = "--" + capBoundary + "\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n" + csrf + "\r\n" +
			"--" + capBoundary + "\r\nContent-Disposition: form-data; name=\"pdf\"; filename=\"big.pdf\"\r\nContent-Type: application/pdf\r\n\r\n"
		tail = "\r\n--" + capBoundary + "--\r\n"
	}
	pad := size - int64(len(head)+len(tail))
	if pad < 0 {
		panic(fmt.Sprintf("a %s body cannot be as small as %d bytes", c.kind, size))
	}
	return io.MultiReader(strings.NewReader(head), io.LimitReader(letters{}, pad), strings.NewReader(tail))
}

// letters reads as an endless run of the letter a.
type letters struct{}

func (letters) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// cookieHeader is the Cookie header the browser sends to its server.
func (b *browser) cookieHeader(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(b.s.base)
	if err != nil {
		t.Fatal(err)
	}
	var cookies []string
	for _, c := range b.c.Jar.Cookies(u) {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	return strings.Join(cookies, "; ")
}

// rawAnswer is what sendRaw saw.
type rawAnswer struct {
	status  int
	body    string        // the first 4 KiB
	sent    int64         // body bytes the connection took
	elapsed time.Duration // until the answer's header and body were read
}

// sendRaw POSTs body to path on a connection of its own, writing the body
// while it reads the answer, so that a server answering early is seen to
// do so and sent counts what the connection took. length is the declared
// Content-Length, or -1 to send the body chunked.
func sendRaw(t *testing.T, base, path string, header http.Header, body io.Reader, length int64) rawAnswer {
	t.Helper()
	u, _ := url.Parse(base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	var head bytes.Buffer
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: %s\r\n", path, u.Host)
	header.Write(&head)
	if length >= 0 {
		fmt.Fprintf(&head, "Content-Length: %d\r\n\r\n", length)
	} else {
		head.WriteString("Transfer-Encoding: chunked\r\n\r\n")
	}
	start := time.Now()
	if _, err := conn.Write(head.Bytes()); err != nil {
		t.Fatal(err)
	}
	counted := &countingWriter{w: conn}
	written := make(chan struct{})
	go func() {
		defer close(written)
		if length >= 0 {
			io.Copy(counted, body) //nolint:errcheck // stops when the server closes
			return
		}
		chunked := httputil.NewChunkedWriter(counted)
		if _, err := io.Copy(chunked, body); err == nil && chunked.Close() == nil {
			io.WriteString(conn, "\r\n") //nolint:errcheck // as above
		}
	}()
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	answer, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
	res.Body.Close()
	elapsed := time.Since(start)
	// The body's writer ends when all is sent or the server closes; a
	// server still reading after it answered is cut off here.
	select {
	case <-written:
	case <-time.After(5 * time.Second):
	}
	conn.Close()
	<-written
	return rawAnswer{status: res.StatusCode, body: string(answer), sent: counted.n.Load(), elapsed: elapsed}
}

// countingWriter counts the bytes its writer took.
type countingWriter struct {
	w io.Writer
	n atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

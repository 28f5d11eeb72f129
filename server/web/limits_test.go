package web_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/store/storetest"
)

// paddedForm is a URL-encoded form of exactly size bytes: the fields given
// and a pad field filling the rest.
func paddedForm(t *testing.T, fields url.Values, size int) string {
	t.Helper()
	head := fields.Encode() + "&pad="
	if len(head) > size {
		t.Fatalf("fields alone take %d bytes, over %d", len(head), size)
	}
	return head + strings.Repeat("a", size-len(head))
}

// TestFormBodyCaps posts each form route a body of exactly its limit and
// one byte more: the first is read (and answered as the form deserves), the
// second is refused with 413 before any session or CSRF check.
func TestFormBodyCaps(t *testing.T) {
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	b := newBrowser(t, s)
	b.signUp(t, "", "ada@example.com", "long enough password")
	csrf := b.get(t, "/app").csrf(t)

	const small, study = 64 << 10, 4 << 20
	tests := []struct {
		path  string
		limit int
	}{
		{"/signin", small},
		{"/signup", small},
		{"/signout", small},
		{"/oauth/authorize", small},
		{"/app/studies", study},
		{"/app/studies/1/practice", small},
	}
	for _, tt := range tests {
		for _, size := range []int{tt.limit, tt.limit + 1} {
			// No valid token: a read body fails later, with anything but 413.
			body := paddedForm(t, url.Values{"csrf_token": {"not-" + csrf}}, size)
			req, _ := http.NewRequest(http.MethodPost, s.base+tt.path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			p := b.do(t, req)
			tooLarge := p.status == http.StatusRequestEntityTooLarge
			if want := size > tt.limit; tooLarge != want {
				t.Errorf("POST %s with %d bytes: status %d, want 413: %v", tt.path, size, p.status, want)
			}
			if tooLarge && (len(p.body) > 200 || !strings.Contains(p.body, "too large")) {
				t.Errorf("POST %s 413 body %q: want a short message", tt.path, p.body)
			}
		}
	}
}

// TestPastedTextOfAnyScriptFitsTheFormCap sends the largest study text the
// service takes, 400,000 characters of a three-byte script, through the
// pasted-text form: the cap must not refuse what the study limit allows.
func TestPastedTextOfAnyScriptFitsTheFormCap(t *testing.T) {
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	b := newBrowser(t, s)
	b.signUp(t, "", "ada@example.com", "long enough password")
	csrf := b.get(t, "/app").csrf(t)
	text := strings.Repeat("漢字は文字。", 400_000/6)
	p := b.post(t, "/app/studies", url.Values{"csrf_token": {csrf}, "title": {"Kanji"}, "text": {text}})
	if p.status == http.StatusRequestEntityTooLarge {
		t.Fatalf("400,000 characters refused by the form cap: %s", p.body)
	}
}

// TestHugeDeclaredBodyRefusedUnread declares a 1 GiB multipart body to the
// pasted-text form and sends none of it: the answer must come at once, so
// nothing of the body was waited for, read or stored.
func TestHugeDeclaredBodyRefusedUnread(t *testing.T) {
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	b := newBrowser(t, s)
	b.signUp(t, "", "ada@example.com", "long enough password")
	u, _ := url.Parse(s.base)
	var cookies []string
	for _, c := range b.c.Jar.Cookies(u) {
		cookies = append(cookies, c.String())
	}
	for _, contentType := range []string{"multipart/form-data; boundary=x", "application/x-www-form-urlencoded"} {
		conn, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		// A server that waited for the body would never answer.
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(conn, "POST /app/studies HTTP/1.1\r\nHost: %s\r\nCookie: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
			u.Host, strings.Join(cookies, "; "), contentType, 1<<30)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: %v", contentType, err)
		}
		res.Body.Close()
		conn.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("%s, 1 GiB declared: status %d, want 413", contentType, res.StatusCode)
		}
	}
}

// TestMultipartOnlyOnUploadRoutes streams a multipart body without a
// declared length to a form route: it is refused without parsing, and no
// temporary file appears.
func TestMultipartOnlyOnUploadRoutes(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	b := newBrowser(t, s)
	b.signUp(t, "", "ada@example.com", "long enough password")

	body, contentType := multipartBody(t, map[string]string{"title": "Big"}, "text", bytes.Repeat([]byte("x"), 9<<20))
	req, _ := http.NewRequest(http.MethodPost, s.base+"/app/studies", io.MultiReader(bytes.NewReader(body))) // no ContentLength: chunked
	req.Header.Set("Content-Type", contentType)
	// The route answers before reading the body; with 100-continue the
	// client never starts sending it, so the refusal cannot race a reset.
	req.Header.Set("Expect", "100-continue")
	p := b.do(t, req)
	if p.status != http.StatusUnsupportedMediaType {
		t.Errorf("multipart to /app/studies: status %d, want 415", p.status)
	}
	assertEmptyDir(t, tmp)
}

// TestUploadLeavesNoTemporaryFiles sends upload forms larger than what the
// parser holds in memory, refused (no CSRF token, not a PDF) and accepted,
// and finds the temporary directory empty after each.
func TestUploadLeavesNoTemporaryFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	b := newBrowser(t, s)
	b.signUp(t, "", "ada@example.com", "long enough password")
	csrf := b.get(t, "/app").csrf(t)
	big := bytes.Repeat([]byte("x"), 9<<20)

	tests := []struct {
		name   string
		fields map[string]string
		want   int
	}{
		{"no CSRF token", map[string]string{"title": "Big"}, http.StatusForbidden},
		{"not a PDF", map[string]string{"title": "Big", "csrf_token": csrf}, http.StatusUnprocessableEntity},
	}
	for _, tt := range tests {
		body, contentType := multipartBody(t, tt.fields, "pdf", big)
		req, _ := http.NewRequest(http.MethodPost, s.base+"/app/studies/pdf", bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		p := b.do(t, req)
		if p.status != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, p.status, tt.want)
		}
		assertEmptyDir(t, tmp)
	}
}

func multipartBody(t *testing.T, fields map[string]string, fileField string, data []byte) ([]byte, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	// The CSRF token comes first, as the upload forms send it.
	if v, ok := fields["csrf_token"]; ok {
		mw.WriteField("csrf_token", v)
	}
	for k, v := range fields {
		if k != "csrf_token" {
			mw.WriteField(k, v)
		}
	}
	w, err := mw.CreateFormFile(fileField, "big.pdf")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	mw.Close()
	return body.Bytes(), mw.FormDataContentType()
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in the temporary directory: %s", e.Name())
	}
}

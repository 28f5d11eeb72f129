package web_test

import (
	"bytes"
	"image"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/extract/extracttest"
	"github.com/studyloop/studyloop/server/store/storetest"
)

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
	// A scanned page of noise: a PDF that deflate cannot shrink below
	// what the parser holds in memory.
	noise := image.NewGray(image.Rect(0, 0, 3200, 3200))
	rand.NewChaCha8([32]byte{}).Read(noise.Pix)
	scan := extracttest.PDF(t, []extracttest.Page{{Image: noise}}, nil)
	if len(scan) <= 8<<20 {
		t.Fatalf("the scanned PDF has %d bytes, too few to spill to a temporary file", len(scan))
	}

	tests := []struct {
		name   string
		fields map[string]string
		file   []byte
		want   int
	}{
		{"no CSRF token", map[string]string{"title": "Big"}, big, http.StatusForbidden},
		{"not a PDF", map[string]string{"title": "Big", "csrf_token": csrf}, big, http.StatusUnprocessableEntity},
		{"accepted", map[string]string{"title": "Scan", "csrf_token": csrf}, scan, http.StatusSeeOther},
	}
	for _, tt := range tests {
		body, contentType := multipartBody(t, tt.fields, "pdf", tt.file)
		// Written while the answer is read: a refusal before the end of
		// the body is an answer, not a broken write.
		h := http.Header{"Content-Type": {contentType}, "Cookie": {b.cookieHeader(t)}}
		got := sendRaw(t, s.base, "/app/studies/pdf", h, bytes.NewReader(body), int64(len(body)))
		if got.status != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, got.status, tt.want)
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

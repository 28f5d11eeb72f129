package webapp_test

import (
	"bytes"
	"context"
	"html"
	"io"
	"log"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/extract/extracttest"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// formFile is one file of a multipart form.
type formFile struct {
	field, name string
	data        []byte
}

// upload posts a multipart form.
func (s *student) upload(path string, fields url.Values, files ...formFile) page {
	s.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	// The CSRF token comes first, as the upload forms send it.
	for _, v := range fields["csrf_token"] {
		mw.WriteField("csrf_token", v)
	}
	for k, vs := range fields {
		for _, v := range vs {
			if k != "csrf_token" {
				mw.WriteField(k, v)
			}
		}
	}
	for _, f := range files {
		w, err := mw.CreateFormFile(f.field, f.name)
		if err != nil {
			s.t.Fatal(err)
		}
		w.Write(f.data)
	}
	mw.Close()
	resp, err := s.client.Post(s.e.srv.URL+path, mw.FormDataContentType(), &body)
	if err != nil {
		s.t.Fatal(err)
	}
	return readPage(s.t, resp)
}

func samplePDF(t *testing.T) []byte {
	return extracttest.PDF(t, []extracttest.Page{
		{Lines: []string{"Mitosis is the division of a cell nucleus."}},
		{Lines: []string{"Meiosis is the division that makes gametes."}},
	}, nil)
}

func TestUploadForms(t *testing.T) {
	x := extract.New(nil)
	pdf := samplePDF(t)
	photo := extracttest.PNG(t, extracttest.RenderText(t, []string{"Osmosis moves water."}))
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnvWith(t, db, x)
		alice := e.student(t, "alice@example.com")
		home := alice.get("/app")
		csrf := home.csrf(t)
		for _, want := range []string{`action="/app/studies/pdf"`, `enctype="multipart/form-data"`, `id="pages"`, "Up to 20 MiB and 200 pages"} {
			if !strings.Contains(home.body, want) {
				t.Fatalf("/app lacks %s", want)
			}
		}
		if x.OCRAvailable() == nil && !strings.Contains(home.body, `action="/app/studies/photos"`) {
			t.Fatal("/app lacks the photo form though OCR is available")
		}

		// A PDF with a page selection: a study at once, status uploaded,
		// the file and the selection stored with it.
		p := alice.upload("/app/studies/pdf", url.Values{"csrf_token": {csrf}, "pages": {" 2 "}}, formFile{"pdf", "Cell biology.pdf", pdf})
		if p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/app/studies/st_") {
			t.Fatalf("PDF upload: %d %s %s", p.status, p.location, p.body)
		}
		id := strings.TrimPrefix(p.location, "/app/studies/")
		st, err := db.GetStudy(context.Background(), alice.id, id)
		if err != nil {
			t.Fatal(err)
		}
		if st.Status != studyloop.StatusUploaded || st.Title != "Cell biology" {
			t.Fatalf("PDF study %q %s, want \"Cell biology\" uploaded", st.Title, st.Status)
		}
		sources, err := db.StudySources(context.Background(), id)
		if err != nil || len(sources) != 1 || sources[0].Kind != "pdf" || sources[0].Pages != "2" || !bytes.Equal(sources[0].Data, pdf) {
			t.Fatalf("stored sources %v, want the PDF with pages 2", err)
		}
		if e.notified.Load() == 0 {
			t.Error("no worker was woken")
		}

		// Photos, named by the first file.
		if x.OCRAvailable() == nil {
			p = alice.upload("/app/studies/photos", url.Values{"csrf_token": {csrf}, "title": {"Osmosis"}},
				formFile{"photos", "a.png", photo}, formFile{"photos", "b.png", photo})
			if p.status != http.StatusSeeOther {
				t.Fatalf("photo upload: %d %s", p.status, p.body)
			}
			id := strings.TrimPrefix(p.location, "/app/studies/")
			if sources, err := db.StudySources(context.Background(), id); err != nil || len(sources) != 2 || sources[1].Kind != "png" {
				t.Fatalf("stored photos: %d (%v), want 2 PNG", len(sources), err)
			}
		}
	})
}

func TestUploadFormsRefuseBadFiles(t *testing.T) {
	x := extract.New(nil)
	if err := x.OCRAvailable(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	pdf := samplePDF(t)
	photo := extracttest.PNG(t, extracttest.RenderText(t, []string{"Osmosis moves water."}))
	var elevenPhotos []formFile
	for i := range 11 {
		elevenPhotos = append(elevenPhotos, formFile{"photos", "p" + strconv.Itoa(i) + ".png", photo})
	}
	db := storetest.Open(t, "sqlite")
	e := newEnvWith(t, db, x)
	alice := e.student(t, "alice@example.com")
	csrf := alice.get("/app").csrf(t)
	tests := []struct {
		name   string
		path   string
		fields url.Values
		files  []formFile
		status int
		want   string
	}{
		{"renamed executable", "/app/studies/pdf", nil, []formFile{{"pdf", "notes.pdf", []byte("\x7fELF\x02\x01\x01\x00rest")}}, 422, "notes.pdf: The file is not a PDF, JPEG, PNG or HEIC image"},
		{"zero bytes", "/app/studies/pdf", nil, []formFile{{"pdf", "empty.pdf", nil}}, 422, "empty.pdf: The file is empty (0 bytes)."},
		{"no file", "/app/studies/pdf", nil, nil, 422, "Choose a file to upload."},
		{"a photo as PDF", "/app/studies/pdf", nil, []formFile{{"pdf", "x.png", photo}}, 422, "x.png is a photo, not a PDF"},
		{"bad page selection", "/app/studies/pdf", url.Values{"pages": {"three"}}, []formFile{{"pdf", "a.pdf", pdf}}, 422, `&#34;three&#34; in the page selection is not a page number`},
		{"backwards range", "/app/studies/pdf", url.Values{"pages": {"7-3"}}, []formFile{{"pdf", "a.pdf", pdf}}, 422, "runs backwards; write 3-7"},
		{"a PDF as photo", "/app/studies/photos", nil, []formFile{{"photos", "a.pdf", pdf}}, 422, "a.pdf is a PDF, not a photo"},
		{"20,000 x 20,000 photo", "/app/studies/photos", nil, []formFile{{"photos", "huge.png", extracttest.PNGHeader(20_000, 20_000)}}, 413, "huge.png: The image is 20,000 x 20,000 pixels"},
		{"eleven photos", "/app/studies/photos", nil, elevenPhotos, 413, "11 files were chosen; at most 10 can make one study."},
		{"file over 20 MiB", "/app/studies/pdf", nil, []formFile{{"pdf", "big.pdf", append(bytes.Clone(pdf), make([]byte, extract.MaxFileBytes)...)}}, 413, "big.pdf is larger than 20 MiB, the limit per file."},
		{"body over 41 MiB", "/app/studies/photos", nil, []formFile{{"photos", "a.jpg", make([]byte, 21<<20)}, {"photos", "b.jpg", make([]byte, 21<<20)}}, 413, "The upload is larger than 40 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields := url.Values{"csrf_token": {csrf}}
			for k, v := range tt.fields {
				fields[k] = v
			}
			p := alice.upload(tt.path, fields, tt.files...)
			if p.status != tt.status || !strings.Contains(p.body, tt.want) {
				t.Fatalf("status %d, want %d saying %q; body: %s", p.status, tt.status, tt.want, p.body)
			}
		})
	}
	// Without the CSRF token: refused.
	if p := alice.upload("/app/studies/pdf", nil, formFile{"pdf", "a.pdf", pdf}); p.status != http.StatusForbidden {
		t.Fatalf("upload without CSRF token: %d, want 403", p.status)
	}
	if list, _, err := db.ListStudies(context.Background(), alice.id, studyloop.ListStudiesParams{}); err != nil || len(list) != 0 {
		t.Fatalf("refused uploads stored %d studies (%v)", len(list), err)
	}
}

// Without Tesseract the photo form gives way to a notice saying how to
// install it, a photo post is refused with the same words, and PDFs work.
func TestUploadWithoutOCR(t *testing.T) {
	x := extract.New(&extract.Options{Path: extracttest.ToolDir(t, "pdfinfo", "pdftotext", "pdftoppm")})
	db := storetest.Open(t, "sqlite")
	e := newEnvWith(t, db, x)
	alice := e.student(t, "alice@example.com")
	home := alice.get("/app")
	want := html.EscapeString("Photo upload needs OCR, which is not installed on this server. OCR not available: install tesseract-ocr")
	if !strings.Contains(home.body, want) || strings.Contains(home.body, `action="/app/studies/photos"`) {
		t.Fatalf("/app without OCR: %s", home.body)
	}
	photo := extracttest.PNG(t, extracttest.RenderText(t, []string{"Osmosis moves water."}))
	p := alice.upload("/app/studies/photos", url.Values{"csrf_token": {home.csrf(t)}}, formFile{"photos", "a.png", photo})
	if p.status != 422 || !strings.Contains(p.body, "OCR not available: install tesseract-ocr") {
		t.Fatalf("photo post without OCR: %d %s", p.status, p.body)
	}
	if x.PDFAvailable() == nil {
		p = alice.upload("/app/studies/pdf", url.Values{"csrf_token": {home.csrf(t)}}, formFile{"pdf", "a.pdf", samplePDF(t)})
		if p.status != http.StatusSeeOther {
			t.Fatalf("PDF post without OCR: %d %s", p.status, p.body)
		}
	}
}

// A ready study made from uploads names the pages or photos of each topic.
func TestStudyPageNamesTopicSources(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnvWith(t, db, extract.New(nil))
		alice := e.student(t, "alice@example.com")
		ctx := context.Background()
		st, err := db.CreateUploadStudy(ctx, alice.id, "Handout", []studyloop.Upload{{Kind: "pdf", Data: []byte("%PDF-")}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.ClaimStudy(ctx, "w", time.Minute, store.AnyLane); err != nil {
			t.Fatal(err)
		}
		text := "## Page 2\n\nMeiosis makes gametes.\n\n## Page 3\n\nMitosis copies cells."
		split := strings.Index(text, "## Page 3")
		parts := []studyloop.SourcePart{{Label: "Page 2", Span: studyloop.Span{End: split - 2}}, {Label: "Page 3", Span: studyloop.Span{Start: split, End: len(text)}}}
		if err := db.SetStudyText(ctx, st.ID, "w", text, parts); err != nil {
			t.Fatal(err)
		}
		ex := studyloop.Extraction{
			Topics: []studyloop.Topic{
				{Parent: -1, Title: "Meiosis", Span: studyloop.Span{End: split - 2}},
				{Parent: -1, Title: "Mitosis", Span: studyloop.Span{Start: split, End: len(text)}},
				{Parent: -1, Title: "Cell division", Span: studyloop.Span{End: len(text)}},
			},
			Questions: []studyloop.Question{{Topic: 0, Type: studyloop.QuestionShortAnswer, Prompt: "What makes gametes?", Answer: "Meiosis", Source: studyloop.Span{End: 10}}},
		}
		if err := db.CompleteStudy(ctx, st.ID, "w", ex); err != nil {
			t.Fatal(err)
		}
		p := alice.get("/app/studies/" + st.ID)
		for _, want := range []string{`<th scope="col">From</th>`, `<td data-label="From" class="source">Page 2</td>`, `<td data-label="From" class="source">Page 3</td>`, `<td data-label="From" class="source">Page 2, Page 3</td>`} {
			if !strings.Contains(p.body, want) {
				t.Fatalf("study page lacks %s: %s", want, p.body)
			}
		}
	})
}

// trickle is a request body that hands out data a few bytes at a time,
// spread over about total, as a slow connection delivers an upload.
type trickle struct {
	data  []byte
	step  int
	pause time.Duration
}

func newTrickle(data []byte, total time.Duration) *trickle {
	const steps = 20
	return &trickle{data: data, step: max(len(data)/steps, 1), pause: total / steps}
}

func (tr *trickle) Read(p []byte) (int, error) {
	if len(tr.data) == 0 {
		return 0, io.EOF
	}
	time.Sleep(tr.pause)
	n := copy(p, tr.data[:min(tr.step, len(tr.data))])
	tr.data = tr.data[n:]
	return n, nil
}

// TestSlowUploadOutlastsServerTimeouts: the server's read and write
// timeouts, sized for ordinary pages, would cut off a large upload on a
// slow connection; the upload routes lift them. A server whose timeouts
// are 300 ms receives a PDF trickled over a second and makes the study.
func TestSlowUploadOutlastsServerTimeouts(t *testing.T) {
	x := extract.New(nil)
	if err := x.PDFAvailable(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	pdf := samplePDF(t)
	db := storetest.Open(t, "sqlite")
	e := newEnvWith(t, db, x)
	alice := e.student(t, "alice@example.com")
	csrf := alice.get("/app").csrf(t)

	slow := httptest.NewUnstartedServer(e.srv.Config.Handler)
	slow.Config.ReadHeaderTimeout = 300 * time.Millisecond
	slow.Config.ReadTimeout = 300 * time.Millisecond
	slow.Config.WriteTimeout = 300 * time.Millisecond
	slow.Config.ErrorLog = log.New(t.Output(), "slow server: ", 0)
	slow.Start()
	defer slow.Close()

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf_token", csrf)
	mw.WriteField("title", "Slow upload")
	fw, err := mw.CreateFormFile("pdf", "cells.pdf")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(pdf)
	mw.Close()
	// The session cookie is the one alice got from e.srv: a cookie is for
	// a host, whatever its port.
	req, err := http.NewRequest(http.MethodPost, slow.URL+"/app/studies/pdf", newTrickle(body.Bytes(), time.Second))
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(body.Len())
	req.Header.Set("Content-Type", mw.FormDataContentType())
	start := time.Now()
	resp, err := alice.client.Do(req)
	if err != nil {
		t.Fatalf("upload trickled over %v cut off: %v", time.Since(start).Round(time.Millisecond), err)
	}
	p := readPage(t, resp)
	if elapsed := time.Since(start); elapsed < 900*time.Millisecond {
		t.Fatalf("the upload took %v, not longer than the server's timeouts: the test proves nothing", elapsed)
	}
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/app/studies/st_") {
		t.Fatalf("slow upload: %d %s %s", p.status, p.location, p.body)
	}
	id := strings.TrimPrefix(p.location, "/app/studies/")
	sources, err := db.StudySources(context.Background(), id)
	if err != nil || len(sources) != 1 || !bytes.Equal(sources[0].Data, pdf) {
		t.Fatalf("stored sources: %d (%v), want the whole PDF", len(sources), err)
	}

	// Other pages keep the server's timeouts: a form trickled as slowly
	// to /app/studies is cut off.
	form := []byte(url.Values{"csrf_token": {csrf}, "title": {"Slow"}, "text": {"Osmosis is the movement of water."}}.Encode())
	req, err = http.NewRequest(http.MethodPost, slow.URL+"/app/studies", newTrickle(form, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if resp, err := alice.client.Do(req); err == nil {
		p := readPage(t, resp)
		if p.status == http.StatusSeeOther {
			t.Errorf("a text form trickled past the read timeout was accepted: %d %s", p.status, p.location)
		}
	}
}

// slowServer serves the env's handler with 300 ms read and write timeouts,
// standing in for the server's one-minute ones.
func slowServer(t *testing.T, e *env) *httptest.Server {
	t.Helper()
	slow := httptest.NewUnstartedServer(e.srv.Config.Handler)
	slow.Config.ReadHeaderTimeout = 300 * time.Millisecond
	slow.Config.ReadTimeout = 300 * time.Millisecond
	slow.Config.WriteTimeout = 300 * time.Millisecond
	slow.Config.ErrorLog = log.New(io.Discard, "", 0)
	slow.Start()
	t.Cleanup(slow.Close)
	return slow
}

// uploadBody is a PDF upload form whose parts come in the order given:
// "csrf" (with token), "title" and "pdf".
func uploadBody(t *testing.T, token string, pdf []byte, order ...string) ([]byte, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, part := range order {
		switch part {
		case "csrf":
			mw.WriteField("csrf_token", token)
		case "title":
			mw.WriteField("title", "Cells")
		case "pdf":
			fw, err := mw.CreateFormFile("pdf", "cells.pdf")
			if err != nil {
				t.Fatal(err)
			}
			fw.Write(pdf)
		}
	}
	mw.Close()
	return body.Bytes(), mw.FormDataContentType()
}

// dribble sends one byte every 50 ms.
type dribble struct{ data []byte }

func (d *dribble) Read(p []byte) (int, error) {
	if len(d.data) == 0 {
		return 0, io.EOF
	}
	time.Sleep(50 * time.Millisecond)
	p[0], d.data = d.data[0], d.data[1:]
	return 1, nil
}

// TestUploadDeadlineAfterToken: the upload routes lift the server's
// timeouts only for a request whose session CSRF token has arrived, in
// the X-CSRF-Token header or as the form's first part. Anything else is
// refused at once, or cut off by the server's own timeouts, and stores
// nothing.
func TestUploadDeadlineAfterToken(t *testing.T) {
	x := extract.New(nil)
	if err := x.PDFAvailable(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	pdf := samplePDF(t)
	db := storetest.Open(t, "sqlite")
	e := newEnvWith(t, db, x)
	alice := e.student(t, "alice@example.com")
	csrf := alice.get("/app").csrf(t)
	slow := slowServer(t, e)

	tests := []struct {
		name   string
		header string // X-CSRF-Token
		token  string
		order  []string
		body   func([]byte) io.Reader
		want   int // 0: cut off
	}{
		{"token first, trickled past the timeouts", "", csrf, []string{"csrf", "title", "pdf"}, func(b []byte) io.Reader { return newTrickle(b, time.Second) }, http.StatusSeeOther},
		{"token in the header, trickled", csrf, "", []string{"title", "pdf"}, func(b []byte) io.Reader { return newTrickle(b, time.Second) }, http.StatusSeeOther},
		{"token after the title", "", csrf, []string{"title", "csrf", "pdf"}, func(b []byte) io.Reader { return newTrickle(b, time.Second) }, http.StatusForbidden},
		{"wrong token", "", "x" + csrf, []string{"csrf", "title", "pdf"}, func(b []byte) io.Reader { return newTrickle(b, time.Second) }, http.StatusForbidden},
		{"first part dribbled", "", csrf, []string{"csrf", "title", "pdf"}, func(b []byte) io.Reader { return &dribble{data: b} }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := countStudies(t, db, alice.id)
			body, contentType := uploadBody(t, tt.token, pdf, tt.order...)
			req, err := http.NewRequest(http.MethodPost, slow.URL+"/app/studies/pdf", tt.body(body))
			if err != nil {
				t.Fatal(err)
			}
			req.ContentLength = int64(len(body))
			req.Header.Set("Content-Type", contentType)
			if tt.header != "" {
				req.Header.Set("X-CSRF-Token", tt.header)
			}
			start := time.Now()
			resp, err := alice.client.Do(req)
			status := 0
			if err == nil {
				status = readPage(t, resp).status
			}
			if tt.want == 0 && status/100 != 4 && status != 0 {
				t.Fatalf("status %d, want the request cut off or refused", status)
			}
			if tt.want != 0 && status != tt.want {
				t.Fatalf("status %d (%v), want %d", status, err, tt.want)
			}
			elapsed := time.Since(start)
			if tt.want != http.StatusSeeOther && elapsed > 700*time.Millisecond {
				t.Errorf("refused only after %v: the deadline was lifted before the token was checked", elapsed.Round(time.Millisecond))
			}
			added := countStudies(t, db, alice.id) - before
			if wantAdded := map[bool]int{true: 1, false: 0}[tt.want == http.StatusSeeOther]; added != wantAdded {
				t.Errorf("%d studies stored, want %d", added, wantAdded)
			}
		})
	}
}

// TestConcurrentUploadsPerAccount: two uploads of one account may arrive
// at once; a third is refused with 429 until one of them is done, while
// another account's upload goes through.
func TestConcurrentUploadsPerAccount(t *testing.T) {
	x := extract.New(nil)
	if err := x.PDFAvailable(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	pdf := samplePDF(t)
	db := storetest.Open(t, "sqlite")
	e := newEnvWith(t, db, x)
	alice, bob := e.student(t, "alice@example.com"), e.student(t, "bob@example.com")
	aliceToken, bobToken := alice.get("/app").csrf(t), bob.get("/app").csrf(t)
	send := func(s *student, token string, body io.Reader, size int, contentType string) int {
		req, err := http.NewRequest(http.MethodPost, e.srv.URL+"/app/studies/pdf", body)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = int64(size)
		req.Header.Set("Content-Type", contentType)
		resp, err := s.client.Do(req)
		if err != nil {
			t.Error(err)
			return 0
		}
		return readPage(t, resp).status
	}
	upload := func(s *student, token string, over time.Duration) int {
		body, contentType := uploadBody(t, token, pdf, "csrf", "title", "pdf")
		return send(s, token, newTrickle(body, over), len(body), contentType)
	}
	slowDone := make(chan int, 2)
	for range 2 {
		go func() { slowDone <- upload(alice, aliceToken, 1500*time.Millisecond) }()
	}
	time.Sleep(500 * time.Millisecond) // both have sent their tokens
	if got := upload(alice, aliceToken, 0); got != http.StatusTooManyRequests {
		t.Errorf("a third upload at once: %d, want 429", got)
	}
	if got := upload(bob, bobToken, 0); got != http.StatusSeeOther {
		t.Errorf("another account's upload: %d, want 303", got)
	}
	for range 2 {
		if got := <-slowDone; got != http.StatusSeeOther {
			t.Errorf("a slow upload: %d, want 303", got)
		}
	}
	if got := upload(alice, aliceToken, 0); got != http.StatusSeeOther {
		t.Errorf("an upload after the others ended: %d, want 303", got)
	}
}

// countStudies counts the user's studies.
func countStudies(t *testing.T, db *store.DB, user int64) int {
	t.Helper()
	n, err := db.NewSelect().Table("studies").Where("user_id = ?", user).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

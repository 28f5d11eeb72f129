package webapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/session"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/templates"
)

// MaxUploadBody bounds the body of an upload form: the files of one study
// (extract.MaxStudyBytes) and room for the other fields and the multipart
// framing.
const MaxUploadBody = extract.MaxStudyBytes + 1<<20

// uploadMemory is how much of a multipart body is held in memory while it
// is parsed; the rest of the files wait in temporary files.
const uploadMemory = 8 << 20

// uploadTimeout is how long an upload request may take to arrive and be
// answered, in place of the server's read and write timeouts (a minute),
// which would cut off MaxUploadBody on a connection slower than about
// 700 KB/s. Ten minutes let 41 MiB through at about 70 KB/s.
const uploadTimeout = 10 * time.Minute

// errUploadTooLarge is the message for a body over MaxUploadBody.
var errUploadTooLarge = studyloop.Errorf(studyloop.ETOOLARGE, "The upload is larger than %d MiB, the limit for one study's files.", extract.MaxStudyBytes>>20)

// MaxUploadsPerAccount is how many uploads of one account this process
// receives at once; one more is refused until one of them ends.
const MaxUploadsPerAccount = 2

// csrfPartLimit bounds the first part of an upload form, the CSRF token.
const csrfPartLimit = 1 << 10

// errUploadExpired is the message for an upload without its session's
// CSRF token.
var errUploadExpired = studyloop.Errorf(studyloop.EINVALID, "The form has expired. Reload the page and choose the files again.")

// ParseUpload reads a multipart upload form, at most MaxUploadBody bytes,
// for next. Routes put it between RequireUser and RequireCSRF. The CSRF
// token is checked first, under the server's own timeouts: from the
// X-CSRF-Token header or else the form's first part, which must be the
// csrf_token field (the upload forms put it first). Only then, and while
// the account has fewer than MaxUploadsPerAccount uploads arriving, does
// the request get uploadTimeout to arrive and be answered, and the rest of
// the body is parsed. So nobody can hold a slow connection open for ten
// minutes without a session and its token, and an account only a few. A
// body declared over the limit is refused before anything is read.
func (a *App) ParseUpload(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxUploadBody {
			a.renderHome(w, r, respond.StatusOf(errUploadTooLarge), homeForm{err: errUploadTooLarge})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxUploadBody)
		mr, err := r.MultipartReader()
		if err != nil {
			a.uploadUnreadable(w, r, err)
			return
		}
		token := r.Header.Get(session.CSRFHeader)
		if token == "" {
			if token, err = firstPartToken(mr); err != nil {
				a.uploadUnreadable(w, r, err)
				return
			}
		}
		if !a.sessions.CSRFTokenMatches(r.Context(), token) {
			w.Header().Set("Connection", "close")
			a.renderHome(w, r, http.StatusForbidden, homeForm{err: errUploadExpired})
			return
		}
		user, err := userID(r.Context())
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if !a.uploads.begin(user) {
			w.Header().Set("Connection", "close")
			w.Header().Set("Retry-After", "60")
			err := studyloop.Errorf(studyloop.EQUOTA, "%d uploads of yours are still arriving; wait until one has finished, then send this one again.", MaxUploadsPerAccount)
			a.renderHome(w, r, respond.StatusOf(err), homeForm{err: err})
			return
		}
		defer a.uploads.end(user)
		rc := http.NewResponseController(w)
		deadline := time.Now().Add(uploadTimeout)
		for _, set := range []func(time.Time) error{rc.SetReadDeadline, rc.SetWriteDeadline} {
			if err := set(deadline); err != nil {
				// The server's timeouts stay: a slow upload may be cut off.
				a.logger.Warn("upload: cannot extend the connection deadline", "err", err)
			}
		}
		form, err := mr.ReadForm(uploadMemory)
		if err != nil {
			a.uploadUnreadable(w, r, err)
			return
		}
		defer form.RemoveAll()
		form.Value[session.CSRFField] = []string{token}
		r.MultipartForm = form
		r.PostForm = url.Values(form.Value)
		r.Form = url.Values{}
		for k, v := range r.URL.Query() {
			r.Form[k] = v
		}
		for k, v := range form.Value {
			r.Form[k] = append(r.Form[k], v...)
		}
		next.ServeHTTP(w, r)
	})
}

// firstPartToken reads the first part of an upload form, which must be the
// CSRF token field; "" when it is another part.
func firstPartToken(mr *multipart.Reader) (string, error) {
	part, err := mr.NextPart()
	if err != nil {
		return "", err
	}
	defer part.Close()
	if part.FormName() != session.CSRFField || part.FileName() != "" {
		return "", nil
	}
	b, err := io.ReadAll(io.LimitReader(part, csrfPartLimit))
	return string(b), err
}

// uploadUnreadable answers an upload whose body could not be read: too
// large, or not a multipart form.
func (a *App) uploadUnreadable(w http.ResponseWriter, r *http.Request, err error) {
	w.Header().Set("Connection", "close")
	if errors.As(err, new(*http.MaxBytesError)) {
		a.renderHome(w, r, respond.StatusOf(errUploadTooLarge), homeForm{err: errUploadTooLarge})
		return
	}
	a.renderHome(w, r, http.StatusBadRequest, homeForm{err: studyloop.Errorf(studyloop.EINVALID, "The upload could not be read; choose the files and send the form again.")})
}

// uploadSlots counts the uploads of each account arriving in this process.
type uploadSlots struct {
	mu     sync.Mutex
	active map[int64]int
}

// begin takes a slot for the user, or reports that all are taken.
func (u *uploadSlots) begin(user int64) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.active[user] >= MaxUploadsPerAccount {
		return false
	}
	u.active[user]++
	return true
}

// end gives the user's slot back.
func (u *uploadSlots) end(user int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.active[user]--; u.active[user] <= 0 {
		delete(u.active, user)
	}
}

// uploadedFile is one file of an upload form, checked by content.
type uploadedFile struct {
	name string
	kind extract.Kind
	data []byte
}

// readFiles reads the files of a form field, at most limit of them, each
// checked with extract.CheckFile (content, size, image dimensions), and
// the whole held to extract.MaxStudyBytes.
func readFiles(r *http.Request, field string, limit int) ([]uploadedFile, error) {
	var headers []*multipart.FileHeader
	if r.MultipartForm != nil {
		headers = r.MultipartForm.File[field]
	}
	if len(headers) == 0 {
		return nil, studyloop.Errorf(studyloop.EINVALID, "Choose a file to upload.")
	}
	if len(headers) > limit {
		return nil, studyloop.Errorf(studyloop.ETOOLARGE, "%d files were chosen; at most %d can make one study.", len(headers), limit)
	}
	files := make([]uploadedFile, 0, len(headers))
	total := 0
	for _, h := range headers {
		data, err := readFile(h)
		if err != nil {
			return nil, err
		}
		name := displayName(h.Filename)
		kind, err := extract.CheckFile(data)
		if err != nil {
			return nil, studyloop.Errorf(studyloop.ErrorCode(err), "%s: %s", name, studyloop.ErrorMessage(err))
		}
		total += len(data)
		if total > extract.MaxStudyBytes {
			return nil, studyloop.Errorf(studyloop.ETOOLARGE, "The files add up to more than %d MiB, the limit for one study.", extract.MaxStudyBytes>>20)
		}
		files = append(files, uploadedFile{name: name, kind: kind, data: data})
	}
	return files, nil
}

// readFile reads one uploaded file, refusing it past extract.MaxFileBytes.
func readFile(h *multipart.FileHeader) ([]byte, error) {
	f, err := h.Open()
	if err != nil {
		return nil, fmt.Errorf("webapp: open upload: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, extract.MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("webapp: read upload: %w", err)
	}
	if len(data) > extract.MaxFileBytes {
		return nil, studyloop.Errorf(studyloop.ETOOLARGE, "%s is larger than %d MiB, the limit per file.", displayName(h.Filename), extract.MaxFileBytes>>20)
	}
	return data, nil
}

// displayName is a file's name as the browser sent it, cut to its last
// path element and 80 characters, for messages and default titles only.
func displayName(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, `\`, "/"))
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if r := []rune(name); len(r) > 80 {
		name = string(r[:80])
	}
	if name == "" || name == "." || name == "/" {
		return "The file"
	}
	return name
}

// defaultTitle names a study after its first file when no title is given.
func defaultTitle(title string, files []uploadedFile, fallback string) string {
	if strings.TrimSpace(title) != "" || len(files) == 0 {
		return title
	}
	name := strings.TrimSuffix(files[0].name, filepath.Ext(files[0].name))
	if _, err := studyloop.StudyTitle(name, ""); err != nil || strings.TrimSpace(name) == "" || name == "The file" {
		name = fallback
	}
	if len(files) > 1 {
		name = fmt.Sprintf("%s and %d more", name, len(files)-1)
	}
	return name
}

// CreateFromPDF creates a study from an uploaded PDF and a page selection
// such as "3-7, 10" (blank: every page). The file is checked by content,
// size and page count (pdfinfo) and the selection against the pages at
// once; the study is stored with status uploaded and the PDF, and a worker
// reads the pages. Errors show the form again with the reason beside the
// field it is about. POST /app/studies/pdf, after ParseUpload.
func (a *App) CreateFromPDF() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		title, pages := r.PostFormValue("title"), strings.TrimSpace(r.PostFormValue("pages"))
		form := homeForm{title: title, pages: pages}
		err := a.extractor.PDFAvailable()
		var files []uploadedFile
		if err == nil {
			files, err = readFiles(r, "pdf", 1)
			err = studyloop.InField(err, "pdf")
		}
		if err == nil && files[0].kind != extract.KindPDF {
			err = studyloop.Errorf(studyloop.EINVALID, "%s is a photo, not a PDF; upload it with the photo form.", files[0].name).In("pdf")
		}
		if err == nil && pages != "" {
			// The form of the selection first, without running a tool.
			_, err = extract.ParsePages(pages, math.MaxInt32)
			err = studyloop.InField(err, "pages")
		}
		var count int
		if err == nil {
			count, err = a.extractor.PDFPageCount(r.Context(), files[0].data)
			err = studyloop.InField(err, "pdf")
		}
		var selected []int
		if err == nil {
			// Pages outside the document, or too many of them, are refused
			// now rather than when the worker reads the PDF.
			selected, err = extract.ParsePages(pages, count)
			err = studyloop.InField(err, "pages")
		}
		if err != nil {
			a.formFailed(w, r, form, err)
			return
		}
		upload := studyloop.Upload{Kind: string(extract.KindPDF), Pages: pages, PageCount: len(selected), Data: files[0].data}
		a.createUploadStudy(w, r, form, defaultTitle(title, files, "PDF"), []studyloop.Upload{upload})
	})
}

// CreateFromPhotos creates a study from up to extract.MaxPhotos photos of
// notes or a handout (JPEG, PNG, HEIC), read by OCR in the worker. Without
// OCR on the server it refuses, saying how to install it. POST
// /app/studies/photos, after ParseUpload.
func (a *App) CreateFromPhotos() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		title := r.PostFormValue("title")
		form := homeForm{title: title}
		err := a.extractor.OCRAvailable()
		var files []uploadedFile
		if err == nil {
			files, err = readFiles(r, "photos", extract.MaxPhotos)
			err = studyloop.InField(err, "photos")
		}
		if err != nil {
			a.formFailed(w, r, form, err)
			return
		}
		uploads := make([]studyloop.Upload, len(files))
		for i, f := range files {
			if !f.kind.IsPhoto() {
				a.formFailed(w, r, form, studyloop.Errorf(studyloop.EINVALID, "%s is a PDF, not a photo; upload it with the PDF form.", f.name).In("photos"))
				return
			}
			uploads[i] = studyloop.Upload{Kind: string(f.kind), PageCount: 1, Data: f.data}
		}
		a.createUploadStudy(w, r, form, defaultTitle(title, files, "Photos"), uploads)
	})
}

func (a *App) createUploadStudy(w http.ResponseWriter, r *http.Request, form homeForm, title string, uploads []studyloop.Upload) {
	ctx := r.Context()
	user, err := userID(ctx)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	st, err := a.db.CreateUploadStudy(ctx, user, title, uploads)
	if err != nil {
		a.formFailed(w, r, form, err)
		return
	}
	a.notify()
	http.Redirect(w, r, studyURL(st.ID), http.StatusSeeOther)
}

// uploadForms fills what /app shows of the upload forms: the limits, the
// page selection to show again, and why a form is not offered.
func (a *App) uploadForms(p *templates.AppHomeProps, form homeForm) {
	p.PagesValue = form.pages
	p.MaxFileMiB = extract.MaxFileBytes >> 20
	p.MaxStudyMiB = extract.MaxStudyBytes >> 20
	p.MaxPhotos = extract.MaxPhotos
	p.MaxPDFPages = extract.MaxPDFPages
	if err := a.extractor.PDFAvailable(); err != nil {
		p.PDFUnavailable = studyloop.ErrorMessage(err)
	}
	if err := a.extractor.OCRAvailable(); err != nil {
		p.OCRUnavailable = studyloop.ErrorMessage(err)
	}
}

// topicSources fills the From column of a ready study's topics: the pages
// or photos each topic's text came from. Studies made from pasted text
// have no parts and show no column.
func (a *App) topicSources(ctx context.Context, user int64, studyID string, m studyloop.StudyMastery, p *templates.StudyPageProps) error {
	parts, err := a.db.SourceParts(ctx, user, studyID)
	if err != nil || len(parts) == 0 {
		return err
	}
	topics, err := a.db.Topics(ctx, user, studyID)
	if err != nil {
		return err
	}
	spans := make(map[int64]studyloop.Span, len(topics))
	for _, t := range topics {
		spans[t.ID] = t.Span
	}
	p.HasSources = true
	for i, t := range m.Topics {
		if i < len(p.Topics) {
			p.Topics[i].Source = strings.Join(studyloop.SourceLabels(parts, spans[t.TopicID]), ", ")
		}
	}
	return nil
}

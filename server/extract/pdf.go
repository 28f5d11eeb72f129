package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/studyloop/studyloop/server/studyloop"
)

// Rendering of pages without a text layer, for OCR.
const (
	renderDPI     = 200  // Tesseract reads best at 200-300 dpi
	maxRenderSide = 5000 // pixels; larger pages are rendered at a lower dpi
	minRenderDPI  = 20   // below this a page is too large to read
)

// Part is the text of one PDF page or one photo.
type Part struct {
	Label string // "Page 3", "Photo 2"
	Text  string // cleaned text, possibly empty
}

// PageLabel names page n of a PDF.
func PageLabel(n int) string { return "Page " + strconv.Itoa(n) }

// PhotoLabel names the n-th photo (from 1) of a study.
func PhotoLabel(n int) string { return "Photo " + strconv.Itoa(n) }

// PDF extracts the text of the selected pages (see ParsePages; blank means
// all) from the PDF in data, one Part per page in page order. Pages
// without a text layer are rendered and read by OCR. When OCR is not
// available such pages are left empty, and if no selected page has text
// the error says the PDF looks scanned and OCR is needed.
func (x *Extractor) PDF(ctx context.Context, data []byte, selection string) ([]Part, error) {
	return x.PDFWithProgress(ctx, data, selection, nil)
}

// PDFWithProgress is PDF telling progress, when not nil, how many of the
// selected pages are read as that number grows: the pages with a text
// layer at once, then each page read by OCR.
func (x *Extractor) PDFWithProgress(ctx context.Context, data []byte, selection string, progress func(pagesDone int)) ([]Part, error) {
	if progress == nil {
		progress = func(int) {}
	}
	if err := x.PDFAvailable(); err != nil {
		return nil, err
	}
	dir, path, err := x.pdfFile(data)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	count, err := x.pageCount(ctx, path)
	if err != nil {
		return nil, err
	}
	pages, err := ParsePages(selection, count)
	if err != nil {
		return nil, err
	}
	texts, err := x.pageTexts(ctx, path, pages)
	if err != nil {
		return nil, err
	}
	parts := make([]Part, len(pages))
	scanned := 0  // pages left unread for want of OCR
	var ocr []int // indexes of the pages to read by OCR
	for i, p := range pages {
		parts[i] = Part{Label: PageLabel(p), Text: texts[i]}
		switch {
		case parts[i].Text != "":
		case x.ocrError != nil:
			scanned++
		default:
			ocr = append(ocr, i)
		}
	}
	done := len(pages) - len(ocr)
	progress(done)
	for _, i := range ocr {
		if parts[i].Text, err = x.ocrPage(ctx, path, dir, pages[i]); err != nil {
			return nil, err
		}
		done++
		progress(done)
	}
	texts = make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.Text
	}
	for i, t := range dropRunningLines(texts) {
		parts[i].Text = layout(t)
	}
	if scanned == len(pages) {
		return nil, studyloop.Errorf(studyloop.EINVALID, "The selected pages (%s) have no text layer, as in a scanned PDF, and OCR is not available on this server to read them (install tesseract-ocr).", FormatPages(pages))
	}
	if !hasText(parts) {
		return nil, studyloop.Errorf(studyloop.EINVALID, "No text could be found on the selected pages (%s), not even by OCR.", FormatPages(pages))
	}
	return parts, nil
}

// PDFPageCount checks data as a whole PDF upload, as PDF does, and returns
// its number of pages, so that an upload can be judged before it is queued.
func (x *Extractor) PDFPageCount(ctx context.Context, data []byte) (int, error) {
	if err := x.PDFAvailable(); err != nil {
		return 0, err
	}
	dir, path, err := x.pdfFile(data)
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	return x.pageCount(ctx, path)
}

func hasText(parts []Part) bool {
	for _, p := range parts {
		if p.Text != "" {
			return true
		}
	}
	return false
}

// pdfFile checks data as a whole PDF upload and copies it to a temporary
// file for the tools.
func (x *Extractor) pdfFile(data []byte) (dir, path string, err error) {
	kind, err := CheckFile(data)
	if err != nil {
		return "", "", err
	}
	if kind != KindPDF {
		return "", "", studyloop.Errorf(studyloop.EINVALID, "The file is a %s image, not a PDF.", kindName(kind))
	}
	// A complete PDF ends with %%EOF within its last kilobyte (PDF 32000-1,
	// 7.5.5); a missing marker means an interrupted upload or download.
	if !bytes.Contains(data[max(0, len(data)-1024):], []byte("%%EOF")) {
		return "", "", studyloop.Errorf(studyloop.EINVALID, "The PDF is incomplete (cut off before its end); upload the whole file again.")
	}
	return x.tempFile(data, "upload.pdf")
}

var (
	pagesLine    = regexp.MustCompile(`(?m)^Pages:\s+(\d+)\s*$`)
	pageSizeLine = regexp.MustCompile(`(?m)^Page\s+\d+\s+size:\s+([0-9.]+)\s+x\s+([0-9.]+)\s+pts`)
)

// errEncrypted is the message for password-protected PDFs.
var errEncrypted = studyloop.Errorf(studyloop.EINVALID, "The PDF is encrypted (password-protected); remove the password, for example by printing it to a new PDF, and upload it again.")

// errDamagedPDF is the message for PDFs poppler cannot parse.
var errDamagedPDF = studyloop.Errorf(studyloop.EINVALID, "The PDF is damaged and could not be read.")

// pageCount runs pdfinfo on the file at path.
func (x *Extractor) pageCount(ctx context.Context, path string) (int, error) {
	out := &capped{limit: 64 << 10, strict: true}
	if err := x.run(ctx, out, toolPDFInfo, path); err != nil {
		return 0, x.pdfError(err)
	}
	m := pagesLine.FindStringSubmatch(out.String())
	if m == nil {
		return 0, errDamagedPDF
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n <= 0 {
		return 0, studyloop.Errorf(studyloop.EINVALID, "The PDF has no pages.")
	}
	return n, nil
}

// pdfError words a failed poppler run for the student.
func (x *Extractor) pdfError(err error) error {
	var te *toolError
	if !errors.As(err, &te) {
		return err
	}
	if errors.Is(err, errTimeout) || errors.Is(err, errMemory) || errors.Is(err, errOutput) {
		return x.describe(err, "the PDF")
	}
	if strings.Contains(te.Stderr, "Incorrect password") || strings.Contains(te.Stderr, "nsupported encryption") {
		return errEncrypted
	}
	return fmt.Errorf("%w (%v)", errDamagedPDF, err)
}

// pageTexts runs pdftotext once per run of consecutive pages and returns
// the cleaned text of each page. pdftotext ends every page with a form
// feed. The output of the whole PDF is capped at x.maxText bytes.
func (x *Extractor) pageTexts(ctx context.Context, path string, pages []int) ([]string, error) {
	texts := make([]string, 0, len(pages))
	used := 0
	for i := 0; i < len(pages); {
		j := i
		for j+1 < len(pages) && pages[j+1] == pages[j]+1 {
			j++
		}
		out := &capped{limit: x.maxText - used, strict: true}
		err := x.run(ctx, out, toolPDFToText,
			"-f", strconv.Itoa(pages[i]), "-l", strconv.Itoa(pages[j]),
			"-enc", "UTF-8", "-eol", "unix", path, "-")
		if err != nil {
			return nil, x.pdfError(err)
		}
		used += out.buf.Len()
		chunks := strings.Split(out.String(), "\f")
		for k := range j - i + 1 {
			text := ""
			if k < len(chunks) {
				text = cleanText(chunks[k])
			}
			texts = append(texts, text)
		}
		i = j + 1
	}
	return texts, nil
}

// ocrPage renders page n to a grey PNG in dir and reads it with Tesseract.
func (x *Extractor) ocrPage(ctx context.Context, path, dir string, n int) (string, error) {
	page := strconv.Itoa(n)
	info := &capped{limit: 64 << 10, strict: true}
	if err := x.run(ctx, info, toolPDFInfo, "-f", page, "-l", page, path); err != nil {
		return "", x.pdfError(err)
	}
	dpi := renderDPI
	if m := pageSizeLine.FindStringSubmatch(info.String()); m != nil {
		w, _ := strconv.ParseFloat(m[1], 64)
		h, _ := strconv.ParseFloat(m[2], 64)
		side := math.Max(w, h) / 72 // inches
		if side*renderDPI > maxRenderSide {
			dpi = int(maxRenderSide / side)
		}
	}
	if dpi < minRenderDPI {
		return "", studyloop.Errorf(studyloop.EINVALID, "Page %d is too large to render for OCR.", n)
	}
	prefix := filepath.Join(dir, "page-"+page)
	err := x.run(ctx, &capped{limit: 4 << 10}, toolPDFToPPM,
		"-f", page, "-l", page, "-r", strconv.Itoa(dpi), "-gray", "-png", "-singlefile", path, prefix)
	if err != nil {
		return "", x.pdfError(err)
	}
	defer os.Remove(prefix + ".png")
	text, err := x.ocr(ctx, prefix+".png")
	if err != nil {
		return "", x.describe(err, "page "+page)
	}
	return text, nil
}

// ocr reads the text of the image file at path with Tesseract. The file's
// content must already be known to be an image: given anything else,
// Tesseract would read it as a list of image file names.
func (x *Extractor) ocr(ctx context.Context, path string) (string, error) {
	if x.ocrError != nil {
		return "", x.ocrError
	}
	out := &capped{limit: x.maxText, strict: true}
	if err := x.run(ctx, out, toolTesseract, path, "stdout", "-l", "eng"); err != nil {
		return "", err
	}
	return cleanText(out.String()), nil
}

// cleanText makes tool output into study text: valid UTF-8 without
// control characters other than newline and tab, lines without trailing
// spaces, at most one blank line in a row, no blank lines around.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r < 0x20 || r == 0x7f || r == '\ufeff':
			return -1
		}
		return r
	}, s)
	var b strings.Builder
	blank := 0
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimRight(line, " \t\u00a0")
		if strings.TrimSpace(line) == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
			if blank > 0 {
				b.WriteString("\n")
			}
		}
		blank = 0
		b.WriteString(line)
	}
	return b.String()
}

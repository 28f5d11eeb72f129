package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/extract/extracttest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// requireTools skips a test when poppler (and, with ocr, tesseract) is not
// installed, and fails it instead under CI, where .ci/run installs them.
func requireTools(t testing.TB, x *Extractor, ocr bool) {
	t.Helper()
	missing := x.PDFAvailable()
	if missing == nil && ocr {
		missing = x.OCRAvailable()
	}
	if missing == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("tools missing under CI: %v", missing)
	}
	t.Skipf("tools missing: %v", missing)
}

// withoutTools returns a PATH directory holding links to the real tools
// except those named.
func withoutTools(t *testing.T, except ...string) string {
	t.Helper()
	var keep []string
	for _, name := range toolNames {
		if !slices.Contains(except, name) {
			keep = append(keep, name)
		}
	}
	return extracttest.ToolDir(t, keep...)
}

// The known text of the test documents: each page says which page it is,
// so a test can tell that only the chosen pages were read.
var pageLines = [][]string{
	{"Page one is about photosynthesis.", "Chlorophyll absorbs red and blue light."},
	{"Page two covers the water cycle.", "Evaporation lifts water into the air."},
	{"Page three explains plate tectonics.", "Continents drift a few centimetres a year."},
	{"Page four describes the heart.", "The left ventricle pumps blood to the body."},
}

func textPDF(t testing.TB) []byte {
	var pages []extracttest.Page
	for _, lines := range pageLines {
		pages = append(pages, extracttest.Page{Lines: lines})
	}
	return extracttest.PDF(t, pages, nil)
}

// scannedLines is the text of the image-only page.
var scannedLines = []string{"Mitochondria release energy", "from glucose in every cell."}

// mixedPDF has text pages 1 and 3 and a scanned page 2 with no text layer.
func mixedPDF(t testing.TB) []byte {
	return extracttest.PDF(t, []extracttest.Page{
		{Lines: pageLines[0]},
		{Image: extracttest.RenderText(t, scannedLines)},
		{Lines: pageLines[2]},
	}, nil)
}

// normalize folds whitespace so OCR line breaks do not matter.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestPDFPageSelection(t *testing.T) {
	x := New(nil)
	requireTools(t, x, false)
	pdf := textPDF(t)
	tests := []struct {
		selection string
		pages     []int
	}{
		{"", []int{1, 2, 3, 4}},
		{"2", []int{2}},
		{"1, 3-4", []int{1, 3, 4}},
		{"4,1", []int{1, 4}},
		{"2–3", []int{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.selection, func(t *testing.T) {
			parts, err := x.PDF(t.Context(), pdf, tt.selection)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(parts), len(tt.pages); got != want {
				t.Fatalf("got %d parts, want %d", got, want)
			}
			for i, p := range tt.pages {
				if got, want := parts[i].Label, PageLabel(p); got != want {
					t.Errorf("part %d label=%q, want %q", i, got, want)
				}
				if got, want := normalize(parts[i].Text), strings.Join(pageLines[p-1], " "); got != want {
					t.Errorf("page %d text=%q, want %q", p, got, want)
				}
			}
		})
	}
}

func TestPDFPageSelectionErrors(t *testing.T) {
	x := New(nil)
	requireTools(t, x, false)
	pdf := textPDF(t)
	tests := []struct {
		selection string
		want      string
	}{
		{"5", "Page 5 is outside the document: the PDF has 4 pages."},
		{"2-9", "Page 9 is outside the document"},
		{"0", "Page 0 does not exist"},
		{"3-1", "runs backwards; write 1-3"},
		{"two", `"two" in the page selection is not a page number`},
		{",", "names no pages"},
	}
	for _, tt := range tests {
		t.Run(tt.selection, func(t *testing.T) {
			_, err := x.PDF(t.Context(), pdf, tt.selection)
			if got := studyloop.ErrorMessage(err); !strings.Contains(got, tt.want) {
				t.Fatalf("error %q, want it to say %q", got, tt.want)
			}
			if got, want := studyloop.ErrorCode(err), studyloop.EINVALID; got != want {
				t.Errorf("code=%q, want %q", got, want)
			}
		})
	}
}

func TestPDFScannedPageGoesToOCR(t *testing.T) {
	x := New(nil)
	requireTools(t, x, true)
	var progress []int
	parts, err := x.PDFWithProgress(t.Context(), mixedPDF(t), "", func(done int) { progress = append(progress, done) })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(parts), 3; got != want {
		t.Fatalf("got %d parts, want %d", got, want)
	}
	// The two pages with a text layer at once, then the scanned one.
	if got, want := fmt.Sprint(progress), "[2 3]"; got != want {
		t.Errorf("progress %s, want %s", got, want)
	}
	if n, err := x.PDFPageCount(t.Context(), mixedPDF(t)); n != 3 || err != nil {
		t.Errorf("PDFPageCount = %d, %v; want 3", n, err)
	}
	if got, want := normalize(parts[1].Text), strings.Join(scannedLines, " "); got != want {
		t.Errorf("OCR of the scanned page=%q, want %q", got, want)
	}
	if got, want := normalize(parts[2].Text), strings.Join(pageLines[2], " "); got != want {
		t.Errorf("page 3 text=%q, want %q", got, want)
	}
}

func TestPDFWithoutOCR(t *testing.T) {
	x := New(&Options{Path: withoutTools(t, toolTesseract)})
	requireTools(t, x, false)
	if !errors.Is(x.OCRAvailable(), ErrOCRUnavailable) {
		t.Fatalf("OCRAvailable()=%v, want ErrOCRUnavailable", x.OCRAvailable())
	}
	mixed := mixedPDF(t)

	// Pages with text still work; the scanned page is left empty.
	parts, err := x.PDF(t.Context(), mixed, "1-3")
	if err != nil {
		t.Fatal(err)
	}
	if got := parts[1].Text; got != "" {
		t.Errorf("scanned page without OCR gave %q, want no text", got)
	}
	if got, want := normalize(parts[0].Text), strings.Join(pageLines[0], " "); got != want {
		t.Errorf("page 1 text=%q, want %q", got, want)
	}

	// Only the scanned page: a failure that names the cause.
	_, err = x.PDF(t.Context(), mixed, "2")
	if got, want := studyloop.ErrorMessage(err), "no text layer, as in a scanned PDF, and OCR is not available"; !strings.Contains(got, want) {
		t.Fatalf("error %q, want it to say %q", got, want)
	}

	// Photos need OCR.
	_, err = x.Photo(t.Context(), extracttest.PNG(t, extracttest.RenderText(t, scannedLines)), PhotoLabel(1))
	if !errors.Is(err, ErrOCRUnavailable) {
		t.Fatalf("photo without OCR: %v, want ErrOCRUnavailable", err)
	}
}

func TestPDFWithoutPoppler(t *testing.T) {
	x := New(&Options{Path: withoutTools(t, toolPDFToText)})
	if _, err := x.PDF(t.Context(), textPDF(t), ""); !errors.Is(err, ErrPDFUnavailable) {
		t.Fatalf("PDF without pdftotext: %v, want ErrPDFUnavailable", err)
	}
}

func TestPageCount(t *testing.T) {
	x := New(nil)
	requireTools(t, x, false)
	dir, path, err := x.pdfFile(textPDF(t))
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	n, err := x.pageCount(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n, len(pageLines); got != want {
		t.Fatalf("pageCount=%d, want %d", got, want)
	}
}

// hostilePDFs are files that must end in a clear failure, quickly, with
// bounded memory.
func hostilePDFs(t *testing.T) []struct {
	name string
	data []byte
	want string
} {
	good := textPDF(t)
	nested := extracttest.Bomb(t, "nested")
	return []struct {
		name string
		data []byte
		want string
	}{
		{"zero bytes", nil, "The file is empty"},
		{"renamed executable", append([]byte("\x7fELF\x02\x01\x01\x00"), bytes.Repeat([]byte{0}, 200)...), "not a PDF, JPEG, PNG or HEIC"},
		{"truncated", good[:len(good)/2], "The PDF is incomplete"},
		{"header only", []byte("%PDF-1.7\n%%EOF\n"), "The PDF is damaged"},
		{"garbage body", append([]byte("%PDF-1.4\n"), append(bytes.Repeat([]byte("x"), 5000), "\n%%EOF\n"...)...), "The PDF is damaged"},
		{"encrypted", extracttest.PDF(t, []extracttest.Page{{Lines: pageLines[0]}}, &extracttest.PDFOptions{Encrypted: true}), "The PDF is encrypted (password-protected)"},
		{"a photo, not a PDF", extracttest.PNG(t, extracttest.RenderText(t, []string{"hi"})), "not a PDF"},
		{"a billion pages", extracttest.Bomb(t, "pages"), "The PDF is damaged"},
		{"deeply nested arrays", nested, "No text could be found"},
		{"over the file size limit", append(good, make([]byte, MaxFileBytes)...), "the limit is 20.0 MiB per file"},
	}
}

func TestPDFHostileFiles(t *testing.T) {
	tmp := t.TempDir()
	x := New(&Options{Timeout: 10 * time.Second, MemoryBytes: 512 << 20, MaxTextBytes: 1 << 20, TempDir: tmp})
	requireTools(t, x, false)
	for _, tt := range hostilePDFs(t) {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := x.PDF(t.Context(), tt.data, "")
			if err == nil {
				t.Fatal("no error")
			}
			if got := studyloop.ErrorMessage(err); !strings.Contains(got, tt.want) {
				t.Fatalf("error %q (%v), want it to say %q", got, err, tt.want)
			}
			if studyloop.ErrorCode(err) == studyloop.EINTERNAL {
				t.Errorf("code internal for a bad file: %v", err)
			}
			if elapsed := time.Since(start); elapsed > 30*time.Second {
				t.Errorf("took %v", elapsed)
			}
		})
	}
	// The temporary directory holds nothing afterwards.
	if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
		t.Errorf("temporary files left behind: %v (%v)", left, err)
	}
}

// A content stream that inflates to 128 MiB takes poppler seconds to
// read; under a one-second bound it is stopped and reported.
func TestPDFDecompressionBombTimesOut(t *testing.T) {
	x := New(&Options{Timeout: time.Second})
	requireTools(t, x, false)
	bomb := extracttest.Bomb(t, "text")
	start := time.Now()
	_, err := x.PDF(t.Context(), bomb, "")
	if got, want := studyloop.ErrorMessage(err), "Reading the PDF took longer than 1s and was stopped"; !strings.Contains(got, want) {
		t.Fatalf("error %q (%v), want it to say %q", got, err, want)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("stopping took %v", elapsed)
	}
}

// A scanned page of 200 x 200 inches (the largest PDF allows) would be
// 40,000 pixels a side at 200 dpi; it is rendered at a lower resolution
// instead, within the bounds.
func TestPDFHugeScannedPage(t *testing.T) {
	x := New(&Options{Timeout: time.Minute})
	requireTools(t, x, true)
	huge := extracttest.PDF(t, []extracttest.Page{{Image: extracttest.RenderText(t, scannedLines), Width: 14_400, Height: 14_400}}, nil)
	start := time.Now()
	parts, err := x.PDF(t.Context(), huge, "")
	if err != nil {
		t.Fatalf("huge page: %v", err)
	}
	if got, want := normalize(parts[0].Text), strings.Join(scannedLines, " "); got != want {
		t.Errorf("OCR of the huge page=%q, want %q", got, want)
	}
	t.Logf("huge page read in %v", time.Since(start))
}

// A tool whose output passes the cap is stopped: the text a study can
// hold is far below it.
func TestPDFOutputCap(t *testing.T) {
	x := New(&Options{MaxTextBytes: 100})
	requireTools(t, x, false)
	_, err := x.PDF(t.Context(), textPDF(t), "")
	if got, want := studyloop.ErrorMessage(err), "holds far more text than a study can take"; !strings.Contains(got, want) {
		t.Fatalf("error %q (%v), want it to say %q", got, err, want)
	}
	if got, want := studyloop.ErrorCode(err), studyloop.ETOOLARGE; got != want {
		t.Errorf("code=%q, want %q", got, want)
	}
}

// Under prlimit a tool cannot take more memory than allowed: Tesseract,
// which needs well over 80 MiB, fails cleanly instead of running.
func TestMemoryBound(t *testing.T) {
	x := New(nil)
	requireTools(t, x, true)
	if !x.MemoryBounded() {
		t.Skip("prlimit not installed")
	}
	x.memory = 80 << 20
	_, err := x.Photo(t.Context(), extracttest.PNG(t, extracttest.RenderText(t, scannedLines)), PhotoLabel(1))
	if err == nil {
		t.Fatal("OCR ran within 80 MiB; the memory bound is not applied")
	}
	if got := studyloop.ErrorMessage(err); !strings.Contains(strings.ToLower(got), "photo 1") {
		t.Fatalf("error %q does not name the photo", got)
	}
	t.Logf("under 80 MiB: %v", err)
}

func TestPDFCancelled(t *testing.T) {
	x := New(nil)
	requireTools(t, x, false)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := x.PDF(ctx, textPDF(t), ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v, want context.Canceled", err)
	}
}

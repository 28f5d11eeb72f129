package extract

import (
	"github.com/studyloop/studyloop/server/extract/extracttest"
	"testing"
)

// BenchmarkPDFTextPage is the time to extract one page with a text layer,
// pdfinfo and pdftotext included.
func BenchmarkPDFTextPage(b *testing.B) {
	x := New(nil)
	requireTools(b, x, false)
	pdf := textPDF(b)
	for b.Loop() {
		if _, err := x.PDF(b.Context(), pdf, "2"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPDFScannedPage is the time to extract one page without a text
// layer: pdftotext finds nothing, pdftoppm renders the page at 200 dpi
// and Tesseract reads it.
func BenchmarkPDFScannedPage(b *testing.B) {
	x := New(nil)
	requireTools(b, x, true)
	pdf := mixedPDF(b)
	for b.Loop() {
		if _, err := x.PDF(b.Context(), pdf, "2"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPhoto is the time to read one 1275 x 1650 JPEG photo of notes.
func BenchmarkPhoto(b *testing.B) {
	x := New(nil)
	requireTools(b, x, true)
	photo := extracttest.JPEG(b, extracttest.RenderText(b, photoLines))
	for b.Loop() {
		if _, err := x.Photo(b.Context(), photo, PhotoLabel(1)); err != nil {
			b.Fatal(err)
		}
	}
}

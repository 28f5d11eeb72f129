// Package extracttest makes the fixtures of extraction tests: PDFs written
// object by object with known text on known pages, scanned-style pages
// that are only a picture, photos of text rendered from such PDFs by
// poppler's pdftoppm, HEIC photos made with libheif's heif-enc, headers of
// images claiming huge sizes, and PDFs built to overload readers.
package extracttest

import (
	"bytes"
	"cmp"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Page is one page of a test PDF: lines of text drawn in Helvetica
// (a text layer pdftotext reads), or a picture covering the page and no
// text layer, as a scanner makes.
type Page struct {
	Lines    []string
	FontSize int // points; zero means 14
	Image    *image.Gray
	// Width and Height are the page size in points; zero means US Letter
	// (612 x 792). PDF allows up to 14,400 a side.
	Width, Height int
}

// pdfWriter lays out numbered objects and the cross-reference table.
type pdfWriter struct {
	buf     bytes.Buffer
	offsets []int // offsets[i] is where object i+1 starts
}

func (w *pdfWriter) object(body string, stream []byte) int {
	w.offsets = append(w.offsets, w.buf.Len())
	n := len(w.offsets)
	fmt.Fprintf(&w.buf, "%d 0 obj\n%s", n, body)
	if stream != nil {
		fmt.Fprintf(&w.buf, "\nstream\n")
		w.buf.Write(stream)
		fmt.Fprintf(&w.buf, "\nendstream")
	}
	fmt.Fprintf(&w.buf, "\nendobj\n")
	return n
}

// reserve numbers an object to be written later with objectAt.
func (w *pdfWriter) reserve() int {
	w.offsets = append(w.offsets, -1)
	return len(w.offsets)
}

func (w *pdfWriter) objectAt(n int, body string) {
	w.offsets[n-1] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n%s\nendobj\n", n, body)
}

func (w *pdfWriter) finish(root int, trailerExtra string) []byte {
	xref := w.buf.Len()
	fmt.Fprintf(&w.buf, "xref\n0 %d\n0000000000 65535 f \n", len(w.offsets)+1)
	for _, off := range w.offsets {
		fmt.Fprintf(&w.buf, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&w.buf, "trailer\n<< /Size %d /Root %d 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", len(w.offsets)+1, root, trailerExtra, xref)
	return w.buf.Bytes()
}

// PDFOptions vary a test PDF.
type PDFOptions struct {
	Encrypted bool // add a standard security handler whose password is unknown
}

// PDF writes a PDF of US Letter pages.
func PDF(tb testing.TB, pages []Page, opts *PDFOptions) []byte {
	tb.Helper()
	w := &pdfWriter{}
	w.buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	catalog := w.reserve()
	tree := w.reserve()
	fontObj := w.object("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>", nil)
	var kids []string
	for _, p := range pages {
		pageW, pageH := cmp.Or(p.Width, 612), cmp.Or(p.Height, 792)
		var content bytes.Buffer
		resources := fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", fontObj)
		if p.Image != nil {
			b, pix := p.Image.Bounds(), deflate(tb, p.Image.Pix)
			img := w.object(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>",
				b.Dx(), b.Dy(), len(pix)), pix)
			resources = fmt.Sprintf("<< /XObject << /Im1 %d 0 R >> >>", img)
			fmt.Fprintf(&content, "q %d 0 0 %d 0 0 cm /Im1 Do Q\n", pageW, pageH)
		} else {
			size := cmp.Or(p.FontSize, 14)
			fmt.Fprintf(&content, "BT /F1 %d Tf 72 720 Td %d TL\n", size, size*3/2)
			for _, line := range p.Lines {
				fmt.Fprintf(&content, "(%s) Tj T*\n", pdfEscape(line))
			}
			content.WriteString("ET\n")
		}
		contents := w.object(fmt.Sprintf("<< /Length %d >>", content.Len()), content.Bytes())
		page := w.object(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %d %d] /Resources %s /Contents %d 0 R >>",
			tree, pageW, pageH, resources, contents), nil)
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	w.objectAt(tree, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids)))
	w.objectAt(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree))
	extra := ""
	if opts != nil && opts.Encrypted {
		// RC4 40-bit standard security handler (PDF 32000-1, 7.6.3). The
		// /U entry is not what the empty password yields, so readers need
		// a password they are not given.
		hex32 := strings.Repeat("5a", 32)
		enc := w.object(fmt.Sprintf("<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P -3904 >>", hex32, strings.Repeat("a5", 32)), nil)
		extra = fmt.Sprintf(" /Encrypt %d 0 R /ID [<%s> <%s>]", enc, strings.Repeat("01", 16), strings.Repeat("01", 16))
	}
	return w.finish(catalog, extra)
}

func pdfEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
}

func deflate(tb testing.TB, data []byte) []byte {
	tb.Helper()
	var b bytes.Buffer
	zw, err := zlib.NewWriterLevel(&b, zlib.BestCompression)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := zw.Write(data); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// RenderText draws lines of black Helvetica text on a white Letter page
// and renders it to a grey picture with poppler's pdftoppm at 150 dpi, as a
// clear photo of printed notes would show them.
func RenderText(tb testing.TB, lines []string) *image.Gray {
	tb.Helper()
	ppm, err := exec.LookPath("pdftoppm")
	if err != nil {
		tb.Skip("pdftoppm not installed (apt-get install poppler-utils)")
	}
	dir := tb.TempDir()
	in, out := filepath.Join(dir, "text.pdf"), filepath.Join(dir, "text")
	pdf := PDF(tb, []Page{{Lines: lines, FontSize: 24}}, nil)
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		tb.Fatal(err)
	}
	if msg, err := exec.Command(ppm, "-r", "150", "-gray", "-png", "-singlefile", in, out).CombinedOutput(); err != nil {
		tb.Fatalf("pdftoppm: %v: %s", err, msg)
	}
	f, err := os.Open(out + ".png")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		tb.Fatal(err)
	}
	gray := image.NewGray(img.Bounds())
	draw.Draw(gray, gray.Bounds(), img, img.Bounds().Min, draw.Src)
	return gray
}

// PNG encodes img as a PNG file, as a phone or scanner would save it.
func PNG(tb testing.TB, img image.Image) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// JPEG encodes img as a JPEG file at quality 90, as a phone camera would
// save it.
func JPEG(tb testing.TB, img image.Image) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// HEIC converts a PNG to HEIC with libheif's heif-enc, skipping the
// test where it is not installed.
func HEIC(tb testing.TB, img image.Image) []byte {
	tb.Helper()
	enc, err := exec.LookPath("heif-enc")
	if err != nil {
		tb.Skip("heif-enc not installed (apt-get install libheif-examples)")
	}
	dir := tb.TempDir()
	in, out := filepath.Join(dir, "in.png"), filepath.Join(dir, "out.heic")
	if err := os.WriteFile(in, PNG(tb, img), 0o600); err != nil {
		tb.Fatal(err)
	}
	if msg, err := exec.Command(enc, "-q", "90", "-o", out, in).CombinedOutput(); err != nil {
		tb.Fatalf("heif-enc: %v: %s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// ToolDir returns a new directory holding links to the named programs as
// found on the PATH, leaving out those not installed: the PATH of an
// extractor that must do without every other tool.
func ToolDir(tb testing.TB, names ...string) string {
	tb.Helper()
	dir := tb.TempDir()
	for _, name := range names {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if err := os.Symlink(p, filepath.Join(dir, name)); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// PNGHeader is the start of a PNG claiming w x h pixels: signature and a
// valid IHDR chunk, no pixels.
func PNGHeader(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 0 // 8-bit greyscale
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

// JPEGHeader is the start of a baseline JPEG claiming w x h pixels.
func JPEGHeader(w, h uint16) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xff, 0xd8})                                                                                             // SOI
	b.Write([]byte{0xff, 0xe0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00}) // APP0 JFIF
	b.Write([]byte{0xff, 0xc0, 0x00, 0x0b, 0x08})                                                                           // SOF0, length 11, 8 bits
	binary.Write(&b, binary.BigEndian, h)
	binary.Write(&b, binary.BigEndian, w)
	b.Write([]byte{0x01, 0x01, 0x11, 0x00}) // one component
	return b.Bytes()
}

// HEICHeader is the start of a HEIC file whose ispe property claims w x h.
func HEICHeader(w, h uint32) []byte {
	box := func(typ string, body []byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
		return append(append(out, typ...), body...)
	}
	ispe := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(make([]byte, 4), w), h)
	meta := box("meta", append(make([]byte, 4), box("iprp", box("ipco", box("ispe", ispe)))...))
	ftyp := box("ftyp", []byte("heic\x00\x00\x00\x00mif1heic"))
	return append(ftyp, meta...)
}

// Bomb writes a one-page PDF built to overload readers:
//   - "pages": a page tree claiming a billion pages;
//   - "nested": a content stream of 200,000 nested arrays;
//   - "text": a content stream of 16 KiB that inflates to 128 MiB of text
//     drawing operators.
func Bomb(tb testing.TB, kind string) []byte {
	tb.Helper()
	w := &pdfWriter{}
	w.buf.WriteString("%PDF-1.4\n")
	catalog := w.reserve()
	tree := w.reserve()
	fontObj := w.object("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", nil)
	var contents int
	switch kind {
	case "pages", "nested":
		const depth = 200_000
		body := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		contents = w.object(fmt.Sprintf("<< /Length %d >>", len(body)), []byte(body))
	case "text":
		var raw bytes.Buffer
		raw.WriteString("BT /F1 12 Tf 72 720 Td\n")
		line := []byte("(Studying the same words again and again) Tj\n")
		for raw.Len() < 128<<20 {
			raw.Write(line)
		}
		raw.WriteString("ET\n")
		stream := deflate(tb, raw.Bytes())
		contents = w.object(fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>", len(stream)), stream)
	default:
		tb.Fatalf("unknown bomb %q", kind)
	}
	page := w.object(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", tree, fontObj, contents), nil)
	count := 1
	if kind == "pages" {
		count = 1_000_000_000
	}
	w.objectAt(tree, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count %d >>", page, count))
	w.objectAt(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree))
	return w.finish(catalog, "")
}

package extract

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	_ "image/jpeg" // registers the JPEG header reader for image.DecodeConfig
	_ "image/png"  // registers the PNG header reader for image.DecodeConfig

	"github.com/studyloop/studyloop/server/studyloop"
)

// Kind is what an upload is, judged by its content.
type Kind string

// The kinds of upload accepted.
const (
	KindPDF  Kind = "pdf"
	KindJPEG Kind = "jpeg"
	KindPNG  Kind = "png"
	KindHEIC Kind = "heic"
)

// IsPhoto reports whether k is an image format.
func (k Kind) IsPhoto() bool { return k == KindJPEG || k == KindPNG || k == KindHEIC }

// heifBrands are the ISO BMFF ftyp brands of HEIC/HEIF still images.
var heifBrands = map[string]bool{
	"heic": true, "heix": true, "heim": true, "heis": true,
	"hevc": true, "hevx": true, "hevm": true, "hevs": true,
	"mif1": true, "msf1": true,
}

// Sniff tells the kind of data from its first bytes: the JPEG and PNG
// signatures at byte 0, an ISO BMFF ftyp box naming a HEIC/HEIF brand, or
// else %PDF- (within the first kilobyte, as readers allow). The image
// signatures come first because they are exact and at the start, while
// "%PDF-" may also appear inside an image's metadata (an EXIF description
// naming the PDF a page was scanned from). File names are not trusted and
// not consulted.
func Sniff(data []byte) (Kind, error) {
	switch {
	case len(data) == 0:
		return "", studyloop.Errorf(studyloop.EINVALID, "The file is empty (0 bytes).")
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return KindJPEG, nil
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return KindPNG, nil
	case isHEIF(data):
		return KindHEIC, nil
	case bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")):
		return KindPDF, nil
	}
	return "", studyloop.Errorf(studyloop.EINVALID, "The file is not a PDF, JPEG, PNG or HEIC image (judged by its content, not its name).")
}

// isHEIF reports whether data starts with an ftyp box whose major or a
// compatible brand is a HEIF still-image brand.
func isHEIF(data []byte) bool {
	if len(data) < 16 || string(data[4:8]) != "ftyp" {
		return false
	}
	size := int(binary.BigEndian.Uint32(data[:4]))
	if size < 16 || size > len(data) || size > 4096 {
		return false
	}
	if heifBrands[string(data[8:12])] {
		return true
	}
	for i := 16; i+4 <= size; i += 4 { // compatible brands follow the minor version
		if heifBrands[string(data[i:i+4])] {
			return true
		}
	}
	return false
}

// CheckFile applies the per-file checks to one upload: not empty, at most
// MaxFileBytes, a known kind by content and, for photos, dimensions within
// MaxImageSide and MaxImagePixels, read from the header before anything
// is decoded. It returns the kind.
func CheckFile(data []byte) (Kind, error) {
	if len(data) > MaxFileBytes {
		return "", studyloop.Errorf(studyloop.ETOOLARGE, "The file is %s; the limit is %s per file.", mib(len(data)), mib(MaxFileBytes))
	}
	kind, err := Sniff(data)
	if err != nil {
		return "", err
	}
	if !kind.IsPhoto() {
		return kind, nil
	}
	w, h, err := imageSize(kind, data)
	if err != nil {
		return "", err
	}
	if w <= 0 || h <= 0 {
		return "", studyloop.Errorf(studyloop.EINVALID, "The image claims a size of %d x %d pixels and cannot be read.", w, h)
	}
	if w > MaxImageSide || h > MaxImageSide || int64(w)*int64(h) > MaxImagePixels {
		return "", studyloop.Errorf(studyloop.ETOOLARGE, "The image is %s x %s pixels (%d megapixels); the limit is %s pixels a side and %d megapixels in all.",
			studyloop.Commas(w), studyloop.Commas(h), int64(w)*int64(h)/1_000_000, studyloop.Commas(MaxImageSide), MaxImagePixels/1_000_000)
	}
	return kind, nil
}

// imageSize reads an image's width and height from its header.
func imageSize(kind Kind, data []byte) (w, h int, err error) {
	if kind == KindHEIC {
		w, h, ok := heifSize(data)
		if !ok {
			return 0, 0, studyloop.Errorf(studyloop.EINVALID, "The HEIC image is damaged: its size could not be read.")
		}
		return w, h, nil
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, studyloop.Errorf(studyloop.EINVALID, "The %s image is damaged: its header could not be read.", kindName(kind))
	}
	return cfg.Width, cfg.Height, nil
}

func kindName(k Kind) string {
	switch k {
	case KindJPEG:
		return "JPEG"
	case KindPNG:
		return "PNG"
	case KindHEIC:
		return "HEIC"
	}
	return "PDF"
}

// heifSize finds the largest image spatial extent ('ispe') property in a
// HEIF file: top-level meta box, then iprp, then ipco. A HEIC photo stored
// as a grid of tiles lists the grid's full size among them, so the largest
// is the picture's size.
func heifSize(data []byte) (w, h int, ok bool) {
	meta, found := findBox(data, "meta")
	if !found || len(meta) < 4 {
		return 0, 0, false
	}
	iprp, found := findBox(meta[4:], "iprp") // meta is a full box: skip version and flags
	if !found {
		return 0, 0, false
	}
	ipco, found := findBox(iprp, "ipco")
	if !found {
		return 0, 0, false
	}
	for rest := ipco; ; {
		typ, body, next, valid := nextBox(rest)
		if !valid {
			break
		}
		if typ == "ispe" && len(body) >= 12 {
			bw := int(binary.BigEndian.Uint32(body[4:8]))
			bh := int(binary.BigEndian.Uint32(body[8:12]))
			if int64(bw)*int64(bh) > int64(w)*int64(h) {
				w, h = bw, bh
			}
			ok = true
		}
		rest = next
	}
	return w, h, ok
}

// findBox returns the body of the first box of type typ among the boxes
// in data.
func findBox(data []byte, typ string) ([]byte, bool) {
	for rest := data; ; {
		t, body, next, valid := nextBox(rest)
		if !valid {
			return nil, false
		}
		if t == typ {
			return body, true
		}
		rest = next
	}
}

// nextBox splits the first ISO BMFF box off data. Sizes are checked
// against the data, so a hostile file cannot point outside it.
func nextBox(data []byte) (typ string, body, rest []byte, ok bool) {
	if len(data) < 8 {
		return "", nil, nil, false
	}
	size := uint64(binary.BigEndian.Uint32(data[:4]))
	typ = string(data[4:8])
	header := uint64(8)
	switch size {
	case 0: // to the end of the data
		size = uint64(len(data))
	case 1: // 64-bit size follows
		if len(data) < 16 {
			return "", nil, nil, false
		}
		size = binary.BigEndian.Uint64(data[8:16])
		header = 16
	}
	if size < header || size > uint64(len(data)) {
		return "", nil, nil, false
	}
	return typ, data[header:size], data[size:], true
}

// mib formats a byte count in MiB with one decimal.
func mib(n int) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

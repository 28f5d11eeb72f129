package extract

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/extract/extracttest"
	"github.com/studyloop/studyloop/server/studyloop"
)

func TestCheckFile(t *testing.T) {
	small := image.NewGray(image.Rect(0, 0, 640, 480))
	tests := []struct {
		name string
		data []byte
		kind Kind
		err  string
	}{
		{"pdf", []byte("%PDF-1.7\n...\n%%EOF\n"), KindPDF, ""},
		{"pdf after junk", append(bytes.Repeat([]byte(" "), 100), "%PDF-1.4"...), KindPDF, ""},
		{"pdf marker too late", append(bytes.Repeat([]byte(" "), 2000), "%PDF-1.4"...), "", "not a PDF, JPEG, PNG or HEIC"},
		{"png", extracttest.PNG(t, small), KindPNG, ""},
		{"jpeg", extracttest.JPEG(t, small), KindJPEG, ""},
		{"jpeg whose EXIF says %PDF-", withEXIF(extracttest.JPEG(t, small), "Scanned from notes.pdf (%PDF-1.7)"), KindJPEG, ""},
		{"png whose text chunk says %PDF-", withPNGText(extracttest.PNG(t, small), "Comment", "%PDF-1.4 exported"), KindPNG, ""},
		{"heic", extracttest.HEICHeader(4032, 3024), KindHEIC, ""},
		{"heif compatible brand", append([]byte("\x00\x00\x00\x18ftypXXXX\x00\x00\x00\x00isommif1"), extracttest.HEICHeader(10, 10)[24:]...), KindHEIC, ""},
		{"mp4 is not heic", []byte("\x00\x00\x00\x18ftypisom\x00\x00\x00\x00isomavc1"), "", "not a PDF, JPEG, PNG or HEIC"},
		{"empty", []byte{}, "", "The file is empty (0 bytes)."},
		{"ELF executable named notes.pdf", []byte("\x7fELF\x02\x01\x01\x00\x00\x00"), "", "not a PDF, JPEG, PNG or HEIC"},
		{"Windows executable named photo.jpg", []byte("MZ\x90\x00\x03\x00\x00\x00"), "", "not a PDF, JPEG, PNG or HEIC"},
		{"shell script", []byte("#!/bin/sh\nrm -rf /\n"), "", "not a PDF, JPEG, PNG or HEIC"},
		{"zip", []byte("PK\x03\x04\x14\x00"), "", "not a PDF, JPEG, PNG or HEIC"},
		{"png at the side limit", extracttest.PNGHeader(12_000, 4_000), KindPNG, ""},
		{"png too wide", extracttest.PNGHeader(12_001, 10), "", "12,001 x 10 pixels"},
		{"png 20,000 x 20,000", extracttest.PNGHeader(20_000, 20_000), "", "20,000 x 20,000 pixels (400 megapixels)"},
		{"png zero width", extracttest.PNGHeader(0, 10), "", "damaged"},
		{"jpeg 20,000 x 20,000", extracttest.JPEGHeader(20_000, 20_000), "", "20,000 x 20,000 pixels"},
		{"heic 20,000 x 20,000", extracttest.HEICHeader(20_000, 20_000), "", "20,000 x 20,000 pixels"},
		{"heic lying box size", []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic\xff\xff\xff\xffmeta"), "", "The HEIC image is damaged"},
		{"png bad header", []byte("\x89PNG\r\n\x1a\nnonsense"), "", "The PNG image is damaged"},
		{"too big", append([]byte("%PDF-1.4"), make([]byte, MaxFileBytes)...), "", "The file is 20.0 MiB; the limit is 20.0 MiB per file."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == "" {
				if kind, err := Sniff(tt.data); err != nil || kind != tt.kind {
					t.Fatalf("Sniff=%q, %v; want %q", kind, err, tt.kind)
				}
			}
			kind, err := CheckFile(tt.data)
			if tt.err != "" {
				if msg := studyloop.ErrorMessage(err); !strings.Contains(msg, tt.err) {
					t.Fatalf("CheckFile error %q, want it to say %q", msg, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if kind != tt.kind {
				t.Fatalf("kind=%q, want %q", kind, tt.kind)
			}
		})
	}
}

// withEXIF inserts an APP1 Exif segment whose ImageDescription-like
// payload is desc right after a JPEG's start-of-image marker, as cameras
// and scanning apps write one.
func withEXIF(jpg []byte, desc string) []byte {
	payload := append([]byte("Exif\x00\x00"), desc...)
	seg := []byte{0xff, 0xe1, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)}
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	out = append(out, payload...)
	return append(out, jpg[2:]...)
}

// withPNGText inserts a tEXt chunk after a PNG's IHDR chunk.
func withPNGText(p []byte, key, text string) []byte {
	data := append(append([]byte(key), 0), text...)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	chunk = append(chunk, "tEXt"...)
	chunk = append(chunk, data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	const ihdrEnd = 8 + 4 + 4 + 13 + 4 // signature, then IHDR: length, type, data, CRC
	out := append([]byte{}, p[:ihdrEnd]...)
	out = append(out, chunk...)
	return append(out, p[ihdrEnd:]...)
}

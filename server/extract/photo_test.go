package extract

import (
	"bytes"
	"errors"
	"image"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/extract/extracttest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// photoLines is the text of the test photos.
var photoLines = []string{"Osmosis moves water across", "a membrane toward more solute."}

func TestPhoto(t *testing.T) {
	x := New(nil)
	requireTools(t, x, true)
	img := extracttest.RenderText(t, photoLines)
	tests := []struct {
		name string
		data func(t *testing.T) []byte
	}{
		{"png", func(t *testing.T) []byte { return extracttest.PNG(t, img) }},
		{"jpeg", func(t *testing.T) []byte { return extracttest.JPEG(t, img) }},
		{"heic", func(t *testing.T) []byte { return extracttest.HEIC(t, img) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			part, err := x.Photo(t.Context(), tt.data(t), PhotoLabel(2))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := part.Label, "Photo 2"; got != want {
				t.Errorf("label=%q, want %q", got, want)
			}
			if got, want := normalize(part.Text), strings.Join(photoLines, " "); got != want {
				t.Errorf("text=%q, want %q", got, want)
			}
		})
	}
}

func TestPhotoBadFiles(t *testing.T) {
	x := New(&Options{Timeout: 20 * time.Second})
	requireTools(t, x, true)
	good := extracttest.JPEG(t, extracttest.RenderText(t, photoLines))
	blank := image.NewGray(image.Rect(0, 0, 400, 300))
	for i := range blank.Pix {
		blank.Pix[i] = 0xff
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"zero bytes", nil, "Photo 3: The file is empty"},
		{"renamed executable", append([]byte("MZ\x90\x00"), bytes.Repeat([]byte{0}, 100)...), "Photo 3: The file is not a PDF, JPEG, PNG or HEIC"},
		{"20,000 x 20,000 PNG", extracttest.PNGHeader(20_000, 20_000), "The image is 20,000 x 20,000 pixels (400 megapixels); the limit is 12,000 pixels a side"},
		{"20,000 x 20,000 JPEG", extracttest.JPEGHeader(20_000, 20_000), "The image is 20,000 x 20,000 pixels"},
		{"20,000 x 20,000 HEIC", extracttest.HEICHeader(20_000, 20_000), "The image is 20,000 x 20,000 pixels"},
		{"9,000 x 9,000 PNG (too many pixels)", extracttest.PNGHeader(9_000, 9_000), "9,000 x 9,000 pixels (81 megapixels); the limit is 12,000 pixels a side and 50 megapixels in all."},
		{"truncated JPEG", good[:len(good)/3], "Photo 3 could not be read"},
		{"header only", extracttest.PNGHeader(800, 600), "Photo 3 could not be read"},
		{"damaged HEIC", extracttest.HEICHeader(800, 600), "Photo 3 could not be read as a HEIC image"},
		{"HEIC without size", []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"), "The HEIC image is damaged"},
		{"blank page", extracttest.PNG(t, blank), "No text could be read from photo 3"},
		{"a PDF", textPDF(t), "Photo 3 is a PDF, not a photo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := x.Photo(t.Context(), tt.data, PhotoLabel(3))
			if got := studyloop.ErrorMessage(err); !strings.Contains(got, tt.want) {
				t.Fatalf("error %q (%v), want it to say %q", got, err, tt.want)
			}
			if studyloop.ErrorCode(err) == studyloop.EINTERNAL {
				t.Errorf("code internal for a bad file: %v", err)
			}
		})
	}
}

func TestPhotoHEICWithoutConverter(t *testing.T) {
	x := New(&Options{Path: withoutTools(t, toolHEIFConvert)})
	requireTools(t, x, true)
	_, err := x.Photo(t.Context(), extracttest.HEIC(t, extracttest.RenderText(t, photoLines)), PhotoLabel(1))
	if !errors.Is(err, ErrHEICUnavailable) {
		t.Fatalf("HEIC without heif-convert: %v, want ErrHEICUnavailable", err)
	}
}

package extract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/studyloop/studyloop/server/studyloop"
)

// Photo reads the text of one photo of notes or a handout (JPEG, PNG or
// HEIC) with OCR and returns it as a Part with the given label, such as
// PhotoLabel(2). The photo is checked first (see CheckFile); HEIC is
// converted to PNG with heif-convert. Errors name the photo by its label.
func (x *Extractor) Photo(ctx context.Context, data []byte, label string) (Part, error) {
	kind, err := CheckFile(data)
	if err != nil {
		return Part{}, prefixed(label, err)
	}
	if !kind.IsPhoto() {
		return Part{}, studyloop.Errorf(studyloop.EINVALID, "%s is a PDF, not a photo; upload it as a PDF.", label)
	}
	if x.ocrError != nil {
		return Part{}, x.ocrError
	}
	dir, path, err := x.tempFile(data, "photo."+string(kind))
	if err != nil {
		return Part{}, err
	}
	defer os.RemoveAll(dir)
	if kind == KindHEIC {
		if path, err = x.convertHEIC(ctx, path, dir, label); err != nil {
			return Part{}, err
		}
	}
	text, err := x.ocr(ctx, path)
	if err != nil {
		if described := x.describe(err, strings.ToLower(label)); described != err {
			return Part{}, described
		}
		return Part{}, fmt.Errorf("%w (%v)", studyloop.Errorf(studyloop.EINVALID, "%s could not be read as an image; it may be damaged.", label), err)
	}
	if text == "" {
		return Part{}, studyloop.Errorf(studyloop.EINVALID, "No text could be read from %s; take the photo closer, in good light and in focus.", strings.ToLower(label))
	}
	return Part{Label: label, Text: layout(text)}, nil
}

// convertHEIC converts the HEIC photo at path to a PNG in dir and checks
// the result before it goes to Tesseract.
func (x *Extractor) convertHEIC(ctx context.Context, path, dir, label string) (string, error) {
	if _, ok := x.tools[toolHEIFConvert]; !ok {
		return "", ErrHEICUnavailable
	}
	png := filepath.Join(dir, "photo.png")
	if err := x.run(ctx, &capped{limit: 4 << 10}, toolHEIFConvert, path, png); err != nil {
		if described := x.describe(err, strings.ToLower(label)); described != err {
			return "", described
		}
		return "", studyloop.Errorf(studyloop.EINVALID, "%s could not be read as a HEIC image; it may be damaged.", label)
	}
	data, err := os.ReadFile(png)
	if err != nil {
		return "", studyloop.Errorf(studyloop.EINVALID, "%s could not be read as a HEIC image; it may be damaged.", label)
	}
	if kind, err := CheckFile(data); err != nil || kind != KindPNG {
		return "", studyloop.Errorf(studyloop.EINVALID, "%s could not be converted from HEIC.", label)
	}
	return png, nil
}

// prefixed puts label in front of a studyloop error's message: "Photo 2:
// The file is empty (0 bytes)."
func prefixed(label string, err error) error {
	if e, ok := err.(*studyloop.Error); ok {
		return &studyloop.Error{Code: e.Code, Message: label + ": " + e.Message}
	}
	return err
}

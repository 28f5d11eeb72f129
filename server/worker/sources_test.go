package worker_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/engine"
	textract "github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/extract/extracttest"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/server/worker"
)

// handoutPages are four pages of a handout; each names its page, so the
// text of a question tells which page it came from.
var handoutPages = [][]string{
	{"Page one: Photosynthesis is the process by which plants make sugar from light.", "Chlorophyll is the green pigment that absorbs red and blue light."},
	{"Page two: Evaporation is the change of liquid water into water vapour.", "Condensation is the change of water vapour back into liquid droplets."},
	{"Page three: A tectonic plate is a large slab of the outer shell of the Earth.", "Magma is molten rock that rises from deep below the crust."},
	{"Page four: The heart is a muscle that pumps blood around the body.", "Arteries are vessels that carry blood away from the heart."},
}

// photoNotes is the text of the photographed notes.
var photoNotes = []string{"Osmosis is the movement of water", "across a membrane toward more solute."}

func handoutPDF(t testing.TB) []byte {
	var pages []extracttest.Page
	for _, lines := range handoutPages {
		pages = append(pages, extracttest.Page{Lines: lines})
	}
	return extracttest.PDF(t, pages, nil)
}

// requireExtraction skips without poppler and tesseract, except under CI.
func requireExtraction(t *testing.T, x *textract.Extractor) {
	t.Helper()
	err := x.PDFAvailable()
	if err == nil {
		err = x.OCRAvailable()
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// TestUploadedStudiesBecomeReady runs the real extractor and the offline
// generator through a pool: pages 2-3 of a four-page PDF, and a photo, make
// ready studies whose questions all come from the chosen pages or photo.
func TestUploadedStudiesBecomeReady(t *testing.T) {
	x := textract.New(nil)
	requireExtraction(t, x)
	gen, err := engine.NewOffline(nil)
	if err != nil {
		t.Fatal(err)
	}
	pdf := handoutPDF(t)
	photo := extracttest.JPEG(t, extracttest.RenderText(t, photoNotes))
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		user := storetest.User(t, db)
		fromPDF, err := db.CreateUploadStudy(ctx, user, "Handout", []studyloop.Upload{{Kind: "pdf", Pages: "2-3", Data: pdf}})
		if err != nil {
			t.Fatal(err)
		}
		fromPhoto, err := db.CreateUploadStudy(ctx, user, "Notes", []studyloop.Upload{{Kind: "jpeg", Data: photo}})
		if err != nil {
			t.Fatal(err)
		}
		startPool(t, db, gen, &worker.Options{Extractor: x, PollInterval: 20 * time.Millisecond})
		settled := waitSettled(t, db, fromPDF, fromPhoto)
		for i, want := range [][]string{{"Page 2", "Page 3"}, {"Photo 1"}} {
			st := settled[i]
			if st.Status != studyloop.StatusReady {
				t.Fatalf("%s: %s %q, want ready", st.Title, st.Status, st.Reason)
			}
			parts, err := db.SourceParts(ctx, user, st.ID)
			if err != nil {
				t.Fatal(err)
			}
			var labels []string
			for _, p := range parts {
				labels = append(labels, p.Label)
			}
			if !slices.Equal(labels, want) {
				t.Fatalf("%s: parts %v, want %v", st.Title, labels, want)
			}
			questions, err := db.Questions(ctx, user, st.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(questions) == 0 {
				t.Fatalf("%s: no questions", st.Title)
			}
			for _, q := range questions {
				from := studyloop.SourceLabels(parts, q.Source)
				if len(from) == 0 {
					t.Errorf("%s: question %q comes from no page or photo", st.Title, q.Prompt)
				}
				for _, l := range from {
					if !slices.Contains(want, l) {
						t.Errorf("%s: question %q comes from %s", st.Title, q.Prompt, l)
					}
				}
				for _, other := range []string{"Page one", "Page four", "Photosynthesis", "heart"} {
					if st.Title == "Handout" && (strings.Contains(q.Prompt, other) || strings.Contains(q.Answer, other)) {
						t.Errorf("question %q / %q uses a page that was not chosen", q.Prompt, q.Answer)
					}
				}
			}
			t.Logf("%s: %d questions from %v", st.Title, len(questions), labels)
		}
	})
}

// TestUploadedStudiesFailWithReasons: each bad upload ends in a failed
// study whose reason says what is wrong and whose files are dropped, while
// a good upload and a text study processed beside it become ready.
func TestUploadedStudiesFailWithReasons(t *testing.T) {
	x := textract.New(&textract.Options{Timeout: 20 * time.Second})
	requireExtraction(t, x)
	// A content stream inflating to 128 MiB takes poppler seconds; each
	// tool run is cut off after one.
	short := textract.New(&textract.Options{Timeout: time.Second})
	handout := handoutPDF(t)
	withoutOCR := textract.New(&textract.Options{Path: extracttest.ToolDir(t, "pdfinfo", "pdftotext", "pdftoppm", "prlimit")})
	scanned := extracttest.PDF(t, []extracttest.Page{{Image: extracttest.RenderText(t, photoNotes)}}, nil)
	encrypted := extracttest.PDF(t, []extracttest.Page{{Lines: handoutPages[0]}}, &extracttest.PDFOptions{Encrypted: true})
	photo := extracttest.JPEG(t, extracttest.RenderText(t, photoNotes))
	// Ten pages of about 50,000 characters each: over the study limit.
	long := strings.Repeat("Cells are the units of life and they divide. ", 20)
	var bigPages []extracttest.Page
	for range 10 {
		lines := make([]string, 110)
		for i := range lines {
			lines[i] = long
		}
		bigPages = append(bigPages, extracttest.Page{Lines: lines, FontSize: 1})
	}
	big := extracttest.PDF(t, bigPages, nil)

	tests := []struct {
		name      string
		extractor *textract.Extractor
		uploads   []studyloop.Upload
		want      string
	}{
		{"encrypted PDF", x, []studyloop.Upload{{Kind: "pdf", Data: encrypted}}, "The PDF is encrypted (password-protected)"},
		{"page range outside", x, []studyloop.Upload{{Kind: "pdf", Pages: "3-9", Data: handout}}, "Page 9 is outside the document: the PDF has 4 pages."},
		{"truncated PDF", x, []studyloop.Upload{{Kind: "pdf", Data: handout[:len(handout)/2]}}, "The PDF is incomplete (cut off before its end)"},
		{"decompression bomb PDF", short, []studyloop.Upload{{Kind: "pdf", Data: extracttest.Bomb(t, "text")}}, "Reading the PDF took longer than 1s and was stopped"},
		{"scanned PDF without OCR", withoutOCR, []studyloop.Upload{{Kind: "pdf", Data: scanned}}, "no text layer, as in a scanned PDF, and OCR is not available"},
		{"unreadable image", x, []studyloop.Upload{{Kind: "jpeg", Data: photo}, {Kind: "jpeg", Data: photo[:len(photo)/4]}}, "Photo 2 could not be read"},
		{"text over the limit", x, []studyloop.Upload{{Kind: "pdf", Data: big}}, "over the limit of 400,000. Drop Page"},
	}
	gen, err := engine.NewOffline(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := storetest.Open(t, "sqlite")
			user := storetest.User(t, db)
			st, err := db.CreateUploadStudy(t.Context(), user, tt.name, tt.uploads)
			if err != nil {
				t.Fatal(err)
			}
			goodUpload, err := db.CreateUploadStudy(t.Context(), user, "Handout", []studyloop.Upload{{Kind: "pdf", Pages: "2", Data: handout}})
			if err != nil {
				t.Fatal(err)
			}
			good := storetest.PendingStudy(t, db, user, "Topic", "Plain notes: Osmosis is the movement of water across a membrane.")
			startPool(t, db, gen, &worker.Options{Extractor: tt.extractor, Workers: 2, PollInterval: 20 * time.Millisecond})
			settled := waitSettled(t, db, st, goodUpload, good)
			if got := settled[0]; got.Status != studyloop.StatusFailed || !strings.Contains(got.Reason, tt.want) {
				t.Fatalf("study %s %q, want failed saying %q", got.Status, got.Reason, tt.want)
			}
			if left, err := db.StudySources(t.Context(), st.ID); err != nil || len(left) != 0 {
				t.Errorf("the failed study keeps %d uploaded files (%v), want none", len(left), err)
			}
			if got := settled[1]; got.Status != studyloop.StatusReady {
				t.Errorf("the good upload beside it: %s %q, want ready", got.Status, got.Reason)
			}
			if got := settled[2]; got.Status != studyloop.StatusReady {
				t.Errorf("the text study beside it: %s %q, want ready", got.Status, got.Reason)
			}
		})
	}
}

// blockingGenerator waits for cancellation, standing in for a process
// stopped in the middle of generation.
type blockingGenerator struct{ started chan struct{} }

func (g blockingGenerator) Generate(ctx context.Context, title, text string) (studyloop.Extraction, error) {
	close(g.started)
	<-ctx.Done()
	return studyloop.Extraction{}, ctx.Err()
}

// TestExtractedTextSurvivesARestart: a pool stopped after extraction
// leaves the text and its parts stored; the next pool generates from them
// without the uploads, which are gone.
func TestExtractedTextSurvivesARestart(t *testing.T) {
	x := textract.New(nil)
	requireExtraction(t, x)
	gen, err := engine.NewOffline(nil)
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.Open(t, "sqlite")
	ctx := t.Context()
	user := storetest.User(t, db)
	st, err := db.CreateUploadStudy(ctx, user, "Handout", []studyloop.Upload{{Kind: "pdf", Pages: "2", Data: handoutPDF(t)}})
	if err != nil {
		t.Fatal(err)
	}
	blocking := blockingGenerator{started: make(chan struct{})}
	_, stop := startPool(t, db, blocking, &worker.Options{Extractor: x, PollInterval: 20 * time.Millisecond})
	select {
	case <-blocking.started:
	case <-time.After(20 * time.Second):
		t.Fatal("generation did not start")
	}
	stop()
	if got, err := db.GetStudy(ctx, user, st.ID); err != nil || got.Status != studyloop.StatusUploaded {
		t.Fatalf("after stop: %+v, %v; want uploaded again", got, err)
	}
	if left, err := db.StudySources(ctx, st.ID); err != nil || len(left) != 0 {
		t.Fatalf("uploads kept after extraction: %d (%v)", len(left), err)
	}
	startPool(t, db, gen, &worker.Options{Extractor: x, PollInterval: 20 * time.Millisecond})
	if got := waitSettled(t, db, st)[0]; got.Status != studyloop.StatusReady {
		t.Fatalf("after restart: %s %q, want ready", got.Status, got.Reason)
	}
	parts, err := db.SourceParts(ctx, user, st.ID)
	if err != nil || len(parts) != 1 || parts[0].Label != "Page 2" {
		t.Fatalf("parts %v (%v), want Page 2", parts, err)
	}
}

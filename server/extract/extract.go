// Package extract turns uploaded study material, PDFs and photos of notes,
// into study text. PDF text comes from poppler's pdftotext; pages without a
// text layer are rendered with pdftoppm and read, like photos, by Tesseract
// OCR; HEIC photos are converted with libheif's heif-convert first.
//
// Uploads are checked by content (magic bytes, image headers), never by
// file name, and held to the limits below. The tools run as subprocesses
// without a shell and with a minimal environment (none of the server's
// secrets), reading a temporary copy of the upload, each under a
// context timeout, a cap on its output and, when util-linux's prlimit is
// installed, bounds on address space, CPU time and the size of files it
// writes. Without prlimit only the timeout and output caps apply.
//
// Tools are found on the PATH when the Extractor is made. Without
// tesseract, OCR reports ErrOCRUnavailable and everything else works.
package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/studyloop/studyloop/server/studyloop"
)

// Limits on uploads. The web app enforces the sizes as files arrive; the
// checks here apply them again to whatever reaches extraction.
const (
	MaxFileBytes   = 20 << 20   // one uploaded file: 20 MiB
	MaxStudyBytes  = 40 << 20   // all files of one study together: 40 MiB
	MaxPhotos      = 10         // photos in one study
	MaxPDFPages    = 200        // pages read from one PDF
	MaxImageSide   = 12_000     // pixels, width or height of a photo
	MaxImagePixels = 50_000_000 // width × height of a photo: 50 megapixels
)

// ErrOCRUnavailable is returned when text must be read from an image and
// Tesseract is not installed. Its message tells an administrator what to do.
var ErrOCRUnavailable = &studyloop.Error{
	Code:    studyloop.EINVALID,
	Message: "OCR not available: install tesseract-ocr (on Debian: apt-get install tesseract-ocr tesseract-ocr-eng).",
}

// ErrPDFUnavailable is returned for PDFs when poppler's tools are missing.
var ErrPDFUnavailable = &studyloop.Error{
	Code:    studyloop.EINVALID,
	Message: "PDF reading not available: install poppler-utils (on Debian: apt-get install poppler-utils).",
}

// ErrHEICUnavailable is returned for HEIC photos when libheif's converter
// is missing.
var ErrHEICUnavailable = &studyloop.Error{
	Code:    studyloop.EINVALID,
	Message: "HEIC photos cannot be read on this server (install libheif-examples); send the photo as JPEG or PNG.",
}

// Options configures an Extractor. A nil *Options means all defaults.
type Options struct {
	// Timeout bounds each run of a tool (one PDF page range, one page's
	// rendering, one OCR). Zero means 2 minutes.
	Timeout time.Duration
	// MemoryBytes bounds the address space of each tool process (through
	// prlimit). Zero means 1 GiB.
	MemoryBytes int64
	// MaxTextBytes caps the text read from one PDF or photo; a tool printing
	// more is stopped. Zero means 8 MiB, well above the 400,000-character
	// study limit even in four-byte characters.
	MaxTextBytes int
	// TempDir is where uploads are copied for the tools. Empty means
	// os.TempDir().
	TempDir string
	// Path lists the directories searched for the tools, as $PATH does.
	// Empty means the process's PATH.
	Path string
}

// tool names.
const (
	toolPDFInfo     = "pdfinfo"
	toolPDFToText   = "pdftotext"
	toolPDFToPPM    = "pdftoppm"
	toolTesseract   = "tesseract"
	toolHEIFConvert = "heif-convert"
	toolPrlimit     = "prlimit"
)

// toolNames are every tool an Extractor looks for.
var toolNames = []string{toolPDFInfo, toolPDFToText, toolPDFToPPM, toolTesseract, toolHEIFConvert, toolPrlimit}

// maxRenderedFileBytes bounds any file a tool writes (a rendered page, a
// converted photo) when prlimit is present.
const maxRenderedFileBytes = 128 << 20

// Extractor extracts text from PDFs and photos. It is safe for concurrent
// use.
type Extractor struct {
	timeout  time.Duration
	memory   int64
	maxText  int
	tempDir  string
	path     string            // the PATH the tools were found on, and see
	tools    map[string]string // name -> absolute path, for tools found
	ocrError error             // nil when OCR works
}

// New finds the tools and returns an Extractor. It runs `tesseract
// --list-langs` once to confirm the English data is installed.
func New(opts *Options) *Extractor {
	var o Options
	if opts != nil {
		o = *opts
	}
	x := &Extractor{
		timeout: o.Timeout,
		memory:  o.MemoryBytes,
		maxText: o.MaxTextBytes,
		tempDir: o.TempDir,
		path:    o.Path,
		tools:   map[string]string{},
	}
	if x.timeout <= 0 {
		x.timeout = 2 * time.Minute
	}
	if x.memory <= 0 {
		x.memory = 1 << 30
	}
	if x.maxText <= 0 {
		x.maxText = 8 << 20
	}
	if x.tempDir == "" {
		x.tempDir = os.TempDir()
	}
	if x.path == "" {
		x.path = os.Getenv("PATH")
	}
	for _, name := range toolNames {
		if p, ok := lookPath(x.path, name); ok {
			x.tools[name] = p
		}
	}
	x.ocrError = x.checkOCR()
	return x
}

// lookPath finds an executable file called name in the directories of path.
func lookPath(path, name string) (string, bool) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// checkOCR reports whether tesseract runs and has English data.
func (x *Extractor) checkOCR() error {
	if _, ok := x.tools[toolTesseract]; !ok {
		return ErrOCRUnavailable
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := x.run(ctx, &out, toolTesseract, "--list-langs"); err != nil {
		return ErrOCRUnavailable
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.TrimSpace(line) == "eng" {
			return nil
		}
	}
	return ErrOCRUnavailable
}

// OCRAvailable returns nil when photos and scanned pages can be read, or
// ErrOCRUnavailable.
func (x *Extractor) OCRAvailable() error { return x.ocrError }

// PDFAvailable returns nil when PDFs can be read, or ErrPDFUnavailable.
func (x *Extractor) PDFAvailable() error {
	for _, name := range []string{toolPDFInfo, toolPDFToText, toolPDFToPPM} {
		if _, ok := x.tools[name]; !ok {
			return ErrPDFUnavailable
		}
	}
	return nil
}

// MemoryBounded reports whether tool runs are bounded in memory, CPU time
// and written-file size, which needs util-linux's prlimit. Without it only
// the timeout and output caps apply; a server should warn at start.
func (x *Extractor) MemoryBounded() bool {
	_, ok := x.tools[toolPrlimit]
	return ok
}

// errTimeout, errMemory and errOutput classify a failed tool run.
var (
	errTimeout = errors.New("took too long")
	errMemory  = errors.New("needed too much memory")
	errOutput  = errors.New("printed too much text")
)

// toolError is a tool that exited unsuccessfully; Stderr is its first
// kilobytes of complaints, for logs and classification, never for users.
type toolError struct {
	Tool   string
	Err    error
	Stderr string
}

func (e *toolError) Error() string {
	return fmt.Sprintf("extract: %s: %v: %s", e.Tool, e.Err, strings.TrimSpace(e.Stderr))
}

func (e *toolError) Unwrap() error { return e.Err }

// run runs the named tool with args, without a shell, with stdin empty
// and with only the environment of toolEnv, writing its standard output to stdout (which may refuse further
// writes to cap it). It bounds the run by x.timeout and, through prlimit,
// by memory, CPU time and written-file size.
func (x *Extractor) run(ctx context.Context, stdout io.Writer, name string, args ...string) error {
	path, ok := x.tools[name]
	if !ok {
		return fmt.Errorf("extract: %s is not installed", name)
	}
	ctx, cancel := context.WithTimeout(ctx, x.timeout)
	defer cancel()
	argv := append([]string{path}, args...)
	if prlimit, ok := x.tools[toolPrlimit]; ok {
		cpu := int64(x.timeout/time.Second) + 1
		argv = append([]string{prlimit,
			"--as=" + strconv.FormatInt(x.memory, 10),
			"--cpu=" + strconv.FormatInt(cpu, 10),
			"--fsize=" + strconv.Itoa(maxRenderedFileBytes),
			"--core=0",
			"--"}, argv...)
	}
	home, err := os.MkdirTemp(x.tempDir, "studyloop-tool-")
	if err != nil {
		return fmt.Errorf("extract: temporary directory: %w", err)
	}
	defer os.RemoveAll(home)
	if abs, err := filepath.Abs(home); err == nil {
		home = abs
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = x.toolEnv(home)
	cmd.Stdout = stdout
	stderr := &capped{limit: 4 << 10}
	cmd.Stderr = stderr
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	if err == nil {
		return nil
	}
	if c, ok := stdout.(*capped); ok && c.overflow {
		return &toolError{Tool: name, Err: errOutput, Stderr: stderr.String()}
	}
	if ctx.Err() != nil {
		if parent := context.Cause(ctx); errors.Is(parent, context.Canceled) {
			return parent
		}
		return &toolError{Tool: name, Err: errTimeout, Stderr: stderr.String()}
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			switch ws.Signal() {
			case syscall.SIGXCPU:
				return &toolError{Tool: name, Err: errTimeout, Stderr: stderr.String()}
			case syscall.SIGKILL, syscall.SIGABRT, syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGXFSZ:
				// Killed without our timeout (the kernel's OOM killer),
				// aborted on a failed allocation, or past the file size cap.
				return &toolError{Tool: name, Err: errMemory, Stderr: stderr.String()}
			}
		}
		if isOutOfMemory(stderr.String()) {
			return &toolError{Tool: name, Err: errMemory, Stderr: stderr.String()}
		}
	}
	return &toolError{Tool: name, Err: err, Stderr: stderr.String()}
}

// toolEnv is the whole environment of a tool run: the server's own holds
// secrets (DATABASE_URL with its password, OAuth keys) that a tool, or a
// file exploiting it, has no business seeing. The tools get the PATH they
// were found on, the locale, a private empty directory as HOME and TMPDIR
// (for whatever caches or scratch files they write), Tesseract's data
// directory when one is configured, and one OCR thread: Tesseract would
// start a thread per core, and one worker is one core.
func (x *Extractor) toolEnv(home string) []string {
	env := []string{"PATH=" + x.path, "HOME=" + home, "TMPDIR=" + home, "OMP_THREAD_LIMIT=1"}
	for _, name := range []string{"LANG", "LC_ALL", "LC_CTYPE", "TESSDATA_PREFIX"} {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// isOutOfMemory recognises allocation failures in a tool's complaints.
func isOutOfMemory(stderr string) bool {
	s := strings.ToLower(stderr)
	return strings.Contains(s, "out of memory") || strings.Contains(s, "bad_alloc") ||
		strings.Contains(s, "cannot allocate") || strings.Contains(s, "memory allocation")
}

// capped is a writer that keeps at most limit bytes. Past the limit it
// keeps nothing more and, when strict, fails the write so the tool stops.
type capped struct {
	buf      bytes.Buffer
	limit    int
	strict   bool
	overflow bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.limit - c.buf.Len()
	if len(p) > room {
		c.buf.Write(p[:max(room, 0)])
		c.overflow = true
		if c.strict {
			return max(room, 0), errOutput
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *capped) String() string { return c.buf.String() }

// tempFile writes data to a new file in a new private directory and
// returns the directory (to remove) and the file's path.
func (x *Extractor) tempFile(data []byte, name string) (dir, path string, err error) {
	dir, err = os.MkdirTemp(x.tempDir, "studyloop-extract-")
	if err != nil {
		return "", "", fmt.Errorf("extract: temporary directory: %w", err)
	}
	path = filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("extract: temporary file: %w", err)
	}
	return dir, path, nil
}

// describe turns a classified tool failure into words for the student,
// about the thing being read (e.g. "the PDF", "photo 2"); other errors
// pass through unchanged.
func (x *Extractor) describe(err error, what string) error {
	switch {
	case errors.Is(err, errTimeout):
		return studyloop.Errorf(studyloop.EINVALID, "Reading %s took longer than %s and was stopped; the file may be damaged or built to overload readers.", what, x.timeout)
	case errors.Is(err, errMemory):
		return studyloop.Errorf(studyloop.EINVALID, "Reading %s needed more memory than allowed and was stopped; the file may be damaged or built to overload readers.", what)
	case errors.Is(err, errOutput):
		return studyloop.Errorf(studyloop.ETOOLARGE, "%s holds far more text than a study can take (%s characters); choose fewer pages.", capitalize(what), studyloop.Commas(studyloop.MaxStudyTextChars))
	}
	return err
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

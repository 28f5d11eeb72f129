// Package compress makes the compressed forms of files served from memory,
// once per file and at the highest levels (brotli 11, zstd's best, gzip 9),
// and compresses large dynamic responses on the fly at fast levels.
//
// Libraries: github.com/andybalholm/brotli (a pure Go translation of
// Google's brotli encoder, MIT licence) and github.com/klauspost/compress
// for zstd and gzip (BSD-3-Clause) and the HTTP middleware gzhttp
// (Apache-2.0).
package compress

import (
	"bytes"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// MinSize is the smallest body worth compressing: anything shorter travels
// in one packet either way, and saves at most a few hundred bytes.
const MinSize = 1024

// A compressed form is kept only when it is at most keepPercent percent of
// the original; a smaller saving does not pay for a separate cache entry
// (every compressed form varies on Accept-Encoding).
const keepPercent = 90

// brotliWindowBits sets brotli's window to 256 KiB, several times the
// largest built file; a larger window costs memory (the encoder's match
// finder grows with it) and gains nothing on files that fit.
const brotliWindowBits = 18

// Forms are the compressed forms of one body; a nil field is a coding that
// does not pay for this body.
type Forms struct {
	Brotli, Zstd, Gzip []byte
}

// Compressor makes Forms. Its encoders are costly to set up and large
// (zstd's best level alone has 34 MB of match tables), so it keeps them for
// the next file while files are being compressed, which happens in bursts
// when a deployment's first visitors arrive, and a second after the last
// one it drops them and hands the memory back to the operating system, so
// an idle server holds only the compressed bytes. The zero value is ready
// to use; it is safe for concurrent use and must not be copied.
type Compressor struct {
	mu      sync.Mutex
	idle    []*encoders // set up, not in use
	release *time.Timer // drops idle when it fires
}

// releaseAfter is how long encoders are kept after the last compression.
const releaseAfter = time.Second

// take returns encoders to use, the idle ones if any.
func (c *Compressor) take() *encoders {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.release != nil {
		c.release.Stop()
	}
	if n := len(c.idle); n > 0 {
		e := c.idle[n-1]
		c.idle = c.idle[:n-1]
		return e
	}
	return newEncoders()
}

// give puts e back and schedules the release of all idle encoders.
func (c *Compressor) give(e *encoders) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.idle = append(c.idle, e)
	if c.release == nil {
		c.release = time.AfterFunc(releaseAfter, c.releaseIdle)
		return
	}
	c.release.Reset(releaseAfter)
}

// releaseIdle drops the idle encoders and returns the freed memory to the
// operating system at once (the runtime would otherwise keep it for
// minutes, or until the next collection, which an idle server may not
// have).
func (c *Compressor) releaseIdle() {
	c.mu.Lock()
	dropped := len(c.idle)
	c.idle = nil
	c.mu.Unlock()
	if dropped > 0 {
		debug.FreeOSMemory()
	}
}

type encoders struct {
	out    bytes.Buffer
	brotli *brotli.Writer
	zstd   *zstd.Encoder
	gzip   *gzip.Writer
}

// newEncoders sets up the three encoders. Their options are constants, so
// an error is a bug in this file.
func newEncoders() *encoders {
	e := &encoders{}
	e.brotli = brotli.NewWriterOptions(&e.out, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: brotliWindowBits})
	var err error
	// The checksum is left out: TCP and TLS already guard the bytes, and
	// it would add 4 to each.
	e.zstd, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression),
		zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false))
	if err != nil {
		panic("compress: zstd options: " + err.Error())
	}
	e.gzip, err = gzip.NewWriterLevel(&e.out, gzip.BestCompression)
	if err != nil {
		panic("compress: gzip level: " + err.Error())
	}
	return e
}

// Compress returns the forms of body that pay: none for a body shorter than
// MinSize, otherwise each coding whose output is at most 90% of body. It
// takes milliseconds per file (brotli 11 dominates), so call it once per
// file, never per request.
func (c *Compressor) Compress(body []byte) Forms {
	if len(body) < MinSize {
		return Forms{}
	}
	e := c.take()
	defer c.give(e)
	return Forms{
		Brotli: keep(body, e.stream(body, e.brotli)),
		Zstd:   keep(body, e.zstd.EncodeAll(body, nil)),
		Gzip:   keep(body, e.stream(body, e.gzip)),
	}
}

// streamWriter is what brotli's and gzip's writers have in common.
type streamWriter interface {
	Reset(w io.Writer)
	Write(p []byte) (int, error)
	Close() error
}

// stream compresses body with w into a new slice of exactly its length.
// Both writers write into e.out, a bytes.Buffer, which cannot fail.
func (e *encoders) stream(body []byte, w streamWriter) []byte {
	e.out.Reset()
	w.Reset(&e.out)
	w.Write(body) //nolint:errcheck // writes to memory
	w.Close()     //nolint:errcheck // writes to memory
	return bytes.Clone(e.out.Bytes())
}

// keep returns compressed when it is at most keepPercent percent of body,
// else nil.
func keep(body, compressed []byte) []byte {
	if len(compressed)*100 > len(body)*keepPercent {
		return nil
	}
	return compressed
}

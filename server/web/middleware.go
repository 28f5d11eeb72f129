package web

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/studyloop/studyloop/server/respond"
)

// statusRecorder remembers the status and size of a response for logging.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(p)
	s.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// logRequests writes one log line per request: method, path, status,
// bytes sent, duration and remote address. With out nil it goes through
// logger; otherwise, when logger is enabled at info level, it goes straight
// to out as the line logger's JSON handler would write (the same keys,
// values and formats), built in a reused buffer, which costs a fraction of
// the handler's generic path.
func logRequests(logger *slog.Logger, out io.Writer, next http.Handler) http.Handler {
	lines := &requestLog{out: out}
	// One recorder per request in flight, reused.
	recorders := &sync.Pool{New: func() any { return new(statusRecorder) }}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := recorders.Get().(*statusRecorder)
		*rec = statusRecorder{ResponseWriter: w}
		defer func() {
			rec.ResponseWriter = nil
			recorders.Put(rec)
		}()
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		ctx := r.Context()
		if out != nil {
			if logger.Enabled(ctx, slog.LevelInfo) {
				lines.write(start, r.Method, r.URL.Path, r.RemoteAddr, rec.status, rec.bytes)
			}
			return
		}
		logger.LogAttrs(ctx, slog.LevelInfo, "request",
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", rec.status),
			slog.Int64("bytes", rec.bytes),
			slog.Duration("duration", time.Since(start)),
			slog.String("remote", r.RemoteAddr),
		)
	})
}

// requestLog writes request lines to out, one Write per line.
type requestLog struct {
	out io.Writer
	mu  sync.Mutex
	buf []byte
	// second and location are the Unix second and time zone whose date
	// and time of day, up to the seconds, are formatted in secondText;
	// zone is the UTC offset written after the milliseconds. Lines in the
	// same second reuse them.
	second     int64
	location   *time.Location
	secondText []byte
	zone       []byte
}

func (l *requestLog) write(start time.Time, method, path, remote string, status int, bytes int64) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := append(l.buf[:0], `{"time":"`...)
	b = l.appendTime(b, now)
	b = append(b, `","level":"INFO","msg":"request","method":`...)
	b = appendJSONString(b, method)
	b = append(b, `,"path":`...)
	b = appendJSONString(b, path)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, bytes, 10)
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(now.Sub(start)), 10)
	b = append(b, `,"remote":`...)
	b = appendJSONString(b, remote)
	b = append(b, "}\n"...)
	l.buf = b
	l.out.Write(b) //nolint:errcheck // as slog does, a failed log write is dropped
}

// LineBuffer gathers the lines written to it and passes them on to out
// together: FlushInterval after the first line it holds, when
// LineBufferSize bytes are held, and on Flush. A request line written
// straight to a file or pipe costs a system call per request; gathered,
// a few per second. It is safe for concurrent use; each Write must be
// whole lines, as log/slog's handlers and the request log write them.
type LineBuffer struct {
	out   io.Writer
	mu    sync.Mutex
	buf   []byte
	timer *time.Timer
}

// FlushInterval is the longest a line stays in a LineBuffer;
// LineBufferSize is how many bytes of lines it holds at most.
const (
	FlushInterval  = 100 * time.Millisecond
	LineBufferSize = 32 << 10
)

// NewLineBuffer returns a LineBuffer writing to out. Flush it before the
// program exits.
func NewLineBuffer(out io.Writer) *LineBuffer {
	b := &LineBuffer{out: out, buf: make([]byte, 0, LineBufferSize)}
	b.timer = time.AfterFunc(time.Hour, func() { b.Flush() }) //nolint:errcheck // as slog does, a failed log write is dropped
	b.timer.Stop()
	return b
}

// Write holds p, which must end in a newline, and passes on the lines held
// when the buffer is full.
func (b *LineBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf)+len(p) > LineBufferSize {
		if err := b.flushLocked(); err != nil {
			return 0, err
		}
		if len(p) > LineBufferSize {
			return b.out.Write(p)
		}
	}
	if len(b.buf) == 0 {
		b.timer.Reset(FlushInterval)
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Flush passes on the lines held.
func (b *LineBuffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *LineBuffer) flushLocked() error {
	if len(b.buf) == 0 {
		return nil
	}
	b.timer.Stop()
	_, err := b.out.Write(b.buf)
	b.buf = b.buf[:0]
	return err
}

// appendTime appends t as log/slog writes times, RFC 3339 with exactly
// three decimals ("2006-01-02T15:04:05.000Z07:00"), formatting the part up
// to the seconds once per second.
func (l *requestLog) appendTime(b []byte, t time.Time) []byte {
	if sec, loc := t.Unix(), t.Location(); sec != l.second || loc != l.location || l.secondText == nil {
		l.second, l.location = sec, loc
		l.secondText = t.AppendFormat(l.secondText[:0], "2006-01-02T15:04:05")
		l.zone = t.AppendFormat(l.zone[:0], "Z07:00")
	}
	ms := t.Nanosecond() / int(time.Millisecond)
	b = append(b, l.secondText...)
	b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	return append(b, l.zone...)
}

// appendJSONString appends s as a JSON string, escaped as log/slog's JSON
// handler escapes it: quotes, backslashes and control characters escaped,
// invalid UTF-8 replaced by U+FFFD, and U+2028 and U+2029 escaped so the
// line is also valid JavaScript.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			switch r {
			case utf8.RuneError:
				b = append(b, `\ufffd`...)
			default:
				b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			}
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// recoverPanics turns a panic in a handler into a logged 500.
func recoverPanics(logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				w.Header().Set("Connection", "close")
				respond.ServerError(logger, w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

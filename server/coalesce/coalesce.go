// Package coalesce trims what net/http costs per response on a
// connection: a handler's whole response can leave in one write, and the
// connection's deadlines reach the socket only when they matter.
//
// net/http writes a response through a 4 KiB buffer: a response longer than
// that leaves in two or three writes, and on loopback and fast links each
// write is a TCP push of its own, with the cost of a whole round of the
// network stack on both ends. A handler that serves a prepared response of
// a known, modest size calls Hold; the connection then gathers everything
// written to it and sends it in one write as soon as net/http is done with
// the response (it resets the connection's deadlines at that point).
//
// net/http also moves the read and write deadlines eight times per
// request; see DeadlineStep for how the connection keeps that cheap.
//
// A handler whose body is immutable calls HoldBody instead: the end of the
// body that net/http passes on without copying it into its buffer (all but
// the first 4 KiB or so of a body over about 8 KiB) is then sent from the
// body itself, beside the held bytes, in one writev, instead of being
// copied first.
//
// Connections come from Listener, and ConnContext makes them reachable from
// the request's context; set it as http.Server.ConnContext. Without them
// Hold does nothing, so handlers behave the same under httptest. Only
// handlers that write their whole response before returning may hold:
// writes made while holding stay in memory until the response is complete,
// so a handler that streams (flushes and goes on writing) must not.
package coalesce

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"time"
)

// MaxHeld is the most a connection gathers for one response; past it the
// gathered bytes go out and holding ends. A buffer this size is lent to
// each connection only while it holds.
const MaxHeld = 256 << 10

// Listener wraps ln so that its connections can hold a response.
func Listener(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	// net.Buffers sends in one writev only through the net package's own
	// connections; through any other it would write each buffer in turn.
	_, vectored := c.(*net.TCPConn)
	return &conn{Conn: c, vectored: vectored}, nil
}

type connKey struct{}

// ConnContext returns ctx carrying c when c came from Listener; it has the
// signature of http.Server.ConnContext.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if hc, ok := c.(*conn); ok {
		return context.WithValue(ctx, connKey{}, hc)
	}
	return ctx
}

// Hold makes the connection of the request whose context is ctx gather the
// response being written and send it in one write when it is complete. It
// does nothing when the connection did not come from Listener or the
// context lacks it (see ConnContext).
func Hold(ctx context.Context) {
	if c, ok := ctx.Value(connKey{}).(*conn); ok {
		c.hold(nil)
	}
}

// HoldBody is Hold for a handler whose response ends with body, written
// after the headers and followed by nothing, and which nobody changes
// while the response is sent (a prepared response's): a write of the end
// of body is kept as a reference to it rather than copied, and sent after
// the bytes held before it in the same writev.
func HoldBody(ctx context.Context, body []byte) {
	if c, ok := ctx.Value(connKey{}).(*conn); ok {
		c.hold(body)
	}
}

// buffers lends the gathered bytes' buffers, so that an idle connection
// keeps none.
var buffers = sync.Pool{New: func() any { return new([]byte) }}

// DeadlineStep is the granularity of deadlines on a connection from
// Listener: a deadline takes effect rounded up to the next multiple of it.
// net/http moves a connection's deadlines eight times per request, four
// of them to a new time, each a timer operation in the runtime: together
// about 3% of the CPU time of serving a built file, more than the site
// handler's own work. Rounded, they reach the connection a few times a
// second, and only when it reads or writes.
const DeadlineStep = 250 * time.Millisecond

// conn is a connection that can hold a response (see Hold), and that sets
// its deadlines on the connection beneath only when it reads or writes,
// rounded up to DeadlineStep, or at once while a read or write is under
// way in another goroutine. Its Close does not send what is held: net/http
// sends a complete response before it closes a connection (it resets the
// write deadline first), so only a response cut short by a panic in its
// handler can be held then.
type conn struct {
	net.Conn
	// mu guards the fields below, never a blocking read or write on the
	// connection: net/http reads in one goroutine (the read watching for
	// a client going away) while it writes and sets deadlines in another,
	// and http.Server.Close closes connections from its own.
	mu      sync.Mutex
	holding bool
	held    *[]byte
	// body is the body HoldBody named, and tail the end of it written, sent
	// from body itself after held; vectored tells that the connection
	// beneath sends a net.Buffers in one writev, without which the tail is
	// copied as any other write.
	body, tail []byte
	vectored   bool
	// bufs is what the one send with something to send writes beneath.
	bufs  net.Buffers
	vec   [2][]byte
	read  deadline
	write deadline
}

// deadline is one of a connection's deadlines: asked is the latest one
// set, onConn the one (rounded) on the connection beneath, and busy tells
// that a read or write using it is under way.
type deadline struct {
	asked, onConn time.Time
	busy          bool
}

// round returns t rounded up to DeadlineStep; the zero time (no deadline)
// stays zero.
func round(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	r := t.Truncate(DeadlineStep)
	if r.Before(t) {
		r = r.Add(DeadlineStep)
	}
	return r
}

// useLocked makes d ready for a read or write: it brings the deadline
// beneath up to date through set, or reports os.ErrDeadlineExceeded when
// the deadline asked for has passed, as the connection beneath would.
// c.mu is held.
func (d *deadline) useLocked(set func(time.Time) error) error {
	want := round(d.asked)
	if want.Equal(d.onConn) {
		return nil
	}
	if !d.asked.IsZero() && !d.asked.After(time.Now()) {
		return os.ErrDeadlineExceeded
	}
	if err := set(want); err != nil {
		return err
	}
	d.onConn = want
	return nil
}

// askLocked records t, and sets it beneath at once when a read or write
// is under way, so that a deadline in the past stops it. c.mu is held.
func (d *deadline) askLocked(t time.Time, set func(time.Time) error) error {
	d.asked = t
	if !d.busy {
		return nil
	}
	want := round(t)
	if err := set(want); err != nil {
		return err
	}
	d.onConn = want
	return nil
}

func (c *conn) hold(body []byte) {
	c.mu.Lock()
	c.holding = true
	if c.vectored {
		c.body = body
	}
	c.mu.Unlock()
}

// endOf reports whether p is the end of body: the same bytes, not a copy.
func endOf(p, body []byte) bool {
	return len(p) > 0 && len(p) <= len(body) && &p[0] == &body[len(body)-len(p)]
}

func (c *conn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if err := c.read.useLocked(c.Conn.SetReadDeadline); err != nil {
		c.mu.Unlock()
		return 0, err
	}
	c.read.busy = true
	c.mu.Unlock()
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.read.busy = false
	c.mu.Unlock()
	return n, err
}

// Write gathers p while holding, and writes it through otherwise. Past
// MaxHeld, or after the end of the body HoldBody named (which nothing should
// follow), what is held goes out and holding ends.
func (c *conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if !c.holding {
		return c.writeUnlocking(p)
	}
	if c.held == nil {
		c.held = buffers.Get().(*[]byte)
	}
	if c.tail == nil && endOf(p, c.body) {
		c.tail = p
		c.mu.Unlock()
		return len(p), nil
	}
	if c.tail == nil && len(*c.held)+len(p) <= MaxHeld {
		*c.held = append(*c.held, p...)
		c.mu.Unlock()
		return len(p), nil
	}
	c.mu.Unlock()
	if err := c.send(); err != nil {
		return 0, err
	}
	c.mu.Lock()
	return c.writeUnlocking(p)
}

// writeBuffersUnlocking is writeUnlocking for the held bytes and the tail
// of the body after them, in one writev; c.mu is held on entry and
// released during the write.
func (c *conn) writeBuffersUnlocking(held, tail []byte) error {
	if err := c.write.useLocked(c.Conn.SetWriteDeadline); err != nil {
		c.mu.Unlock()
		return err
	}
	c.write.busy = true
	c.mu.Unlock()
	c.vec = [2][]byte{held, tail}
	c.bufs = c.vec[:]
	_, err := c.bufs.WriteTo(c.Conn)
	c.vec, c.bufs = [2][]byte{}, nil
	c.mu.Lock()
	c.write.busy = false
	c.mu.Unlock()
	return err
}

// writeUnlocking writes p beneath under the write deadline asked for;
// c.mu is held on entry and released during the write.
func (c *conn) writeUnlocking(p []byte) (int, error) {
	if err := c.write.useLocked(c.Conn.SetWriteDeadline); err != nil {
		c.mu.Unlock()
		return 0, err
	}
	c.write.busy = true
	c.mu.Unlock()
	n, err := c.Conn.Write(p)
	c.mu.Lock()
	c.write.busy = false
	c.mu.Unlock()
	return n, err
}

// send sends the bytes held so far in one write and ends holding.
// Only one send at a time has something to send (it takes held under
// c.mu), so that one alone uses c.bufs.
func (c *conn) send() error {
	c.mu.Lock()
	held, tail := c.held, c.tail
	c.holding, c.held, c.body, c.tail = false, nil, nil, nil
	if held == nil {
		c.mu.Unlock()
		return nil
	}
	var err error
	if tail == nil {
		_, err = c.writeUnlocking(*held)
	} else {
		err = c.writeBuffersUnlocking(*held, tail)
	}
	*held = (*held)[:0]
	buffers.Put(held)
	return err
}

// net/http resets a connection's write deadline once a response is
// complete, before it reads the next request (and its read deadline when
// it stops the read that watches for a client going away), so each of
// these first sends the response held, under the deadline before. Read
// does not: the only read while a response is held is that watching read,
// which the response must not wait for.

func (c *conn) SetDeadline(t time.Time) error {
	c.lockSent()
	defer c.mu.Unlock()
	return errors.Join(c.read.askLocked(t, c.Conn.SetReadDeadline), c.write.askLocked(t, c.Conn.SetWriteDeadline))
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.lockSent()
	defer c.mu.Unlock()
	return c.read.askLocked(t, c.Conn.SetReadDeadline)
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	c.lockSent()
	defer c.mu.Unlock()
	return c.write.askLocked(t, c.Conn.SetWriteDeadline)
}

// lockSent locks c.mu once what is held has been sent and holding has
// ended; with nothing held (net/http sets deadlines several times per
// request, mostly then), in one locking.
func (c *conn) lockSent() {
	c.mu.Lock()
	if c.held == nil {
		c.holding, c.body = false, nil
		return
	}
	c.mu.Unlock()
	c.send() //nolint:errcheck // a broken connection fails the next read or write too
	c.mu.Lock()
}

// CloseWrite sends what is held, then shuts down the writing side when the
// connection supports it (TCP does).
func (c *conn) CloseWrite() error {
	if err := c.send(); err != nil {
		return err
	}
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

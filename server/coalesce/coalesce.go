// Package coalesce sends a whole HTTP response in one write on the
// connection when its handler asks for it.
//
// net/http writes a response through a 4 KiB buffer: a response longer than
// that leaves in two or three writes, and on loopback and fast links each
// write is a TCP push of its own, with the cost of a whole round of the
// network stack on both ends. A handler that serves a prepared response of
// a known, modest size calls Hold; the connection then gathers everything
// written to it and sends it in one write as soon as net/http is done with
// the response (it resets the connection's deadlines or reads the next
// request at that point), or when the connection closes.
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
	"net"
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
	return &conn{Conn: c}, nil
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
		c.hold()
	}
}

// buffers lends the gathered bytes' buffers, so that an idle connection
// keeps none.
var buffers = sync.Pool{New: func() any { return new([]byte) }}

// conn is a connection that can hold a response; see Hold. Its Close does
// not send what is held: net/http sends a complete response before it
// closes a connection (it resets the write deadline first), so only a
// response cut short by a panic in its handler can be held then.
type conn struct {
	net.Conn
	// mu guards the fields below, never a read or write on the
	// connection: http.Server.Close closes connections from its own
	// goroutine while their handlers may still write.
	mu      sync.Mutex
	holding bool
	held    *[]byte
}

func (c *conn) hold() {
	c.mu.Lock()
	c.holding = true
	c.mu.Unlock()
}

// Write gathers p while holding, and writes it through otherwise.
func (c *conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if !c.holding {
		c.mu.Unlock()
		return c.Conn.Write(p)
	}
	if c.held == nil {
		c.held = buffers.Get().(*[]byte)
	}
	if len(*c.held)+len(p) <= MaxHeld {
		*c.held = append(*c.held, p...)
		c.mu.Unlock()
		return len(p), nil
	}
	c.mu.Unlock()
	if err := c.send(); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

// send sends the bytes held so far in one write and ends holding.
func (c *conn) send() error {
	c.mu.Lock()
	held := c.held
	c.holding, c.held = false, nil
	c.mu.Unlock()
	if held == nil {
		return nil
	}
	_, err := c.Conn.Write(*held)
	*held = (*held)[:0]
	buffers.Put(held)
	return err
}

// net/http resets a connection's write deadline once a response is
// complete, before it reads the next request (and its read deadline when
// it stops the read that watches for a client going away), so each of
// these sends the response held. Read does not: the only read while a
// response is held is that watching read, which the response must not
// wait for.

func (c *conn) SetDeadline(t time.Time) error {
	c.send() //nolint:errcheck // a broken connection fails the next read or write too
	return c.Conn.SetDeadline(t)
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.send() //nolint:errcheck // as in SetDeadline
	return c.Conn.SetReadDeadline(t)
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	c.send() //nolint:errcheck // as in SetDeadline
	return c.Conn.SetWriteDeadline(t)
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

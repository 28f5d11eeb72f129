// Package fastsite answers the most frequent requests, GETs and HEADs of
// the built site's paths, on the connection itself, in front of net/http
// and on the same listener; every other request, and the connection from
// then on, goes to net/http.
//
// Serving a built file through net/http costs about twice what nginx takes
// for the same file: its request parsing, header map, per-request
// goroutine for the background read, response buffering and Date
// formatting are about half of the server's CPU time per request, and a
// bare net/http server writing the same bytes is no faster. Here each
// connection is read by a small loop that parses HTTP/1.1 requests
// strictly and without allocating (see parser). A request it fully
// understands, to a path the Answerer takes, is answered from prepared
// bytes in one write, and logged as net/http's path logs it. At the first
// line it does not understand, the connection is handed, every byte already
// read still unread, to the http.Server serving Listener (whose Accept
// returns such connections), which keeps it. net/http thus stays the
// authority for everything unusual, and the two never disagree about where
// a request ends: the fast path answers only requests whose framing is
// beyond doubt (no body, no Transfer-Encoding, one Host, no obs-fold, CRLF
// line ends) and otherwise decides nothing.
//
// Timeouts are the http.Server's (ReadHeaderTimeout, IdleTimeout,
// WriteTimeout, each falling back to ReadTimeout as net/http's do), set on
// the socket rounded up to a quarter of a second and only when they
// change, as package coalesce does for net/http's connections; a request
// handed over keeps the header deadline it started under. The
// http.Server's Shutdown begins the fast path's too, as it begins its own:
// the connections waiting for a request are closed at once, and the
// answers under way finish with Connection: close, as net/http's would;
// Listener.Shutdown waits for them.
//
// Only plain TCP connections take the fast path (the server terminates no
// TLS and speaks no h2c); HTTP/1.0 requests go to net/http.
//
// github.com/valyala/fasthttp was considered instead: it is a server of its
// own, with its own parser and handler type, and offers no way to give a
// connection, with the bytes it has read, back to net/http for requests it
// should not answer; running the whole service on it would need every
// route, the streaming ones (/mcp's SSE answers, uploads) included, moved
// to its API, and two parsers that judge the same bytes differently are
// what request smuggling is made of. The few hundred lines here do only
// the part net/http is slow at and leave it every decision that matters.
package fastsite

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Request is a GET or HEAD the fast path understood. Its strings point
// into the connection's buffer: they are valid only until Answer and Log
// return.
type Request struct {
	Head bool
	// Path is the request target as sent: an absolute path, no query,
	// nothing escaped or to escape, so it is also net/http's URL.Path (and
	// URL.RawPath is empty).
	Path string
	// Accept, AcceptEncoding and IfNoneMatch are the values of each field
	// line of those fields, in order, as http.Request.Header holds them.
	Accept, AcceptEncoding, IfNoneMatch []string
	// RemoteAddr is the peer's address, as http.Request.RemoteAddr.
	RemoteAddr string
}

// Response is a complete answer, prepared: Header is the status line and
// the header fields, each line ending in CRLF, without Date and without
// the empty line that ends them; Body is sent after them except to a HEAD.
type Response struct {
	Status int
	Header []byte
	Body   []byte
}

// Answerer answers the requests the fast path takes.
type Answerer interface {
	// Answer returns the response to req, or false to hand req (and the
	// connection) to net/http. It must not keep req's strings.
	Answer(req *Request) (Response, bool)
	// Log is called for each answer as it is sent, with the time the
	// request was read, the status and the bytes of body sent.
	Log(req *Request, start time.Time, status int, bytes int64)
}

// Listener is a net.Listener whose Accept returns the connections the fast
// path has handed over; serve it with the http.Server whose timeouts it
// was given. Closing it closes the listener beneath.
type Listener struct {
	ln       net.Listener
	answerer Answerer
	// readHeader, idle and write are the http.Server's timeouts; zero is
	// none.
	readHeader, idle, write time.Duration

	handed    chan accepted
	closed    chan struct{}
	closeOnce sync.Once

	shuttingDown atomic.Bool
	mu           sync.Mutex
	conns        map[*conn]struct{}
	running      sync.WaitGroup
}

// accepted is a connection for net/http's Accept, or the error it gets.
type accepted struct {
	conn net.Conn
	err  error
}

// New serves the fast path on the connections ln accepts, with a's
// answers and srv's timeouts, and returns the listener srv serves the
// rest on. srv.Shutdown begins the listener's shutdown (see Shutdown).
func New(ln net.Listener, a Answerer, srv *http.Server) *Listener {
	l := &Listener{
		ln:         ln,
		answerer:   a,
		readHeader: orDefault(srv.ReadHeaderTimeout, srv.ReadTimeout),
		idle:       orDefault(srv.IdleTimeout, srv.ReadTimeout),
		write:      srv.WriteTimeout,
		handed:     make(chan accepted),
		closed:     make(chan struct{}),
		conns:      map[*conn]struct{}{},
	}
	// net/http closes its idle connections at once on Shutdown, while it
	// waits for its requests under way: the fast path's idle ones must not
	// wait for those either.
	srv.RegisterOnShutdown(l.beginShutdown)
	go l.acceptLoop()
	return l
}

func orDefault(d, fallback time.Duration) time.Duration {
	if d != 0 {
		return d
	}
	return fallback
}

// Accept returns the next connection handed over to net/http.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case a := <-l.handed:
		return a.conn, a.err
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops accepting connections; those already accepted go on.
func (l *Listener) Close() error {
	err := net.ErrClosed
	l.closeOnce.Do(func() {
		close(l.closed)
		err = l.ln.Close()
	})
	return err
}

// Addr is the listener's address.
func (l *Listener) Addr() net.Addr { return l.ln.Addr() }

// Shutdown stops accepting, closes the fast path's connections that are
// waiting for a request or the rest of one (as http.Server.Shutdown closes
// its idle ones) and waits until the others have sent the answer under way
// (with Connection: close) and closed, or until ctx is done, when it
// closes them. Connections already handed over are net/http's: shut the
// http.Server down too, first (its Shutdown has begun this one already).
func (l *Listener) Shutdown(ctx context.Context) error {
	l.beginShutdown()
	done := make(chan struct{})
	go func() { l.running.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		l.mu.Lock()
		for c := range l.conns {
			c.nc.Close()
		}
		l.mu.Unlock()
		<-done
		return ctx.Err()
	}
}

// beginShutdown stops accepting and closes the connections waiting for a
// request or the rest of one; those answering close after their answer.
func (l *Listener) beginShutdown() {
	l.Close() //nolint:errcheck // closing twice is fine; the accept loop ends either way
	l.shuttingDown.Store(true)
	l.mu.Lock()
	for c := range l.conns {
		c.wake()
	}
	l.mu.Unlock()
}

func (l *Listener) acceptLoop() {
	for {
		nc, err := l.ln.Accept()
		if err != nil {
			// net/http's Serve decides: it calls Accept again after a
			// temporary error and stops after any other, which leaves
			// this loop waiting here until Close.
			select {
			case l.handed <- accepted{err: err}:
				continue
			case <-l.closed:
				return
			}
		}
		tc, ok := nc.(*net.TCPConn)
		if !ok {
			go l.handOver(nc)
			continue
		}
		c := &conn{l: l, nc: tc, remote: tc.RemoteAddr().String(), buf: make([]byte, bufferSize)}
		// Registered under l.mu, so that Shutdown, once it has taken it,
		// knows every connection it waits for.
		l.mu.Lock()
		if l.shuttingDown.Load() {
			l.mu.Unlock()
			tc.Close()
			continue
		}
		l.conns[c] = struct{}{}
		l.running.Add(1)
		l.mu.Unlock()
		go l.serve(c)
	}
}

// handOver gives nc to net/http.
func (l *Listener) handOver(nc net.Conn) {
	select {
	case l.handed <- accepted{conn: nc}:
	case <-l.closed:
		nc.Close()
	}
}

// serve runs the fast path on c, then hands c to net/http or closes it.
func (l *Listener) serve(c *conn) {
	defer l.running.Done()
	handed := c.run()
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
	if handed != nil {
		l.handOver(handed)
		return
	}
	c.nc.Close()
}

// bufferSize is what a connection reads requests into: a request whose
// header block does not fit goes to net/http.
const bufferSize = 8 << 10

// deadlineStep is the granularity of the deadlines set on the socket.
const deadlineStep = 250 * time.Millisecond

// conn is one connection on the fast path.
type conn struct {
	l      *Listener
	nc     *net.TCPConn
	remote string
	buf    []byte
	// buf[start:end] are the bytes read and not yet answered: the request
	// being read, and any pipelined after it.
	start, end int
	p          parser
	// headerBy is the deadline the request being read is read under.
	headerBy time.Time

	// mu guards reading, which tells that run is (about to be) blocked in a
	// read that Shutdown must stop.
	mu      sync.Mutex
	reading bool
	// readDeadline and writeDeadline are those set on the socket.
	readDeadline, writeDeadline time.Time

	req    Request
	fields [fieldCount][maxFieldLines]string
	out    []byte
	vec    [2][]byte
	bufs   net.Buffers
	// date is the Date header's value for the Unix second dateSecond.
	date       []byte
	dateSecond int64
}

// errShutdown stops a read once Shutdown has begun.
var errShutdown = errors.New("fastsite: shutting down")

// run serves requests until the connection closes, or returns the
// connection to hand over to net/http.
func (c *conn) run() net.Conn {
	// The first request is read under the header deadline from the
	// start; a later one under the idle deadline until its first bytes
	// arrive, then under the header deadline from then (taken when a read
	// for more of it is needed).
	c.headerBy = deadlineAfter(time.Now(), c.l.readHeader)
	idleBy, headerSet := c.headerBy, true
	answered := false
	for {
		if c.start == c.end {
			c.start, c.end = 0, 0
		}
		state, length := c.p.feed(c.buf[c.start:c.end])
		switch state {
		case handOver:
			if !answered || c.end-c.start >= 4 {
				return c.handed(headerSet)
			}
			// Between requests net/http waits for four bytes before it
			// reads one, and closes without an answer when the
			// connection ends first: so does the fast path, then reads
			// them anew.
			c.p = parser{}
		case complete:
			start, closing, ok := c.answer(length)
			if !ok {
				return c.handed(headerSet)
			}
			if closing {
				return nil
			}
			c.start += length
			c.p = parser{}
			answered = true
			idleBy, headerSet = deadlineAfter(start, c.l.idle), false
			continue
		}
		if c.end == len(c.buf) {
			if c.start == 0 {
				return c.handed(headerSet) // the header block does not fit
			}
			c.end = copy(c.buf, c.buf[c.start:c.end])
			c.start = 0
		}
		by := idleBy
		if c.start < c.end {
			if !headerSet {
				c.headerBy, headerSet = deadlineAfter(time.Now(), c.l.readHeader), true
			}
			by = c.headerBy
		}
		n, err := c.read(c.buf[c.end:], by)
		c.end += n
		if err != nil {
			// A request cut short goes to net/http, which answers it as it
			// does (but for fewer than four bytes after an answer; see
			// handOver above).
			if err == io.EOF && c.start < c.end && (!answered || c.end-c.start >= 4) {
				return c.handed(headerSet)
			}
			return nil // closed, timed out or shutting down: close, as net/http does
		}
	}
}

// deadlineAfter is the deadline d after t; the zero time for no timeout.
func deadlineAfter(t time.Time, d time.Duration) time.Time {
	if d <= 0 {
		return time.Time{}
	}
	return t.Add(d)
}

// round rounds t up to deadlineStep; the zero time stays zero.
func round(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	r := t.Truncate(deadlineStep)
	if r.Before(t) {
		r = r.Add(deadlineStep)
	}
	return r
}

// read reads into p under the deadline by, unless Shutdown has begun.
func (c *conn) read(p []byte, by time.Time) (int, error) {
	c.mu.Lock()
	if c.l.shuttingDown.Load() {
		c.mu.Unlock()
		return 0, errShutdown
	}
	if r := round(by); !r.Equal(c.readDeadline) {
		if err := c.nc.SetReadDeadline(r); err != nil {
			c.mu.Unlock()
			return 0, err
		}
		c.readDeadline = r
	}
	c.reading = true
	c.mu.Unlock()
	n, err := c.nc.Read(p)
	c.mu.Lock()
	c.reading = false
	c.mu.Unlock()
	return n, err
}

// wake stops the read the connection is blocked in; Shutdown calls it
// after setting shuttingDown, so a read not yet begun does not begin.
func (c *conn) wake() {
	c.mu.Lock()
	if c.reading {
		c.nc.SetReadDeadline(time.Unix(1, 0)) //nolint:errcheck // a broken connection ends its read anyway
	}
	c.mu.Unlock()
}

// str is b as a string without copying; valid while b is unchanged.
func str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// answer answers the complete request at c.start, length bytes long. It
// returns when the request was read, whether the connection closes after
// it (shutting down, or the write failed), and false when the Answerer
// leaves it to net/http.
func (c *conn) answer(length int) (start time.Time, closing, ok bool) {
	b := c.buf[c.start : c.start+length]
	c.req = Request{Head: c.p.head, Path: str(b[c.p.path.start:c.p.path.end]), RemoteAddr: c.remote}
	lists := [fieldCount]*[]string{&c.req.Accept, &c.req.AcceptEncoding, &c.req.IfNoneMatch}
	for i := range c.p.fields {
		f := &c.p.fields[i]
		if f.n == 0 {
			continue
		}
		for j, s := range f.spans[:f.n] {
			c.fields[i][j] = str(b[s.start:s.end])
		}
		*lists[i] = c.fields[i][:f.n:f.n]
	}
	start = time.Now()
	resp, ok := c.l.answerer.Answer(&c.req)
	if !ok {
		return start, false, false
	}
	closing = c.l.shuttingDown.Load()
	out := append(c.out[:0], resp.Header...)
	out = append(out, "Date: "...)
	out = append(out, c.dateText(start)...)
	out = append(out, "\r\n"...)
	if closing {
		out = append(out, "Connection: close\r\n"...)
	}
	out = append(out, "\r\n"...)
	c.out = out
	body := resp.Body
	if c.req.Head {
		body = nil
	}
	// Logged before it is sent, as net/http's handlers log before net/http
	// sends the end of what they wrote.
	c.l.answerer.Log(&c.req, start, resp.Status, int64(len(body)))
	if err := c.send(out, body, deadlineAfter(start, c.l.write)); err != nil {
		return start, true, true
	}
	return start, closing, true
}

// dateText is t as the Date header gives it (http.TimeFormat), formatted
// once per second.
func (c *conn) dateText(t time.Time) []byte {
	if s := t.Unix(); s != c.dateSecond || c.date == nil {
		c.dateSecond = s
		c.date = t.UTC().AppendFormat(c.date[:0], http.TimeFormat)
	}
	return c.date
}

// send writes head and body in one write under the deadline by.
func (c *conn) send(head, body []byte, by time.Time) error {
	if r := round(by); !r.Equal(c.writeDeadline) {
		if err := c.nc.SetWriteDeadline(r); err != nil {
			return err
		}
		c.writeDeadline = r
	}
	if len(body) == 0 {
		_, err := c.nc.Write(head)
		return err
	}
	c.vec = [2][]byte{head, body}
	c.bufs = c.vec[:]
	_, err := c.bufs.WriteTo(c.nc)
	c.vec, c.bufs = [2][]byte{}, nil
	return err
}

// handed returns the connection as net/http gets it: the bytes read and
// not answered come first, and a request already begun keeps its header
// deadline (headerSet tells that c.headerBy is it).
func (c *conn) handed(headerSet bool) net.Conn {
	// net/http sets the deadlines it wants; none of ours may linger.
	c.nc.SetDeadline(time.Time{}) //nolint:errcheck // a broken connection fails net/http's first read
	h := &handedConn{TCPConn: c.nc, pending: append([]byte(nil), c.buf[c.start:c.end]...)}
	if c.start < c.end && headerSet {
		h.limit = c.headerBy
	}
	return h
}

// handedConn is a connection handed to net/http: its reads return pending
// first. The first read deadline net/http sets (the header deadline of its
// first request) is held to limit, the header deadline of the request the
// fast path had begun reading, so that handing over gives a slow client no
// more time.
type handedConn struct {
	*net.TCPConn
	pending []byte
	limit   time.Time
	limited atomic.Bool
}

func (h *handedConn) Read(p []byte) (int, error) {
	if len(h.pending) > 0 {
		n := copy(p, h.pending)
		h.pending = h.pending[n:]
		if len(h.pending) == 0 {
			h.pending = nil // not kept for the connection's life
		}
		return n, nil
	}
	return h.TCPConn.Read(p)
}

// WriteTo writes pending, then what the connection reads, to w: the
// WriteTo of *net.TCPConn, which io.Copy would use, knows nothing of
// pending.
func (h *handedConn) WriteTo(w io.Writer) (int64, error) {
	var n int
	if len(h.pending) > 0 {
		var err error
		n, err = w.Write(h.pending)
		h.pending = h.pending[n:]
		if err != nil {
			return int64(n), err
		}
		h.pending = nil
	}
	m, err := h.TCPConn.WriteTo(w)
	return int64(n) + m, err
}

func (h *handedConn) SetReadDeadline(t time.Time) error {
	if !h.limited.Swap(true) && !h.limit.IsZero() && (t.IsZero() || t.After(h.limit)) {
		t = h.limit
	}
	return h.TCPConn.SetReadDeadline(t)
}

// SetDeadline sets both deadlines, the read deadline as SetReadDeadline.
func (h *handedConn) SetDeadline(t time.Time) error {
	return errors.Join(h.SetReadDeadline(t), h.TCPConn.SetWriteDeadline(t))
}

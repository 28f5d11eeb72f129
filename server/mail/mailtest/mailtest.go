// Package mailtest runs a real SMTP server (github.com/emersion/go-smtp)
// on loopback for tests, and hands over the messages it receives.
package mailtest

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/mail"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one delivered message.
type Message struct {
	From string
	To   []string
	// Login is the user name the client authenticated as ("" for none).
	Login  string
	Header mail.Header
	Body   []byte // as sent: still transfer-encoded
	Raw    []byte
}

// Server is a running SMTP server.
type Server struct {
	// URL is its SMTP_URL, without credentials: smtp://127.0.0.1:PORT.
	URL string
	// Credentials accepted by AUTH PLAIN; any other login is refused.
	User, Password string

	mu       sync.Mutex
	messages []Message
	arrived  chan struct{}
}

// Start serves SMTP on a free loopback port until the test ends. It
// accepts AUTH PLAIN with user "studyloop" and password "mail-secret"
// (allowed without TLS on loopback) and mail without authentication.
func Start(tb testing.TB) *Server {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &Server{URL: "smtp://" + ln.Addr().String(), User: "studyloop", Password: "mail-secret", arrived: make(chan struct{}, 100)}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{server: s}, nil }))
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.ErrorLog = nopLogger{}
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }() //nolint:errcheck // ends with Close
	tb.Cleanup(func() { srv.Close(); <-done })
	return s
}

// Messages returns the messages received so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Wait returns the first n messages once they have arrived, or fails the
// test after timeout.
func (s *Server) Wait(tb testing.TB, n int, timeout time.Duration) []Message {
	tb.Helper()
	deadline := time.After(timeout)
	for {
		if m := s.Messages(); len(m) >= n {
			return m[:n]
		}
		select {
		case <-s.arrived:
		case <-deadline:
			tb.Fatalf("%d messages arrived within %v, want %d", len(s.Messages()), timeout, n)
		}
	}
}

type session struct {
	server *Server
	login  string
	from   string
	to     []string
}

func (x *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (x *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != x.server.User || password != x.server.Password {
			return errors.New("invalid credentials")
		}
		x.login = username
		return nil
	}), nil
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error { x.from = from; return nil }

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = append(x.to, to)
	return nil
}

func (x *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(m.Body)
	if err != nil {
		return err
	}
	x.server.mu.Lock()
	x.server.messages = append(x.server.messages, Message{From: x.from, To: x.to, Login: x.login, Header: m.Header, Body: body, Raw: raw})
	x.server.mu.Unlock()
	select {
	case x.server.arrived <- struct{}{}:
	default: // a waiter is already due to look
	}
	return nil
}

func (x *session) Reset()        { x.from, x.to = "", nil }
func (x *session) Logout() error { return nil }

type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}
func (nopLogger) Println(...any)        {}

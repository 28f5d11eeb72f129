// Package mail sends the service's emails (password-reset links) over
// SMTP, to the server named by SMTP_URL: smtp://[user:password@]host[:port]
// (port 587 by default; STARTTLS whenever the server offers it, and
// required before any password is sent to a host other than loopback) or
// smtps://… (TLS from the start, port 465 by default). It speaks SMTP
// itself (RFC 5321) through net/smtp and writes plain-text UTF-8 messages
// (RFC 5322, MIME quoted-printable).
package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/url"
	"strings"
	"time"
)

// sendTimeout bounds one delivery to the SMTP server.
const sendTimeout = 30 * time.Second

// Sender delivers messages through one SMTP server.
type Sender struct {
	addr     string // host:port
	host     string
	implicit bool // TLS from the start (smtps)
	auth     smtp.Auth
	from     *mail.Address
}

// New returns a Sender for the server named by rawURL (the SMTP_URL
// format above), sending from the address from ("Name <addr>" or a bare
// address).
func New(rawURL, from string) (*Sender, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("SMTP_URL must look like smtp://user:password@mail.example:587 or smtps://mail.example")
	}
	s := &Sender{host: u.Hostname(), implicit: u.Scheme == "smtps"}
	port := u.Port()
	if port == "" {
		port = map[bool]string{false: "587", true: "465"}[s.implicit]
	}
	s.addr = net.JoinHostPort(s.host, port)
	if u.User != nil {
		password, _ := u.User.Password()
		// PlainAuth sends the password only over TLS or to loopback.
		s.auth = smtp.PlainAuth("", u.User.Username(), password, s.host)
	}
	if s.from, err = mail.ParseAddress(from); err != nil {
		return nil, fmt.Errorf("MAIL_FROM %q is not an email address: %v", from, err)
	}
	return s, nil
}

// Send delivers one plain-text message to the address to.
func (s *Sender) Send(ctx context.Context, to, subject, body string) error {
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	msg, err := s.message(to, subject, body)
	if err != nil {
		return err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		conn.SetDeadline(deadline) //nolint:errcheck // a closed connection fails the next step
	}
	if s.implicit {
		conn = tls.Client(conn, &tls.Config{ServerName: s.host})
	}
	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	defer c.Close()
	if err := s.deliver(c, to, msg); err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	return nil
}

func (s *Sender) deliver(c *smtp.Client, to string, msg []byte) error {
	if err := c.Hello("localhost"); err != nil {
		return err
	}
	if ok, _ := c.Extension("STARTTLS"); ok && !s.implicit {
		if err := c.StartTLS(&tls.Config{ServerName: s.host}); err != nil {
			return err
		}
	}
	if s.auth != nil {
		if err := c.Auth(s.auth); err != nil {
			return err
		}
	}
	if err := c.Mail(s.from.Address); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// message writes the RFC 5322 message: headers, then the body in
// quoted-printable UTF-8.
func (s *Sender) message(to, subject, body string) ([]byte, error) {
	rcpt, err := mail.ParseAddress(to)
	if err != nil || strings.ContainsAny(to, "\r\n") {
		return nil, fmt.Errorf("mail: bad recipient %q", to)
	}
	var b bytes.Buffer
	header := func(name, value string) { fmt.Fprintf(&b, "%s: %s\r\n", name, value) }
	header("From", s.from.String())
	header("To", rcpt.String())
	header("Subject", mime.QEncoding.Encode("utf-8", subject))
	header("Date", time.Now().Format(time.RFC1123Z))
	header("Message-ID", fmt.Sprintf("<%s@%s>", strings.ToLower(rand.Text()), s.from.Address[strings.LastIndexByte(s.from.Address, '@')+1:]))
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(strings.ReplaceAll(body, "\n", "\r\n"))); err != nil {
		return nil, err
	}
	if err := qp.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

package mail_test

import (
	"context"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/mail"
	"github.com/studyloop/studyloop/server/mail/mailtest"
)

func TestNewRefusesBadSettings(t *testing.T) {
	tests := []struct{ url, from string }{
		{"", "a@example.com"},
		{"http://mail.example", "a@example.com"},
		{"smtp://", "a@example.com"},
		{"smtp://mail.example/path", "a@example.com"},
		{"smtp://mail.example", "not an address"},
	}
	for _, tt := range tests {
		if _, err := mail.New(tt.url, tt.from); err == nil {
			t.Errorf("New(%q, %q) accepted", tt.url, tt.from)
		}
	}
	if _, err := mail.New("smtps://user:pw@mail.example", "Studyloop <noreply@example.com>"); err != nil {
		t.Errorf("a valid smtps URL: %v", err)
	}
}

// TestSendThroughRealServer delivers messages to a real SMTP server on
// loopback, with and without AUTH PLAIN, and reads them back: envelope,
// headers (a UTF-8 subject) and the decoded body.
func TestSendThroughRealServer(t *testing.T) {
	server := mailtest.Start(t)
	withLogin := strings.Replace(server.URL, "smtp://", "smtp://"+url.UserPassword(server.User, server.Password).String()+"@", 1)
	wrongLogin := strings.Replace(server.URL, "smtp://", "smtp://studyloop:wrong@", 1)
	tests := []struct {
		name      string
		url       string
		wantLogin string
		wantErr   bool
	}{
		{"no login", server.URL, "", false},
		{"login", withLogin, server.User, false},
		{"wrong password", wrongLogin, "", true},
	}
	delivered := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := mail.New(tt.url, "Studyloop <noreply@studyloop.example>")
			if err != nil {
				t.Fatal(err)
			}
			body := "Öffne diesen Link, um ein neues Passwort zu wählen:\n\nhttp://studyloop.example/reset/" + strings.Repeat("x", 90) + "\n"
			err = s.Send(context.Background(), "ann@example.com", "Passwort zurücksetzen", body)
			if tt.wantErr {
				if err == nil {
					t.Fatal("sent despite the wrong password")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			delivered++
			m := server.Wait(t, delivered, 10*time.Second)[delivered-1]
			if m.From != "noreply@studyloop.example" || len(m.To) != 1 || m.To[0] != "ann@example.com" || m.Login != tt.wantLogin {
				t.Fatalf("envelope from %q to %v as %q", m.From, m.To, m.Login)
			}
			subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
			if err != nil || subject != "Passwort zurücksetzen" {
				t.Fatalf("subject %q (%v)", subject, err)
			}
			got, err := io.ReadAll(quotedprintable.NewReader(strings.NewReader(string(m.Body))))
			if err != nil || strings.ReplaceAll(string(got), "\r\n", "\n") != body {
				t.Fatalf("body %q (%v), want %q", got, err, body)
			}
		})
	}
}

package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/account"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
)

func TestUserCreate(t *testing.T) {
	dbURL := storetest.URL(t, "sqlite")
	getenv := func(k string) string { return map[string]string{"DATABASE_URL": dbURL, "LOG_LEVEL": "warn"}[k] }
	tests := []struct {
		name    string
		args    []string
		stdin   string
		wantErr string
		email   string // created account, checked with password
		pass    string
	}{
		{"password flag", []string{"user", "create", "--email", "Ops@Example.com", "--password", "flag password 123"}, "", "", "ops@example.com", "flag password 123"},
		{"password on stdin", []string{"user", "create", "--email", "stdin@example.com", "--password-stdin"}, "stdin password 123\n", "", "stdin@example.com", "stdin password 123"},
		{"duplicate email", []string{"user", "create", "--email", "OPS@example.com", "--password", "another password"}, "", "already exists", "", ""},
		{"short password", []string{"user", "create", "--email", "x@example.com", "--password", "short"}, "", "at least", "", ""},
		{"no password", []string{"user", "create", "--email", "x@example.com"}, "", "usage", "", ""},
		{"both passwords", []string{"user", "create", "--email", "x@example.com", "--password", "p", "--password-stdin"}, "", "usage", "", ""},
		{"no email", []string{"user", "create", "--password", "long enough password"}, "", "usage", "", ""},
		{"unknown subcommand", []string{"user", "delete"}, "", "usage", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(context.Background(), tt.args, getenv, strings.NewReader(tt.stdin), &out, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "<"+tt.email+">") {
				t.Fatalf("output %q does not name %s", out.String(), tt.email)
			}
			db, err := store.Open(context.Background(), dbURL)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			u, err := db.UserByEmail(context.Background(), tt.email)
			if err != nil {
				t.Fatal(err)
			}
			if !account.CheckPassword(u.PasswordHash, tt.pass) {
				t.Fatal("the stored hash does not match the password")
			}
		})
	}
}

// TestUserResetPassword: the operator's command prints a link whose token
// lets the student choose a new password once.
func TestUserResetPassword(t *testing.T) {
	dbURL := storetest.URL(t, "sqlite")
	getenv := func(k string) string {
		return map[string]string{"DATABASE_URL": dbURL, "LOG_LEVEL": "warn", "BASE_URL": "https://studyloop.example"}[k]
	}
	ctx := context.Background()
	if err := run(ctx, []string{"user", "create", "--email", "ann@example.com", "--password", "forgotten password"}, getenv, nil, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no email", []string{"user", "reset-password"}, "usage"},
		{"unknown account", []string{"user", "reset-password", "--email", "nobody@example.com"}, "No account"},
		{"bad address", []string{"user", "reset-password", "--email", "nobody"}, "email address"},
	}
	for _, tt := range tests {
		if err := run(ctx, tt.args, getenv, nil, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.wantErr)
		}
	}
	var out bytes.Buffer
	if err := run(ctx, []string{"user", "reset-password", "--email", "Ann@Example.com"}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	_, token, ok := strings.Cut(strings.TrimSpace(out.String()), "https://studyloop.example/reset?token=")
	if !ok || len(token) < 26 || !strings.Contains(out.String(), "<ann@example.com>") {
		t.Fatalf("output %q holds no reset link for ann", out.String())
	}
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := account.NewService(db, nil)
	if _, err := svc.FinishReset(ctx, token, "remembered password"); err != nil {
		t.Fatalf("using the printed link: %v", err)
	}
	if _, err := svc.SignIn(ctx, "ann@example.com", "remembered password", "192.0.2.1"); err != nil {
		t.Fatalf("signing in with the new password: %v", err)
	}
}

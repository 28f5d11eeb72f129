package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/studyloop/studyloop/server/account"
	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/webapp"
)

const userUsage = `usage: studyloop user create --email E (--password P | --password-stdin)
       studyloop user reset-password --email E`

// userCmd runs "studyloop user ...": for operators, creating accounts and
// issuing password-reset links from the command line.
func userCmd(ctx context.Context, cfg config.Config, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "reset-password" {
		return resetPasswordCmd(ctx, cfg, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "create" {
		return errors.New(userUsage)
	}
	fs := flag.NewFlagSet("user create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "the account's email address")
	password := fs.String("password", "", "the account's password (visible to other local users; prefer --password-stdin)")
	fromStdin := fs.Bool("password-stdin", false, "read the password from the first line of standard input")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%w\n%s", err, userUsage)
	}
	if fs.NArg() > 0 || *email == "" || (*password == "") == !*fromStdin {
		return errors.New(userUsage)
	}
	if *fromStdin {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading the password: %w", err)
		}
		*password = strings.TrimRight(line, "\r\n")
	}
	db, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	u, err := account.NewService(db, nil).SignUp(ctx, *email, *password)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "created user %d <%s>\n", u.ID, u.Email)
	return nil
}

// resetPasswordCmd prints a single-use link, valid for
// account.ResetLifetime, with which the student chooses a new password:
// the way to reset one when no SMTP_URL is set. The operator passes the
// link on and never learns the password.
func resetPasswordCmd(ctx context.Context, cfg config.Config, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("user reset-password", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "the account's email address")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w\n%s", err, userUsage)
	}
	if fs.NArg() > 0 || *email == "" {
		return errors.New(userUsage)
	}
	normalized, err := account.NormalizeEmail(*email)
	if err != nil {
		return err
	}
	db, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	u, err := db.UserByEmail(ctx, normalized)
	if err != nil {
		return err
	}
	tok, err := account.NewService(db, nil).IssueReset(ctx, u)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "reset link for <%s>, valid once for %d minutes:\n%s\n", u.Email, int(account.ResetLifetime.Minutes()), webapp.ResetURL(cfg.BaseURL, tok.Token))
	return nil
}

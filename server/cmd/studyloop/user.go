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
)

const userUsage = `usage: studyloop user create --email E (--password P | --password-stdin)`

// userCmd runs "studyloop user ...": for operators, creating accounts from
// the command line.
func userCmd(ctx context.Context, cfg config.Config, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
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

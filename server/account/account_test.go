package account_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/studyloop/studyloop/server/account"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

func TestHashPassword(t *testing.T) {
	h, err := account.HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q is not an argon2id PHC string", h)
	}
	h2, _ := account.HashPassword("correct horse battery")
	if h == h2 {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
	tests := []struct {
		name     string
		hash     string
		password string
		want     bool
	}{
		{"right password", h, "correct horse battery", true},
		{"wrong password", h, "correct horse batterY", false},
		{"empty password", h, "", false},
		{"empty hash", "", "correct horse battery", false},
		{"other algorithm", strings.Replace(h, "argon2id", "argon2i", 1), "correct horse battery", false},
		{"truncated", h[:len(h)-10], "correct horse battery", false},
		{"huge memory", strings.Replace(h, "m=19456", "m=99999999", 1), "correct horse battery", false},
		{"bad salt", strings.Replace(h, "$", "$!", 4), "correct horse battery", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := account.CheckPassword(tt.hash, tt.password); got != tt.want {
				t.Fatalf("CheckPassword = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNormalizeEmail(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"ada@example.com", "ada@example.com", true},
		{"  Ada.Lovelace@Example.COM ", "ada.lovelace@example.com", true},
		{"ada+maths@sub.example.org", "ada+maths@sub.example.org", true},
		{"", "", false},
		{"ada", "", false},
		{"ada@localhost", "", false},
		{"Ada <ada@example.com>", "", false},
		{"ada@example.com, bob@example.com", "", false},
		{"@example.com", "", false},
		{strings.Repeat("a", 250) + "@example.com", "", false},
	}
	for _, tt := range tests {
		got, err := account.NormalizeEmail(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && studyloop.ErrorCode(err) != studyloop.EINVALID {
			t.Errorf("NormalizeEmail(%q) error code %q, want invalid", tt.in, studyloop.ErrorCode(err))
		}
	}
}

func TestValidatePassword(t *testing.T) {
	tests := []struct {
		password string
		ok       bool
	}{
		{strings.Repeat("x", account.MinPasswordChars-1), false},
		{strings.Repeat("x", account.MinPasswordChars), true},
		{strings.Repeat("é", account.MinPasswordChars), true}, // characters, not bytes
		{strings.Repeat("x", account.MaxPasswordChars), true},
		{strings.Repeat("x", account.MaxPasswordChars+1), false},
	}
	for _, tt := range tests {
		if err := account.ValidatePassword(tt.password); (err == nil) != tt.ok {
			t.Errorf("ValidatePassword(%d chars) = %v, want ok=%v", len([]rune(tt.password)), err, tt.ok)
		}
	}
}

func TestServiceSignUpAndSignIn(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		svc := account.NewService(db, &account.Options{AccountFailures: 3, IPFailures: 5})
		u, err := svc.SignUp(ctx, " Student@Example.com", "a long enough password")
		if err != nil {
			t.Fatal(err)
		}
		if u.Email != "student@example.com" || u.PasswordHash == "a long enough password" {
			t.Fatalf("stored user %+v", u)
		}
		if _, err := svc.SignUp(ctx, "STUDENT@example.com", "another long password"); studyloop.ErrorCode(err) != studyloop.ECONFLICT {
			t.Fatalf("second sign-up with the same email (other case): %v, want conflict", err)
		}
		if _, err := svc.SignUp(ctx, "x@example.com", "short"); studyloop.ErrorCode(err) != studyloop.EINVALID {
			t.Fatalf("short password: %v, want invalid", err)
		}

		got, err := svc.SignIn(ctx, "student@EXAMPLE.com", "a long enough password", "192.0.2.1")
		if err != nil || got.ID != u.ID {
			t.Fatalf("sign-in: %+v, %v", got, err)
		}
		if _, err := svc.SignIn(ctx, "nobody@example.com", "a long enough password", "192.0.2.1"); !errors.Is(err, account.ErrBadCredentials) {
			t.Fatalf("unknown email: %v", err)
		}

		// Three wrong passwords for the account; the fourth attempt is
		// refused without checking, even with the right password.
		for range 3 {
			if _, err := svc.SignIn(ctx, "student@example.com", "wrong password!", "192.0.2.2"); !errors.Is(err, account.ErrBadCredentials) {
				t.Fatalf("wrong password: %v", err)
			}
		}
		var throttled *account.ThrottledError
		if _, err := svc.SignIn(ctx, "student@example.com", "a long enough password", "192.0.2.3"); !errors.As(err, &throttled) || throttled.Seconds() < 1 {
			t.Fatalf("after repeated failures: %v, want *ThrottledError", err)
		}

		// One IP failing on many accounts is throttled too.
		for i := range 5 {
			svc.SignIn(ctx, string(rune('a'+i))+"@example.com", "whatever password", "198.51.100.7")
		}
		if _, err := svc.SignIn(ctx, "fresh@example.com", "whatever password", "198.51.100.7"); !errors.As(err, &throttled) {
			t.Fatalf("IP after repeated failures: %v, want *ThrottledError", err)
		}
	})
}

// TestSignInThrottleHoldsUnderConcurrency sends many wrong passwords at
// once: no more may be checked than one after another (3 for the account,
// 3 for the address), the rest are told to wait.
func TestSignInThrottleHoldsUnderConcurrency(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		svc := account.NewService(db, &account.Options{AccountFailures: 3, IPFailures: 3})
		if _, err := svc.SignUp(ctx, "target@example.com", "a long enough password"); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name      string
			email, ip func(i int) string
		}{
			{"one account from many addresses", func(int) string { return "target@example.com" }, func(i int) string { return "192.0.2." + strconv.Itoa(i+1) }},
			{"many accounts from one address", func(i int) string { return "user" + strconv.Itoa(i) + "@example.com" }, func(int) string { return "198.51.100.9" }},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				const n = 12
				errs := make([]error, n)
				var wg sync.WaitGroup
				for i := range n {
					wg.Go(func() { _, errs[i] = svc.SignIn(ctx, tt.email(i), "wrong password!", tt.ip(i)) })
				}
				wg.Wait()
				checked := 0
				for _, err := range errs {
					var throttled *account.ThrottledError
					switch {
					case errors.Is(err, account.ErrBadCredentials):
						checked++
					case !errors.As(err, &throttled):
						t.Fatalf("unexpected error %v", err)
					}
				}
				if checked > 3 {
					t.Fatalf("%d of %d concurrent wrong passwords were checked, want at most 3", checked, n)
				}
			})
		}
	})
}

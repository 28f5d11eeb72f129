package account_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/account"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

func TestChangePassword(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		svc := account.NewService(db, &account.Options{AccountFailures: 3})
		u, err := svc.SignUp(ctx, "ann@example.com", "the old password")
		if err != nil {
			t.Fatal(err)
		}
		_, rt := storetest.Grant(t, db, u.ID, storetest.SomeAgent, "https://study.example/mcp")
		tests := []struct {
			name, current, next string
			want                error
		}{
			{"wrong current password", "not the password", "a brand new password", account.ErrWrongPassword},
			{"new password too short", "the old password", "short", &studyloop.Error{Code: studyloop.EINVALID}},
		}
		for _, tt := range tests {
			err := svc.ChangePassword(ctx, u.ID, tt.current, tt.next, "192.0.2.1")
			if studyloop.ErrorCode(err) != studyloop.ErrorCode(tt.want) {
				t.Fatalf("%s: %v, want %v", tt.name, err, tt.want)
			}
			if tok, _ := db.OAuthToken(ctx, rt); !tok.RevokedAt.IsZero() {
				t.Fatalf("%s: the grant ended", tt.name)
			}
		}
		if err := svc.ChangePassword(ctx, u.ID, "the old password", "a brand new password", "192.0.2.1"); err != nil {
			t.Fatal(err)
		}
		if tok, _ := db.OAuthToken(ctx, rt); tok.RevokedAt.IsZero() {
			t.Fatal("the agent's grant outlived the password change")
		}
		if _, err := svc.SignIn(ctx, "ann@example.com", "the old password", "192.0.2.3"); !errors.Is(err, account.ErrBadCredentials) {
			t.Fatalf("old password after the change: %v", err)
		}
		if _, err := svc.SignIn(ctx, "ann@example.com", "a brand new password", "192.0.2.3"); err != nil {
			t.Fatalf("new password: %v", err)
		}
		// Guessing the current password is throttled like signing in.
		var throttled *account.ThrottledError
		for i := range 4 {
			err := svc.ChangePassword(ctx, u.ID, "guess", "a brand new password 2", "192.0.2.4")
			if i < 3 && !errors.Is(err, account.ErrWrongPassword) || i == 3 && !errors.As(err, &throttled) {
				t.Fatalf("guess %d: %v", i+1, err)
			}
		}
	})
}

func TestDeleteAccount(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		svc := account.NewService(db, nil)
		u, err := svc.SignUp(ctx, "ann@example.com", "ann's password")
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.DeleteAccount(ctx, u.ID, "wrong password", "192.0.2.1"); !errors.Is(err, account.ErrWrongPassword) {
			t.Fatalf("wrong password: %v", err)
		}
		if err := svc.DeleteAccount(ctx, u.ID, "ann's password", "192.0.2.1"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.UserByID(ctx, u.ID); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Fatalf("account after deletion: %v", err)
		}
	})
}

func TestPasswordReset(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Now()
		svc := account.NewService(db, &account.Options{Now: func() time.Time { return now }})
		u, err := svc.SignUp(ctx, "ann@example.com", "forgotten password")
		if err != nil {
			t.Fatal(err)
		}
		_, rt := storetest.Grant(t, db, u.ID, storetest.SomeAgent, "https://study.example/mcp")
		if tok, err := svc.StartReset(ctx, "nobody@example.com", "192.0.2.1"); tok != nil || err != nil {
			t.Fatalf("unknown address: %+v, %v; want nothing and no error", tok, err)
		}
		tok, err := svc.StartReset(ctx, " Ann@Example.com ", "192.0.2.1")
		if err != nil || tok == nil || tok.Email != "ann@example.com" || len(tok.Token) < 26 {
			t.Fatalf("StartReset: %+v, %v", tok, err)
		}
		if got, err := svc.ResetUser(ctx, tok.Token); err != nil || got.ID != u.ID {
			t.Fatalf("ResetUser: %+v, %v", got, err)
		}
		if _, err := svc.FinishReset(ctx, tok.Token, "short"); studyloop.ErrorCode(err) != studyloop.EINVALID {
			t.Fatalf("short password: %v", err)
		}
		now = now.Add(account.ResetLifetime - time.Second)
		if id, err := svc.FinishReset(ctx, tok.Token, "remembered password"); err != nil || id != u.ID {
			t.Fatalf("FinishReset: %d, %v", id, err)
		}
		if _, err := svc.FinishReset(ctx, tok.Token, "remembered password 2"); !errors.Is(err, store.ErrResetInvalid) {
			t.Fatalf("second use: %v", err)
		}
		if got, _ := db.OAuthToken(ctx, rt); got.RevokedAt.IsZero() {
			t.Fatal("the agent's grant outlived the reset")
		}
		if _, err := svc.SignIn(ctx, "ann@example.com", "remembered password", "192.0.2.9"); err != nil {
			t.Fatalf("sign-in with the new password: %v", err)
		}

		late, err := svc.StartReset(ctx, "ann@example.com", "192.0.2.5")
		if err != nil {
			t.Fatal(err)
		}
		now = now.Add(account.ResetLifetime)
		if _, err := svc.FinishReset(ctx, late.Token, "too late password"); !errors.Is(err, store.ErrResetInvalid) {
			t.Fatalf("after %v: %v", account.ResetLifetime, err)
		}
	})
}

// TestResetRequestsLimited: three requests per address an hour, ten per
// client, then a wait; an unknown address is limited the same way, so the
// limit tells nothing about which addresses have accounts.
func TestResetRequestsLimited(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	ctx := context.Background()
	svc := account.NewService(db, nil)
	if _, err := svc.SignUp(ctx, "ann@example.com", "ann's password"); err != nil {
		t.Fatal(err)
	}
	for _, email := range []string{"ann@example.com", "nobody@example.com"} {
		for i := range 4 {
			_, err := svc.StartReset(ctx, email, "192.0.2."+string(rune('1'+i)))
			var throttled *account.ThrottledError
			if limited := errors.As(err, &throttled); limited != (i == 3) {
				t.Fatalf("%s, request %d: %v", email, i+1, err)
			}
		}
	}
	var throttled *account.ThrottledError
	for i := range 11 {
		_, err := svc.StartReset(ctx, "user"+string(rune('a'+i))+"@example.com", "198.51.100.7")
		if limited := errors.As(err, &throttled); limited != (i == 10) {
			t.Fatalf("request %d from one client: %v", i+1, err)
		}
	}
	if throttled.Seconds() < 1 || throttled.Error() != "Too many reset requests. Try again in 1 seconds." {
		t.Fatalf("throttled: %q", throttled.Error())
	}
}

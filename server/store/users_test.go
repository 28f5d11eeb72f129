package store_test

import (
	"context"
	"testing"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

func TestUsers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u := &studyloop.User{Email: "ada@example.com", PasswordHash: "$argon2id$x"}
		if err := db.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		if u.ID == 0 || u.CreatedAt.IsZero() {
			t.Fatalf("CreateUser did not set ID and CreatedAt: %+v", u)
		}
		if err := db.CreateUser(ctx, &studyloop.User{Email: "ada@example.com", PasswordHash: "other"}); err != store.ErrEmailTaken {
			t.Fatalf("duplicate email: err=%v, want ErrEmailTaken", err)
		}
		byEmail, err := db.UserByEmail(ctx, "ada@example.com")
		if err != nil {
			t.Fatal(err)
		}
		byID, err := db.UserByID(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range []*studyloop.User{byEmail, byID} {
			if got.ID != u.ID || got.Email != u.Email || got.PasswordHash != u.PasswordHash || !got.CreatedAt.Equal(u.CreatedAt) {
				t.Fatalf("got %+v, want %+v", got, u)
			}
		}
		if _, err := db.UserByEmail(ctx, "nobody@example.com"); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Fatalf("unknown email: err=%v, want not_found", err)
		}
		if _, err := db.UserByID(ctx, u.ID+100); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Fatalf("unknown id: err=%v, want not_found", err)
		}
	})
}

package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
)

func TestSessionStore(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := db.Sessions()
		if _, found, err := s.FindCtx(ctx, "missing"); err != nil || found {
			t.Fatalf("missing session: found=%v err=%v", found, err)
		}
		if err := s.CommitUserCtx(ctx, "tok", 0, time.Time{}, []byte("one"), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if b, found, err := s.FindCtx(ctx, "tok"); err != nil || !found || string(b) != "one" {
			t.Fatalf("after commit: %q found=%v err=%v", b, found, err)
		}
		// A second commit overwrites the data and the expiry: moving the
		// expiry into the past must hide the session.
		if err := s.CommitUserCtx(ctx, "tok", 0, time.Time{}, []byte("two"), time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, found, err := s.FindCtx(ctx, "tok"); err != nil || found {
			t.Fatalf("expired session still found=%v err=%v", found, err)
		}
		if err := s.CommitUserCtx(ctx, "tok", 0, time.Time{}, []byte("three"), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if b, found, err := s.FindCtx(ctx, "tok"); err != nil || !found || string(b) != "three" {
			t.Fatalf("after recommit: %q found=%v err=%v", b, found, err)
		}
		if err := s.DeleteCtx(ctx, "tok"); err != nil {
			t.Fatal(err)
		}
		if _, found, _ := s.FindCtx(ctx, "tok"); found {
			t.Fatal("deleted session still found")
		}
		if err := s.DeleteCtx(ctx, "tok"); err != nil {
			t.Fatalf("deleting a missing session: %v", err)
		}

		s.CommitUserCtx(ctx, "old", 0, time.Time{}, []byte("x"), time.Now().Add(-time.Minute))
		s.CommitUserCtx(ctx, "live", 0, time.Time{}, []byte("y"), time.Now().Add(time.Minute))
		n, err := db.PruneSessions(ctx, time.Now())
		if err != nil || n != 1 {
			t.Fatalf("PruneSessions = %d, %v; want 1", n, err)
		}
		if _, found, _ := s.FindCtx(ctx, "live"); !found {
			t.Fatal("pruning removed a live session")
		}
	})
}

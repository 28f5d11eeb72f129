package main

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/store/storetest"
)

func TestPruneExpired(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	ctx, cancel := context.WithCancel(context.Background())
	sessions := db.Sessions()
	if err := sessions.CommitUserCtx(ctx, "stale", 0, time.Time{}, []byte("x"), time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := sessions.CommitUserCtx(ctx, "live", 0, time.Time{}, []byte("y"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		pruneExpired(ctx, db, slog.New(slog.NewTextHandler(io.Discard, nil)), 10*time.Millisecond, time.Hour)
		close(done)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := db.NewSelect().Table("sessions").Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions left, want only the live one", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if _, found, _ := sessions.FindCtx(context.Background(), "live"); !found {
		t.Fatal("the live session was pruned")
	}
}

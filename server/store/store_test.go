package store_test

import (
	"context"
	"testing"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
)

func TestMigrateIsIdempotent(t *testing.T) {
	for _, dialect := range storetest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			url := storetest.URL(t, dialect)
			db, err := store.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			applied, err := db.Migrate(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(applied) == 0 {
				t.Fatal("first migrate applied nothing")
			}
			again, err := db.Migrate(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(again) != 0 {
				t.Fatalf("second migrate applied %v, want nothing", again)
			}
			if got, want := db.IsPostgres(), dialect == "postgres"; got != want {
				t.Fatalf("IsPostgres=%v, want %v", got, want)
			}
		})
	}
}

func TestOpenRejectsUnknownScheme(t *testing.T) {
	for _, url := range []string{"mysql://x", "sqlite:", ""} {
		if _, err := store.Open(context.Background(), url); err == nil {
			t.Errorf("Open(%q) succeeded", url)
		}
	}
}

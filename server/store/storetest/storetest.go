// Package storetest opens real, migrated, throwaway databases for tests:
// a temporary SQLite file, and a fresh database on the PostgreSQL cluster
// named by STUDYLOOP_TEST_POSTGRES (which `make test` starts). When CI is
// set, a missing PostgreSQL fails the test instead of skipping it. User
// stores the account most tests need; Student, ReadyStudy, CompleteStudy
// and Answer the students, studies and answers of practice and mastery
// tests, Answer through Service, the study service of a database.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
)

// PostgresEnv names the environment variable holding the URL of a
// PostgreSQL cluster on which tests may create databases.
const PostgresEnv = "STUDYLOOP_TEST_POSTGRES"

// Dialects lists the databases every storage test runs on.
var Dialects = []string{"sqlite", "postgres"}

// Each runs fn as a subtest once per dialect, each with its own fresh,
// migrated database.
func Each(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	for _, d := range Dialects {
		t.Run(d, func(t *testing.T) {
			fn(t, Open(t, d))
		})
	}
}

// Open returns a fresh migrated database of the given dialect, closed and
// removed when the test ends.
func Open(tb testing.TB, dialect string) *store.DB {
	tb.Helper()
	url := URL(tb, dialect)
	ctx := context.Background()
	db, err := store.Open(ctx, url)
	if err != nil {
		tb.Fatalf("open %s: %v", dialect, err)
	}
	tb.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		tb.Fatalf("migrate %s: %v", dialect, err)
	}
	return db
}

// URL returns a DATABASE_URL for a fresh, empty database of the dialect,
// dropped when the test ends. It is for tests that start the whole server.
func URL(tb testing.TB, dialect string) string {
	tb.Helper()
	switch dialect {
	case "sqlite":
		return "sqlite:" + filepath.Join(tb.TempDir(), "test.db")
	case "postgres":
		return freshPostgres(tb)
	}
	tb.Fatalf("unknown dialect %q", dialect)
	return ""
}

// users numbers the made-up email addresses of User.
var users atomic.Int64

// User stores a user with a made-up email address, unique within the test
// binary, and returns its id.
func User(tb testing.TB, db *store.DB) int64 {
	tb.Helper()
	u := &studyloop.User{Email: fmt.Sprintf("user%d@example.com", users.Add(1)), PasswordHash: "hash"}
	if err := db.CreateUser(context.Background(), u); err != nil {
		tb.Fatalf("create user: %v", err)
	}
	return u.ID
}

// TableCounts counts the rows of every table of db's schema, but for the
// migrations' own bookkeeping, for tests that a change left every table
// as it should.
func TableCounts(tb testing.TB, db *store.DB) map[string]int {
	tb.Helper()
	ctx := context.Background()
	var tables []string
	q := `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	if db.Dialect().Name().String() == "sqlite" {
		q = `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
	}
	if err := db.NewRaw(q).Scan(ctx, &tables); err != nil {
		tb.Fatalf("list tables: %v", err)
	}
	counts := map[string]int{}
	for _, t := range tables {
		if t == "bun_migrations" || t == "bun_migration_locks" {
			continue
		}
		n, err := db.NewSelect().Table(t).Count(ctx)
		if err != nil {
			tb.Fatalf("count %s: %v", t, err)
		}
		counts[t] = n
	}
	return counts
}

func freshPostgres(tb testing.TB) string {
	tb.Helper()
	admin := os.Getenv(PostgresEnv)
	if admin == "" {
		if os.Getenv("CI") != "" {
			tb.Fatalf("%s is not set: in CI PostgreSQL is required (run the tests through make test)", PostgresEnv)
		}
		tb.Skipf("%s is not set; run `make test` to start a throwaway PostgreSQL cluster", PostgresEnv)
	}
	u, err := url.Parse(admin)
	if err != nil {
		tb.Fatalf("%s: %v", PostgresEnv, err)
	}
	name := "t_" + strings.ToLower(rand.Text()[:16])
	adminDB := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin)))
	defer adminDB.Close()
	if _, err := adminDB.Exec(fmt.Sprintf(`CREATE DATABASE %q`, name)); err != nil {
		tb.Fatalf("create database: %v", err)
	}
	tb.Cleanup(func() {
		db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin)))
		defer db.Close()
		db.Exec(fmt.Sprintf(`DROP DATABASE IF EXISTS %q WITH (FORCE)`, name))
	})
	u.Path = "/" + name
	return u.String()
}

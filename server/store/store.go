// Package store is the service's storage: one bun database that is either an
// embedded SQLite file (pure Go, the default) or PostgreSQL, with the
// migrations that shape it. The same code and migrations serve both
// dialects; methods speak in the domain types of package studyloop, and in
// rows (Card, ReviewLog, TopicProgress, ProgressRows) where the study
// service decides what they hold: store keeps rows, queries and
// transactions, and schedules nothing.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/driver/sqliteshim"
	"github.com/uptrace/bun/migrate"

	"github.com/studyloop/studyloop/server/store/migrations"
	"github.com/studyloop/studyloop/server/studyloop"
)

// DB is an open database.
type DB struct {
	*bun.DB
	quotas   studyloop.Quotas // see WithQuotas
	watchers *progressWatchers
}

// Open connects to the database named by url: "sqlite:PATH" (the directory
// is created when missing) or a postgres:// URL. It does not migrate.
func Open(ctx context.Context, url string) (*DB, error) {
	var db *bun.DB
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(url, "sqlite:")
		if path == "" {
			return nil, errors.New("store: sqlite: needs a file path, as in sqlite:data/studyloop.db")
		}
		if dir := filepath.Dir(path); dir != "." {
			if err := os.MkdirAll(dir, 0o750); err != nil {
				return nil, fmt.Errorf("store: %w", err)
			}
		}
		dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
		sqldb, err := sql.Open(sqliteshim.ShimName, dsn)
		if err != nil {
			return nil, fmt.Errorf("store: open sqlite: %w", err)
		}
		sqldb.SetMaxOpenConns(8)
		sqldb.SetConnMaxIdleTime(5 * time.Minute)
		db = bun.NewDB(sqldb, sqlitedialect.New())
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(url)))
		sqldb.SetMaxOpenConns(16)
		db = bun.NewDB(sqldb, pgdialect.New())
	default:
		return nil, errors.New("store: DATABASE_URL must start with sqlite: or postgres://")
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	return &DB{DB: db, watchers: &progressWatchers{}}, nil
}

// progressWatchers are the functions WatchProgress registered on a DB.
type progressWatchers struct {
	mu  sync.Mutex
	fns []func(studyID string)
}

// WatchProgress has f called with a study's id once a change made through
// db that moves the study's progress version, or deletes the study, is
// committed: what the student's progress in it is computed from has
// changed. It lets a cache of figures drop what it holds of the study at
// once, instead of when it next reads the version.
func (db *DB) WatchProgress(f func(studyID string)) {
	db.watchers.mu.Lock()
	defer db.watchers.mu.Unlock()
	db.watchers.fns = append(db.watchers.fns, f)
}

// progressMoved tells the watchers that the study's progress version
// moved (see WatchProgress).
func (db *DB) progressMoved(studyID string) {
	db.watchers.mu.Lock()
	fns := db.watchers.fns
	db.watchers.mu.Unlock()
	for _, f := range fns {
		f(studyID)
	}
}

// IsPostgres reports whether the database is PostgreSQL.
func (db *DB) IsPostgres() bool { return db.Dialect().Name() == dialect.PG }

// Migrate brings the schema up to date and returns the names of the
// migrations it applied. Concurrent callers on PostgreSQL are serialised
// by the migrator's lock.
func (db *DB) Migrate(ctx context.Context) ([]string, error) {
	m := migrate.NewMigrator(db.DB, migrations.Migrations, migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		return nil, fmt.Errorf("store: init migrations: %w", err)
	}
	if err := m.Lock(ctx); err != nil {
		return nil, fmt.Errorf("store: lock migrations: %w", err)
	}
	defer m.Unlock(ctx) //nolint:errcheck
	group, err := m.Migrate(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: migrate: %w", err)
	}
	var names []string
	for _, mig := range group.Migrations {
		names = append(names, mig.Name)
	}
	return names, nil
}

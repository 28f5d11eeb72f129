// Package migrations holds the schema changes, one Go file each, named
// YYYYMMDDHHMMSS_what.go. They are written once for both dialects: table
// shapes through bun's dialect-neutral builders, and raw SQL only where both
// SQLite and PostgreSQL accept it.
package migrations

import "github.com/uptrace/bun/migrate"

// Migrations is every migration, registered by the files of this package.
var Migrations = migrate.NewMigrations()

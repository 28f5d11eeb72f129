package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// A password change must end the account's other sessions even when one
// of them is in the middle of a request, which stores the session again
// as it ends: each session keeps when it was signed in to
// (sessions.signed_in_at), each account since when its sessions count
// (users.sessions_valid_from), and a session signed in to before that is
// not found. Signed-in sessions stored before this migration have no
// sign-in time and are not found either: students sign in once more.
func init() {
	columns := []struct{ table, column string }{
		{"sessions", "signed_in_at"},
		{"users", "sessions_valid_from"},
	}
	Migrations.MustRegister(func(ctx context.Context, db *bun.DB) error {
		// The type bun gives time.Time fields on each dialect.
		timestamp := "TIMESTAMP"
		if db.Dialect().Name() == dialect.PG {
			timestamp = "TIMESTAMPTZ"
		}
		for _, c := range columns {
			if _, err := db.NewAddColumn().Table(c.table).ColumnExpr(c.column + " " + timestamp).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	}, func(ctx context.Context, db *bun.DB) error {
		for _, c := range columns {
			if _, err := db.NewDropColumn().Table(c.table).Column(c.column).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

package migrations

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Browser sessions of signed-in students (the scs session store). Tokens are
// stored hashed (scs HashTokenInStore).
func init() {
	type session struct {
		bun.BaseModel `bun:"table:sessions"`
		Token         string    `bun:"token,pk"`
		Data          []byte    `bun:"data,notnull"`
		Expiry        time.Time `bun:"expiry,notnull"`
	}
	Migrations.MustRegister(func(ctx context.Context, db *bun.DB) error {
		if _, err := db.NewCreateTable().Model((*session)(nil)).Exec(ctx); err != nil {
			return err
		}
		_, err := db.NewCreateIndex().Model((*session)(nil)).Index("sessions_expiry_idx").Column("expiry").Exec(ctx)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.NewDropTable().Model((*session)(nil)).IfExists().Exec(ctx)
		return err
	})
}

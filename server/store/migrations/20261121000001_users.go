package migrations

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

func init() {
	type user struct {
		bun.BaseModel `bun:"table:users"`
		ID            int64     `bun:"id,pk,autoincrement"`
		Email         string    `bun:"email,notnull,unique"`
		PasswordHash  string    `bun:"password_hash,notnull"`
		CreatedAt     time.Time `bun:"created_at,notnull"`
	}
	Migrations.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.NewCreateTable().Model((*user)(nil)).Exec(ctx)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.NewDropTable().Model((*user)(nil)).IfExists().Exec(ctx)
		return err
	})
}

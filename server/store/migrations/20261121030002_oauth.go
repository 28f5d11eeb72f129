package migrations

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// The OAuth authorization server: registered clients, authorization codes
// and tokens. Codes and tokens are stored only as SHA-256 hashes (the
// primary keys they are looked up by).
func init() {
	type client struct {
		bun.BaseModel `bun:"table:oauth_clients"`
		ID            string    `bun:"id,pk"`
		Name          string    `bun:"name,notnull"`
		RedirectURIs  string    `bun:"redirect_uris,notnull"` // JSON array
		CreatedAt     time.Time `bun:"created_at,notnull"`
		GrantedAt     time.Time `bun:"granted_at,nullzero"`
	}
	type code struct {
		bun.BaseModel `bun:"table:oauth_codes"`
		Hash          string    `bun:"hash,pk"`
		ClientID      string    `bun:"client_id,notnull"`
		UserID        int64     `bun:"user_id,notnull"`
		RedirectURI   string    `bun:"redirect_uri,notnull"`
		CodeChallenge string    `bun:"code_challenge,notnull"`
		Audience      string    `bun:"audience,notnull"`
		Scope         string    `bun:"scope,notnull"`
		FamilyID      string    `bun:"family_id,notnull"`
		CreatedAt     time.Time `bun:"created_at,notnull"`
		ExpiresAt     time.Time `bun:"expires_at,notnull"`
		UsedAt        time.Time `bun:"used_at,nullzero"`
	}
	type token struct {
		bun.BaseModel `bun:"table:oauth_tokens"`
		Hash          string    `bun:"hash,pk"`
		Kind          string    `bun:"kind,notnull"`
		FamilyID      string    `bun:"family_id,notnull"`
		ClientID      string    `bun:"client_id,notnull"`
		UserID        int64     `bun:"user_id,notnull"`
		Audience      string    `bun:"audience,notnull"`
		Scope         string    `bun:"scope,notnull"`
		CreatedAt     time.Time `bun:"created_at,notnull"`
		ExpiresAt     time.Time `bun:"expires_at,notnull"`
		RotatedAt     time.Time `bun:"rotated_at,nullzero"`
		RevokedAt     time.Time `bun:"revoked_at,nullzero"`
	}
	Migrations.MustRegister(func(ctx context.Context, db *bun.DB) error {
		steps := []func() error{
			func() error {
				_, err := db.NewCreateTable().Model((*client)(nil)).Exec(ctx)
				return err
			},
			func() error {
				_, err := db.NewCreateTable().Model((*code)(nil)).
					ForeignKey(`(client_id) REFERENCES oauth_clients (id) ON DELETE CASCADE`).
					ForeignKey(`(user_id) REFERENCES users (id) ON DELETE CASCADE`).
					Exec(ctx)
				return err
			},
			func() error {
				_, err := db.NewCreateTable().Model((*token)(nil)).
					ForeignKey(`(client_id) REFERENCES oauth_clients (id) ON DELETE CASCADE`).
					ForeignKey(`(user_id) REFERENCES users (id) ON DELETE CASCADE`).
					Exec(ctx)
				return err
			},
			func() error {
				_, err := db.NewCreateIndex().Model((*code)(nil)).Index("oauth_codes_expires_at_idx").Column("expires_at").Exec(ctx)
				return err
			},
			func() error {
				_, err := db.NewCreateIndex().Model((*code)(nil)).Index("oauth_codes_client_id_idx").Column("client_id").Exec(ctx)
				return err
			},
			func() error {
				_, err := db.NewCreateIndex().Model((*token)(nil)).Index("oauth_tokens_family_id_idx").Column("family_id").Exec(ctx)
				return err
			},
			func() error {
				_, err := db.NewCreateIndex().Model((*token)(nil)).Index("oauth_tokens_expires_at_idx").Column("expires_at").Exec(ctx)
				return err
			},
			func() error {
				_, err := db.NewCreateIndex().Model((*token)(nil)).Index("oauth_tokens_client_id_idx").Column("client_id").Exec(ctx)
				return err
			},
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	}, func(ctx context.Context, db *bun.DB) error {
		for _, m := range []any{(*token)(nil), (*code)(nil), (*client)(nil)} {
			if _, err := db.NewDropTable().Model(m).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

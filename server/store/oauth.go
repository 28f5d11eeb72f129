package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/studyloop/studyloop/server/studyloop"
)

// ErrAlreadyUsed is returned by RedeemAuthorizationCode and
// RotateRefreshToken when the code or refresh token was already exchanged
// (or revoked, or expired meanwhile). Nothing was changed.
var ErrAlreadyUsed = &studyloop.Error{Code: studyloop.ECONFLICT, Message: "The grant was already used."}

type oauthClientRow struct {
	bun.BaseModel `bun:"table:oauth_clients"`
	ID            string    `bun:"id,pk"`
	Name          string    `bun:"name,notnull"`
	RedirectURIs  string    `bun:"redirect_uris,notnull"`
	CreatedAt     time.Time `bun:"created_at,notnull"`
	GrantedAt     time.Time `bun:"granted_at,nullzero"`
}

type oauthCodeRow struct {
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

type oauthTokenRow struct {
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

func utcOrZero(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}

// CreateOAuthClient stores a newly registered client.
func (db *DB) CreateOAuthClient(ctx context.Context, c *studyloop.OAuthClient) error {
	uris, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return err
	}
	c.CreatedAt = StoredTime(c.CreatedAt)
	row := oauthClientRow{ID: c.ID, Name: c.Name, RedirectURIs: string(uris), CreatedAt: c.CreatedAt}
	_, err = db.NewInsert().Model(&row).Exec(ctx)
	return err
}

// SaveOAuthClient stores a client described by a Client ID Metadata
// Document (its id is the document's URL), or replaces the name, redirect
// URIs and CreatedAt of the stored copy; GrantedAt is kept. CreatedAt is
// when the document was last fetched, so a client that never completes a
// grant is pruned (PruneOAuth) a day after its document was last used.
func (db *DB) SaveOAuthClient(ctx context.Context, c *studyloop.OAuthClient) error {
	uris, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return err
	}
	c.CreatedAt = StoredTime(c.CreatedAt)
	row := oauthClientRow{ID: c.ID, Name: c.Name, RedirectURIs: string(uris), CreatedAt: c.CreatedAt}
	_, err = db.NewInsert().Model(&row).
		On("CONFLICT (id) DO UPDATE").
		Set("name = EXCLUDED.name").
		Set("redirect_uris = EXCLUDED.redirect_uris").
		Set("created_at = EXCLUDED.created_at").
		Exec(ctx)
	return err
}

// OAuthClient returns the registered client, or an ENOTFOUND error.
func (db *DB) OAuthClient(ctx context.Context, id string) (*studyloop.OAuthClient, error) {
	var row oauthClientRow
	err := db.NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, studyloop.Errorf(studyloop.ENOTFOUND, "Unknown client.")
	}
	if err != nil {
		return nil, err
	}
	c := &studyloop.OAuthClient{ID: row.ID, Name: row.Name, CreatedAt: row.CreatedAt.UTC(), GrantedAt: utcOrZero(row.GrantedAt)}
	if err := json.Unmarshal([]byte(row.RedirectURIs), &c.RedirectURIs); err != nil {
		return nil, err
	}
	return c, nil
}

// CreateAuthorizationCode stores an issued code (by its hash).
func (db *DB) CreateAuthorizationCode(ctx context.Context, c *studyloop.AuthorizationCode) error {
	row := oauthCodeRow{
		Hash: c.Hash, ClientID: c.ClientID, UserID: c.UserID, RedirectURI: c.RedirectURI,
		CodeChallenge: c.CodeChallenge, Audience: c.Audience, Scope: c.Scope, FamilyID: c.FamilyID,
		CreatedAt: StoredTime(c.CreatedAt), ExpiresAt: StoredTime(c.ExpiresAt),
	}
	_, err := db.NewInsert().Model(&row).Exec(ctx)
	return err
}

// AuthorizationCode returns the code with the hash, used or not, expired or
// not, or an ENOTFOUND error. It changes nothing.
func (db *DB) AuthorizationCode(ctx context.Context, hash string) (*studyloop.AuthorizationCode, error) {
	var row oauthCodeRow
	err := db.NewSelect().Model(&row).Where("hash = ?", hash).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, studyloop.Errorf(studyloop.ENOTFOUND, "Unknown authorization code.")
	}
	if err != nil {
		return nil, err
	}
	return &studyloop.AuthorizationCode{
		Hash: row.Hash, ClientID: row.ClientID, UserID: row.UserID, RedirectURI: row.RedirectURI,
		CodeChallenge: row.CodeChallenge, Audience: row.Audience, Scope: row.Scope, FamilyID: row.FamilyID,
		CreatedAt: row.CreatedAt.UTC(), ExpiresAt: row.ExpiresAt.UTC(), UsedAt: utcOrZero(row.UsedAt),
	}, nil
}

// RedeemAuthorizationCode marks the code used and stores the tokens issued
// for it, in one transaction. When the code is already used or has expired
// it returns ErrAlreadyUsed and stores nothing: of concurrent redemptions
// exactly one succeeds.
func (db *DB) RedeemAuthorizationCode(ctx context.Context, hash string, at time.Time, tokens ...*studyloop.OAuthToken) error {
	at = StoredTime(at)
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*oauthCodeRow)(nil)).
			Set("used_at = ?", at).
			Where("hash = ?", hash).
			Where("used_at IS NULL").
			Where("expires_at > ?", at).
			Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return ErrAlreadyUsed
		}
		if err := insertTokens(ctx, tx, tokens); err != nil {
			return err
		}
		if len(tokens) > 0 {
			_, err = tx.NewUpdate().Model((*oauthClientRow)(nil)).
				Set("granted_at = ?", at).
				Where("id = ?", tokens[0].ClientID).
				Where("granted_at IS NULL").
				Exec(ctx)
		}
		return err
	})
}

func insertTokens(ctx context.Context, tx bun.Tx, tokens []*studyloop.OAuthToken) error {
	if len(tokens) == 0 {
		return nil
	}
	rows := make([]oauthTokenRow, len(tokens))
	for i, t := range tokens {
		t.CreatedAt, t.ExpiresAt = StoredTime(t.CreatedAt), StoredTime(t.ExpiresAt)
		rows[i] = oauthTokenRow{
			Hash: t.Hash, Kind: string(t.Kind), FamilyID: t.FamilyID, ClientID: t.ClientID, UserID: t.UserID,
			Audience: t.Audience, Scope: t.Scope, CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt,
		}
	}
	_, err := tx.NewInsert().Model(&rows).Exec(ctx)
	return err
}

// OAuthToken returns the token with the hash, whatever its state, or an
// ENOTFOUND error. It is one primary-key lookup: the cost of resolving a
// bearer token.
func (db *DB) OAuthToken(ctx context.Context, hash string) (*studyloop.OAuthToken, error) {
	var row oauthTokenRow
	err := db.NewSelect().Model(&row).Where("hash = ?", hash).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, studyloop.Errorf(studyloop.ENOTFOUND, "Unknown token.")
	}
	if err != nil {
		return nil, err
	}
	return &studyloop.OAuthToken{
		Hash: row.Hash, Kind: studyloop.TokenKind(row.Kind), FamilyID: row.FamilyID, ClientID: row.ClientID,
		UserID: row.UserID, Audience: row.Audience, Scope: row.Scope,
		CreatedAt: row.CreatedAt.UTC(), ExpiresAt: row.ExpiresAt.UTC(),
		RotatedAt: utcOrZero(row.RotatedAt), RevokedAt: utcOrZero(row.RevokedAt),
	}, nil
}

// RotateRefreshToken marks the refresh token rotated and stores its
// successors, in one transaction. When the token is not a live refresh
// token (already rotated, revoked or expired) it returns ErrAlreadyUsed and
// stores nothing: of concurrent rotations exactly one succeeds.
func (db *DB) RotateRefreshToken(ctx context.Context, hash string, at time.Time, successors ...*studyloop.OAuthToken) error {
	at = StoredTime(at)
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*oauthTokenRow)(nil)).
			Set("rotated_at = ?", at).
			Where("hash = ?", hash).
			Where("kind = ?", string(studyloop.RefreshToken)).
			Where("rotated_at IS NULL").
			Where("revoked_at IS NULL").
			Where("expires_at > ?", at).
			Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return ErrAlreadyUsed
		}
		return insertTokens(ctx, tx, successors)
	})
}

// RevokeTokenFamily revokes every live token of the family and returns how
// many it revoked. It repeats until a pass finds nothing left to revoke: on
// PostgreSQL an UPDATE that waited for a concurrent rotation's row lock does
// not see the successors that rotation inserted, but the next pass does,
// and any later rotation fails on its revoked refresh token.
func (db *DB) RevokeTokenFamily(ctx context.Context, familyID string, at time.Time) (int64, error) {
	return db.revokeTokens(ctx, at, "family_id = ?", familyID)
}

// EndUserGrants ends every grant of the user, as a password change must:
// codes not yet exchanged count as used (exchanging one then fails, and
// revokes nothing that is still live), and every live token is revoked, as
// RevokeTokenFamily does for one family. It returns how many tokens it
// revoked. Codes go first: a code redeemed concurrently either loses (its
// update finds it used) or committed its tokens before, and they are
// revoked here.
func (db *DB) EndUserGrants(ctx context.Context, userID int64, at time.Time) (int64, error) {
	_, err := db.NewUpdate().Model((*oauthCodeRow)(nil)).
		Set("used_at = ?", StoredTime(at)).
		Where("user_id = ?", userID).
		Where("used_at IS NULL").
		Exec(ctx)
	if err != nil {
		return 0, err
	}
	return db.revokeTokens(ctx, at, "user_id = ?", userID)
}

// UserGrants lists the user's live grants (those with a live refresh
// token at now), the most recently used first.
func (db *DB) UserGrants(ctx context.Context, userID int64, now time.Time) ([]studyloop.OAuthGrant, error) {
	var rows []struct {
		FamilyID     string    `bun:"family_id"`
		ClientID     string    `bun:"client_id"`
		Name         string    `bun:"name"`
		RedirectURIs string    `bun:"redirect_uris"`
		FirstUsed    time.Time `bun:"first_used"`
		LastUsed     time.Time `bun:"last_used"`
	}
	live := db.NewSelect().Model((*oauthTokenRow)(nil)).Column("family_id").
		Where("user_id = ?", userID).
		Where("kind = ?", string(studyloop.RefreshToken)).
		Where("rotated_at IS NULL").
		Where("revoked_at IS NULL").
		Where("expires_at > ?", StoredTime(now))
	err := db.NewSelect().TableExpr("oauth_tokens AS t").
		Join("JOIN oauth_clients AS c ON c.id = t.client_id").
		ColumnExpr("t.family_id, t.client_id, c.name, c.redirect_uris").
		ColumnExpr("MIN(t.created_at) AS first_used, MAX(t.created_at) AS last_used").
		Where("t.user_id = ?", userID).
		Where("t.family_id IN (?)", live).
		GroupExpr("t.family_id, t.client_id, c.name, c.redirect_uris").
		OrderExpr("last_used DESC, t.family_id").
		Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	grants := make([]studyloop.OAuthGrant, 0, len(rows))
	for _, r := range rows {
		g := studyloop.OAuthGrant{
			ID:        r.FamilyID,
			Client:    studyloop.OAuthClient{ID: r.ClientID, Name: r.Name},
			FirstUsed: r.FirstUsed.UTC(),
			LastUsed:  r.LastUsed.UTC(),
		}
		if err := json.Unmarshal([]byte(r.RedirectURIs), &g.Client.RedirectURIs); err != nil {
			return nil, err
		}
		grants = append(grants, g)
	}
	return grants, nil
}

// EndUserGrant ends the user's grant id (revokes every token of the
// family), or returns an ENOTFOUND error when the user has no live tokens
// under that id, whosever the id is.
func (db *DB) EndUserGrant(ctx context.Context, userID int64, id string, at time.Time) error {
	n, err := db.revokeTokens(ctx, at, "family_id = ? AND user_id = ?", id, userID)
	if err != nil {
		return err
	}
	if n == 0 {
		return studyloop.Errorf(studyloop.ENOTFOUND, "No such connected assistant.")
	}
	return nil
}

// revokeTokens revokes every live token matching where, with RevokeTokenFamily's
// repeated passes.
func (db *DB) revokeTokens(ctx context.Context, at time.Time, where string, args ...any) (int64, error) {
	var total int64
	for {
		res, err := db.NewUpdate().Model((*oauthTokenRow)(nil)).
			Set("revoked_at = ?", StoredTime(at)).
			Where(where, args...).
			Where("revoked_at IS NULL").
			Exec(ctx)
		if err != nil {
			return total, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, err
		}
		if n == 0 {
			return total, nil
		}
		total += n
	}
}

// PruneOAuth deletes tokens that expired before now, authorization codes
// that expired before now unused or were used before usedBefore, and
// clients registered before unusedBefore that never completed a grant. It
// returns how many rows it deleted.
//
// A used code is kept past its expiry so that presenting it again still
// revokes the tokens issued from it (OAuth 2.1 §4.1.3): usedBefore should
// be now minus the refresh token lifetime, after which those tokens have
// expired.
func (db *DB) PruneOAuth(ctx context.Context, now, usedBefore, unusedBefore time.Time) (int64, error) {
	now, usedBefore, unusedBefore = StoredTime(now), StoredTime(usedBefore), StoredTime(unusedBefore)
	var total int64
	queries := []*bun.DeleteQuery{
		db.NewDelete().Model((*oauthCodeRow)(nil)).
			Where("expires_at <= ?", now).
			WhereGroup(" AND ", func(q *bun.DeleteQuery) *bun.DeleteQuery {
				return q.Where("used_at IS NULL").WhereOr("used_at <= ?", usedBefore)
			}),
		db.NewDelete().Model((*oauthTokenRow)(nil)).Where("expires_at <= ?", now),
		db.NewDelete().Model((*oauthClientRow)(nil)).Where("granted_at IS NULL").Where("created_at < ?", unusedBefore),
	}
	for _, q := range queries {
		res, err := q.Exec(ctx)
		if err != nil {
			return total, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

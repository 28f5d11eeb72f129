package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/studyloop/studyloop/server/studyloop"
)

// WithQuotas returns a DB that holds new studies to q (see
// studyloop.Quotas): CreateStudy and CreateUploadStudy refuse a study that
// would take the account over a quota with a *studyloop.QuotaError and
// store nothing. It shares db's connections and caches. A DB without
// quotas, as Open returns it, sets no limit.
func (db *DB) WithQuotas(q studyloop.Quotas) *DB {
	limited := *db
	limited.quotas = q
	return &limited
}

// Quota windows.
const (
	hourWindow = time.Hour
	dayWindow  = 24 * time.Hour
)

// checkQuotas returns a *studyloop.QuotaError when one more study of
// chars characters and the given upload would take the user over a
// quota, at time t. It runs in the transaction that creates the study,
// after lockUser, so concurrent creations for one account are counted one
// after the other.
func (db *DB) checkQuotas(ctx context.Context, tx bun.Tx, userID int64, t time.Time, chars int, upload studyloop.UploadUsage) error {
	q := db.quotas
	rates := []struct {
		limit  int
		window time.Duration
		words  string
	}{
		{q.StudiesPerHour, hourWindow, "hour"},
		{q.StudiesPerDay, dayWindow, "24 hours"},
	}
	for _, r := range rates {
		if r.limit <= 0 {
			continue
		}
		// The limit-th newest study in the window: while it is there, the
		// window is full, until it leaves the window.
		var at time.Time
		err := tx.NewSelect().Table("studies").Column("created_at").
			Where("user_id = ?", userID).Where("created_at > ?", t.Add(-r.window)).
			OrderExpr("created_at DESC, id DESC").Offset(r.limit-1).Limit(1).
			Scan(ctx, &at)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("count studies: %w", err)
		}
		reason := fmt.Sprintf("%s studies were created in the last %s, the most this account may.", studyloop.Commas(r.limit), r.words)
		return studyloop.RetryLater(reason, at.Add(r.window), t)
	}
	if q.StoredChars > 0 {
		var stored int
		if err := tx.NewSelect().Table("studies").ColumnExpr("COALESCE(SUM(chars), 0)").Where("user_id = ?", userID).Scan(ctx, &stored); err != nil {
			return fmt.Errorf("sum stored text: %w", err)
		}
		if stored+chars > q.StoredChars || (chars == 0 && stored >= q.StoredChars) {
			return studyloop.OverStorage(stored, chars, q.StoredChars)
		}
	}
	if upload.Files == 0 || (q.UploadFilesPerDay <= 0 && q.UploadPagesPerDay <= 0 && q.UploadBytesPerDay <= 0) {
		return nil
	}
	var earlier []struct {
		CreatedAt time.Time `bun:"created_at"`
		Files     int       `bun:"upload_files"`
		Pages     int       `bun:"upload_pages"`
		Bytes     int64     `bun:"upload_bytes"`
	}
	err := tx.NewSelect().Table("studies").Column("created_at", "upload_files", "upload_pages", "upload_bytes").
		Where("user_id = ?", userID).Where("created_at > ?", t.Add(-dayWindow)).Where("upload_files > 0").
		OrderExpr("created_at, id").Scan(ctx, &earlier)
	if err != nil {
		return fmt.Errorf("sum uploads: %w", err)
	}
	used := upload
	for _, e := range earlier {
		used.Files += e.Files
		used.Pages += e.Pages
		used.Bytes += e.Bytes
	}
	over := func(u studyloop.UploadUsage) string {
		switch {
		case q.UploadFilesPerDay > 0 && u.Files > q.UploadFilesPerDay:
			return fmt.Sprintf("%s files", studyloop.Commas(q.UploadFilesPerDay))
		case q.UploadPagesPerDay > 0 && u.Pages > q.UploadPagesPerDay:
			return fmt.Sprintf("%s pages and photos", studyloop.Commas(q.UploadPagesPerDay))
		case q.UploadBytesPerDay > 0 && u.Bytes > q.UploadBytesPerDay:
			return fmt.Sprintf("%s MiB", studyloop.Commas(int(q.UploadBytesPerDay>>20)))
		}
		return ""
	}
	what := over(used)
	if what == "" {
		return nil
	}
	if over(upload) != "" {
		return &studyloop.QuotaError{Message: fmt.Sprintf(
			"This upload alone is more than the %s a day this account may upload; split it into smaller uploads on different days. Nothing was stored.", what)}
	}
	// The upload fits once enough of the day's earlier uploads, oldest
	// first, have left the window.
	retryAt := t
	for _, e := range earlier {
		used.Files -= e.Files
		used.Pages -= e.Pages
		used.Bytes -= e.Bytes
		retryAt = e.CreatedAt.Add(dayWindow)
		if over(used) == "" {
			break
		}
	}
	return studyloop.RetryLater(fmt.Sprintf("this upload would pass the %s a day this account may upload.", what), retryAt, t)
}

// lockUser serialises the creation of studies of one user on PostgreSQL
// by locking the user's row for the transaction; SQLite transactions hold
// the database's write lock from BEGIN already.
func (db *DB) lockUser(ctx context.Context, tx bun.Tx, userID int64) error {
	if !db.IsPostgres() {
		return nil
	}
	_, err := tx.NewRaw(`SELECT id FROM users WHERE id = ? FOR UPDATE`, userID).Exec(ctx)
	return err
}

package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/studyloop/studyloop/server/studyloop"
)

// MaxStudyAttempts is how many times a study may be claimed for
// processing. A study whose last permitted claim also ran out of lease (its
// worker died or hung) ends failed instead of being claimed again.
const MaxStudyAttempts = 3

// ErrLeaseLost is returned by CompleteStudy, FailStudy, ExtendLease and
// ReleaseStudy when the caller no longer holds the study's lease: another
// worker claimed it after the lease ran out, or it is no longer processing.
// Nothing was changed.
var ErrLeaseLost = &studyloop.Error{Code: studyloop.ECONFLICT, Message: "The study's processing lease is no longer held."}

// reasonAttemptsExhausted is stored when a study used up its attempts.
var reasonAttemptsExhausted = fmt.Sprintf("Processing was interrupted %d times before it could finish, so it was stopped. Try again with a shorter or simpler text.", MaxStudyAttempts)

// maxReasonChars bounds a stored failure reason.
const maxReasonChars = 500

// insertChunk is how many topic or question rows one INSERT carries.
const insertChunk = 500

// Claim is a study handed to one worker for processing, with the text the
// generator needs.
type Claim struct {
	Study      studyloop.Study
	Text       string
	Attempt    int       // 1 on the first claim of the study
	LeaseUntil time.Time // when another worker may take the study over
}

// studyRow is a studies row without its text, which only workers read.
type studyRow struct {
	bun.BaseModel `bun:"table:studies"`
	ID            string    `bun:"id,pk"`
	UserID        int64     `bun:"user_id"`
	Title         string    `bun:"title"`
	Status        string    `bun:"status"`
	Reason        string    `bun:"reason"`
	TopicCount    int       `bun:"topic_count"`
	QuestionCount int       `bun:"question_count"`
	NewPerDay     int       `bun:"new_per_day"`
	CreatedAt     time.Time `bun:"created_at"`
	UpdatedAt     time.Time `bun:"updated_at"`
	UploadPages   int       `bun:"upload_pages"`
	PagesDone     int       `bun:"pages_done"`
}

func (r studyRow) study() studyloop.Study {
	return studyloop.Study{
		ID:            r.ID,
		UserID:        r.UserID,
		Title:         r.Title,
		Status:        studyloop.StudyStatus(r.Status),
		Reason:        r.Reason,
		CreatedAt:     r.CreatedAt.UTC(),
		UpdatedAt:     r.UpdatedAt.UTC(),
		TopicCount:    r.TopicCount,
		QuestionCount: r.QuestionCount,
		NewPerDay:     r.NewPerDay,
		PagesDone:     r.PagesDone,
		PagesTotal:    r.UploadPages,
	}
}

// newStudyRow is the full row written when a study is created.
type newStudyRow struct {
	bun.BaseModel `bun:"table:studies"`
	studyRow
	Text           string     `bun:"text"`
	Chars          int        `bun:"chars"`
	UploadFiles    int        `bun:"upload_files"`
	UploadBytes    int64      `bun:"upload_bytes"`
	ExtractPending bool       `bun:"extract_pending"`
	Attempts       int        `bun:"attempts"`
	LeaseOwner     string     `bun:"lease_owner"`
	LeaseUntil     *time.Time `bun:"lease_until"`
}

// claimRow is what a claim returns.
type claimRow struct {
	studyRow
	Text       string    `bun:"text"`
	Attempts   int       `bun:"attempts"`
	LeaseUntil time.Time `bun:"lease_until"`
}

type topicRow struct {
	bun.BaseModel `bun:"table:topics"`
	ID            int64  `bun:"id,pk,autoincrement"`
	StudyID       string `bun:"study_id"`
	ParentID      *int64 `bun:"parent_id"`
	Position      int    `bun:"position"`
	Title         string `bun:"title"`
	SpanStart     int    `bun:"span_start"`
	SpanEnd       int    `bun:"span_end"`
}

type questionRow struct {
	bun.BaseModel `bun:"table:questions"`
	ID            int64  `bun:"id,pk,autoincrement"`
	StudyID       string `bun:"study_id"`
	TopicID       int64  `bun:"topic_id"`
	Position      int    `bun:"position"`
	Type          string `bun:"type"`
	Prompt        string `bun:"prompt"`
	Answer        string `bun:"answer"`
	Choices       string `bun:"choices"`
	SpanStart     int    `bun:"span_start"`
	SpanEnd       int    `bun:"span_end"`
	Alternatives  string `bun:"alternatives"`
	Suspended     bool   `bun:"suspended"`
}

// now is the current time as rows hold it (see StoredTime).
func now() time.Time { return StoredTime(time.Now()) }

// newStudyID returns an opaque study id: "st_" and 26 base32 characters
// (130 random bits).
func newStudyID() string { return "st_" + strings.ToLower(rand.Text()) }

// CreateStudy validates text and title and stores a new study of the user
// with status uploaded, ready to be claimed; the text is stored with its
// line breaks normalised (studyloop.NormalizeLineBreaks), as the length
// limit counts it. Invalid input returns the validation *studyloop.Error,
// and a study over one of the account's quotas (WithQuotas) a
// *studyloop.QuotaError; either way nothing is stored.
func (db *DB) CreateStudy(ctx context.Context, userID int64, title, text string) (studyloop.Study, error) {
	text = studyloop.NormalizeLineBreaks(text)
	if err := studyloop.ValidateStudyText(text); err != nil {
		return studyloop.Study{}, err
	}
	title, err := studyloop.StudyTitle(title, text)
	if err != nil {
		return studyloop.Study{}, err
	}
	row := newStudyRow{studyRow: studyRow{Title: title}, Text: text, Chars: utf8.RuneCountInString(text)}
	if err := db.insertStudy(ctx, userID, &row, studyloop.UploadUsage{}, nil); err != nil {
		return studyloop.Study{}, err
	}
	return row.study(), nil
}

// insertStudy stores row as a new study of the user, with status uploaded,
// and its uploads, in one transaction, after checking the quotas for it.
func (db *DB) insertStudy(ctx context.Context, userID int64, row *newStudyRow, usage studyloop.UploadUsage, uploads []studyloop.Upload) error {
	t := now()
	row.ID, row.UserID, row.Status, row.CreatedAt, row.UpdatedAt = newStudyID(), userID, string(studyloop.StatusUploaded), t, t
	row.NewPerDay = studyloop.DefaultNewPerDay
	row.UploadFiles, row.UploadPages, row.UploadBytes = usage.Files, usage.Pages, usage.Bytes
	row.ExtractPending = len(uploads) > 0
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := db.lockUser(ctx, tx, userID); err != nil {
			return err
		}
		if err := db.checkQuotas(ctx, tx, userID, t, row.Chars, usage); err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
			return err
		}
		for i, u := range uploads {
			src := sourceRow{StudyID: row.ID, Position: i, Kind: u.Kind, Pages: u.Pages, Data: u.Data}
			if _, err := tx.NewInsert().Model(&src).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && studyloop.ErrorCode(err) == studyloop.EINTERNAL {
		return fmt.Errorf("store: create study: %w", err)
	}
	return err
}

// GetStudy returns the user's study with the given id. A study of another
// user is reported exactly like a missing one: ENOTFOUND.
func (db *DB) GetStudy(ctx context.Context, userID int64, id string) (studyloop.Study, error) {
	var row studyRow
	err := db.NewSelect().Model(&row).Where("id = ?", id).Where("user_id = ?", userID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return studyloop.Study{}, studyNotFound(id)
	}
	if err != nil {
		return studyloop.Study{}, fmt.Errorf("store: get study: %w", err)
	}
	return row.study(), nil
}

func studyNotFound(id string) error {
	return studyloop.Errorf(studyloop.ENOTFOUND, "No study with id %q.", id)
}

// ListStudies returns a page of the user's studies, newest first, and the
// cursor of the next page ("" when this is the last). Paging is a keyset on
// (created_at, id), so studies created while a client pages through do not
// shift or repeat the pages after the first. Bad parameters return EINVALID.
func (db *DB) ListStudies(ctx context.Context, userID int64, p studyloop.ListStudiesParams) (studies []studyloop.Study, next string, err error) {
	limit := p.Limit
	switch {
	case limit == 0:
		limit = studyloop.DefaultStudyListLimit
	case limit < 1 || limit > studyloop.MaxStudyListLimit:
		return nil, "", studyloop.Errorf(studyloop.EINVALID, "Limit %d is out of range; use 1 to %d.", p.Limit, studyloop.MaxStudyListLimit)
	}
	if p.Status != "" && !p.Status.Valid() {
		return nil, "", studyloop.Errorf(studyloop.EINVALID, "Status %q is not one of uploaded, processing, ready, failed.", p.Status)
	}
	var rows []studyRow
	q := db.NewSelect().Model(&rows).
		Where("user_id = ?", userID).
		OrderExpr("created_at DESC, id DESC").
		Limit(limit + 1)
	if p.Status != "" {
		q = q.Where("status = ?", string(p.Status))
	}
	if p.Cursor != "" {
		at, id, err := decodeCursor(p.Cursor)
		if err != nil {
			return nil, "", err
		}
		q = q.Where("(created_at < ? OR (created_at = ? AND id < ?))", at, at, id)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, "", fmt.Errorf("store: list studies: %w", err)
	}
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[limit-1]
		next = encodeCursor(last.CreatedAt, last.ID)
	}
	studies = make([]studyloop.Study, len(rows))
	for i, r := range rows {
		studies[i] = r.study()
	}
	return studies, next, nil
}

// encodeCursor makes an opaque cursor from the sort key of the last study
// of a page.
func encodeCursor(at time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at.UnixMicro(), 10) + "." + id))
}

func decodeCursor(cursor string) (time.Time, string, error) {
	bad := studyloop.Errorf(studyloop.EINVALID, "The cursor is not one this service issued; list again without a cursor.")
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return time.Time{}, "", bad
	}
	micros, id, ok := strings.Cut(string(raw), ".")
	n, err := strconv.ParseInt(micros, 10, 64)
	if !ok || err != nil || !strings.HasPrefix(id, "st_") {
		return time.Time{}, "", bad
	}
	return time.UnixMicro(n).UTC(), id, nil
}

// Topics returns the topics of the user's study in their stored order, so
// that Topic.Parent and Question.Topic index into the result. A study that
// is not ready has none. A study of another user is ENOTFOUND.
func (db *DB) Topics(ctx context.Context, userID int64, studyID string) ([]studyloop.Topic, error) {
	var rows []topicRow
	err := db.NewSelect().Model(&rows).
		Join("JOIN studies AS s ON s.id = topic_row.study_id").
		Where("s.id = ?", studyID).Where("s.user_id = ?", userID).
		Order("topic_row.position").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: topics: %w", err)
	}
	if len(rows) == 0 {
		if err := db.checkStudyOwner(ctx, userID, studyID); err != nil {
			return nil, err
		}
	}
	index := make(map[int64]int, len(rows))
	for i, r := range rows {
		index[r.ID] = i
	}
	topics := make([]studyloop.Topic, len(rows))
	for i, r := range rows {
		parent := -1
		if r.ParentID != nil {
			parent = index[*r.ParentID]
		}
		topics[i] = studyloop.Topic{ID: r.ID, Parent: parent, Title: r.Title, Span: studyloop.Span{Start: r.SpanStart, End: r.SpanEnd}}
	}
	return topics, nil
}

// Questions returns the questions of the user's study in their stored
// order. Question.Topic indexes the result of Topics and Question.TopicID
// names the stored topic. A study of another user is ENOTFOUND.
func (db *DB) Questions(ctx context.Context, userID int64, studyID string) ([]studyloop.Question, error) {
	var rows []struct {
		questionRow
		TopicPosition int `bun:"topic_position"`
	}
	err := db.NewSelect().
		TableExpr("questions AS q").
		Join("JOIN topics AS t ON t.id = q.topic_id").
		Join("JOIN studies AS s ON s.id = q.study_id").
		ColumnExpr(practiceColumns).
		ColumnExpr("t.position AS topic_position").
		Where("s.id = ?", studyID).Where("s.user_id = ?", userID).
		OrderExpr("q.position").
		Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("store: questions: %w", err)
	}
	if len(rows) == 0 {
		if err := db.checkStudyOwner(ctx, userID, studyID); err != nil {
			return nil, err
		}
	}
	questions := make([]studyloop.Question, len(rows))
	for i, r := range rows {
		q, err := r.practice()
		if err != nil {
			return nil, err
		}
		q.Topic = r.TopicPosition
		questions[i] = q
	}
	return questions, nil
}

// checkStudyOwner returns ENOTFOUND unless the study exists and belongs to
// the user. Readers call it when they found no rows, to tell a study with
// none from a study the user may not see.
func (db *DB) checkStudyOwner(ctx context.Context, userID int64, studyID string) error {
	exists, err := db.NewSelect().Table("studies").Where("id = ?", studyID).Where("user_id = ?", userID).Exists(ctx)
	if err != nil {
		return fmt.Errorf("store: find study: %w", err)
	}
	if !exists {
		return studyNotFound(studyID)
	}
	return nil
}

// claimable selects studies a worker may take: queued ones, and processing
// ones whose lease ran out with attempts to spare. Arguments: now, max.
const claimable = `(s.status = 'uploaded' OR (s.status = 'processing' AND s.lease_until < ? AND s.attempts < ?))`

// claimOrder is the fair order of the queue: the study of the account
// whose studies were claimed least recently first (an account that has
// never been served before all others), and within an account the oldest.
// One account's backlog thus delays another's study by at most the studies
// already being processed.
const claimOrder = `u.last_served, s.created_at, s.id`

// claimReturning lists the columns a claim returns.
const claimReturning = `id, user_id, title, status, reason, topic_count, question_count, new_per_day, created_at, updated_at, upload_pages, pages_done, text, attempts, lease_until`

// Lane is a part of the queue, so that workers reading uploads, which may
// take minutes, never hold up studies made from text.
type Lane int

// Lanes.
const (
	// AnyLane is every claimable study, several of one account at once
	// (for tools and tests; workers claim from the two lanes below).
	AnyLane Lane = iota
	// TextLane is the studies whose text is there, to generate from, at
	// most one of an account at a time.
	TextLane
	// UploadLane is the studies whose uploaded files wait to be read, at
	// most one of an account at a time.
	UploadLane
)

// condition restricts a claim to the lane. In the two worker lanes an
// account with a study being processed in the lane (lease not run out)
// waits, so that one account's backlog never takes more than one worker
// of a lane, and with two workers or more another account's study starts
// at once. Arguments: now (for the worker lanes).
func (l Lane) condition() string {
	inFlight := func(pending string) string {
		return ` AND ` + pending + `s.extract_pending AND NOT EXISTS (SELECT 1 FROM studies AS f
			WHERE f.user_id = s.user_id AND f.status = 'processing' AND f.lease_until >= ? AND ` + pending + `f.extract_pending)`
	}
	switch l {
	case TextLane:
		return inFlight("NOT ")
	case UploadLane:
		return inFlight("")
	}
	return ``
}

// ClaimStudy hands a claimable study of the lane to owner for processing,
// marking it processing with a lease of the given length and counting the
// attempt. Claimable are studies that are uploaded, and processing studies
// whose lease ran out (their worker died), within the lane's conditions.
// Of those it takes the first in claimOrder, and marks the study's account
// as served now. Before claiming, processing studies whose lease ran out
// on their last permitted attempt are marked failed with a reason and
// their uploaded files dropped, in one transaction. ok is false when
// nothing is waiting.
//
// Each study goes to exactly one caller, across processes: PostgreSQL locks
// the chosen row and its account's with FOR UPDATE SKIP LOCKED inside one
// transaction, and SQLite, which has one writer at a time, chooses and
// updates the row in a single UPDATE statement. Lease times come from the
// caller's clock.
func (db *DB) ClaimStudy(ctx context.Context, owner string, lease time.Duration, lane Lane) (claim Claim, ok bool, err error) {
	t := now()
	leaseUntil := t.Add(lease)
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var failed []string
		err := tx.NewRaw(`UPDATE studies
			SET status = 'failed', reason = ?, lease_owner = '', lease_until = NULL, updated_at = ?
			WHERE status = 'processing' AND lease_until < ? AND attempts >= ?
			RETURNING id`,
			reasonAttemptsExhausted, t, t, MaxStudyAttempts).Scan(ctx, &failed)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		return dropSources(ctx, tx, failed...)
	})
	if err != nil {
		return Claim{}, false, fmt.Errorf("store: fail exhausted studies: %w", err)
	}
	var row claimRow
	const update = `UPDATE studies
		SET status = 'processing', attempts = attempts + 1, lease_owner = ?, lease_until = ?, updated_at = ?
		WHERE id = `
	choose := `SELECT s.id FROM studies AS s JOIN users AS u ON u.id = s.user_id
		WHERE ` + claimable + lane.condition() + ` ORDER BY ` + claimOrder + ` LIMIT 1`
	chooseArgs := []any{t, MaxStudyAttempts}
	if lane != AnyLane {
		chooseArgs = append(chooseArgs, t)
	}
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if db.IsPostgres() {
			// Locking the account's row as well keeps two replicas from
			// starting two studies of one account at the same moment; a
			// claim that locked the row just after another committed saw
			// the account idle in its snapshot, so the lane's condition
			// is checked again by a statement that sees that commit.
			var id string
			if err := tx.NewRaw(choose+` FOR UPDATE OF s, u SKIP LOCKED`, chooseArgs...).Scan(ctx, &id); err != nil {
				return err
			}
			if err := tx.NewRaw(`SELECT s.id FROM studies AS s WHERE s.id = ? AND `+claimable+lane.condition(),
				append([]any{id}, chooseArgs...)...).Scan(ctx, &id); err != nil {
				return err
			}
			if err := tx.NewRaw(update+`? RETURNING `+claimReturning, owner, leaseUntil, t, id).Scan(ctx, &row); err != nil {
				return err
			}
		} else if err := tx.NewRaw(update+`(`+choose+`) RETURNING `+claimReturning,
			append([]any{owner, leaseUntil, t}, chooseArgs...)...).Scan(ctx, &row); err != nil {
			return err
		}
		_, err := tx.NewRaw(`UPDATE users SET last_served = ? WHERE id = ?`, t.UnixMicro(), row.UserID).Exec(ctx)
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return Claim{}, false, nil
	}
	if err != nil {
		return Claim{}, false, fmt.Errorf("store: claim study: %w", err)
	}
	return Claim{Study: row.study(), Text: row.Text, Attempt: row.Attempts, LeaseUntil: row.LeaseUntil.UTC()}, true, nil
}

// held restricts an update to a study processing under owner's lease.
// Arguments: id, owner.
const held = `id = ? AND status = 'processing' AND lease_owner = ?`

// ExtendLease moves the end of owner's lease on the study to lease from
// now. It returns ErrLeaseLost when owner no longer holds it.
func (db *DB) ExtendLease(ctx context.Context, id, owner string, lease time.Duration) error {
	t := now()
	return db.updateHeld(ctx, "extend lease", `UPDATE studies SET lease_until = ?, updated_at = ? WHERE `+held,
		t.Add(lease), t, id, owner)
}

// ReleaseStudy gives a study back to the queue unfinished, as when its
// worker shuts down, without counting the attempt. It returns ErrLeaseLost
// when owner no longer holds it.
func (db *DB) ReleaseStudy(ctx context.Context, id, owner string) error {
	return db.updateHeld(ctx, "release study", `UPDATE studies
		SET status = 'uploaded', attempts = attempts - 1, lease_owner = '', lease_until = NULL, updated_at = ?
		WHERE `+held, now(), id, owner)
}

// FailStudy ends owner's processing of the study as failed, storing reason
// (words a person can read; cut to 500 characters), and drops the study's
// uploaded files, in one transaction: a failed study is never retried, so
// they would only take up space. It returns ErrLeaseLost and changes
// nothing when owner no longer holds the lease.
func (db *DB) FailStudy(ctx context.Context, id, owner, reason string) error {
	reason = strings.TrimSpace(reason)
	if r := []rune(reason); len(r) > maxReasonChars {
		reason = string(r[:maxReasonChars-1]) + "…"
	}
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewRaw(`UPDATE studies
			SET status = 'failed', reason = ?, lease_owner = '', lease_until = NULL, updated_at = ?
			WHERE `+held, reason, now(), id, owner).Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrLeaseLost
		}
		return dropSources(ctx, tx, id)
	})
	if err != nil && !errors.Is(err, ErrLeaseLost) {
		return fmt.Errorf("store: fail study: %w", err)
	}
	return err
}

func (db *DB) updateHeld(ctx context.Context, what, query string, args ...any) error {
	res, err := db.NewRaw(query, args...).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: %s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: %s: %w", what, err)
	}
	if n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// CompleteStudy stores the extraction's topics and questions and marks the
// study ready, all in one transaction, if owner still holds its lease. It
// returns ErrLeaseLost when owner does not, and an EINVALID
// *studyloop.Error when the extraction fails Extraction.Validate against
// the study's text; either way nothing changes.
func (db *DB) CompleteStudy(ctx context.Context, id, owner string, ex studyloop.Extraction) error {
	textBytes := `octet_length(text)`
	if !db.IsPostgres() {
		textBytes = `length(CAST(text AS BLOB))`
	}
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var textLen int
		err := tx.NewRaw(`UPDATE studies
			SET status = 'ready', reason = '', topic_count = ?, question_count = ?, lease_owner = '', lease_until = NULL, updated_at = ?,
				progress_version = progress_version + 1
			WHERE `+held+` RETURNING `+textBytes,
			len(ex.Topics), len(ex.Questions), now(), id, owner).Scan(ctx, &textLen)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrLeaseLost
		}
		if err != nil {
			return err
		}
		if err := ex.Validate(textLen); err != nil {
			return err
		}
		topicIDs, err := insertTopics(ctx, tx, id, ex.Topics)
		if err != nil {
			return err
		}
		return insertQuestions(ctx, tx, id, topicIDs, ex.Questions)
	})
	if err == nil {
		db.progressMoved(id)
	}
	if err != nil && studyloop.ErrorCode(err) == studyloop.EINTERNAL {
		return fmt.Errorf("store: complete study: %w", err)
	}
	return err
}

// insertTopics stores topics, parents before children: one depth level at a
// time, so each level can name the ids of the one above. It returns the
// stored id of each topic by index.
func insertTopics(ctx context.Context, tx bun.Tx, studyID string, topics []studyloop.Topic) ([]int64, error) {
	depth := make([]int, len(topics))
	maxDepth := 0
	for i, t := range topics {
		if t.Parent >= 0 {
			depth[i] = depth[t.Parent] + 1
			maxDepth = max(maxDepth, depth[i])
		}
	}
	ids := make([]int64, len(topics))
	for level := 0; level <= maxDepth && len(topics) > 0; level++ {
		var rows []topicRow
		for i, t := range topics {
			if depth[i] != level {
				continue
			}
			row := topicRow{StudyID: studyID, Position: i, Title: t.Title, SpanStart: t.Span.Start, SpanEnd: t.Span.End}
			if t.Parent >= 0 {
				row.ParentID = &ids[t.Parent]
			}
			rows = append(rows, row)
		}
		for chunk := range slices.Chunk(rows, insertChunk) {
			if _, err := tx.NewInsert().Model(&chunk).Exec(ctx); err != nil {
				return nil, fmt.Errorf("insert topics: %w", err)
			}
		}
		var stored []topicRow
		if err := tx.NewSelect().Model(&stored).Column("id", "position").Where("study_id = ?", studyID).Scan(ctx); err != nil {
			return nil, fmt.Errorf("read topic ids: %w", err)
		}
		for _, s := range stored {
			ids[s.Position] = s.ID
		}
	}
	return ids, nil
}

func insertQuestions(ctx context.Context, tx bun.Tx, studyID string, topicIDs []int64, questions []studyloop.Question) error {
	rows := make([]questionRow, len(questions))
	for i, q := range questions {
		rows[i] = questionRow{
			StudyID:      studyID,
			TopicID:      topicIDs[q.Topic],
			Position:     i,
			Type:         string(q.Type),
			Prompt:       q.Prompt,
			Answer:       q.Answer,
			Choices:      jsonList(q.Choices),
			SpanStart:    q.Source.Start,
			SpanEnd:      q.Source.End,
			Alternatives: jsonList(q.Alternatives),
		}
	}
	for chunk := range slices.Chunk(rows, insertChunk) {
		if _, err := tx.NewInsert().Model(&chunk).Exec(ctx); err != nil {
			return fmt.Errorf("insert questions: %w", err)
		}
	}
	return nil
}

package store

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/studyloop/studyloop/server/studyloop"
)

// A study made from uploaded files starts without text: its files wait in
// study_sources until a worker extracts their text (SetStudyText), which
// also stores the study's parts, so its topics can say which page or photo
// they came from.

type sourceRow struct {
	bun.BaseModel `bun:"table:study_sources"`
	ID            int64  `bun:"id,pk,autoincrement"`
	StudyID       string `bun:"study_id"`
	Position      int    `bun:"position"`
	Kind          string `bun:"kind"`
	Pages         string `bun:"pages"`
	Data          []byte `bun:"data"`
}

type partRow struct {
	bun.BaseModel `bun:"table:study_parts"`
	ID            int64  `bun:"id,pk,autoincrement"`
	StudyID       string `bun:"study_id"`
	Position      int    `bun:"position"`
	Label         string `bun:"label"`
	SpanStart     int    `bun:"span_start"`
	SpanEnd       int    `bun:"span_end"`
}

// CreateUploadStudy stores a new study of the user made from uploaded
// files, with status uploaded and no text yet, and its files, in one
// transaction. The caller checks the files' content and limits; storage
// refuses an empty list or an unknown kind (EINVALID) and an upload over
// one of the account's quotas (*studyloop.QuotaError), storing nothing.
func (db *DB) CreateUploadStudy(ctx context.Context, userID int64, title string, uploads []studyloop.Upload) (studyloop.Study, error) {
	if len(uploads) == 0 {
		return studyloop.Study{}, studyloop.Errorf(studyloop.EINVALID, "No files were uploaded.")
	}
	for i, u := range uploads {
		switch u.Kind {
		case "pdf", "jpeg", "png", "heic":
		default:
			return studyloop.Study{}, studyloop.Errorf(studyloop.EINVALID, "File %d is of an unknown kind %q.", i+1, u.Kind)
		}
	}
	title, err := studyloop.StudyTitle(title, "")
	if err != nil {
		return studyloop.Study{}, err
	}
	row := newStudyRow{studyRow: studyRow{Title: title}}
	if err := db.insertStudy(ctx, userID, &row, studyloop.Usage(uploads), uploads); err != nil {
		return studyloop.Study{}, err
	}
	return row.study(), nil
}

// StudySources returns the uploaded files of a study in upload order, for
// the worker that claimed it. It returns none once the text is extracted
// or the study has failed.
func (db *DB) StudySources(ctx context.Context, studyID string) ([]studyloop.Upload, error) {
	var rows []sourceRow
	if err := db.NewSelect().Model(&rows).Where("study_id = ?", studyID).Order("position").Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: study sources: %w", err)
	}
	uploads := make([]studyloop.Upload, len(rows))
	for i, r := range rows {
		uploads[i] = studyloop.Upload{Kind: r.Kind, Pages: r.Pages, Data: r.Data}
	}
	return uploads, nil
}

// SetPagesDone records how many of a study's pages and photos have been
// read, if owner holds its processing lease; ErrLeaseLost otherwise.
func (db *DB) SetPagesDone(ctx context.Context, id, owner string, done int) error {
	return db.updateHeld(ctx, "set pages done", `UPDATE studies SET pages_done = ? WHERE `+held, done, id, owner)
}

// SetStudyText stores the text extracted from a study's files and its
// parts, and drops the files, in one transaction, if owner holds the
// study's processing lease; ErrLeaseLost otherwise. The text must pass
// studyloop.ValidateStudyText and every part must lie within it (EINVALID
// otherwise). Nothing changes on error.
func (db *DB) SetStudyText(ctx context.Context, id, owner, text string, parts []studyloop.SourcePart) error {
	if err := studyloop.ValidateStudyText(text); err != nil {
		return err
	}
	for i, p := range parts {
		if p.Span.Start < 0 || p.Span.Start > p.Span.End || p.Span.End > len(text) {
			return studyloop.Errorf(studyloop.EINVALID, "Part %d (%s) lies outside the text.", i, p.Label)
		}
	}
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewRaw(`UPDATE studies SET text = ?, chars = ?, extract_pending = FALSE, updated_at = ? WHERE `+held,
			text, utf8.RuneCountInString(text), now(), id, owner).Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrLeaseLost
		}
		if _, err := tx.NewDelete().Model((*partRow)(nil)).Where("study_id = ?", id).Exec(ctx); err != nil {
			return err
		}
		if len(parts) > 0 {
			rows := make([]partRow, len(parts))
			for i, p := range parts {
				rows[i] = partRow{StudyID: id, Position: i, Label: p.Label, SpanStart: p.Span.Start, SpanEnd: p.Span.End}
			}
			if _, err := tx.NewInsert().Model(&rows).Exec(ctx); err != nil {
				return err
			}
		}
		_, err = tx.NewDelete().Model((*sourceRow)(nil)).Where("study_id = ?", id).Exec(ctx)
		return err
	})
	if err != nil && !errors.Is(err, ErrLeaseLost) {
		return fmt.Errorf("store: set study text: %w", err)
	}
	return err
}

// dropSources deletes the uploaded files of the studies, within tx.
func dropSources(ctx context.Context, tx bun.Tx, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := tx.NewDelete().Model((*sourceRow)(nil)).Where("study_id IN (?)", bun.In(ids)).Exec(ctx)
	return err
}

// SourceParts returns the parts of the user's study's text in order: which
// bytes came from which page or photo. A study made from pasted text, or
// not yet extracted, has none. A study of another user is ENOTFOUND.
func (db *DB) SourceParts(ctx context.Context, userID int64, studyID string) ([]studyloop.SourcePart, error) {
	var rows []partRow
	err := db.NewSelect().Model(&rows).
		Join("JOIN studies AS s ON s.id = part_row.study_id").
		Where("s.id = ?", studyID).Where("s.user_id = ?", userID).
		Order("part_row.position").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: source parts: %w", err)
	}
	if len(rows) == 0 {
		if err := db.checkStudyOwner(ctx, userID, studyID); err != nil {
			return nil, err
		}
	}
	parts := make([]studyloop.SourcePart, len(rows))
	for i, r := range rows {
		parts[i] = studyloop.SourcePart{Label: r.Label, Span: studyloop.Span{Start: r.SpanStart, End: r.SpanEnd}}
	}
	return parts, nil
}

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/studyloop/studyloop/server/studyloop"
)

// RenameStudy gives the user's study a new title (trimmed, inner
// whitespace collapsed, not blank, at most MaxStudyTitleChars). A study
// that is not the user's is ENOTFOUND; a bad title is EINVALID.
func (db *DB) RenameStudy(ctx context.Context, userID int64, studyID, title string) error {
	if strings.TrimSpace(title) == "" {
		return studyloop.Errorf(studyloop.EINVALID, "The title must not be empty.")
	}
	title, err := studyloop.StudyTitle(title, "")
	if err != nil {
		return err
	}
	// The title is among the cached mastery inputs, so the version moves.
	return db.changeStudy(ctx, userID, studyID, "rename study",
		db.NewUpdate().Table("studies").Set("title = ?", title).Set("updated_at = ?", now()).
			Set("progress_version = progress_version + 1"))
}

// SetNewPerDay sets how many never-answered questions practice starts from
// the user's study in any 24 hours (0 to MaxNewPerDay). A study that is not
// the user's is ENOTFOUND; a number out of range is EINVALID.
func (db *DB) SetNewPerDay(ctx context.Context, userID int64, studyID string, n int) error {
	if err := studyloop.ValidateNewPerDay(n); err != nil {
		return err
	}
	return db.changeStudy(ctx, userID, studyID, "set new per day",
		db.NewUpdate().Table("studies").Set("new_per_day = ?", n).Set("updated_at = ?", now()))
}

// changeStudy runs an update of one studies row, limited to the user's
// study, and tells the progress watchers (see WatchProgress).
func (db *DB) changeStudy(ctx context.Context, userID int64, studyID, what string, q *bun.UpdateQuery) error {
	res, err := q.Where("id = ?", studyID).Where("user_id = ?", userID).Exec(ctx)
	if err := oneRow(res, err, what); err != nil {
		if studyloop.ErrorCode(err) == studyloop.ENOTFOUND {
			return studyNotFound(studyID)
		}
		return err
	}
	db.progressMoved(studyID)
	return nil
}

// DeleteStudy removes the user's study with everything made from it:
// topics, questions, uploaded files and the student's answers and
// schedule. A study being processed may be deleted; its worker then loses
// the lease. A study that is not the user's is ENOTFOUND.
func (db *DB) DeleteStudy(ctx context.Context, userID int64, studyID string) error {
	res, err := db.NewDelete().Table("studies").Where("id = ?", studyID).Where("user_id = ?", userID).Exec(ctx)
	if err := oneRow(res, err, "delete study"); err != nil {
		if studyloop.ErrorCode(err) == studyloop.ENOTFOUND {
			return studyNotFound(studyID)
		}
		return err
	}
	db.progressMoved(studyID)
	return nil
}

// ownQuestion limits a statement on questions to one question of one of
// the user's studies. Arguments: question id, study id, user id.
const ownQuestion = `id = ? AND study_id = ? AND study_id IN (SELECT id FROM studies WHERE user_id = ?)`

// EditQuestion replaces a question's prompt, answer, accepted
// alternatives and, for multiple choice, its choices, after
// QuestionEdit.Clean. Its schedule and answers are kept. A question that
// is not in the user's study is ENOTFOUND; a bad edit is EINVALID.
func (db *DB) EditQuestion(ctx context.Context, userID int64, studyID string, questionID int64, e studyloop.QuestionEdit) error {
	q, err := db.PracticeQuestion(ctx, userID, studyID, questionID)
	if err != nil {
		return err
	}
	if e, err = e.Clean(q.Type); err != nil {
		return err
	}
	res, err := db.NewUpdate().Table("questions").
		Set("prompt = ?", e.Prompt).Set("answer = ?", e.Answer).
		Set("choices = ?", jsonList(e.Choices)).Set("alternatives = ?", jsonList(e.Alternatives)).
		Where(ownQuestion, questionID, studyID, userID).Exec(ctx)
	return oneRow(res, err, "edit question")
}

// SuspendQuestion suspends a question of the user's study (never asked,
// left out of every figure) or, with suspended false, brings it back with
// its schedule. A question that is not in the user's study is ENOTFOUND.
func (db *DB) SuspendQuestion(ctx context.Context, userID int64, studyID string, questionID int64, suspended bool) error {
	return db.changeQuestion(ctx, studyID, "suspend question", func(tx bun.Tx) (int64, error) {
		res, err := tx.NewUpdate().Table("questions").Set("suspended = ?", suspended).
			Where(ownQuestion, questionID, studyID, userID).Exec(ctx)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	})
}

// DeleteQuestion removes a question of the user's study with its schedule
// and answers (its topic's answer count and streaks stay as they were). A
// question that is not in the user's study is ENOTFOUND.
func (db *DB) DeleteQuestion(ctx context.Context, userID int64, studyID string, questionID int64) error {
	return db.changeQuestion(ctx, studyID, "delete question", func(tx bun.Tx) (int64, error) {
		res, err := tx.NewDelete().Table("questions").Where(ownQuestion, questionID, studyID, userID).Exec(ctx)
		if err != nil {
			return 0, err
		}
		n, err := res.RowsAffected()
		if err != nil || n == 0 {
			return n, err
		}
		_, err = tx.NewUpdate().Table("studies").Set("question_count = question_count - 1").Where("id = ?", studyID).Exec(ctx)
		return n, err
	})
}

// changeQuestion runs change, which touches the rows of one question, in
// a transaction that also moves the study's progress version (mastery
// depends on which questions count), and tells the progress watchers.
func (db *DB) changeQuestion(ctx context.Context, studyID, what string, change func(bun.Tx) (int64, error)) error {
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		n, err := change(tx)
		if err != nil {
			return fmt.Errorf("store: %s: %w", what, err)
		}
		if n == 0 {
			return studyloop.Errorf(studyloop.ENOTFOUND, "Question not found.")
		}
		_, err = tx.NewUpdate().Table("studies").Set("progress_version = progress_version + 1").Where("id = ?", studyID).Exec(ctx)
		if err != nil {
			return fmt.Errorf("store: %s: move progress version: %w", what, err)
		}
		return nil
	})
	if err == nil {
		db.progressMoved(studyID)
	}
	return err
}

// oneRow turns the result of a statement meant to change one row into an
// error: ENOTFOUND when it changed none.
func oneRow(res interface{ RowsAffected() (int64, error) }, err error, what string) error {
	if err != nil {
		return fmt.Errorf("store: %s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: %s: %w", what, err)
	}
	if n == 0 {
		return studyloop.Errorf(studyloop.ENOTFOUND, "Question not found.")
	}
	return nil
}

// jsonList encodes a list of texts as a questions column holds it: a JSON
// array, [] for none.
func jsonList(v []string) string {
	if v == nil {
		return "[]"
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // a []string always encodes
	}
	return string(b)
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/studyloop/studyloop/server/studyloop"
)

// Card is a row of cards: the schedule of one question a student has
// answered, field by field the fsrs.Card the study service works it out
// as (State is the fsrs.State number), with the question's study and topic.
type Card struct {
	bun.BaseModel `bun:"table:cards"`
	QuestionID    int64     `bun:"question_id,pk"`
	UserID        int64     `bun:"user_id"`
	StudyID       string    `bun:"study_id"`
	TopicID       int64     `bun:"topic_id"`
	Due           time.Time `bun:"due"`
	Stability     float64   `bun:"stability"`
	Difficulty    float64   `bun:"difficulty"`
	Reps          int       `bun:"reps"`
	Lapses        int       `bun:"lapses"`
	State         int       `bun:"state"`
	Step          int       `bun:"step"`
	LastReview    time.Time `bun:"last_review"`
}

// ReviewLog is a row of review_logs: one answer. State is the card's
// fsrs.State number before the answer.
type ReviewLog struct {
	bun.BaseModel `bun:"table:review_logs"`
	ID            int64     `bun:"id,pk,autoincrement"`
	UserID        int64     `bun:"user_id"`
	StudyID       string    `bun:"study_id"`
	TopicID       int64     `bun:"topic_id"`
	QuestionID    int64     `bun:"question_id"`
	Rating        int       `bun:"rating"`
	State         int       `bun:"state"`
	ReviewedAt    time.Time `bun:"reviewed_at"`
	ElapsedDays   float64   `bun:"elapsed_days"`
	ScheduledDays float64   `bun:"scheduled_days"`
	Stability     float64   `bun:"stability"`
	Difficulty    float64   `bun:"difficulty"`
}

// firstAnswerState is the State a review log records for the first answer
// to a question: fsrs.New, which store does not import.
const firstAnswerState = 0

// TopicProgress is a row of topic_progress: a student's answer count and
// streaks in one topic, updated with every answer.
type TopicProgress struct {
	bun.BaseModel `bun:"table:topic_progress"`
	TopicID       int64  `bun:"topic_id,pk"`
	UserID        int64  `bun:"user_id"`
	StudyID       string `bun:"study_id"`
	Attempts      int    `bun:"attempts"`
	CurrentStreak int    `bun:"current_streak"`
	BestStreak    int    `bun:"best_streak"`
}

// ReviewTx is a transaction that records one answer, made by InReviewTx.
// Its methods lock, read and write the rows an answer changes; the order
// of the locks (card, then topic) is the caller's to keep.
type ReviewTx struct {
	tx       bun.Tx
	postgres bool
	moved    []string // studies whose progress version moved
}

// InReviewTx runs fn in one transaction, committed when fn returns nil.
// Once it is committed, the watchers of the studies whose progress
// version fn moved hear of them (see WatchProgress).
func (db *DB) InReviewTx(ctx context.Context, fn func(ctx context.Context, tx *ReviewTx) error) error {
	rtx := &ReviewTx{postgres: db.IsPostgres()}
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		rtx.tx = tx
		return fn(ctx, rtx)
	})
	if err == nil {
		for _, id := range rtx.moved {
			db.progressMoved(id)
		}
	}
	return err
}

// lockRow reads the row of model by its primary key, locked until the
// transaction ends (SQLite transactions already hold the write lock).
func (tx *ReviewTx) lockRow(ctx context.Context, model any) error {
	q := tx.tx.NewSelect().Model(model).WherePK()
	if tx.postgres {
		q = q.For("UPDATE")
	}
	return q.Scan(ctx)
}

// LockCard returns the student's card of the question, locked until the
// transaction ends. A question never answered gets its card row first,
// with Reps 0 and both times now, so that the lock serialises even the
// first two answers to it. A question that is not the student's is
// ENOTFOUND.
func (tx *ReviewTx) LockCard(ctx context.Context, userID, questionID int64, now time.Time) (Card, error) {
	now = StoredTime(now)
	c := Card{QuestionID: questionID, UserID: userID, Due: now, LastReview: now}
	err := tx.tx.NewSelect().
		TableExpr("questions AS q").
		Join("JOIN studies AS s ON s.id = q.study_id").
		ColumnExpr("q.study_id, q.topic_id").
		Where("q.id = ?", questionID).
		Where("s.user_id = ?", userID).
		Scan(ctx, &c.StudyID, &c.TopicID)
	if errors.Is(err, sql.ErrNoRows) {
		return c, studyloop.Errorf(studyloop.ENOTFOUND, "Question not found.")
	}
	if err != nil {
		return c, fmt.Errorf("store: find question: %w", err)
	}
	if _, err := tx.tx.NewInsert().Model(&c).On("CONFLICT (question_id) DO NOTHING").Exec(ctx); err != nil {
		return c, fmt.Errorf("store: create card: %w", err)
	}
	if err := tx.lockRow(ctx, &c); err != nil {
		return c, fmt.Errorf("store: read card: %w", err)
	}
	return c, nil
}

// UpdateCard writes a card that LockCard returned.
func (tx *ReviewTx) UpdateCard(ctx context.Context, c *Card) error {
	if _, err := tx.tx.NewUpdate().Model(c).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("store: update card: %w", err)
	}
	return nil
}

// LockTopicProgress returns the student's progress in the topic of a
// locked card, created at zero when missing and locked until the
// transaction ends, so that concurrent answers in one topic count in
// order.
func (tx *ReviewTx) LockTopicProgress(ctx context.Context, c Card) (TopicProgress, error) {
	p := TopicProgress{TopicID: c.TopicID, UserID: c.UserID, StudyID: c.StudyID}
	if _, err := tx.tx.NewInsert().Model(&p).On("CONFLICT (topic_id) DO NOTHING").Exec(ctx); err != nil {
		return p, fmt.Errorf("store: create topic progress: %w", err)
	}
	if err := tx.lockRow(ctx, &p); err != nil {
		return p, fmt.Errorf("store: read topic progress: %w", err)
	}
	return p, nil
}

// UpdateTopicProgress writes progress that LockTopicProgress returned.
func (tx *ReviewTx) UpdateTopicProgress(ctx context.Context, p *TopicProgress) error {
	if _, err := tx.tx.NewUpdate().Model(p).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("store: update topic progress: %w", err)
	}
	return nil
}

// AppendReview appends an answer to the review log.
func (tx *ReviewTx) AppendReview(ctx context.Context, l *ReviewLog) error {
	if _, err := tx.tx.NewInsert().Model(l).Exec(ctx); err != nil {
		return fmt.Errorf("store: append review log: %w", err)
	}
	return nil
}

// MoveProgressVersion moves the study's progress version: what its
// mastery is computed from has changed. It takes the study's row lock
// until the transaction ends, so it is best done last.
func (tx *ReviewTx) MoveProgressVersion(ctx context.Context, studyID string) error {
	if _, err := tx.tx.NewUpdate().Table("studies").Set("progress_version = progress_version + 1").
		Where("id = ?", studyID).Exec(ctx); err != nil {
		return fmt.Errorf("store: move progress version: %w", err)
	}
	tx.moved = append(tx.moved, studyID)
	return nil
}

// AnsweredCard returns the student's card of the question, found false
// when the question has never been answered (or is not the student's).
func (db *DB) AnsweredCard(ctx context.Context, userID, questionID int64) (c Card, found bool, err error) {
	var rows []Card
	if err := db.NewSelect().Model(&rows).Where("question_id = ?", questionID).Where("user_id = ?", userID).Scan(ctx); err != nil {
		return c, false, fmt.Errorf("store: read card: %w", err)
	}
	if len(rows) == 1 && rows[0].Reps > 0 {
		return rows[0], true, nil
	}
	return c, false, nil
}

// practiceColumns are the questions columns practice reads.
const practiceColumns = "q.id, q.study_id, q.topic_id, q.type, q.prompt, q.answer, q.choices, q.span_start, q.span_end, q.alternatives, q.suspended"

// practice is the row as a question to practise (Question.Topic unset).
func (r questionRow) practice() (studyloop.Question, error) {
	q := studyloop.Question{
		ID: r.ID, StudyID: r.StudyID, TopicID: r.TopicID, Type: studyloop.QuestionType(r.Type),
		Prompt: r.Prompt, Answer: r.Answer,
		Source:    studyloop.Span{Start: r.SpanStart, End: r.SpanEnd},
		Suspended: r.Suspended,
	}
	if err := json.Unmarshal([]byte(r.Choices), &q.Choices); err != nil {
		return q, fmt.Errorf("store: question %d choices: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(r.Alternatives), &q.Alternatives); err != nil {
		return q, fmt.Errorf("store: question %d alternatives: %w", r.ID, err)
	}
	return q, nil
}

// PracticeQuestion returns one question of the user's study (of any of
// the user's studies when studyID is ""), to grade an answer or show it
// again. A question that is not in that study, or a study that is not the
// user's, is ENOTFOUND. Question.Topic is unset; use TopicID.
func (db *DB) PracticeQuestion(ctx context.Context, userID int64, studyID string, questionID int64) (studyloop.Question, error) {
	var row questionRow
	q := db.NewSelect().
		TableExpr("questions AS q").
		Join("JOIN studies AS s ON s.id = q.study_id").
		ColumnExpr(practiceColumns).
		Where("q.id = ?", questionID).
		Where("s.user_id = ?", userID)
	if studyID != "" {
		q = q.Where("q.study_id = ?", studyID)
	}
	err := q.Scan(ctx, &row)
	if errors.Is(err, sql.ErrNoRows) {
		return studyloop.Question{}, studyloop.Errorf(studyloop.ENOTFOUND, "Question not found.")
	}
	if err != nil {
		return studyloop.Question{}, fmt.Errorf("store: practice question: %w", err)
	}
	return row.practice()
}

// ProgressHead is the studies row progress figures need: what they report
// of the study, and its progress version, which moves with every change
// to what they are computed from.
type ProgressHead struct {
	bun.BaseModel   `bun:"table:studies"`
	ID              string                `bun:"id,pk"`
	Title           string                `bun:"title"`
	Status          studyloop.StudyStatus `bun:"status"`
	ProgressVersion int64                 `bun:"progress_version"`
}

// StudyProgressHead returns the head of the user's study. A study that is
// not the user's is ENOTFOUND.
func (db *DB) StudyProgressHead(ctx context.Context, userID int64, studyID string) (ProgressHead, error) {
	var head ProgressHead
	err := db.NewSelect().Model(&head).Where("id = ?", studyID).Where("user_id = ?", userID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return head, studyNotFound(studyID)
	}
	if err != nil {
		return head, fmt.Errorf("store: get study: %w", err)
	}
	return head, nil
}

// ReadyProgressHeads returns the heads of the user's ready studies, newest
// first.
func (db *DB) ReadyProgressHeads(ctx context.Context, userID int64) ([]ProgressHead, error) {
	var heads []ProgressHead
	if err := db.NewSelect().Model(&heads).
		Where("user_id = ?", userID).Where("status = ?", string(studyloop.StatusReady)).
		OrderExpr("created_at DESC, id DESC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: ready studies: %w", err)
	}
	return heads, nil
}

// ProgressVersions returns the progress version of each of the studies
// that still exists, by id.
func (db *DB) ProgressVersions(ctx context.Context, studyIDs []string) (map[string]int64, error) {
	var heads []ProgressHead
	if err := db.NewSelect().Model(&heads).Column("id", "progress_version").
		Where("id IN (?)", bun.In(studyIDs)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: progress versions: %w", err)
	}
	versions := make(map[string]int64, len(heads))
	for _, h := range heads {
		versions[h.ID] = h.ProgressVersion
	}
	return versions, nil
}

// ProgressTopic is a topic as progress figures need it.
type ProgressTopic struct {
	ID       int64  `bun:"id"`
	StudyID  string `bun:"study_id"`
	ParentID *int64 `bun:"parent_id"`
	Title    string `bun:"title"`
	// Questions counts the topic's questions that are not suspended.
	Questions int `bun:"-"`
}

// ProgressRows is what a student's progress in some studies is computed
// from: their topics (each study's in study order), the student's cards
// of questions that are not suspended (in question order, with TopicID,
// Due, Stability, State and LastReview only) and the student's progress
// by topic.
type ProgressRows struct {
	Topics   []ProgressTopic
	Cards    []Card
	Progress []TopicProgress
}

// ProgressRows reads the rows the user's progress in the studies is
// computed from, in several statements: they are one consistent state
// only if the studies' progress versions did not move meanwhile.
func (db *DB) ProgressRows(ctx context.Context, userID int64, studyIDs []string) (ProgressRows, error) {
	var rows ProgressRows
	if err := db.NewSelect().TableExpr("topics").ColumnExpr("id, study_id, parent_id, title").
		Where("study_id IN (?)", bun.In(studyIDs)).OrderExpr("study_id, position").Scan(ctx, &rows.Topics); err != nil {
		return rows, fmt.Errorf("store: topics: %w", err)
	}
	var perTopic []struct {
		TopicID int64 `bun:"topic_id"`
		N       int   `bun:"n"`
	}
	if err := db.NewSelect().TableExpr("questions").ColumnExpr("topic_id, count(*) AS n").
		Where("study_id IN (?)", bun.In(studyIDs)).Where("NOT suspended").GroupExpr("topic_id").Scan(ctx, &perTopic); err != nil {
		return rows, fmt.Errorf("store: count questions: %w", err)
	}
	index := make(map[int64]int, len(rows.Topics))
	for i, t := range rows.Topics {
		index[t.ID] = i
	}
	for _, pt := range perTopic {
		if i, ok := index[pt.TopicID]; ok {
			rows.Topics[i].Questions = pt.N
		}
	}
	// Cards in question order, so that every server sums a topic's recall
	// in the same order and reports the same score.
	if err := db.NewSelect().Model(&rows.Cards).
		Column("topic_id", "due", "stability", "state", "last_review").
		Where("user_id = ?", userID).Where("study_id IN (?)", bun.In(studyIDs)).
		Where("question_id NOT IN (SELECT id FROM questions WHERE study_id IN (?) AND suspended)", bun.In(studyIDs)).
		Order("question_id").Scan(ctx); err != nil {
		return rows, fmt.Errorf("store: cards: %w", err)
	}
	if err := db.NewSelect().Model(&rows.Progress).
		Where("user_id = ?", userID).Where("study_id IN (?)", bun.In(studyIDs)).Scan(ctx); err != nil {
		return rows, fmt.Errorf("store: topic progress: %w", err)
	}
	return rows, nil
}

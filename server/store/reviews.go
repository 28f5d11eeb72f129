package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/mastery"
	"github.com/studyloop/studyloop/server/studyloop"
)

// scheduler is the FSRS-6 scheduler with its defaults; it holds no state.
var scheduler = fsrs.Default()

// cardModel is a row of cards: the FSRS state of one answered question.
type cardModel struct {
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

func (m *cardModel) card() fsrs.Card {
	return fsrs.Card{
		Due: m.Due.UTC(), Stability: m.Stability, Difficulty: m.Difficulty,
		Reps: m.Reps, Lapses: m.Lapses, State: fsrs.State(m.State), Step: m.Step,
		LastReview: m.LastReview.UTC(),
	}
}

func (m *cardModel) set(c fsrs.Card) {
	m.Due, m.Stability, m.Difficulty = c.Due, c.Stability, c.Difficulty
	m.Reps, m.Lapses, m.State, m.Step = c.Reps, c.Lapses, int(c.State), c.Step
	m.LastReview = c.LastReview
}

// reviewLogModel is a row of review_logs: one answer.
type reviewLogModel struct {
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

// topicProgressModel is a row of topic_progress: a user's answer count and
// streaks in one topic, updated with every answer.
type topicProgressModel struct {
	bun.BaseModel `bun:"table:topic_progress"`
	TopicID       int64  `bun:"topic_id,pk"`
	UserID        int64  `bun:"user_id"`
	StudyID       string `bun:"study_id"`
	Attempts      int    `bun:"attempts"`
	CurrentStreak int    `bun:"current_streak"`
	BestStreak    int    `bun:"best_streak"`
}

// RecordAnswer schedules the user's answer to a question, rated r at now:
// in one transaction it updates the question's card, appends the answer to
// the review log, counts it in the topic's attempts and streaks and moves
// the study's progress version, and it returns the new card. Concurrent
// answers to the same question, or to questions of the same topic, are
// applied one after the other. A question that is not the user's is
// ENOTFOUND; an invalid rating is EINVALID.
func (db *DB) RecordAnswer(ctx context.Context, userID, questionID int64, r fsrs.Rating, now time.Time) (fsrs.Card, error) {
	if !r.Valid() {
		return fsrs.Card{}, studyloop.Errorf(studyloop.EINVALID, "Rating must be again, hard, good or easy.")
	}
	now = storedTime(now)
	var result fsrs.Card
	var studyID string
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		row := cardModel{QuestionID: questionID, UserID: userID, Due: now, LastReview: now}
		err := tx.NewSelect().
			TableExpr("questions AS q").
			Join("JOIN studies AS s ON s.id = q.study_id").
			ColumnExpr("q.study_id, q.topic_id").
			Where("q.id = ?", questionID).
			Where("s.user_id = ?", userID).
			Scan(ctx, &row.StudyID, &row.TopicID)
		if errors.Is(err, sql.ErrNoRows) {
			return studyloop.Errorf(studyloop.ENOTFOUND, "Question not found.")
		}
		if err != nil {
			return fmt.Errorf("store: find question: %w", err)
		}
		// A new question gets its card row first, so that the row lock
		// below serialises even the first two answers to it.
		if _, err := tx.NewInsert().Model(&row).On("CONFLICT (question_id) DO NOTHING").Exec(ctx); err != nil {
			return fmt.Errorf("store: create card: %w", err)
		}
		q := tx.NewSelect().Model(&row).WherePK()
		if db.IsPostgres() {
			q = q.For("UPDATE") // SQLite transactions already hold the write lock
		}
		if err := q.Scan(ctx); err != nil {
			return fmt.Errorf("store: read card: %w", err)
		}
		before := row.card()
		if before.Reps == 0 {
			before = fsrs.Card{} // the placeholder inserted above
		}
		next, log, err := scheduler.Next(before, r, now)
		if err != nil {
			return studyloop.Errorf(studyloop.EINVALID, "Rating must be again, hard, good or easy.")
		}
		next.Due = storedTime(next.Due)
		row.set(next)
		if _, err := tx.NewUpdate().Model(&row).WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("store: update card: %w", err)
		}
		// The topic's lock is taken before the log is appended, so that log
		// order and streak order agree.
		if err := db.countAnswer(ctx, tx, topicProgressModel{TopicID: row.TopicID, UserID: userID, StudyID: row.StudyID}, r); err != nil {
			return err
		}
		entry := reviewLogModel{
			UserID: userID, StudyID: row.StudyID, TopicID: row.TopicID, QuestionID: questionID,
			Rating: int(r), State: int(log.State), ReviewedAt: now,
			ElapsedDays: log.ElapsedDays, ScheduledDays: log.ScheduledDays,
			Stability: next.Stability, Difficulty: next.Difficulty,
		}
		if _, err := tx.NewInsert().Model(&entry).Exec(ctx); err != nil {
			return fmt.Errorf("store: append review log: %w", err)
		}
		// Last, to hold the study's row lock briefly: servers caching this
		// study's mastery inputs see them change.
		if _, err := tx.NewUpdate().Table("studies").Set("progress_version = progress_version + 1").
			Where("id = ?", row.StudyID).Exec(ctx); err != nil {
			return fmt.Errorf("store: move progress version: %w", err)
		}
		result, studyID = next, row.StudyID
		return nil
	})
	if err == nil {
		db.mastery.forget(studyID)
	}
	return result, err
}

// countAnswer adds an answer rated r to the topic's attempts and streaks,
// holding the topic's row lock so that concurrent answers in one topic
// count in order.
func (db *DB) countAnswer(ctx context.Context, tx bun.Tx, p topicProgressModel, r fsrs.Rating) error {
	if _, err := tx.NewInsert().Model(&p).On("CONFLICT (topic_id) DO NOTHING").Exec(ctx); err != nil {
		return fmt.Errorf("store: create topic progress: %w", err)
	}
	q := tx.NewSelect().Model(&p).WherePK()
	if db.IsPostgres() {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return fmt.Errorf("store: read topic progress: %w", err)
	}
	streak := mastery.Streak{Current: p.CurrentStreak, Best: p.BestStreak}
	streak.Add(r)
	p.Attempts++
	p.CurrentStreak, p.BestStreak = streak.Current, streak.Best
	if _, err := tx.NewUpdate().Model(&p).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("store: update topic progress: %w", err)
	}
	return nil
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

// masteryHead is the studies row mastery needs: what it reports of the
// study, and the progress version its inputs are cached under.
type masteryHead struct {
	bun.BaseModel   `bun:"table:studies"`
	ID              string `bun:"id,pk"`
	Title           string `bun:"title"`
	Status          string `bun:"status"`
	ProgressVersion int64  `bun:"progress_version"`
}

// StudyMastery returns the user's mastery of one study as of now truncated
// to the minute, topic by topic in study order. A study that is not the
// user's is ENOTFOUND.
//
// One query checks the owner and reads the study's progress version; the
// inputs (topics, cards, progress) come from the cache when it holds them
// at that version, and are read otherwise. A ready study whose cached
// version the database confirmed less than a second ago (masteryFreshness)
// is served from the cache without the query: an answer recorded through
// db shows at once, one recorded through another server within that
// second. The figures are computed once per minute and version: every call
// in the same minute for an unchanged study gets the same figures, those
// of the minute's start. The result is the caller's own copy.
func (db *DB) StudyMastery(ctx context.Context, userID int64, studyID string, now time.Time) (studyloop.StudyMastery, error) {
	at := db.mastery.instant(now)
	if in := db.mastery.fresh(userID, studyID); in != nil {
		return in.memoAt(at).studyMastery(studyID), nil
	}
	check := db.mastery.startCheck()
	var head masteryHead
	err := db.NewSelect().Model(&head).Where("id = ?", studyID).Where("user_id = ?", userID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return studyloop.StudyMastery{}, studyNotFound(studyID)
	}
	if err != nil {
		return studyloop.StudyMastery{}, fmt.Errorf("store: get study: %w", err)
	}
	inputs, err := db.masteryInputs(ctx, userID, []masteryHead{head}, check)
	if err != nil {
		return studyloop.StudyMastery{}, err
	}
	sm := inputs[head.ID].memoAt(at).studyMastery(head.ID)
	sm.Title, sm.Status = head.Title, studyloop.StudyStatus(head.Status)
	return sm, nil
}

// MasterySummary returns the user's mastery across every ready study as of
// now truncated to the minute, newest study first, with the overall score
// weighted by question count. Each study's figures are those StudyMastery
// reports for it, from the same per-minute memo.
func (db *DB) MasterySummary(ctx context.Context, userID int64, now time.Time) (studyloop.MasterySummary, error) {
	at := db.mastery.instant(now)
	check := db.mastery.startCheck()
	var heads []masteryHead
	if err := db.NewSelect().Model(&heads).
		Where("user_id = ?", userID).Where("status = ?", string(studyloop.StatusReady)).
		OrderExpr("created_at DESC, id DESC").Scan(ctx); err != nil {
		return studyloop.MasterySummary{}, fmt.Errorf("store: ready studies: %w", err)
	}
	inputs, err := db.masteryInputs(ctx, userID, heads, check)
	if err != nil {
		return studyloop.MasterySummary{}, err
	}
	sum := studyloop.MasterySummary{Studies: make([]studyloop.StudyMastery, len(heads))}
	parts := make([]studyloop.MasteryFigures, len(heads))
	for i, h := range heads {
		parts[i] = inputs[h.ID].memoAt(at).figures()
		sum.Studies[i] = studyloop.StudyMastery{
			StudyID: h.ID, Title: h.Title, Status: studyloop.StudyStatus(h.Status), MasteryFigures: parts[i],
			AsOf: at, Revision: inputs[h.ID].version,
		}
	}
	sum.MasteryFigures = mastery.Combine(parts...)
	return sum, nil
}

// masteryInputs returns the user's mastery inputs of each study, by id:
// from the cache when it holds them at the version in the head, else read
// from the database. The heads must be the user's studies, just read as
// of check.
func (db *DB) masteryInputs(ctx context.Context, userID int64, heads []masteryHead, check versionCheck) (map[string]*masteryInputs, error) {
	inputs := make(map[string]*masteryInputs, len(heads))
	var missing []string
	for _, h := range heads {
		if in := db.mastery.get(userID, h.ID, h.ProgressVersion, check); in != nil {
			inputs[h.ID] = in
		} else {
			missing = append(missing, h.ID)
		}
	}
	if len(missing) == 0 {
		return inputs, nil
	}
	loaded, err := db.loadMasteryInputs(ctx, userID, missing)
	if err != nil {
		return nil, err
	}
	// The inputs were read in several statements. They are one consistent
	// state, and may be cached under the version read before them, only if
	// that version has not moved since: every change to them moves it in
	// the same transaction.
	var after []masteryHead
	if err := db.NewSelect().Model(&after).Column("id", "progress_version").
		Where("id IN (?)", bun.In(missing)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: progress versions: %w", err)
	}
	versionAfter := make(map[string]int64, len(after))
	for _, a := range after {
		versionAfter[a.ID] = a.ProgressVersion
	}
	for _, h := range heads {
		in := loaded[h.ID]
		if in == nil {
			continue // from the cache
		}
		in.version, in.title, in.status = h.ProgressVersion, h.Title, studyloop.StudyStatus(h.Status)
		inputs[h.ID] = in
		if v, ok := versionAfter[h.ID]; ok && v == h.ProgressVersion {
			db.mastery.put(h.ID, in, check)
		}
	}
	return inputs, nil
}

// loadMasteryInputs reads the user's mastery inputs of the given studies
// from the database, version unset.
func (db *DB) loadMasteryInputs(ctx context.Context, userID int64, studyIDs []string) (map[string]*masteryInputs, error) {
	var topics []struct {
		ID       int64  `bun:"id"`
		StudyID  string `bun:"study_id"`
		ParentID *int64 `bun:"parent_id"`
		Title    string `bun:"title"`
	}
	if err := db.NewSelect().TableExpr("topics").ColumnExpr("id, study_id, parent_id, title").
		Where("study_id IN (?)", bun.In(studyIDs)).OrderExpr("study_id, position").Scan(ctx, &topics); err != nil {
		return nil, fmt.Errorf("store: topics: %w", err)
	}
	var perTopic []struct {
		TopicID int64 `bun:"topic_id"`
		N       int   `bun:"n"`
	}
	if err := db.NewSelect().TableExpr("questions").ColumnExpr("topic_id, count(*) AS n").
		Where("study_id IN (?)", bun.In(studyIDs)).Where("NOT suspended").GroupExpr("topic_id").Scan(ctx, &perTopic); err != nil {
		return nil, fmt.Errorf("store: count questions: %w", err)
	}
	// Cards in question order, so that every server sums a topic's recall
	// in the same order and reports the same score.
	var cards []cardModel
	if err := db.NewSelect().Model(&cards).
		Column("topic_id", "due", "stability", "state", "last_review").
		Where("user_id = ?", userID).Where("study_id IN (?)", bun.In(studyIDs)).
		Where("question_id NOT IN (SELECT id FROM questions WHERE study_id IN (?) AND suspended)", bun.In(studyIDs)).
		Order("question_id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: cards: %w", err)
	}
	var progress []topicProgressModel
	if err := db.NewSelect().Model(&progress).
		Where("user_id = ?", userID).Where("study_id IN (?)", bun.In(studyIDs)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: topic progress: %w", err)
	}

	loaded := make(map[string]*masteryInputs, len(studyIDs))
	for _, id := range studyIDs {
		loaded[id] = &masteryInputs{userID: userID}
	}
	for _, t := range topics {
		in := loaded[t.StudyID]
		in.topics = append(in.topics, topicInputs{id: t.ID, parentID: t.ParentID, title: t.Title})
	}
	byTopic := make(map[int64]*topicInputs, len(topics))
	for _, in := range loaded {
		for i := range in.topics {
			byTopic[in.topics[i].id] = &in.topics[i]
		}
	}
	for _, pt := range perTopic {
		if t := byTopic[pt.TopicID]; t != nil {
			t.unanswered = pt.N
		}
	}
	for i := range cards {
		if t := byTopic[cards[i].TopicID]; t != nil {
			t.cards = append(t.cards, cards[i].card())
			t.unanswered--
		}
	}
	for _, p := range progress {
		if t := byTopic[p.TopicID]; t != nil {
			t.attempts = p.Attempts
			t.streak = mastery.Streak{Current: p.CurrentStreak, Best: p.BestStreak}
		}
	}
	for _, t := range byTopic {
		t.unanswered = max(t.unanswered, 0)
		t.cards = slices.Clip(t.cards)
	}
	return loaded, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/studyloop/studyloop/server/studyloop"
)

// PracticeScope selects what a practice session asks: one study of the
// student (StudyID), or every ready study when StudyID is "". TopicID,
// with a study, narrows it to that topic and its subtopics.
type PracticeScope struct {
	StudyID string
	TopicID int64
}

// practiceStudy is a ready study in a scope with its room for new
// questions today.
type practiceStudy struct {
	ID        string `bun:"id"`
	NewPerDay int    `bun:"new_per_day"`
	newRoom   int
}

// practiceSet is what a scope covers at an instant: its ready studies, the
// topics it is narrowed to (nil for all) and the studies that may still
// start new questions.
type practiceSet struct {
	studies []practiceStudy
	topics  []int64
	roomy   []string
}

// practiceSet reads the scope's studies at now. A study or topic that is
// not the user's is ENOTFOUND.
func (db *DB) practiceSet(ctx context.Context, userID int64, scope PracticeScope, now time.Time) (practiceSet, error) {
	var set practiceSet
	q := db.NewSelect().Table("studies").Column("id", "new_per_day").
		Where("user_id = ?", userID).Where("status = ?", string(studyloop.StatusReady)).
		OrderExpr("created_at, id")
	if scope.StudyID != "" {
		if err := db.checkStudyOwner(ctx, userID, scope.StudyID); err != nil {
			return set, err
		}
		q = q.Where("id = ?", scope.StudyID)
	}
	if err := q.Scan(ctx, &set.studies); err != nil {
		return set, fmt.Errorf("store: practice studies: %w", err)
	}
	if scope.TopicID != 0 {
		topics, err := db.Topics(ctx, userID, scope.StudyID)
		if err != nil {
			return set, err
		}
		set.topics = TopicAndSubtopics(topics, scope.TopicID)
		if set.topics == nil {
			return set, studyloop.Errorf(studyloop.ENOTFOUND, "No such topic in this study.")
		}
	}
	if len(set.studies) == 0 {
		return set, nil
	}
	var started []struct {
		StudyID string `bun:"study_id"`
		N       int    `bun:"n"`
	}
	if err := db.NewSelect().Model((*ReviewLog)(nil)).ColumnExpr("study_id, count(*) AS n").
		Where("user_id = ?", userID).Where("study_id IN (?)", bun.In(set.studyIDs())).
		Where("state = ?", firstAnswerState).Where("reviewed_at > ?", now.Add(-24*time.Hour)).
		GroupExpr("study_id").Scan(ctx, &started); err != nil {
		return set, fmt.Errorf("store: count new questions: %w", err)
	}
	startedBy := make(map[string]int, len(started))
	for _, s := range started {
		startedBy[s.StudyID] = s.N
	}
	for i := range set.studies {
		s := &set.studies[i]
		if s.newRoom = max(s.NewPerDay-startedBy[s.ID], 0); s.newRoom > 0 {
			set.roomy = append(set.roomy, s.ID)
		}
	}
	return set, nil
}

func (set practiceSet) studyIDs() []string {
	ids := make([]string, len(set.studies))
	for i, s := range set.studies {
		ids[i] = s.ID
	}
	return ids
}

// TopicAndSubtopics returns the id of the topic and of every topic below
// it, or nil when the topic is not among topics (in stored order, parents
// first).
func TopicAndSubtopics(topics []studyloop.Topic, topicID int64) []int64 {
	var ids []int64
	in := make([]bool, len(topics))
	for i, t := range topics {
		if t.ID == topicID || (t.Parent >= 0 && in[t.Parent]) {
			in[i] = true
			ids = append(ids, t.ID)
		}
	}
	return ids
}

// dueQuery selects the scope's unsuspended answered questions due at now.
func (set practiceSet) dueQuery(q *bun.SelectQuery, userID int64, now time.Time) *bun.SelectQuery {
	q = q.TableExpr("cards AS c").
		Join("JOIN questions AS q ON q.id = c.question_id").
		Where("c.user_id = ?", userID).
		Where("c.study_id IN (?)", bun.In(set.studyIDs())).
		Where("c.due <= ?", now).
		Where("NOT q.suspended")
	if set.topics != nil {
		q = q.Where("q.topic_id IN (?)", bun.In(set.topics))
	}
	return q
}

// newQuery selects the never-answered unsuspended questions of the scope's
// studies that may start new ones today.
func (set practiceSet) newQuery(q *bun.SelectQuery) *bun.SelectQuery {
	q = q.TableExpr("questions AS q").
		Where("q.study_id IN (?)", bun.In(set.roomy)).
		Where("NOT q.suspended").
		Where("NOT EXISTS (SELECT 1 FROM cards AS c WHERE c.question_id = q.id)")
	if set.topics != nil {
		q = q.Where("q.topic_id IN (?)", bun.In(set.topics))
	}
	return q
}

// NextQuestion returns the question the user should practise next in the
// scope at now: the most overdue review first; then the first question
// never answered, in study order (oldest study first), of a study that
// started fewer than its daily limit of new questions in the last 24
// hours. Suspended questions and studies that are not ready are never
// asked. found is false when nothing is due. A study or topic that is not
// the user's is ENOTFOUND.
func (db *DB) NextQuestion(ctx context.Context, userID int64, scope PracticeScope, now time.Time) (q studyloop.Question, found bool, err error) {
	now = StoredTime(now)
	set, err := db.practiceSet(ctx, userID, scope, now)
	if err != nil || len(set.studies) == 0 {
		return q, false, err
	}
	var rows []questionRow
	err = set.dueQuery(db.NewSelect(), userID, now).ColumnExpr(practiceColumns).
		OrderExpr("c.due, c.question_id").Limit(1).Scan(ctx, &rows)
	if err != nil {
		return q, false, fmt.Errorf("store: due question: %w", err)
	}
	if len(rows) == 0 && len(set.roomy) > 0 {
		err = set.newQuery(db.NewSelect()).ColumnExpr(practiceColumns).
			Join("JOIN studies AS s ON s.id = q.study_id").
			OrderExpr("s.created_at, s.id, q.position").Limit(1).Scan(ctx, &rows)
		if err != nil {
			return q, false, fmt.Errorf("store: new question: %w", err)
		}
	}
	if len(rows) == 0 {
		return q, false, nil
	}
	q, err = rows[0].practice()
	return q, err == nil, err
}

// PracticeCounts returns what the scope can ask at now, in all and by
// study: due reviews and the new questions each study may still start
// today (NextQuestion asks exactly these). A study or topic that is not
// the user's is ENOTFOUND.
func (db *DB) PracticeCounts(ctx context.Context, userID int64, scope PracticeScope, now time.Time) (studyloop.PracticeCounts, map[string]studyloop.PracticeCounts, error) {
	now = StoredTime(now)
	var total studyloop.PracticeCounts
	set, err := db.practiceSet(ctx, userID, scope, now)
	if err != nil || len(set.studies) == 0 {
		return total, nil, err
	}
	type perStudy struct {
		StudyID string `bun:"study_id"`
		N       int    `bun:"n"`
	}
	var due, fresh []perStudy
	if err := set.dueQuery(db.NewSelect(), userID, now).ColumnExpr("c.study_id, count(*) AS n").
		GroupExpr("c.study_id").Scan(ctx, &due); err != nil {
		return total, nil, fmt.Errorf("store: count due questions: %w", err)
	}
	if len(set.roomy) > 0 {
		if err := set.newQuery(db.NewSelect()).ColumnExpr("q.study_id, count(*) AS n").
			GroupExpr("q.study_id").Scan(ctx, &fresh); err != nil {
			return total, nil, fmt.Errorf("store: count new questions: %w", err)
		}
	}
	by := make(map[string]studyloop.PracticeCounts, len(set.studies))
	for _, s := range set.studies {
		by[s.ID] = studyloop.PracticeCounts{NewPerDay: s.NewPerDay}
	}
	for _, d := range due {
		c := by[d.StudyID]
		c.DueNow = d.N
		by[d.StudyID] = c
	}
	for _, s := range set.studies {
		for _, f := range fresh {
			if f.StudyID == s.ID {
				c := by[s.ID]
				c.NewToday = min(f.N, s.newRoom)
				by[s.ID] = c
			}
		}
	}
	for _, c := range by {
		total.DueNow += c.DueNow
		total.NewToday += c.NewToday
	}
	if scope.StudyID != "" {
		total.NewPerDay = set.studies[0].NewPerDay
	}
	return total, by, nil
}

// maxSourceBytes bounds the passage QuestionSource returns.
const maxSourceBytes = 1200

// QuestionSource returns the passage of the study's text a question of the
// user was made from (at most maxSourceBytes, cut at a character
// boundary), or "" when the question has no span. A question that is not
// the user's is ENOTFOUND.
func (db *DB) QuestionSource(ctx context.Context, userID, questionID int64) (string, error) {
	slice := `substr(CAST(s.text AS BLOB), q.span_start + 1, min(q.span_end - q.span_start, ?))`
	if db.IsPostgres() {
		slice = `substring(convert_to(s.text, 'UTF8') from (q.span_start + 1)::int for LEAST(q.span_end - q.span_start, ?)::int)`
	}
	var passage []byte
	err := db.NewSelect().
		TableExpr("questions AS q").
		Join("JOIN studies AS s ON s.id = q.study_id").
		ColumnExpr(slice, maxSourceBytes).
		Where("q.id = ?", questionID).Where("s.user_id = ?", userID).
		Scan(ctx, &passage)
	if errors.Is(err, sql.ErrNoRows) {
		return "", studyloop.Errorf(studyloop.ENOTFOUND, "Question not found.")
	}
	if err != nil {
		return "", fmt.Errorf("store: question source: %w", err)
	}
	// The byte limit may cut the last character; a span that starts
	// inside one loses its tail bytes.
	for len(passage) > 0 && !utf8.RuneStart(passage[0]) {
		passage = passage[1:]
	}
	for len(passage) > 0 && !utf8.Valid(passage) {
		passage = passage[:len(passage)-1]
	}
	return strings.TrimSpace(string(passage)), nil
}

package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/study"
	"github.com/studyloop/studyloop/server/studyloop"
)

// ReviewStart is an arbitrary fixed instant for tests of scheduling: the
// methods under test never read the clock for it.
var ReviewStart = time.Date(2026, 4, 6, 8, 30, 0, 0, time.UTC)

// Student stores a user with the email address and returns its id.
func Student(tb testing.TB, db *store.DB, email string) int64 {
	tb.Helper()
	u := &studyloop.User{Email: email, PasswordHash: "x"}
	if err := db.CreateUser(context.Background(), u); err != nil {
		tb.Fatalf("create user: %v", err)
	}
	return u.ID
}

// CompleteStudy stores a ready study of the user with the text and the
// extraction, through the same calls the worker makes, and returns it with
// its questions in study order.
func CompleteStudy(tb testing.TB, db *store.DB, userID int64, title, text string, ex studyloop.Extraction) (studyloop.Study, []studyloop.Question) {
	tb.Helper()
	ctx := context.Background()
	st := PendingStudy(tb, db, userID, title, text)
	claim, ok, err := db.ClaimStudy(ctx, "test", time.Minute, store.AnyLane)
	if err != nil || !ok || claim.Study.ID != st.ID {
		tb.Fatalf("claim study: ok=%v err=%v", ok, err)
	}
	if err := db.CompleteStudy(ctx, st.ID, "test", ex); err != nil {
		tb.Fatalf("complete study: %v", err)
	}
	qs, err := db.Questions(ctx, userID, st.ID)
	if err != nil {
		tb.Fatalf("questions: %v", err)
	}
	st.Status = studyloop.StatusReady
	return st, qs
}

// ReadyStudy stores a ready study of the user with the given number of
// topics and multiple-choice questions per topic, and returns it with its
// questions in study order.
func ReadyStudy(tb testing.TB, db *store.DB, userID int64, title string, topics, perTopic int) (studyloop.Study, []studyloop.Question) {
	tb.Helper()
	var ex studyloop.Extraction
	for i := range topics {
		ex.Topics = append(ex.Topics, studyloop.Topic{Parent: -1, Title: fmt.Sprintf("%s topic %d", title, i)})
		for j := range perTopic {
			ex.Questions = append(ex.Questions, studyloop.Question{
				Topic: i, Type: studyloop.QuestionMultipleChoice,
				Prompt: fmt.Sprintf("Question %d.%d?", i, j), Answer: "yes",
				Choices: []string{"no", "yes", "maybe", "never"},
			})
		}
	}
	return CompleteStudy(tb, db, userID, title, "Some study text about "+title+".", ex)
}

// NestedStudy stores a ready study of the user with three topics (the
// second a subtopic of the first) of four questions each, and returns it
// with its questions in study order.
func NestedStudy(tb testing.TB, db *store.DB, userID int64, title string) (studyloop.Study, []studyloop.Question) {
	tb.Helper()
	ex := studyloop.Extraction{Topics: []studyloop.Topic{
		{Parent: -1, Title: "Lenses"}, {Parent: 0, Title: "Focal length"}, {Parent: -1, Title: "Mirrors"},
	}}
	for i := range 12 {
		ex.Questions = append(ex.Questions, studyloop.Question{
			Topic: i / 4, Type: studyloop.QuestionShortAnswer, Prompt: "What bends light?", Answer: "A lens.",
		})
	}
	return CompleteStudy(tb, db, userID, title, "Lenses bend light; mirrors reflect it.", ex)
}

// services holds the study service of each database Service was asked for.
var services sync.Map

// Service returns the study service over db: one per database, as the
// server has it, so that its mastery cache sees every answer Answer
// records.
func Service(db *store.DB) *study.Service {
	if s, ok := services.Load(db); ok {
		return s.(*study.Service)
	}
	s, _ := services.LoadOrStore(db, study.New(db))
	return s.(*study.Service)
}

// Answer records the user's answer to a question, rated r at the time at,
// through the database's study service (see Service), and returns the
// question's new card.
func Answer(tb testing.TB, db *store.DB, userID, questionID int64, r fsrs.Rating, at time.Time) fsrs.Card {
	tb.Helper()
	c, err := Service(db).RecordAnswer(context.Background(), userID, questionID, r, at)
	if err != nil {
		tb.Fatalf("answer question %d: %v", questionID, err)
	}
	return c
}

// Mastery returns the user's mastery of the study at now, as the
// database's study service reports it (see Service).
func Mastery(tb testing.TB, db *store.DB, userID int64, studyID string, now time.Time) studyloop.StudyMastery {
	tb.Helper()
	m, err := Service(db).StudyMastery(context.Background(), userID, studyID, now)
	if err != nil {
		tb.Fatalf("mastery of study %s: %v", studyID, err)
	}
	return m
}

// PendingStudy stores a study of the user from pasted text, waiting for a
// worker, and returns it.
func PendingStudy(tb testing.TB, db *store.DB, userID int64, title, text string) studyloop.Study {
	tb.Helper()
	st, err := db.CreateStudy(context.Background(), userID, title, text)
	if err != nil {
		tb.Fatalf("CreateStudy: %v", err)
	}
	return st
}

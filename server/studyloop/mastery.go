package studyloop

import "time"

// MasteryHorizon is how far ahead mastery looks: a question's contribution
// to a score is its probability of recall this long from now, so that a
// question answered a minute ago does not count as fully known.
const MasteryHorizon = 7 * 24 * time.Hour

// MasteryFigures are the figures shared by a topic, a study and the overall
// summary.
type MasteryFigures struct {
	// Score is the mean, over all questions, of the probability of recall
	// MasteryHorizon from now; a question never answered counts 0. 0..1.
	Score float64 `json:"score"`
	// Questions is how many questions the score is taken over.
	Questions int `json:"questions"`
	// Attempts is how many answers were given.
	Attempts int `json:"attempts"`
	// NextReview is the earliest due time among answered questions, nil
	// when none has been answered.
	NextReview *time.Time `json:"next_review"`
	// DueNow counts answered questions whose review is due.
	DueNow int `json:"due_now"`
	// New, Learning and Review count questions by state: never answered, in
	// (re)learning steps, and on day-scale intervals.
	New      int `json:"new"`
	Learning int `json:"learning"`
	Review   int `json:"review"`
}

// TopicMastery is how well a student knows one topic of a study. Its
// figures (score, attempts, questions, next review, due and state counts)
// cover the questions of the topic and of all its subtopics, so a heading
// whose content is only subtopics reports theirs; a study's figures still
// count each question once. Its streaks count only answers to the topic's
// own questions.
type TopicMastery struct {
	TopicID  int64  `json:"topic_id"`
	ParentID *int64 `json:"parent_id,omitempty"` // nil for a top-level topic
	Title    string `json:"title"`
	MasteryFigures
	// CurrentStreak counts the latest consecutive answers rated Hard or
	// better to this topic's own questions (not its subtopics');
	// BestStreak is the longest such run.
	CurrentStreak int `json:"current_streak"`
	BestStreak    int `json:"best_streak"`
}

// StudyMastery is how well a student knows one study. Its score is the
// mean over all the study's questions (topics weighted by question count).
type StudyMastery struct {
	StudyID string      `json:"study_id"`
	Title   string      `json:"title"`
	Status  StudyStatus `json:"status"`
	MasteryFigures
	Topics []TopicMastery `json:"topics,omitempty"` // in study order; empty in a summary
	// AsOf is the instant the figures are for: the start of the minute
	// they were asked for in.
	AsOf time.Time `json:"as_of"`
	// Revision names the state of the student's answers the figures come
	// from; it changes with every answer. Figures of one study with the
	// same AsOf and Revision are the same.
	Revision int64 `json:"revision"`
}

// MasterySummary is a student's mastery across every ready study. Its score
// is weighted by question count.
type MasterySummary struct {
	MasteryFigures
	Studies []StudyMastery `json:"studies"` // newest first
}

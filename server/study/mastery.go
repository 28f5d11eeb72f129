package study

import (
	"context"
	"slices"
	"time"

	"github.com/studyloop/studyloop/server/mastery"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
)

// StudyMastery returns the user's mastery of one study as of now truncated
// to the minute, topic by topic in study order. A study that is not the
// user's is ENOTFOUND.
//
// One query checks the owner and reads the study's progress version; the
// inputs (topics, cards, progress) come from the cache when it holds them
// at that version, and are read otherwise. A ready study whose cached
// version the database confirmed less than a second ago (masteryFreshness)
// is served from the cache without the query: a change made through the
// service's database shows at once, one made through another server within
// that second. The figures are computed once per minute and version: every
// call in the same minute for an unchanged study gets the same figures,
// those of the minute's start. The result is the caller's own copy.
func (s *Service) StudyMastery(ctx context.Context, userID int64, studyID string, now time.Time) (studyloop.StudyMastery, error) {
	in, head, err := s.studyInputs(ctx, userID, studyID)
	if err != nil {
		return studyloop.StudyMastery{}, err
	}
	return in.memoAt(s.mastery.instant(now)).studyMasteryAs(studyID, head), nil
}

// studyInputs returns the user's mastery inputs of the study, and the
// study's head when it was read: its title and status are the current
// ones, which may differ from the inputs' while the study is not ready
// (its status moves without its version).
func (s *Service) studyInputs(ctx context.Context, userID int64, studyID string) (*masteryInputs, *store.ProgressHead, error) {
	if in := s.mastery.fresh(userID, studyID); in != nil {
		return in, nil, nil
	}
	check := s.mastery.startCheck()
	head, err := s.db.StudyProgressHead(ctx, userID, studyID)
	if err != nil {
		return nil, nil, err
	}
	inputs, err := s.masteryInputs(ctx, userID, []store.ProgressHead{head}, check)
	if err != nil {
		return nil, nil, err
	}
	return inputs[head.ID], &head, nil
}

// A Rendering is a surface's form of a study's mastery: the encoded
// result of MCP's get_mastery, say. RenderStudyMastery makes it once per
// study, version and minute, and keeps it in the mastery cache with the
// figures it is made from, its size counted in the cache's bound.
type Rendering struct {
	render func(studyloop.StudyMastery) ([]byte, error)
}

// NewRendering returns the rendering made by render. render gets the
// caller's own copy of the mastery; an error it returns is passed on, and
// nothing is kept. The bytes it returns are shared: nobody may change them.
func NewRendering(render func(studyloop.StudyMastery) ([]byte, error)) *Rendering {
	return &Rendering{render: render}
}

// RenderStudyMastery returns the rendering of the user's mastery of one
// study, as StudyMastery reports it, made from those figures when first
// asked for. A study that is not the user's is ENOTFOUND.
func (s *Service) RenderStudyMastery(ctx context.Context, userID int64, studyID string, now time.Time, r *Rendering) ([]byte, error) {
	in, head, err := s.studyInputs(ctx, userID, studyID)
	if err != nil {
		return nil, err
	}
	m := in.memoAt(s.mastery.instant(now))
	if !m.current(head) {
		return r.render(m.studyMasteryAs(studyID, head))
	}
	if b, ok := m.renderings.Load(r); ok {
		return b.([]byte), nil
	}
	b, err := r.render(m.studyMastery(studyID))
	if err != nil {
		return nil, err
	}
	kept, loaded := m.renderings.LoadOrStore(r, b)
	if !loaded {
		s.mastery.charge(studyID, in, m, len(b))
	}
	return kept.([]byte), nil
}

// MasterySummary returns the user's mastery across every ready study as of
// now truncated to the minute, newest study first, with the overall score
// weighted by question count. Each study's figures are those StudyMastery
// reports for it, from the same per-minute memo.
func (s *Service) MasterySummary(ctx context.Context, userID int64, now time.Time) (studyloop.MasterySummary, error) {
	at := s.mastery.instant(now)
	check := s.mastery.startCheck()
	heads, err := s.db.ReadyProgressHeads(ctx, userID)
	if err != nil {
		return studyloop.MasterySummary{}, err
	}
	inputs, err := s.masteryInputs(ctx, userID, heads, check)
	if err != nil {
		return studyloop.MasterySummary{}, err
	}
	sum := studyloop.MasterySummary{Studies: make([]studyloop.StudyMastery, len(heads))}
	parts := make([]studyloop.MasteryFigures, len(heads))
	for i, h := range heads {
		parts[i] = inputs[h.ID].memoAt(at).figures()
		sum.Studies[i] = studyloop.StudyMastery{
			StudyID: h.ID, Title: h.Title, Status: h.Status, MasteryFigures: parts[i],
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
func (s *Service) masteryInputs(ctx context.Context, userID int64, heads []store.ProgressHead, check versionCheck) (map[string]*masteryInputs, error) {
	inputs := make(map[string]*masteryInputs, len(heads))
	var missing []string
	for _, h := range heads {
		if in := s.mastery.get(userID, h.ID, h.ProgressVersion, check); in != nil {
			inputs[h.ID] = in
		} else {
			missing = append(missing, h.ID)
		}
	}
	if len(missing) == 0 {
		return inputs, nil
	}
	rows, err := s.db.ProgressRows(ctx, userID, missing)
	if err != nil {
		return nil, err
	}
	// The inputs were read in several statements. They are one consistent
	// state, and may be cached under the version read before them, only if
	// that version has not moved since: every change to them moves it in
	// the same transaction.
	versionAfter, err := s.db.ProgressVersions(ctx, missing)
	if err != nil {
		return nil, err
	}
	loaded := newMasteryInputs(userID, missing, rows)
	for _, h := range heads {
		in := loaded[h.ID]
		if in == nil {
			continue // from the cache
		}
		in.version, in.title, in.status = h.ProgressVersion, h.Title, h.Status
		inputs[h.ID] = in
		if v, ok := versionAfter[h.ID]; ok && v == h.ProgressVersion {
			s.mastery.put(h.ID, in, check)
		}
	}
	return inputs, nil
}

// newMasteryInputs returns the user's mastery inputs of the given studies,
// by id, made from the rows read of them, version unset.
func newMasteryInputs(userID int64, studyIDs []string, rows store.ProgressRows) map[string]*masteryInputs {
	loaded := make(map[string]*masteryInputs, len(studyIDs))
	for _, id := range studyIDs {
		loaded[id] = &masteryInputs{userID: userID}
	}
	for _, t := range rows.Topics {
		in := loaded[t.StudyID]
		in.topics = append(in.topics, topicInputs{id: t.ID, parentID: t.ParentID, title: t.Title, unanswered: t.Questions})
	}
	byTopic := make(map[int64]*topicInputs, len(rows.Topics))
	for _, in := range loaded {
		for i := range in.topics {
			byTopic[in.topics[i].id] = &in.topics[i]
		}
	}
	for i := range rows.Cards {
		if t := byTopic[rows.Cards[i].TopicID]; t != nil {
			t.cards = append(t.cards, fsrsCard(&rows.Cards[i]))
			t.unanswered--
		}
	}
	for _, p := range rows.Progress {
		if t := byTopic[p.TopicID]; t != nil {
			t.attempts = p.Attempts
			t.streak = mastery.Streak{Current: p.CurrentStreak, Best: p.BestStreak}
		}
	}
	for _, t := range byTopic {
		t.unanswered = max(t.unanswered, 0)
		t.cards = slices.Clip(t.cards)
	}
	return loaded
}

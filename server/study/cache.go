package study

import (
	"container/list"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/mastery"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
)

// Bounds of the mastery cache of one Service: how many studies it holds, and
// how many topics and answered cards in all (about 100 bytes each, so some
// 25 MiB at most), renderings counted at one per bytesPerWeight bytes. A
// study larger than the second bound is never cached.
const (
	masteryCacheStudies = 256
	masteryCacheWeight  = 1 << 18
	bytesPerWeight      = 100
)

// masteryGranularity is the instant mastery is computed as of by default:
// the current minute. Within it, every read of an unchanged study gives
// the same figures, worked out once.
const masteryGranularity = time.Minute

// masteryFreshness is how long a study's cached inputs are trusted without
// reading its progress version from the database again. A change made
// through the Service's *store.DB shows at once (store.DB.WatchProgress);
// one made through another server (or another handle on the same
// database) shows within this time.
const masteryFreshness = time.Second

// masteryInputs is what one student's mastery of one study is computed
// from, apart from the time: the study's topics with their question counts,
// the student's answered cards and per-topic progress. It is read from the
// database at one progress version of the study and never changed after,
// so goroutines share it without locks. memo keeps the figures last
// computed from it, and the instant they are for.
type masteryInputs struct {
	userID  int64
	version int64 // studies.progress_version the inputs were read at
	title   string
	status  studyloop.StudyStatus
	topics  []topicInputs
	memo    atomic.Pointer[masteryMemo]
}

// masteryMemo is the mastery of a masteryInputs at one instant. Its figures
// are never changed once made: callers get copies. renderings holds the
// surfaces' forms of them (*Rendering to []byte), each made when first
// asked for; they live and go with the memo, so the cache's bound on
// topics bounds them too.
type masteryMemo struct {
	at         time.Time
	study      studyloop.StudyMastery // all but the study id, which the caller gives
	renderings sync.Map
}

// topicInputs is one topic of masteryInputs.
type topicInputs struct {
	id         int64
	parentID   *int64
	title      string
	unanswered int         // questions without a card
	cards      []fsrs.Card // the answered questions
	attempts   int
	streak     mastery.Streak
}

// weight is the size the cache charges for the inputs.
func (in *masteryInputs) weight() int {
	w := 1 + len(in.topics)
	for i := range in.topics {
		w += len(in.topics[i].cards)
	}
	return w
}

// figures returns the topic's figures at now.
func (t *topicInputs) figures(now time.Time) studyloop.MasteryFigures {
	f := mastery.CardsAndNew(scheduler, t.cards, t.unanswered, now)
	f.Attempts = t.attempts
	return f
}

// studyMastery returns the mastery of the study at now, topic by topic,
// with the study's figures combined from its topics'; the caller names the
// study. A topic's figures cover its own questions and those of all its
// subtopics (see rollUp); its streaks count only answers to its own
// questions. The study's figures combine the topics' own figures, so each
// question counts once. The result shares the inputs' parent ids: it is
// for a masteryMemo, which hands out only copies.
func (in *masteryInputs) studyMastery(now time.Time) studyloop.StudyMastery {
	own := make([]studyloop.MasteryFigures, len(in.topics))
	for i := range in.topics {
		own[i] = in.topics[i].figures(now)
	}
	sm := studyloop.StudyMastery{MasteryFigures: mastery.Combine(own...)}
	if len(in.topics) == 0 {
		return sm
	}
	rolled := in.rollUp(own)
	sm.Topics = make([]studyloop.TopicMastery, len(in.topics))
	for i := range in.topics {
		t := &in.topics[i]
		sm.Topics[i] = studyloop.TopicMastery{
			TopicID: t.id, ParentID: t.parentID, Title: t.title, MasteryFigures: rolled[i],
			CurrentStreak: t.streak.Current, BestStreak: t.streak.Best,
		}
	}
	return sm
}

// rollUp returns each topic's figures over its whole subtree: own (by
// index) combined with those of its subtopics, by mastery.RollUp. A parent
// outside the study is ignored.
func (in *masteryInputs) rollUp(own []studyloop.MasteryFigures) []studyloop.MasteryFigures {
	index := make(map[int64]int, len(in.topics))
	for i := range in.topics {
		index[in.topics[i].id] = i
	}
	parents := make([]int, len(in.topics))
	for i := range in.topics {
		parents[i] = -1
		if p := in.topics[i].parentID; p != nil {
			if j, ok := index[*p]; ok {
				parents[i] = j
			}
		}
	}
	return mastery.RollUp(parents, own)
}

// memoAt returns the mastery at the instant at, computed once per instant:
// the memo is kept until it is asked for another instant.
func (in *masteryInputs) memoAt(at time.Time) *masteryMemo {
	if m := in.memo.Load(); m != nil && m.at.Equal(at) {
		return m
	}
	m := &masteryMemo{at: at, study: in.studyMastery(at)}
	m.study.Title, m.study.Status = in.title, in.status
	m.study.AsOf, m.study.Revision = at, in.version
	in.memo.Store(m)
	return m
}

// studyMastery returns a copy of the memo's mastery of the study that
// shares nothing the caller could change with it.
func (m *masteryMemo) studyMastery(studyID string) studyloop.StudyMastery {
	sm := m.study
	sm.StudyID = studyID
	sm.MasteryFigures = m.figures()
	if m.study.Topics == nil {
		return sm
	}
	sm.Topics = slices.Clone(m.study.Topics)
	// The topics' pointers point into two arrays, one allocation each.
	parents := make([]int64, 0, len(sm.Topics))
	reviews := make([]time.Time, 0, len(sm.Topics))
	for i := range sm.Topics {
		t := &sm.Topics[i]
		if t.ParentID != nil {
			parents = append(parents, *t.ParentID)
			t.ParentID = &parents[len(parents)-1]
		}
		if t.NextReview != nil {
			reviews = append(reviews, *t.NextReview)
			t.NextReview = &reviews[len(reviews)-1]
		}
	}
	return sm
}

// studyMasteryAs is studyMastery with the title and status of the head,
// when there is one.
func (m *masteryMemo) studyMasteryAs(studyID string, head *store.ProgressHead) studyloop.StudyMastery {
	sm := m.studyMastery(studyID)
	if head != nil {
		sm.Title, sm.Status = head.Title, head.Status
	}
	return sm
}

// current reports whether the memo's title and status are those of the
// head, if there is one.
func (m *masteryMemo) current(head *store.ProgressHead) bool {
	return head == nil || (head.Title == m.study.Title && head.Status == m.study.Status)
}

// figures returns a copy of the memo's study figures.
func (m *masteryMemo) figures() studyloop.MasteryFigures {
	f := m.study.MasteryFigures
	if f.NextReview != nil {
		f.NextReview = new(*f.NextReview)
	}
	return f
}

// masteryCache keeps the masteryInputs of recently read studies, least
// recently used out first, bounded in studies and in weight. An entry
// serves only the study's owner at the progress version it was read at.
// Callers read the study's current version (checking its owner) from the
// database, unless the entry's version was confirmed there less than
// freshness ago (see fresh); a change made through the Service's
// *store.DB forgets the study at once (see forget). With each entry goes the mastery
// last computed from it (masteryMemo). It is safe for concurrent use.
type masteryCache struct {
	maxStudies, maxWeight int
	// granularity is what mastery times are truncated to (instant); 0
	// or less keeps them to the microsecond. freshness is how long a
	// confirmed version is trusted; 0 or less: never. clock reads the
	// time freshness is measured in. Set before first use.
	granularity, freshness time.Duration
	clock                  func() time.Time

	mu      sync.Mutex
	weight  int
	recency *list.List               // of *cachedMastery, most recent first
	byStudy map[string]*list.Element // study id to its element in recency
	// forgets counts calls of forget. A version read before a forget may
	// be out of date by then, so it is kept but never trusted as fresh.
	forgets uint64
}

type cachedMastery struct {
	studyID string
	inputs  *masteryInputs
	weight  int // of the inputs and of rendered
	// rendered is the weight of the renderings kept with renderedFor,
	// the inputs' memo they were charged for (see charge).
	rendered    int
	renderedFor *masteryMemo
	// confirmed is when the database last reported inputs.version as
	// the study's current one, in the cache's clock; zero: not trusted.
	confirmed time.Time
}

// versionCheck is a reading of the cache's clock and forget count taken
// before a study's progress version is read from the database: what that
// version may be trusted as fresh from.
type versionCheck struct {
	at      time.Time
	forgets uint64
}

// newMasteryCache returns an empty cache holding at most maxStudies
// studies of total weight at most maxWeight. With either 0 it holds
// nothing.
func newMasteryCache(maxStudies, maxWeight int) *masteryCache {
	return &masteryCache{
		maxStudies: maxStudies, maxWeight: maxWeight,
		granularity: masteryGranularity, freshness: masteryFreshness, clock: time.Now,
		recency: list.New(), byStudy: make(map[string]*list.Element),
	}
}

// instant returns the instant mastery asked for at now is computed as of:
// now, as stored, truncated to the granularity.
func (c *masteryCache) instant(now time.Time) time.Time {
	now = store.StoredTime(now)
	if c.granularity > 0 {
		now = now.Truncate(c.granularity)
	}
	return now
}

// startCheck returns the versionCheck to pass to get and put with the
// version read next from the database.
func (c *masteryCache) startCheck() versionCheck {
	c.mu.Lock()
	defer c.mu.Unlock()
	return versionCheck{at: c.clock(), forgets: c.forgets}
}

// confirm marks e's version as read from the database at check, unless a
// forget came since.
func (c *masteryCache) confirm(e *cachedMastery, check versionCheck) {
	if check.forgets == c.forgets && check.at.After(e.confirmed) {
		e.confirmed = check.at
	}
}

// get returns the user's inputs of the study at the given version, just
// read from the database as of check, or nil.
func (c *masteryCache) get(userID int64, studyID string, version int64, check versionCheck) *masteryInputs {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.byStudy[studyID]
	if e == nil {
		return nil
	}
	cm := e.Value.(*cachedMastery)
	if cm.inputs.userID != userID || cm.inputs.version != version {
		return nil
	}
	c.confirm(cm, check)
	c.recency.MoveToFront(e)
	return cm.inputs
}

// fresh returns the user's inputs of the ready study when their version
// was confirmed less than freshness ago, or nil: then the caller reads the
// version from the database.
func (c *masteryCache) fresh(userID int64, studyID string) *masteryInputs {
	if c.freshness <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.byStudy[studyID]
	if e == nil {
		return nil
	}
	cm := e.Value.(*cachedMastery)
	if cm.inputs.userID != userID || cm.inputs.status != studyloop.StatusReady ||
		cm.confirmed.IsZero() || c.clock().Sub(cm.confirmed) >= c.freshness {
		return nil
	}
	c.recency.MoveToFront(e)
	return cm.inputs
}

// forget drops the study, whose progress version has just moved.
func (c *masteryCache) forget(studyID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forgets++
	if e := c.byStudy[studyID]; e != nil {
		gone := c.recency.Remove(e).(*cachedMastery)
		delete(c.byStudy, studyID)
		c.weight -= gone.weight
	}
}

// put keeps the study's inputs, read at the version read from the
// database as of check, unless the cache already holds them at a later
// version or they weigh more than the whole cache, and drops the least
// recently used studies beyond the bounds.
func (c *masteryCache) put(studyID string, in *masteryInputs, check versionCheck) {
	w := in.weight()
	if w > c.maxWeight || c.maxStudies < 1 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.byStudy[studyID]; e != nil {
		old := e.Value.(*cachedMastery)
		if old.inputs.version > in.version && old.inputs.userID == in.userID {
			return
		}
		c.weight += w - old.weight
		if old.inputs.version != in.version {
			old.confirmed = time.Time{}
		}
		old.inputs, old.weight, old.rendered, old.renderedFor = in, w, 0, nil
		c.confirm(old, check)
		c.recency.MoveToFront(e)
	} else {
		cm := &cachedMastery{studyID: studyID, inputs: in, weight: w}
		c.confirm(cm, check)
		c.byStudy[studyID] = c.recency.PushFront(cm)
		c.weight += w
	}
	c.evict()
}

// charge counts a rendering of size bytes, just kept with the memo m of
// the inputs in, in the weight of the study's entry when it holds in; the
// renderings of an earlier memo, dropped with it, no longer count. The
// least recently used studies beyond the bounds go.
func (c *masteryCache) charge(studyID string, in *masteryInputs, m *masteryMemo, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.byStudy[studyID]
	if e == nil || e.Value.(*cachedMastery).inputs != in {
		return
	}
	cm := e.Value.(*cachedMastery)
	if cm.renderedFor != m {
		cm.weight -= cm.rendered
		c.weight -= cm.rendered
		cm.rendered, cm.renderedFor = 0, m
	}
	w := (size + bytesPerWeight - 1) / bytesPerWeight
	cm.rendered += w
	cm.weight += w
	c.weight += w
	c.evict()
}

// evict drops the least recently used studies beyond the bounds.
func (c *masteryCache) evict() {
	for c.recency.Len() > c.maxStudies || c.weight > c.maxWeight {
		last := c.recency.Back()
		gone := c.recency.Remove(last).(*cachedMastery)
		delete(c.byStudy, gone.studyID)
		c.weight -= gone.weight
	}
}

package study

import (
	"time"

	"github.com/studyloop/studyloop/server/store"
)

// Uncached returns a service over db whose mastery reads always go to the
// database: the reference the mastery cache is checked against.
func Uncached(db *store.DB) *Service { return newService(db, newMasteryCache(0, 0)) }

// CachedMasteryVersion reports the progress version at which s caches the
// mastery inputs of the study, if it does.
func CachedMasteryVersion(s *Service, studyID string) (version int64, ok bool) {
	s.mastery.mu.Lock()
	defer s.mastery.mu.Unlock()
	e := s.mastery.byStudy[studyID]
	if e == nil {
		return 0, false
	}
	return e.Value.(*cachedMastery).inputs.version, true
}

// WithMasteryGranularity returns a service over db with an empty mastery
// cache of the usual bounds that computes mastery as of the time asked
// truncated to granularity (0 or less: not truncated).
func WithMasteryGranularity(db *store.DB, granularity time.Duration) *Service {
	c := newMasteryCache(masteryCacheStudies, masteryCacheWeight)
	c.granularity = granularity
	return newService(db, c)
}

// MasteryMemo reports the memo of the mastery s computed last from its
// cached inputs of the study, as an opaque value (equal only to itself)
// and the instant it is for.
func MasteryMemo(s *Service, studyID string) (memo any, at time.Time, ok bool) {
	s.mastery.mu.Lock()
	defer s.mastery.mu.Unlock()
	e := s.mastery.byStudy[studyID]
	if e == nil {
		return nil, time.Time{}, false
	}
	m := e.Value.(*cachedMastery).inputs.memo.Load()
	if m == nil {
		return nil, time.Time{}, false
	}
	return m, m.at, true
}

// SetMasteryClock makes the mastery cache of s measure how fresh a
// confirmed progress version is by clock. Call it before the first
// mastery read of s.
func SetMasteryClock(s *Service, clock func() time.Time) { s.mastery.clock = clock }

// Verifying returns a service over db with an empty mastery cache that
// never trusts a cached version without reading it again.
func Verifying(db *store.DB) *Service {
	c := newMasteryCache(masteryCacheStudies, masteryCacheWeight)
	c.freshness = 0
	return newService(db, c)
}

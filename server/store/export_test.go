package store

import "time"

// Uncached returns a handle on db's database whose mastery reads always go
// to the database: the reference the mastery cache is checked against.
func Uncached(db *DB) *DB { return &DB{DB: db.DB, mastery: newMasteryCache(0, 0)} }

// CachedMasteryVersion reports the progress version at which db caches the
// mastery inputs of the study, if it does.
func CachedMasteryVersion(db *DB, studyID string) (version int64, ok bool) {
	db.mastery.mu.Lock()
	defer db.mastery.mu.Unlock()
	e := db.mastery.byStudy[studyID]
	if e == nil {
		return 0, false
	}
	return e.Value.(*cachedMastery).inputs.version, true
}

// WithMasteryGranularity returns a handle on db's database with an empty
// mastery cache of the usual bounds that computes mastery as of the time
// asked truncated to granularity (0 or less: not truncated).
func WithMasteryGranularity(db *DB, granularity time.Duration) *DB {
	c := newMasteryCache(masteryCacheStudies, masteryCacheWeight)
	c.granularity = granularity
	return &DB{DB: db.DB, mastery: c}
}

// MasteryMemo reports the memo of the mastery db computed last from its
// cached inputs of the study, as an opaque value (equal only to itself)
// and the instant it is for.
func MasteryMemo(db *DB, studyID string) (memo any, at time.Time, ok bool) {
	db.mastery.mu.Lock()
	defer db.mastery.mu.Unlock()
	e := db.mastery.byStudy[studyID]
	if e == nil {
		return nil, time.Time{}, false
	}
	m := e.Value.(*cachedMastery).inputs.memo.Load()
	if m == nil {
		return nil, time.Time{}, false
	}
	return m, m.at, true
}

// SetMasteryClock makes db's mastery cache measure how fresh a confirmed
// progress version is by clock. Call it before db's first mastery read.
func SetMasteryClock(db *DB, clock func() time.Time) { db.mastery.clock = clock }

// Verifying returns a handle on db's database with an empty mastery cache
// that never trusts a cached version without reading it again.
func Verifying(db *DB) *DB {
	c := newMasteryCache(masteryCacheStudies, masteryCacheWeight)
	c.freshness = 0
	return &DB{DB: db.DB, mastery: c}
}

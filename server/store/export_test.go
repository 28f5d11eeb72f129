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

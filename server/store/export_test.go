package store

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

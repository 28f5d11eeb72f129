package store

import (
	"fmt"
	"testing"

	"github.com/studyloop/studyloop/server/fsrs"
)

// inputsWeighing returns inputs of the user's study at the version whose
// cache weight is weight (at least 2: the study and one topic).
func inputsWeighing(userID, version int64, weight int) *masteryInputs {
	return &masteryInputs{userID: userID, version: version, topics: []topicInputs{{cards: make([]fsrs.Card, weight-2)}}}
}

// checkWeight fails unless the cache's running weight is the sum of its
// entries' and the index and the recency list agree.
func checkWeight(t *testing.T, c *masteryCache) {
	t.Helper()
	sum := 0
	for e := c.recency.Front(); e != nil; e = e.Next() {
		cm := e.Value.(*cachedMastery)
		sum += cm.inputs.weight()
		if c.byStudy[cm.studyID] != e {
			t.Fatalf("study %s: index and recency list disagree", cm.studyID)
		}
	}
	if sum != c.weight || len(c.byStudy) != c.recency.Len() {
		t.Fatalf("weight %d for entries weighing %d; %d indexed, %d listed", c.weight, sum, len(c.byStudy), c.recency.Len())
	}
}

func TestMasteryCacheLRU(t *testing.T) {
	c := newMasteryCache(3, 1000)
	for i := 1; i <= 3; i++ {
		c.put(fmt.Sprint("s", i), inputsWeighing(7, 1, 10))
	}
	c.get(7, "s1", 1) // s1 is now the most recent; s2 the least
	c.put("s4", inputsWeighing(7, 1, 10))
	for study, want := range map[string]bool{"s1": true, "s2": false, "s3": true, "s4": true} {
		if got := c.get(7, study, 1) != nil; got != want {
			t.Errorf("%s cached %v, want %v", study, got, want)
		}
	}
	checkWeight(t, c)
}

func TestMasteryCacheWeightBound(t *testing.T) {
	c := newMasteryCache(100, 50)
	for i := range 5 {
		c.put(fmt.Sprint("s", i), inputsWeighing(7, 1, 20))
		checkWeight(t, c)
		if c.weight > 50 {
			t.Fatalf("after %d puts the cache weighs %d, over its bound 50", i+1, c.weight)
		}
	}
	if c.get(7, "s4", 1) == nil || c.get(7, "s3", 1) == nil || c.get(7, "s2", 1) != nil {
		t.Errorf("want the two latest studies kept, the others dropped")
	}
	c.put("huge", inputsWeighing(7, 1, 51))
	if c.get(7, "huge", 1) != nil || c.get(7, "s4", 1) == nil {
		t.Errorf("a study heavier than the whole cache must not be kept, nor push others out")
	}
	checkWeight(t, c)
}

func TestMasteryCacheGet(t *testing.T) {
	c := newMasteryCache(10, 1000)
	c.put("s", inputsWeighing(7, 5, 3))
	tests := []struct {
		name    string
		user    int64
		study   string
		version int64
		hit     bool
	}{
		{"owner at the version", 7, "s", 5, true},
		{"another user", 8, "s", 5, false},
		{"an older version", 7, "s", 4, false},
		{"a newer version", 7, "s", 6, false},
		{"another study", 7, "t", 5, false},
	}
	for _, tt := range tests {
		if got := c.get(tt.user, tt.study, tt.version) != nil; got != tt.hit {
			t.Errorf("%s: hit %v, want %v", tt.name, got, tt.hit)
		}
	}
}

func TestMasteryCacheVersions(t *testing.T) {
	c := newMasteryCache(10, 1000)
	c.put("s", inputsWeighing(7, 5, 3))
	c.put("s", inputsWeighing(7, 4, 9)) // read before the answer that made 5: kept out
	if c.get(7, "s", 5) == nil || c.get(7, "s", 4) != nil {
		t.Errorf("an older version replaced a newer one")
	}
	c.put("s", inputsWeighing(7, 6, 9))
	if c.get(7, "s", 6) == nil || c.get(7, "s", 5) != nil || c.weight != 9 {
		t.Errorf("a newer version did not replace the older one (weight %d)", c.weight)
	}
	checkWeight(t, c)
}

func TestMasteryCacheOfZeroSizeHoldsNothing(t *testing.T) {
	for _, c := range []*masteryCache{newMasteryCache(0, 0), newMasteryCache(0, 100), newMasteryCache(10, 0)} {
		c.put("s", inputsWeighing(7, 1, 2))
		if c.get(7, "s", 1) != nil || c.weight != 0 {
			t.Errorf("cache of %d studies and weight %d kept a study", c.maxStudies, c.maxWeight)
		}
	}
}

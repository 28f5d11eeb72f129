package study

import (
	"fmt"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/studyloop"
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
		sum += cm.inputs.weight() + cm.rendered
		if cm.weight != cm.inputs.weight()+cm.rendered {
			t.Fatalf("study %s weighs %d, its inputs %d and renderings %d", cm.studyID, cm.weight, cm.inputs.weight(), cm.rendered)
		}
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
		c.put(fmt.Sprint("s", i), inputsWeighing(7, 1, 10), c.startCheck())
	}
	c.get(7, "s1", 1, c.startCheck()) // s1 is now the most recent; s2 the least
	c.put("s4", inputsWeighing(7, 1, 10), c.startCheck())
	for study, want := range map[string]bool{"s1": true, "s2": false, "s3": true, "s4": true} {
		if got := c.get(7, study, 1, c.startCheck()) != nil; got != want {
			t.Errorf("%s cached %v, want %v", study, got, want)
		}
	}
	checkWeight(t, c)
}

func TestMasteryCacheChargesRenderings(t *testing.T) {
	c := newMasteryCache(100, 50)
	a, b := inputsWeighing(7, 1, 10), inputsWeighing(7, 1, 10)
	c.put("a", a, c.startCheck())
	c.put("b", b, c.startCheck())
	first, second := &masteryMemo{}, &masteryMemo{}
	steps := []struct {
		name       string
		in         *masteryInputs
		memo       *masteryMemo
		bytes      int
		wantWeight int // of "a"
	}{
		{"one byte counts a whole unit", a, first, 1, 11},
		{"another rendering of the memo adds", a, first, bytesPerWeight, 12},
		{"a rendering just over a unit", a, first, bytesPerWeight + 1, 14},
		{"the next memo's replaces the earlier ones", a, second, 3 * bytesPerWeight, 13},
		{"inputs the entry no longer holds count nothing", inputsWeighing(7, 1, 10), second, 5 * bytesPerWeight, 13},
	}
	for _, step := range steps {
		c.charge("a", step.in, step.memo, step.bytes)
		checkWeight(t, c)
		if got := c.byStudy["a"].Value.(*cachedMastery).weight; got != step.wantWeight {
			t.Errorf("%s: study weighs %d, want %d", step.name, got, step.wantWeight)
		}
	}
	// New inputs of the study drop its renderings' weight.
	c.put("a", inputsWeighing(7, 2, 10), c.startCheck())
	checkWeight(t, c)
	if got := c.byStudy["a"].Value.(*cachedMastery).weight; got != 10 {
		t.Errorf("new inputs: study weighs %d, want 10", got)
	}
	// Renderings past the bound push the least recently used study out.
	c.charge("a", c.byStudy["a"].Value.(*cachedMastery).inputs, first, 31*bytesPerWeight)
	checkWeight(t, c)
	if c.get(7, "b", 1, c.startCheck()) != nil || c.weight > 50 {
		t.Errorf("over the bound: b kept, or weight %d over 50", c.weight)
	}
}

func TestMasteryCacheWeightBound(t *testing.T) {
	c := newMasteryCache(100, 50)
	for i := range 5 {
		c.put(fmt.Sprint("s", i), inputsWeighing(7, 1, 20), c.startCheck())
		checkWeight(t, c)
		if c.weight > 50 {
			t.Fatalf("after %d puts the cache weighs %d, over its bound 50", i+1, c.weight)
		}
	}
	if c.get(7, "s4", 1, c.startCheck()) == nil || c.get(7, "s3", 1, c.startCheck()) == nil || c.get(7, "s2", 1, c.startCheck()) != nil {
		t.Errorf("want the two latest studies kept, the others dropped")
	}
	c.put("huge", inputsWeighing(7, 1, 51), c.startCheck())
	if c.get(7, "huge", 1, c.startCheck()) != nil || c.get(7, "s4", 1, c.startCheck()) == nil {
		t.Errorf("a study heavier than the whole cache must not be kept, nor push others out")
	}
	checkWeight(t, c)
}

func TestMasteryCacheGet(t *testing.T) {
	c := newMasteryCache(10, 1000)
	c.put("s", inputsWeighing(7, 5, 3), c.startCheck())
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
		if got := c.get(tt.user, tt.study, tt.version, c.startCheck()) != nil; got != tt.hit {
			t.Errorf("%s: hit %v, want %v", tt.name, got, tt.hit)
		}
	}
}

func TestMasteryCacheVersions(t *testing.T) {
	c := newMasteryCache(10, 1000)
	c.put("s", inputsWeighing(7, 5, 3), c.startCheck())
	c.put("s", inputsWeighing(7, 4, 9), c.startCheck()) // read before the answer that made 5: kept out
	if c.get(7, "s", 5, c.startCheck()) == nil || c.get(7, "s", 4, c.startCheck()) != nil {
		t.Errorf("an older version replaced a newer one")
	}
	c.put("s", inputsWeighing(7, 6, 9), c.startCheck())
	if c.get(7, "s", 6, c.startCheck()) == nil || c.get(7, "s", 5, c.startCheck()) != nil || c.weight != 9 {
		t.Errorf("a newer version did not replace the older one (weight %d)", c.weight)
	}
	checkWeight(t, c)
}

func TestMasteryCacheOfZeroSizeHoldsNothing(t *testing.T) {
	for _, c := range []*masteryCache{newMasteryCache(0, 0), newMasteryCache(0, 100), newMasteryCache(10, 0)} {
		c.put("s", inputsWeighing(7, 1, 2), c.startCheck())
		if c.get(7, "s", 1, c.startCheck()) != nil || c.weight != 0 {
			t.Errorf("cache of %d studies and weight %d kept a study", c.maxStudies, c.maxWeight)
		}
	}
}

// fakeClock is a clock tests move by hand.
type fakeClock struct{ now time.Time }

func (f *fakeClock) read() time.Time         { return f.now }
func (f *fakeClock) advance(d time.Duration) { f.now = f.now.Add(d) }

// readyInputs returns inputs of the user's ready study at the version.
func readyInputs(userID, version int64) *masteryInputs {
	in := inputsWeighing(userID, version, 3)
	in.status = studyloop.StatusReady
	return in
}

func TestMasteryCacheFreshness(t *testing.T) {
	tests := []struct {
		name string
		// act changes the cache holding study "s" of user 7 at version
		// 5, confirmed at the clock's reading.
		act   func(c *masteryCache, clock *fakeClock)
		user  int64
		fresh bool
	}{
		{"just confirmed", func(*masteryCache, *fakeClock) {}, 7, true},
		{"another user", func(*masteryCache, *fakeClock) {}, 8, false},
		{"confirmed within the second", func(_ *masteryCache, clock *fakeClock) { clock.advance(999 * time.Millisecond) }, 7, true},
		{"confirmed a second ago", func(_ *masteryCache, clock *fakeClock) { clock.advance(time.Second) }, 7, false},
		{"confirmed again by a read", func(c *masteryCache, clock *fakeClock) {
			clock.advance(900 * time.Millisecond)
			c.get(7, "s", 5, c.startCheck())
			clock.advance(900 * time.Millisecond)
		}, 7, true},
		{"an answer moved the version", func(c *masteryCache, _ *fakeClock) { c.forget("s") }, 7, false},
		{"another study answered", func(c *masteryCache, _ *fakeClock) { c.forget("t") }, 7, true},
		{"read before an answer, kept after it", func(c *masteryCache, _ *fakeClock) {
			check := c.startCheck()
			c.forget("s")
			c.put("s", readyInputs(7, 5), check)
		}, 7, false},
		{"confirmed before an answer to another study", func(c *masteryCache, _ *fakeClock) {
			check := c.startCheck()
			c.forget("t")
			c.get(7, "s", 5, check)
		}, 7, true},
		{"a newer version read", func(c *masteryCache, clock *fakeClock) {
			check := c.startCheck()
			c.forget("s")
			clock.advance(time.Second)
			c.put("s", readyInputs(7, 6), check)
		}, 7, false},
		{"a newer version read and confirmed", func(c *masteryCache, clock *fakeClock) {
			c.put("s", readyInputs(7, 6), c.startCheck())
		}, 7, true},
		{"not ready", func(c *masteryCache, _ *fakeClock) {
			in := readyInputs(7, 6)
			in.status = studyloop.StatusProcessing
			c.put("s", in, c.startCheck())
		}, 7, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &fakeClock{now: time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)}
			c := newMasteryCache(10, 1000)
			c.clock = clock.read
			c.put("s", readyInputs(7, 5), c.startCheck())
			tt.act(c, clock)
			if got := c.fresh(tt.user, "s") != nil; got != tt.fresh {
				t.Errorf("fresh %v, want %v", got, tt.fresh)
			}
			checkWeight(t, c)
		})
	}
}

func TestMasteryCacheWithoutFreshness(t *testing.T) {
	c := newMasteryCache(10, 1000)
	c.freshness = 0
	c.put("s", readyInputs(7, 5), c.startCheck())
	if c.fresh(7, "s") != nil {
		t.Error("a cache of freshness 0 trusted a version")
	}
	if c.get(7, "s", 5, c.startCheck()) == nil {
		t.Error("a cache of freshness 0 lost the inputs")
	}
}

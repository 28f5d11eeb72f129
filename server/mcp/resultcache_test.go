package mcp

import (
	"testing"
	"time"
)

func TestResultCache(t *testing.T) {
	minute := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	alice := studyKey{userID: 1, studyID: "st_a"}
	tests := []struct {
		name     string
		key      studyKey
		revision int64
		asOf     time.Time
		hit      bool
	}{
		{"the same state", alice, 5, minute, true},
		{"another answer since", alice, 6, minute, false},
		{"the next minute", alice, 5, minute.Add(time.Minute), false},
		{"another user", studyKey{userID: 2, studyID: "st_a"}, 5, minute, false},
		{"another study", studyKey{userID: 1, studyID: "st_b"}, 5, minute, false},
	}
	c := newResultCache(100)
	c.put(alice, 5, minute, encodedResult("alice's"))
	for _, tt := range tests {
		got, ok := c.get(tt.key, tt.revision, tt.asOf)
		if ok != tt.hit || (ok && string(got) != "alice's") {
			t.Errorf("%s: %q %v, want hit %v", tt.name, got, ok, tt.hit)
		}
	}
}

func TestResultCacheBound(t *testing.T) {
	minute := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	c := newResultCache(100)
	a, b := studyKey{1, "st_a"}, studyKey{1, "st_b"}
	c.put(a, 1, minute, make(encodedResult, 60))
	c.put(a, 2, minute, make(encodedResult, 70)) // replaces the first
	if _, ok := c.get(a, 2, minute); !ok || c.bytes != 70 {
		t.Fatalf("replaced result: kept %v, %d bytes, want 70", ok, c.bytes)
	}
	c.put(b, 1, minute, make(encodedResult, 40)) // over the bound: starts afresh
	if _, ok := c.get(a, 2, minute); ok || c.bytes != 40 {
		t.Errorf("over the bound: a kept %v, %d bytes, want 40", ok, c.bytes)
	}
	c.put(a, 3, minute, make(encodedResult, 101)) // larger than the cache
	if _, ok := c.get(a, 3, minute); ok || c.bytes != 40 {
		t.Errorf("a result larger than the cache was kept (%d bytes)", c.bytes)
	}
	if _, ok := c.get(b, 1, minute); !ok {
		t.Error("a result too large to keep pushed another out")
	}
}

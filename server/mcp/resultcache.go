package mcp

import (
	"sync"
	"time"
)

// maxCachedResultBytes bounds the encoded get_mastery results kept: a few
// hundred typical studies, or a handful of the largest.
const maxCachedResultBytes = 16 << 20

// encodedResult is a CallToolResult already encoded, as encodeResult
// makes it. A tool that returns one has it sent as it is.
type encodedResult []byte

// studyKey names one student's study.
type studyKey struct {
	userID  int64
	studyID string
}

// cachedResult is the result of one study at one state of the student's
// answers (revision) and one instant: the figures under them never change.
type cachedResult struct {
	revision int64
	asOf     time.Time
	result   encodedResult
}

// resultCache keeps the encoded get_mastery result of each study last
// read, so that an agent asking again before anything changed (the same
// minute, no new answer) gets the bytes without their being encoded again.
// It holds one result per student and study, at most maxBytes in all; when
// full, it starts afresh. It is safe for concurrent use.
type resultCache struct {
	maxBytes int

	mu      sync.Mutex
	bytes   int
	byStudy map[studyKey]cachedResult
}

func newResultCache(maxBytes int) *resultCache {
	return &resultCache{maxBytes: maxBytes, byStudy: make(map[studyKey]cachedResult)}
}

// get returns the study's result at the revision and instant, if kept.
func (c *resultCache) get(k studyKey, revision int64, asOf time.Time) (encodedResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.byStudy[k]
	if !ok || r.revision != revision || !r.asOf.Equal(asOf) {
		return nil, false
	}
	return r.result, true
}

// put keeps the study's result at the revision and instant, in place of
// its earlier one.
func (c *resultCache) put(k studyKey, revision int64, asOf time.Time, result encodedResult) {
	if len(result) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.byStudy[k]; ok {
		c.bytes -= len(old.result)
	}
	if c.bytes+len(result) > c.maxBytes {
		clear(c.byStudy)
		c.bytes = 0
	}
	c.byStudy[k] = cachedResult{revision: revision, asOf: asOf, result: result}
	c.bytes += len(result)
}

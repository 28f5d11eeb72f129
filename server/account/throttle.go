package account

import (
	"sync"
	"time"
)

// Throttle slows down repeated failures per key (an account or an IP
// address): once a key has failed free times within window, each attempt
// must wait a delay that doubles with every failure, from one second up to
// maxDelay. A key with no failure for window is forgotten. It is kept in
// memory, per process.
type Throttle struct {
	free     int
	window   time.Duration
	maxDelay time.Duration
	now      func() time.Time

	mu        sync.Mutex
	entries   map[string]*failures
	lastPrune time.Time
}

type failures struct {
	count int
	last  time.Time // last failure
	until time.Time // no attempt before this
}

// NewThrottle returns a throttle that allows free failures within window
// before delaying, by at most maxDelay.
func NewThrottle(free int, window, maxDelay time.Duration) *Throttle {
	return &Throttle{free: free, window: window, maxDelay: maxDelay, now: time.Now, entries: map[string]*failures{}}
}

// Wait returns how long key must wait before its next attempt; 0 means it
// may try now.
func (t *Throttle) Wait(key string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	e := t.entries[key]
	if e == nil || now.Sub(e.last) > t.window || !now.Before(e.until) {
		return 0
	}
	return e.until.Sub(now)
}

// Fail records a failed attempt for key.
func (t *Throttle) Fail(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	t.prune(now)
	e := t.entries[key]
	if e == nil || now.Sub(e.last) > t.window {
		e = &failures{}
		t.entries[key] = e
	}
	e.count++
	e.last = now
	if over := e.count - t.free; over >= 0 {
		delay := t.maxDelay
		if over < 30 && time.Second<<over < t.maxDelay {
			delay = time.Second << over
		}
		e.until = now.Add(delay)
	}
}

// Reset forgets key's failures (after a success).
func (t *Throttle) Reset(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.entries, key)
}

// prune drops forgotten keys, at most once a minute.
func (t *Throttle) prune(now time.Time) {
	if now.Sub(t.lastPrune) < time.Minute {
		return
	}
	t.lastPrune = now
	for k, e := range t.entries {
		if now.Sub(e.last) > t.window && !now.Before(e.until) {
			delete(t.entries, k)
		}
	}
}

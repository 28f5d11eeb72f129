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
//
// Each attempt is begun with Begin and ended with Fail, Reset or Done.
// Attempts still in flight count against the key as if they will fail, so
// that concurrent attempts cannot all pass one check before any of them
// has failed.
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
	count    int
	inFlight int       // attempts begun and not yet ended
	last     time.Time // last failure
	until    time.Time // no attempt before this
}

// end ends one attempt in flight.
func (e *failures) end() {
	if e.inFlight > 0 {
		e.inFlight--
	}
}

// NewThrottle returns a throttle that allows free failures within window
// before delaying, by at most maxDelay.
func NewThrottle(free int, window, maxDelay time.Duration) *Throttle {
	return &Throttle{free: free, window: window, maxDelay: maxDelay, now: time.Now, entries: map[string]*failures{}}
}

// Begin starts an attempt for key and returns 0, or returns how long key
// must wait first and starts nothing. Key waits while it is delayed, and
// while the attempts in flight would delay it if they all failed (then
// for a second, the time an attempt takes).
func (t *Throttle) Begin(key string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	e := t.entries[key]
	if e == nil {
		e = &failures{}
		t.entries[key] = e
	}
	count := e.count
	if now.Sub(e.last) > t.window {
		count = 0
	} else if now.Before(e.until) {
		return e.until.Sub(now)
	}
	if e.inFlight > 0 && count+e.inFlight >= t.free {
		return time.Second
	}
	e.inFlight++
	return 0
}

// Fail ends an attempt for key that failed.
func (t *Throttle) Fail(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	t.prune(now)
	e := t.entries[key]
	if e == nil {
		e = &failures{}
		t.entries[key] = e
	}
	if now.Sub(e.last) > t.window {
		e.count, e.until = 0, time.Time{}
	}
	e.end()
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

// Reset ends an attempt for key that succeeded, and forgets key's
// failures.
func (t *Throttle) Reset(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.entries[key]; e != nil {
		e.end()
		*e = failures{inFlight: e.inFlight}
		t.forgetIdle(key, e)
	}
}

// Done ends an attempt for key that neither failed nor should forgive
// earlier failures.
func (t *Throttle) Done(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.entries[key]; e != nil {
		e.end()
		t.forgetIdle(key, e)
	}
}

// forgetIdle drops an entry that holds neither failures nor attempts.
func (t *Throttle) forgetIdle(key string, e *failures) {
	if e.count == 0 && e.inFlight == 0 {
		delete(t.entries, key)
	}
}

// prune drops forgotten keys, at most once a minute.
func (t *Throttle) prune(now time.Time) {
	if now.Sub(t.lastPrune) < time.Minute {
		return
	}
	t.lastPrune = now
	for k, e := range t.entries {
		if now.Sub(e.last) > t.window && !now.Before(e.until) && e.inFlight == 0 {
			delete(t.entries, k)
		}
	}
}

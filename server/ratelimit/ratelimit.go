// Package ratelimit keeps per-client token buckets in memory, over
// golang.org/x/time/rate: the registration and sign-up limits count each
// client (clientaddr.Key: an IPv4 address or an IPv6 /64) on its
// own, per process.
package ratelimit

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// PerKey is a token bucket per key.
type PerKey struct {
	limit rate.Limit // 0: no limit
	burst int

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastPrune time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// New allows perHour events per key on average, burst at once; perHour 0
// allows everything.
func New(perHour, burst int) *PerKey {
	return &PerKey{limit: rate.Limit(float64(perHour) / 3600), burst: burst, buckets: map[string]*bucket{}}
}

// Allow takes one event for key, or says how long to wait for one.
func (l *PerKey) Allow(key string, now time.Time) (bool, time.Duration) {
	if l.limit == 0 {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.prune(now)
	b := l.buckets[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Hour
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// prune forgets buckets idle long enough to be full again, at most once a
// minute.
func (l *PerKey) prune(now time.Time) {
	if now.Sub(l.lastPrune) < time.Minute {
		return
	}
	l.lastPrune = now
	refill := time.Duration(float64(l.burst) / float64(l.limit) * float64(time.Second))
	for key, b := range l.buckets {
		if now.Sub(b.seen) > refill {
			delete(l.buckets, key)
		}
	}
}

// RetryAfterSeconds rounds d up to whole seconds, at least 1, for a
// Retry-After header or a message.
func RetryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

package oauth

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// ipLimiter is a token bucket per client key (config.Config.ClientKey: an
// IPv4 address or an IPv6 /64), in memory.
type ipLimiter struct {
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

// newIPLimiter allows perHour events per IP on average, burst at once;
// perHour 0 allows everything.
func newIPLimiter(perHour, burst int) *ipLimiter {
	return &ipLimiter{limit: rate.Limit(float64(perHour) / 3600), burst: burst, buckets: map[string]*bucket{}}
}

// allow takes one event for ip, or says how long to wait for one.
func (l *ipLimiter) allow(ip string, now time.Time) (bool, time.Duration) {
	if l.limit == 0 {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.prune(now)
	b := l.buckets[ip]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[ip] = b
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
func (l *ipLimiter) prune(now time.Time) {
	if now.Sub(l.lastPrune) < time.Minute {
		return
	}
	l.lastPrune = now
	refill := time.Duration(float64(l.burst) / float64(l.limit) * float64(time.Second))
	for ip, b := range l.buckets {
		if now.Sub(b.seen) > refill {
			delete(l.buckets, ip)
		}
	}
}

// retryAfterSeconds rounds d up to whole seconds, at least 1.
func retryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// registerBurst is how many registrations one client may make at once when
// perHour may be made in an hour: three minutes' worth, at least 1. At the
// default 1200 an hour that is 60 at once, then one every 3 seconds.
func registerBurst(perHour int) int {
	return max(1, perHour/20)
}

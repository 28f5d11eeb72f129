package ratelimit_test

import (
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/ratelimit"
)

func TestPerKey(t *testing.T) {
	start := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	l := ratelimit.New(20, 5) // one every 3 minutes after a burst of 5
	steps := []struct {
		name  string
		ip    string
		at    time.Duration
		ok    bool
		retry time.Duration
	}{
		{"burst 1", "a", 0, true, 0},
		{"burst 2", "a", 0, true, 0},
		{"burst 3", "a", 0, true, 0},
		{"burst 4", "a", 0, true, 0},
		{"burst 5", "a", 0, true, 0},
		{"over the burst", "a", 0, false, 3 * time.Minute},
		{"another address is separate", "b", 0, true, 0},
		{"still waiting", "a", time.Minute, false, 2 * time.Minute},
		{"one token back", "a", 3 * time.Minute, true, 0},
		{"and gone again", "a", 3 * time.Minute, false, 3 * time.Minute},
	}
	for _, s := range steps {
		ok, retry := l.Allow(s.ip, start.Add(s.at))
		if ok != s.ok || (retry-s.retry).Abs() > time.Second {
			t.Fatalf("%s: allow = %v, %v; want %v, %v", s.name, ok, retry, s.ok, s.retry)
		}
	}
	if ok, _ := ratelimit.New(0, 1).Allow("a", start); !ok {
		t.Fatal("a zero rate must not limit")
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want int
	}{
		{0, 1}, {time.Millisecond, 1}, {time.Second, 1}, {time.Second + time.Millisecond, 2}, {3 * time.Minute, 180},
	}
	for _, tt := range tests {
		if got := ratelimit.RetryAfterSeconds(tt.d); got != tt.want {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

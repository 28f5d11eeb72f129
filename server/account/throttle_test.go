package account

import (
	"testing"
	"time"
)

func TestThrottle(t *testing.T) {
	clock := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	th := NewThrottle(2, 10*time.Minute, 5*time.Second)
	th.now = func() time.Time { return clock }

	steps := []struct {
		name    string
		fail    bool
		advance time.Duration
		want    time.Duration
	}{
		{"first failure is free", true, 0, 0},
		{"second failure waits 1s", true, 0, time.Second},
		{"after the wait", false, time.Second, 0},
		{"third failure waits 2s", true, 0, 2 * time.Second},
		{"fourth waits 4s", true, 2 * time.Second, 4 * time.Second},
		{"fifth is capped at 5s", true, 4 * time.Second, 5 * time.Second},
		{"forgotten after the window", false, 11 * time.Minute, 0},
		{"fresh count after the window", true, 0, 0},
	}
	for _, s := range steps {
		clock = clock.Add(s.advance)
		if s.fail {
			th.Fail("k")
		}
		if got := th.Begin("k"); got != s.want {
			t.Fatalf("%s: Begin = %v, want %v", s.name, got, s.want)
		}
	}
	if got := th.Begin("other"); got != 0 {
		t.Fatalf("another key waits %v", got)
	}
	th.Fail("k")
	th.Fail("k")
	th.Reset("k")
	if got := th.Begin("k"); got != 0 {
		t.Fatalf("after Reset, Begin = %v", got)
	}
}

// TestThrottleInFlight checks that attempts in flight count as failures
// to come: with two free failures, two attempts may run at once, a third
// waits until one of them ends.
func TestThrottleInFlight(t *testing.T) {
	clock := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	th := NewThrottle(2, 10*time.Minute, time.Minute)
	th.now = func() time.Time { return clock }

	steps := []struct {
		name string
		do   func()
		want time.Duration // of the Begin that follows
	}{
		{"nothing in flight", func() {}, 0},
		{"one in flight, one free failure left", func() {}, 0},
		{"two in flight would use both", func() {}, time.Second},
		{"one succeeded", func() { th.Done("k") }, 0},
		{"one failed, one in flight", func() { th.Fail("k") }, time.Second},
		{"both failed: delayed", func() { th.Fail("k") }, time.Second},
		{"after the delay", func() { clock = clock.Add(time.Second) }, 0},
		{"that one in flight would delay", func() {}, time.Second},
		{"it failed: delayed longer", func() { th.Fail("k") }, 2 * time.Second},
		{"after the longer delay", func() { clock = clock.Add(2 * time.Second) }, 0},
		{"that one succeeded: failures forgotten", func() { th.Reset("k") }, 0},
		{"one in flight", func() {}, 0},
		{"two in flight", func() {}, time.Second},
	}
	for _, s := range steps {
		s.do()
		if got := th.Begin("k"); got != s.want {
			t.Fatalf("%s: Begin = %v, want %v", s.name, got, s.want)
		}
	}
}

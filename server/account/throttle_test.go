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
		if got := th.Wait("k"); got != s.want {
			t.Fatalf("%s: Wait = %v, want %v", s.name, got, s.want)
		}
	}
	if got := th.Wait("other"); got != 0 {
		t.Fatalf("another key waits %v", got)
	}
	th.Fail("k")
	th.Fail("k")
	th.Reset("k")
	if got := th.Wait("k"); got != 0 {
		t.Fatalf("after Reset, Wait = %v", got)
	}
}

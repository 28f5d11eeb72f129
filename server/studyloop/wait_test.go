package studyloop_test

import (
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/studyloop"
)

func TestWait(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "1 second"},
		{time.Millisecond, "1 second"},
		{time.Second, "1 second"},
		{1500 * time.Millisecond, "2 seconds"},
		{2*time.Minute - time.Second, "119 seconds"},
		{2 * time.Minute, "2 minutes"},
		{2*time.Minute + time.Second, "3 minutes"},
		{2*time.Hour - time.Minute, "119 minutes"},
		{2 * time.Hour, "2 hours"},
		{23*time.Hour + time.Second, "24 hours"},
	}
	for _, tt := range tests {
		if got := studyloop.Wait(tt.d); got != tt.want {
			t.Errorf("Wait(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

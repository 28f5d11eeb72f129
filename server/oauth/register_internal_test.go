package oauth

import "testing"

func TestRegisterBurst(t *testing.T) {
	tests := []struct{ perHour, want int }{
		{0, 1}, {4, 1}, {39, 1}, {40, 2}, {1200, 60}, {100000, 5000},
	}
	for _, tt := range tests {
		if got := registerBurst(tt.perHour); got != tt.want {
			t.Errorf("registerBurst(%d) = %d, want %d", tt.perHour, got, tt.want)
		}
	}
}

package studyloop

import (
	"math"
	"testing"
)

func TestCommas(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{0, "0"},
		{7, "7"},
		{999, "999"},
		{1000, "1,000"},
		{12345, "12,345"},
		{400000, "400,000"},
		{1234567, "1,234,567"},
		{-1, "-1"},
		{-1234, "-1,234"},
		{-123456, "-123,456"},
		{math.MaxInt64, "9,223,372,036,854,775,807"},
	}
	for _, tt := range tests {
		if got := Commas(tt.n); got != tt.want {
			t.Errorf("Commas(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

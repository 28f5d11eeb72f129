package studyloop

import (
	"math"
	"strconv"
	"time"
)

// Wait says how long d is in words for a message such as "try again in
// 3 minutes", rounded up: seconds below two minutes, minutes below two
// hours, hours beyond. It is never less than "1 second".
func Wait(d time.Duration) string {
	unit := func(n float64, one string) string {
		c := max(1, int(math.Ceil(n)))
		if c == 1 {
			return "1 " + one
		}
		return strconv.Itoa(c) + " " + one + "s"
	}
	switch {
	case d < 2*time.Minute:
		return unit(d.Seconds(), "second")
	case d < 2*time.Hour:
		return unit(d.Minutes(), "minute")
	}
	return unit(d.Hours(), "hour")
}

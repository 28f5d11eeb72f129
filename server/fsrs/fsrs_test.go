package fsrs

import (
	"math"
	"testing"
	"time"
)

// t0 is an arbitrary fixed instant; the scheduler never reads the clock.
var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// step is one answer of a sequence: a rating given after a wait.
type step struct {
	after time.Duration
	r     Rating
}

// answer applies ratings in order, each after the given wait, and returns
// the final card.
func answer(t *testing.T, s *Scheduler, steps ...step) (Card, time.Time) {
	t.Helper()
	var c Card
	now := t0
	for _, st := range steps {
		now = now.Add(st.after)
		var err error
		if c, _, err = s.Next(c, st.r, now); err != nil {
			t.Fatalf("Next: %v", err)
		}
	}
	return c, now
}

func TestFirstAnswer(t *testing.T) {
	// Check values: S0(G) = w[G-1]; D0(G) = w4 − e^(w5·(G−1)) + 1 clamped to
	// [1, 10]; new cards step through 1 min and 10 min, Easy graduates with
	// round(S0(Easy)) = 8 days.
	tests := []struct {
		r         Rating
		stability float64
		diff      float64
		state     State
		wait      time.Duration
	}{
		{Again, 0.212, 6.4133, Learning, time.Minute},
		{Hard, 1.2931, 5.112171, Learning, 5*time.Minute + 30*time.Second},
		{Good, 2.3065, 2.118104, Learning, 10 * time.Minute},
		{Easy, 8.2956, 1, Review, 8 * day},
	}
	s := Default()
	for _, tt := range tests {
		t.Run(tt.r.String(), func(t *testing.T) {
			c, log, err := s.Next(Card{}, tt.r, t0)
			if err != nil {
				t.Fatal(err)
			}
			if !near(c.Stability, tt.stability, 1e-6) {
				t.Errorf("stability=%v, want %v", c.Stability, tt.stability)
			}
			if !near(c.Difficulty, tt.diff, 1e-6) {
				t.Errorf("difficulty=%v, want %v", c.Difficulty, tt.diff)
			}
			if c.State != tt.state {
				t.Errorf("state=%v, want %v", c.State, tt.state)
			}
			if got := c.Due.Sub(t0); got != tt.wait {
				t.Errorf("due in %v, want %v", got, tt.wait)
			}
			if c.Reps != 1 || c.Lapses != 0 || !c.LastReview.Equal(t0) {
				t.Errorf("reps=%d lapses=%d last=%v, want 1 0 %v", c.Reps, c.Lapses, c.LastReview, t0)
			}
			if log.State != New || log.Rating != tt.r || log.ElapsedDays != 0 || !log.ReviewedAt.Equal(t0) {
				t.Errorf("log=%+v", log)
			}
			if got, want := log.ScheduledDays, tt.wait.Hours()/24; !near(got, want, 1e-9) {
				t.Errorf("log scheduled days=%v, want %v", got, want)
			}
		})
	}
}

func TestRetrievability(t *testing.T) {
	s := Default()
	tests := []struct {
		name      string
		stability float64
		elapsed   time.Duration
		want      float64
	}{
		{"at stability 2.3065", 2.3065, 199_281_600 * time.Millisecond, 0.9},
		{"at stability 30", 30, 30 * day, 0.9},
		{"at stability 365", 365, 365 * day, 0.9},
		{"just reviewed", 5, 0, 1},
		{"first Good after 7 days", 2.3065, 7 * day, 0.808310},
		{"stability 30 after 7 days", 30, 7 * day, 0.968735},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Card{State: Review, Stability: tt.stability, LastReview: t0}
			if got := s.Retrievability(c, t0.Add(tt.elapsed)); !near(got, tt.want, 1e-5) {
				t.Errorf("R=%v, want %v", got, tt.want)
			}
		})
	}
	if got := s.Retrievability(Card{}, t0); got != 0 {
		t.Errorf("new card R=%v, want 0", got)
	}
	// Recall probability falls as time passes.
	c := Card{State: Review, Stability: 3, LastReview: t0}
	prev := 1.1
	for d := 0; d < 60; d += 3 {
		r := s.Retrievability(c, t0.Add(time.Duration(d)*day))
		if r >= prev || r <= 0 {
			t.Fatalf("R(%d d)=%v after %v: not strictly falling in (0,1]", d, r, prev)
		}
		prev = r
	}
}

func TestSequences(t *testing.T) {
	// Expected values come from the FSRS-6 formulas with default weights
	// (worked out independently from the published formulas).
	tests := []struct {
		name       string
		steps      []step
		stability  float64
		difficulty float64
		state      State
		step       int
		wait       time.Duration
		lapses     int
	}{
		{
			name:       "good then good graduates, short-term never lowers S",
			steps:      []step{{0, Good}, {10 * time.Minute, Good}},
			stability:  2.3065,
			difficulty: 2.111214,
			state:      Review,
			wait:       2 * day,
		},
		{
			name:       "review good after two days",
			steps:      []step{{0, Good}, {10 * time.Minute, Good}, {2 * day, Good}},
			stability:  10.971048,
			difficulty: 2.104331,
			state:      Review,
			wait:       11 * day,
		},
		{
			name:       "review hard after two days",
			steps:      []step{{0, Good}, {10 * time.Minute, Good}, {2 * day, Hard}},
			stability:  7.517359,
			state:      Review,
			wait:       8 * day,
			difficulty: -1, // not checked
		},
		{
			name:       "review easy after two days",
			steps:      []step{{0, Good}, {10 * time.Minute, Good}, {2 * day, Easy}},
			stability:  18.534332,
			state:      Review,
			wait:       19 * day,
			difficulty: -1,
		},
		{
			name:       "lapse after two days relearns",
			steps:      []step{{0, Good}, {10 * time.Minute, Good}, {2 * day, Again}},
			stability:  0.607702,
			difficulty: 7.392238,
			state:      Relearning,
			wait:       10 * time.Minute,
			lapses:     1,
		},
		{
			name:       "relearning good returns to review",
			steps:      []step{{0, Good}, {10 * time.Minute, Good}, {2 * day, Again}, {10 * time.Minute, Good}},
			stability:  0.659798, // same-day Good: S·e^(w17·w18)·S^(−w19)
			state:      Review,
			wait:       day,
			lapses:     1,
			difficulty: -1,
		},
		{
			name:       "again while learning restarts steps",
			steps:      []step{{0, Good}, {10 * time.Minute, Again}},
			stability:  0.775084,
			difficulty: 7.394503,
			state:      Learning,
			wait:       time.Minute,
		},
		{
			name:       "hard on second step waits that step",
			steps:      []step{{0, Good}, {10 * time.Minute, Hard}},
			stability:  2.3065,
			state:      Learning,
			step:       1,
			wait:       10 * time.Minute,
			difficulty: -1,
		},
	}
	s := Default()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, now := answer(t, s, tt.steps...)
			if !near(c.Stability, tt.stability, 1e-5) {
				t.Errorf("stability=%v, want %v", c.Stability, tt.stability)
			}
			if tt.difficulty >= 0 && !near(c.Difficulty, tt.difficulty, 1e-5) {
				t.Errorf("difficulty=%v, want %v", c.Difficulty, tt.difficulty)
			}
			if c.State != tt.state || c.Step != tt.step {
				t.Errorf("state=%v step=%d, want %v %d", c.State, c.Step, tt.state, tt.step)
			}
			if got := c.Due.Sub(now); got != tt.wait {
				t.Errorf("due in %v, want %v", got, tt.wait)
			}
			if c.Lapses != tt.lapses || c.Reps != len(tt.steps) {
				t.Errorf("lapses=%d reps=%d, want %d %d", c.Lapses, c.Reps, tt.lapses, len(tt.steps))
			}
		})
	}
}

func TestIntervalMeetsDesiredRetention(t *testing.T) {
	// With retention 0.9 the interval is round(S): recall probability at the
	// due time stays within rounding of 0.9.
	s := Default()
	for _, stability := range []float64{1.6, 4.2, 10.97, 57.3, 400} {
		c := Card{State: Review, Stability: stability, LastReview: t0}
		due := t0.Add(s.interval(stability))
		if got, want := due.Sub(t0), time.Duration(math.Round(stability))*day; got != want {
			t.Errorf("S=%v: interval %v, want %v", stability, got, want)
		}
		if r := s.Retrievability(c, due); !near(r, 0.9, 0.02) {
			t.Errorf("S=%v: R at due=%v, want about 0.9", stability, r)
		}
	}
	if got, want := s.interval(1e9), 36500*day; got != want {
		t.Errorf("interval capped at %v, want %v", got, want)
	}
	if got, want := s.interval(0.01), day; got != want {
		t.Errorf("shortest interval %v, want %v", got, want)
	}
}

func TestDesiredRetentionOption(t *testing.T) {
	// A higher desired retention gives shorter intervals.
	strict, err := NewScheduler(&Options{DesiredRetention: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := strict.interval(30), Default().interval(30); a >= b {
		t.Errorf("retention 0.95 interval %v not shorter than 0.9 interval %v", a, b)
	}
	bad := []*Options{
		{DesiredRetention: 1},
		{DesiredRetention: -0.2},
		{MaximumIntervalDays: 0.5},
		{Weights: &[21]float64{20: -1}},
		{Weights: &[21]float64{3: math.NaN(), 20: 0.1}},
	}
	for i, o := range bad {
		if _, err := NewScheduler(o); err == nil {
			t.Errorf("bad options %d accepted", i)
		}
	}
}

func TestInvalidRating(t *testing.T) {
	s := Default()
	for _, r := range []Rating{0, 5, -1} {
		c := Card{State: Review, Stability: 3, Difficulty: 5, Reps: 4, LastReview: t0}
		got, _, err := s.Next(c, r, t0.Add(day))
		if err == nil {
			t.Errorf("rating %d accepted", r)
		}
		if got != c {
			t.Errorf("rating %d changed the card: %+v", r, got)
		}
	}
}

func TestParseRating(t *testing.T) {
	tests := []struct {
		in   string
		want Rating
		ok   bool
	}{
		{"again", Again, true}, {"1", Again, true}, {"hard", Hard, true},
		{"good", Good, true}, {"3", Good, true}, {"easy", Easy, true}, {"4", Easy, true},
		{"", 0, false}, {"5", 0, false}, {"Good ", 0, false}, {"0", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseRating(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseRating(%q)=%v,%v want %v ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	for r, want := range map[Rating]bool{Again: false, Hard: true, Good: true, Easy: true, 0: false, 5: false} {
		if r.Passed() != want {
			t.Errorf("%v.Passed()=%v", r, !want)
		}
	}
}

func TestStabilityGrowsWithSuccessfulReviews(t *testing.T) {
	// Answering Good at each due date lengthens the interval every time and
	// keeps difficulty in [1, 10].
	s := Default()
	var c Card
	now := t0
	prevWait := time.Duration(0)
	for i := 0; i < 12; i++ {
		var err error
		if c, _, err = s.Next(c, Good, now); err != nil {
			t.Fatal(err)
		}
		wait := c.Due.Sub(now)
		if c.State == Review && wait <= prevWait {
			t.Fatalf("review %d: wait %v not longer than %v", i, wait, prevWait)
		}
		if c.Difficulty < 1 || c.Difficulty > 10 {
			t.Fatalf("difficulty %v out of range", c.Difficulty)
		}
		if c.State == Review {
			prevWait = wait
		}
		now = c.Due
	}
}

func BenchmarkNext(b *testing.B) {
	s := Default()
	c := Card{State: Review, Stability: 12, Difficulty: 5, Reps: 6, LastReview: t0}
	now := t0.Add(10 * day)
	for b.Loop() {
		if _, _, err := s.Next(c, Good, now); err != nil {
			b.Fatal(err)
		}
	}
}

// The forgetting curve is computed through exp and log rather than
// math.Pow; it must agree with the formula as math.Pow evaluates it, to the
// last bit for the default decay and within a few units of rounding for
// others.
func TestForgettingCurveAgreesWithPow(t *testing.T) {
	for _, w20 := range []float64{0.1, DefaultWeights[20], 0.5, 0.8} {
		w := DefaultWeights
		w[20] = w20
		s, err := NewScheduler(&Options{Weights: &w})
		if err != nil {
			t.Fatal(err)
		}
		for _, stability := range []float64{0.001, 0.4, 2.3065, 30, 36500} {
			for _, days := range []float64{0, 1.0 / 1440, 0.5, 7, 365, 1e5} {
				got := s.forgettingCurve(days, stability)
				want := math.Pow(1+s.factor*days/stability, -w20)
				if w20 == DefaultWeights[20] && got != want || !near(got, want, want*1e-14) {
					t.Errorf("w20=%v S=%v t=%v: %v, math.Pow gives %v", w20, stability, days, got, want)
				}
			}
		}
	}
}

// BenchmarkRetrievability measures one recall probability, which mastery
// computes for every answered question on every read.
func BenchmarkRetrievability(b *testing.B) {
	s := Default()
	c := Card{State: Review, Stability: 12.5, LastReview: t0}
	at := t0.Add(9 * day)
	var sum float64
	for b.Loop() {
		sum += s.Retrievability(c, at)
	}
	if sum < 0 {
		b.Fatal(sum)
	}
}

// Package fsrs schedules practice questions with FSRS-6, the Free Spaced
// Repetition Scheduler, implemented from its published formulas
// (open-spaced-repetition/go-fsrs arithmetic.go and py-fsrs) with the 21
// default weights, a desired retention of 0.9 and no interval fuzz.
//
// The scheduler never reads the clock: every call is given the time it
// happens at, so the same answers at the same times always give the same
// schedule.
//
// Time is measured in real elapsed days (fractions included). A review less
// than a day after the previous one is a same-day review and uses FSRS-6's
// short-term stability formula; longer gaps use the long-term formulas.
// Questions being learned or relearned step through short learning steps
// (1 and 10 minutes, relearning 10 minutes) before they graduate to
// day-scale intervals.
package fsrs

import (
	"fmt"
	"math"
	"time"
)

// Rating is the grade a student gives an answer.
type Rating int

// The four FSRS grades. Again is a failure; Hard, Good and Easy are passes.
const (
	Again Rating = 1
	Hard  Rating = 2
	Good  Rating = 3
	Easy  Rating = 4
)

// Valid reports whether r is one of the four grades.
func (r Rating) Valid() bool { return r >= Again && r <= Easy }

// Passed reports whether r counts as a successful recall (Hard or better),
// the rule Anki uses for retention and that streaks use here.
func (r Rating) Passed() bool { return r >= Hard && r <= Easy }

func (r Rating) String() string {
	switch r {
	case Again:
		return "again"
	case Hard:
		return "hard"
	case Good:
		return "good"
	case Easy:
		return "easy"
	}
	return fmt.Sprintf("rating(%d)", int(r))
}

// ParseRating reads a rating from its name ("again", "hard", "good",
// "easy") or its number ("1".."4").
func ParseRating(s string) (Rating, error) {
	for r := Again; r <= Easy; r++ {
		if s == r.String() || s == fmt.Sprint(int(r)) {
			return r, nil
		}
	}
	return 0, fmt.Errorf("fsrs: unknown rating %q", s)
}

// State is where a card is in its learning.
type State int

// Card states. New cards have never been answered.
const (
	New        State = 0
	Learning   State = 1
	Review     State = 2
	Relearning State = 3
)

func (s State) String() string {
	switch s {
	case New:
		return "new"
	case Learning:
		return "learning"
	case Review:
		return "review"
	case Relearning:
		return "relearning"
	}
	return fmt.Sprintf("state(%d)", int(s))
}

// Card is the memory state of one question for one student. The zero Card
// is a new card, due at once.
type Card struct {
	Due        time.Time // when the card should next be shown; zero for new cards
	Stability  float64   // days until recall probability falls to 90%
	Difficulty float64   // 1 (easy) .. 10 (hard)
	Reps       int       // answers given
	Lapses     int       // times forgotten after graduating to Review
	State      State
	Step       int       // index of the current (re)learning step
	LastReview time.Time // zero for new cards
}

// Log describes one review as it happened, for the review history.
type Log struct {
	Rating        Rating
	State         State     // the card's state before the review
	ReviewedAt    time.Time // when the answer was given
	ElapsedDays   float64   // days since the previous review, 0 for a new card
	ScheduledDays float64   // days from this review to the new due time
}

// Scheduler computes card states. The zero Scheduler is not usable; use
// Default or New.
type Scheduler struct {
	w                [21]float64
	retention        float64
	maxIntervalDays  float64
	learningSteps    []time.Duration
	relearningSteps  []time.Duration
	decay, factor    float64
	intervalModifier float64
}

// DefaultWeights are the 21 FSRS-6 default parameters w0..w20: the medians
// over the 10,000 collections of the srs-benchmark.
var DefaultWeights = [21]float64{
	0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666,
	0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658,
	0.1542,
}

// Options adjusts a Scheduler. A nil *Options, or any zero field, means the
// default.
type Options struct {
	// Weights are the 21 FSRS-6 parameters. Zero value: DefaultWeights.
	Weights *[21]float64
	// DesiredRetention is the recall probability at which a review is
	// scheduled, in (0, 1). Zero value: 0.9.
	DesiredRetention float64
	// MaximumIntervalDays caps every interval. Zero value: 36500.
	MaximumIntervalDays float64
	// LearningSteps are the waits between answers of a new card before it
	// graduates. Nil: 1 minute, 10 minutes.
	LearningSteps []time.Duration
	// RelearningSteps are the waits after a lapse before the card returns to
	// Review. Nil: 10 minutes.
	RelearningSteps []time.Duration
}

// Limits of the model state.
const (
	minStability  = 0.001
	maxStability  = 36500.0
	minDifficulty = 1.0
	maxDifficulty = 10.0
	day           = 24 * time.Hour
)

// Default returns the FSRS-6 scheduler with default weights, retention 0.9
// and no fuzz.
func Default() *Scheduler {
	s, err := NewScheduler(nil)
	if err != nil {
		panic(err) // the defaults are valid
	}
	return s
}

// NewScheduler returns a scheduler with the given options, or an error when
// they are out of range.
func NewScheduler(opts *Options) (*Scheduler, error) {
	if opts == nil {
		opts = &Options{}
	}
	s := &Scheduler{
		w:               DefaultWeights,
		retention:       0.9,
		maxIntervalDays: 36500,
		learningSteps:   []time.Duration{time.Minute, 10 * time.Minute},
		relearningSteps: []time.Duration{10 * time.Minute},
	}
	if opts.Weights != nil {
		s.w = *opts.Weights
	}
	if opts.DesiredRetention != 0 {
		s.retention = opts.DesiredRetention
	}
	if opts.MaximumIntervalDays != 0 {
		s.maxIntervalDays = opts.MaximumIntervalDays
	}
	if opts.LearningSteps != nil {
		s.learningSteps = opts.LearningSteps
	}
	if opts.RelearningSteps != nil {
		s.relearningSteps = opts.RelearningSteps
	}
	switch {
	case !(s.retention > 0 && s.retention < 1):
		return nil, fmt.Errorf("fsrs: desired retention %v is not in (0, 1)", s.retention)
	case !(s.maxIntervalDays >= 1):
		return nil, fmt.Errorf("fsrs: maximum interval %v is below one day", s.maxIntervalDays)
	case !(s.w[20] > 0):
		return nil, fmt.Errorf("fsrs: decay weight w20=%v must be positive", s.w[20])
	}
	for i, v := range s.w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("fsrs: weight w%d is not a finite number", i)
		}
	}
	s.decay = -s.w[20]
	s.factor = math.Pow(0.9, 1/s.decay) - 1
	s.intervalModifier = (math.Pow(s.retention, 1/s.decay) - 1) / s.factor
	return s, nil
}

// Retrievability is the probability that the card is recalled at the given
// time: (1 + factor·t/S)^(−w20), with t the days since the last review. It
// is 0 for a new card.
func (s *Scheduler) Retrievability(c Card, at time.Time) float64 {
	if c.State == New || c.LastReview.IsZero() {
		return 0
	}
	return s.forgettingCurve(elapsedDays(c.LastReview, at), c.Stability)
}

// Next returns the card after an answer rated r given at now, and the log
// of that review. It returns an error only for an invalid rating.
func (s *Scheduler) Next(c Card, r Rating, now time.Time) (Card, Log, error) {
	if !r.Valid() {
		return c, Log{}, fmt.Errorf("fsrs: invalid rating %d", int(r))
	}
	log := Log{Rating: r, State: c.State, ReviewedAt: now}
	next := c
	elapsed := 0.0
	if c.State != New && !c.LastReview.IsZero() {
		elapsed = elapsedDays(c.LastReview, now)
	}
	log.ElapsedDays = elapsed

	// Memory state: stability and difficulty.
	switch {
	case c.State == New:
		next.Stability = s.initialStability(r)
		next.Difficulty = clampDifficulty(s.initialDifficulty(r))
	case elapsed < 1:
		next.Stability = s.shortTermStability(c.Stability, r)
		next.Difficulty = s.nextDifficulty(c.Difficulty, r)
	default:
		R := s.forgettingCurve(elapsed, c.Stability)
		if r == Again {
			next.Stability = s.forgetStability(c.Difficulty, c.Stability, R)
		} else {
			next.Stability = s.recallStability(c.Difficulty, c.Stability, R, r)
		}
		next.Difficulty = s.nextDifficulty(c.Difficulty, r)
	}

	// Scheduling: state, step and due time.
	var wait time.Duration
	switch c.State {
	case New, Learning:
		step := c.Step
		if c.State == New {
			step = 0
		}
		next.State, next.Step, wait = s.stepThrough(s.learningSteps, Learning, step, r, next.Stability)
	case Relearning:
		next.State, next.Step, wait = s.stepThrough(s.relearningSteps, Relearning, c.Step, r, next.Stability)
	case Review:
		if r == Again {
			next.Lapses++
			if len(s.relearningSteps) > 0 {
				next.State, next.Step, wait = Relearning, 0, s.relearningSteps[0]
				break
			}
		}
		next.State, next.Step, wait = Review, 0, s.interval(next.Stability)
	default:
		return c, Log{}, fmt.Errorf("fsrs: card in unknown state %d", int(c.State))
	}
	next.Reps++
	next.LastReview = now
	next.Due = now.Add(wait)
	log.ScheduledDays = wait.Hours() / 24
	return next, log, nil
}

// stepThrough moves a card in (re)learning through its steps and returns
// its new state, step and wait. A card past its last step, or rated Easy,
// graduates to Review.
func (s *Scheduler) stepThrough(steps []time.Duration, state State, step int, r Rating, stability float64) (State, int, time.Duration) {
	graduate := func() (State, int, time.Duration) { return Review, 0, s.interval(stability) }
	if len(steps) == 0 || (step >= len(steps) && r != Again) {
		return graduate()
	}
	switch r {
	case Again:
		return state, 0, steps[0]
	case Hard:
		switch {
		case step == 0 && len(steps) == 1:
			return state, step, steps[0] * 3 / 2
		case step == 0:
			return state, step, (steps[0] + steps[1]) / 2
		}
		return state, step, steps[step]
	case Good:
		if step+1 >= len(steps) {
			return graduate()
		}
		return state, step + 1, steps[step+1]
	}
	return graduate()
}

// interval is the wait, in whole days, until recall probability falls to
// the desired retention: S/factor·(r^(1/decay) − 1), rounded, at least one
// day and at most the maximum interval.
func (s *Scheduler) interval(stability float64) time.Duration {
	days := math.Round(clampStability(stability) * s.intervalModifier)
	days = min(max(days, 1), s.maxIntervalDays)
	return time.Duration(days) * day
}

// forgettingCurve is (1 + factor·t/S)^decay, computed as 1/e^(−decay·ln x):
// for exponents in [−0.5, 0), the defaults' included, math.Pow takes this
// very route and gives the same bits, but its general bookkeeping makes it
// about three times slower, and mastery evaluates the curve for every
// answered question on every read.
func (s *Scheduler) forgettingCurve(elapsedDays, stability float64) float64 {
	return 1 / math.Exp(-s.decay*math.Log(1+s.factor*elapsedDays/clampStability(stability)))
}

// initialStability is S0(G) = w[G−1], at least 0.1.
func (s *Scheduler) initialStability(r Rating) float64 {
	return clampStability(max(s.w[r-1], 0.1))
}

// initialDifficulty is D0(G) = w4 − e^(w5·(G−1)) + 1, unclamped.
func (s *Scheduler) initialDifficulty(r Rating) float64 {
	return s.w[4] - math.Exp(s.w[5]*float64(r-1)) + 1
}

// nextDifficulty applies ΔD = −w6·(G−3) with linear damping, then mean
// reversion towards D0(Easy).
func (s *Scheduler) nextDifficulty(d float64, r Rating) float64 {
	delta := -s.w[6] * float64(r-3)
	damped := d + delta*(10-d)/9
	return clampDifficulty(s.w[7]*s.initialDifficulty(Easy) + (1-s.w[7])*damped)
}

// shortTermStability is the same-day update S·e^(w17·(G−3+w18))·S^(−w19);
// a pass never lowers stability.
func (s *Scheduler) shortTermStability(stability float64, r Rating) float64 {
	stability = clampStability(stability)
	inc := math.Exp(s.w[17]*(float64(r-3)+s.w[18])) * math.Pow(stability, -s.w[19])
	if r >= Hard {
		inc = max(inc, 1)
	}
	return clampStability(stability * inc)
}

// recallStability is the stability after a successful recall.
func (s *Scheduler) recallStability(d, stability, R float64, r Rating) float64 {
	hardPenalty, easyBonus := 1.0, 1.0
	if r == Hard {
		hardPenalty = s.w[15]
	}
	if r == Easy {
		easyBonus = s.w[16]
	}
	return clampStability(stability * (1 + math.Exp(s.w[8])*(11-d)*math.Pow(stability, -s.w[9])*
		(math.Exp(s.w[10]*(1-R))-1)*hardPenalty*easyBonus))
}

// forgetStability is the stability after a lapse, capped so that it never
// exceeds what a same-day Again would give.
func (s *Scheduler) forgetStability(d, stability, R float64) float64 {
	longTerm := s.w[11] * math.Pow(d, -s.w[12]) * (math.Pow(stability+1, s.w[13]) - 1) * math.Exp(s.w[14]*(1-R))
	shortTermCap := stability / math.Exp(s.w[17]*s.w[18])
	return clampStability(min(longTerm, shortTermCap))
}

func elapsedDays(from, to time.Time) float64 {
	return max(to.Sub(from).Hours()/24, 0)
}

func clampStability(v float64) float64  { return min(max(v, minStability), maxStability) }
func clampDifficulty(v float64) float64 { return min(max(v, minDifficulty), maxDifficulty) }

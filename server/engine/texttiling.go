package engine

import (
	"math"
)

// TextTiling (Hearst 1997), reimplemented: at every paragraph break of a
// run of blocks, the cosine similarity of the content stems in a window of
// up to tilingK pseudo-sentences of tilingW tokens on either side measures
// lexical cohesion; breaks whose depth (how far the similarity dips below
// the peaks around it) exceeds mean - sd/2 and is a local maximum become
// boundaries. Scoring at paragraph breaks rather than at every
// pseudo-sentence gap snaps boundaries to them exactly.
const (
	tilingW     = 20
	tilingK     = 10
	depthClimb  = 100 // how many gaps a depth score climbs at most, keeping the pass linear
	splitBudget = 64  // recursion bound when splitting over-long segments
)

// tile splits blocks into topic segments of at least minWords words where
// the text allows, and no segment above maxWords unless it is one block. It
// returns the index of the first block of each segment, starting with 0.
func tile(blocks []*block, minWords, maxWords int) []int {
	if len(blocks) == 0 {
		return nil
	}
	var stream []int
	blockAt := make([]int, len(blocks)) // token index where each block starts
	for i, b := range blocks {
		blockAt[i] = len(stream)
		stream = append(stream, b.stems...)
	}
	// Gaps sit at block starts: boundaries only ever fall on paragraph
	// breaks, so scoring there snaps them exactly.
	depth := depthScores(stream, blockAt[1:])
	blockDepth := make([]float64, len(blocks)) // depth at the start of each block
	copy(blockDepth[1:], depth)
	starts, strength := []int{0}, []float64{math.Inf(1)}
	if len(depth) > 0 {
		mean, sd := meanSD(depth)
		cut := mean - sd/2
		for g, d := range depth {
			peak := (g == 0 || d >= depth[g-1]) && (g+1 == len(depth) || d >= depth[g+1])
			if d > cut && d > 0 && peak {
				starts, strength = append(starts, g+1), append(strength, d)
			}
		}
	}
	starts = mergeShort(blocks, starts, strength, minWords)
	var out []int
	for i, s := range starts {
		end := len(blocks)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		out = splitLong(blocks, blockDepth, s, end, maxWords, out, splitBudget)
	}
	return out
}

// depthScores returns the depth score at each gap, a token position in
// stream.
func depthScores(stream []int, gapAt []int) []float64 {
	gaps := len(gapAt)
	if gaps == 0 {
		return nil
	}
	left := map[int]int{}
	right := map[int]int{}
	// Short texts compare shorter windows, so that more than one gap has
	// distinct text on either side.
	window := max(tilingW, min(tilingW*tilingK, len(stream)/6))
	sim := make([]float64, gaps)
	for g, pos := range gapAt {
		lo, hi := max(0, pos-window), min(len(stream), pos+window)
		clear(left)
		clear(right)
		for _, s := range stream[lo:pos] {
			left[s]++
		}
		for _, s := range stream[pos:hi] {
			right[s]++
		}
		var dot, nl, nr int // integer sums: independent of map order
		for s, c := range left {
			nl += c * c
			dot += c * right[s]
		}
		for _, c := range right {
			nr += c * c
		}
		if nl > 0 && nr > 0 {
			sim[g] = float64(dot) / math.Sqrt(float64(nl)*float64(nr))
		}
	}
	depth := make([]float64, gaps)
	for g := range gaps {
		lp, rp := sim[g], sim[g]
		for k := g - 1; k >= 0 && g-k <= depthClimb && sim[k] >= lp; k-- {
			lp = sim[k]
		}
		for k := g + 1; k < gaps && k-g <= depthClimb && sim[k] >= rp; k++ {
			rp = sim[k]
		}
		depth[g] = (lp - sim[g]) + (rp - sim[g])
	}
	return depth
}

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)))
}

// mergeShort drops boundaries that would leave a segment under minWords,
// keeping the stronger of two boundaries that fall too close together.
func mergeShort(blocks []*block, starts []int, strength []float64, minWords int) []int {
	prefix := make([]int, len(blocks)+1)
	for i, b := range blocks {
		prefix[i+1] = prefix[i] + b.words
	}
	words := func(from, to int) int { return prefix[to] - prefix[from] }
	out, outStrength := []int{0}, []float64{math.Inf(1)}
	for i, s := range starts[1:] {
		last := len(out) - 1
		switch {
		case words(out[last], s) >= minWords:
			out, outStrength = append(out, s), append(outStrength, strength[i+1])
		case strength[i+1] > outStrength[last]:
			out[last], outStrength[last] = s, strength[i+1]
		}
	}
	for len(out) > 1 && words(out[len(out)-1], len(blocks)) < minWords {
		out = out[:len(out)-1]
	}
	return out
}

// splitLong appends the starts of blocks[from:to], split at the deepest
// block boundaries until no part exceeds maxWords or is a single block.
func splitLong(blocks []*block, depth []float64, from, to, maxWords int, out []int, budget int) []int {
	total := 0
	for _, b := range blocks[from:to] {
		total += b.words
	}
	if total <= maxWords || to-from < 2 || budget <= 0 {
		return append(out, from)
	}
	// The deepest boundary that leaves each side at least a quarter.
	best, bestDepth, seen := -1, -1.0, 0
	for i := from; i < to; i++ {
		if i > from && seen >= total/4 && total-seen >= total/4 && depth[i] > bestDepth {
			best, bestDepth = i, depth[i]
		}
		seen += blocks[i].words
	}
	if best < 0 { // uneven blocks: cut where the words are halved
		seen = 0
		for i := from; i < to; i++ {
			if i > from && seen >= total/2 {
				best = i
				break
			}
			seen += blocks[i].words
		}
		if best < 0 {
			best = to - 1
		}
	}
	out = splitLong(blocks, depth, from, best, maxWords, out, budget/2)
	return splitLong(blocks, depth, best, to, maxWords, out, budget/2)
}

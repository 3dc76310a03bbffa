package report

import (
	"math/rand/v2"
)

// Agreement reports whether each of figs' medians lies inside every
// other's interval (agree) and whether every two intervals overlap.
func Agreement(figs []Figure) (agree, overlap bool) {
	agree, overlap = true, true
	for i, f := range figs {
		for j, g := range figs {
			if i != j && (f.Median < g.Lo || f.Median > g.Hi) {
				agree = false
			}
			if f.Hi < g.Lo || g.Hi < f.Lo {
				overlap = false
			}
		}
	}
	return agree, overlap
}

// ChanceTrials is the simulated comparisons behind chance: enough for its
// shares to hold within about a per cent either way.
const ChanceTrials = 4000

// Chance is the share of comparisons of runs invocations of n blocks each
// that agree, and that overlap, when every block is drawn independently
// from one normal distribution: the best a machine without any drift from
// one invocation to the next would do under agreement's rules. The seed is
// fixed, so the documents render the same each time.
func Chance(n, runs int) (agree, overlap float64) {
	if n < 1 || runs < 2 {
		return 1, 1
	}
	r := rand.New(rand.NewPCG(1, 2))
	figs := make([]Figure, runs)
	v := make([]float64, n)
	na, no := 0, 0
	for range ChanceTrials {
		for i := range figs {
			for j := range v {
				v[j] = r.NormFloat64()
			}
			figs[i] = figureOf(v)
		}
		a, o := Agreement(figs)
		na, no = na+b2i(a), no+b2i(o)
	}
	return float64(na) / ChanceTrials, float64(no) / ChanceTrials
}

// b2i counts a true as one.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Medians is the median of each of figs.
func Medians(figs []Figure) []float64 {
	v := make([]float64, len(figs))
	for i, f := range figs {
		v[i] = f.Median
	}
	return v
}

package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// Confidence is the level of the intervals the bench reports.
const Confidence = 0.95

// A Spread summarises the values of several rounds: their median, range,
// count, and a distribution-free confidence interval of the median.
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
	// Lo and Hi bound the median at level Level: the k-th smallest and the
	// k-th largest value, k the largest rank for which a binomial(N, ½)
	// leaves at most (1-Confidence)/2 below it. No assumption is made about
	// the values' distribution, only that the rounds are independent. Below
	// 6 rounds no k reaches 95 %: the interval is the range, at its own
	// level (1 - 2·½^N).
	Lo    float64 `json:"ci_lo"`
	Hi    float64 `json:"ci_hi"`
	Level float64 `json:"ci_level"`
}

// SpreadOf returns the spread of v: the median is the middle value, or the
// mean of the two middle ones for an even count; all zero for no values.
func SpreadOf(v []float64) Spread {
	if len(v) == 0 {
		return Spread{}
	}
	v = slices.Clone(v)
	slices.Sort(v)
	n := len(v)
	s := Spread{Min: v[0], Max: v[n-1], N: n}
	if n%2 == 0 {
		s.Median = (v[n/2-1] + v[n/2]) / 2
	} else {
		s.Median = v[n/2]
	}
	k, level := medianRank(n, Confidence)
	s.Lo, s.Hi, s.Level = v[k-1], v[n-k], level
	return s
}

// medianRank returns the rank k (1-based) of the order statistics that
// bound the median of n values at a level of at least conf, the largest
// such k, and the exact level: P(k ≤ B < n-k+1) for B ~ binomial(n, ½),
// which is 1 - 2·P(B ≤ k-1). When even k = 1 falls short, it returns 1 and
// the range's level.
func medianRank(n int, conf float64) (int, float64) {
	// tail(j) = P(B ≤ j), each term in logs so that large n cannot overflow.
	tail := func(j int) float64 {
		p := 0.0
		for i := 0; i <= j; i++ {
			lg, _ := math.Lgamma(float64(n + 1))
			li, _ := math.Lgamma(float64(i + 1))
			lr, _ := math.Lgamma(float64(n - i + 1))
			p += math.Exp(lg - li - lr - float64(n)*math.Ln2)
		}
		return p
	}
	k := 1
	for k+1 <= (n+1)/2 && 1-2*tail(k) >= conf {
		k++
	}
	return k, 1 - 2*tail(k-1)
}

// IntervalName says what the interval of n rounds is.
func IntervalName(n int) string {
	if _, level := medianRank(n, Confidence); n >= 6 && level >= Confidence {
		return fmt.Sprintf("the %.0f %% confidence interval of the median (order statistics, distribution-free)", 100*Confidence)
	}
	return "the range (min–max): too few rounds for a 95 % interval"
}

// A Figure is one quantity over the rounds of a run: every round's value,
// in the order the rounds ran, and their spread.
type Figure struct {
	Spread
	Rounds []float64 `json:"rounds"`
}

// UnmarshalJSON reads a figure; one written before the interval was
// recorded (no ci_level) gets its spread again from its rounds, so that
// an old results file shows its interval rather than zeros.
func (f *Figure) UnmarshalJSON(b []byte) error {
	type plain Figure
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*f = Figure(p)
	if f.Level == 0 && len(f.Rounds) > 0 && !slices.ContainsFunc(f.Rounds, math.IsNaN) {
		*f = FigureOf(f.Rounds)
	}
	return nil
}

// FigureOf returns the figure of the rounds v.
func FigureOf(v []float64) Figure { return Figure{SpreadOf(v), v} }

// Straddles reports whether the figure's confidence interval includes x: a
// ratio whose interval includes 1 (or a difference whose interval includes
// 0) is not resolved by the run, a tie.
func (f Figure) Straddles(x float64) bool { return f.N > 0 && f.Lo <= x && x <= f.Hi }

// HalfWidth is the interval's larger distance from the median, relative to
// the median: 0.03 for a ratio known to ±3 %.
func (f Figure) HalfWidth() float64 {
	if f.N == 0 || f.Median == 0 {
		return math.Inf(1)
	}
	return math.Max(f.Hi-f.Median, f.Median-f.Lo) / math.Abs(f.Median)
}

// pairwise applies op to the rounds of a and b taken in pairs (round i of
// each ran in the same block), as many as both have; a pair with a NaN (a
// round that does not count, such as an unsaturated ceiling) is skipped.
func pairwise(a, b Figure, op func(x, y float64) float64) Figure {
	n := min(len(a.Rounds), len(b.Rounds))
	v := make([]float64, 0, n)
	for i := range n {
		if x, y := a.Rounds[i], b.Rounds[i]; !math.IsNaN(x) && !math.IsNaN(y) {
			v = append(v, op(x, y))
		}
	}
	return FigureOf(v)
}

// Only returns f with the rounds for which keep is false made NaN, so that
// the pairwise operations (Ratio, Diff) leave those pairs out; the spread
// is f's.
func Only(f Figure, keep func(i int) bool) Figure {
	v := make([]float64, len(f.Rounds))
	for i, x := range f.Rounds {
		v[i] = math.NaN()
		if keep(i) {
			v[i] = x
		}
	}
	return Figure{Spread: f.Spread, Rounds: v}
}

// Ratio is a over b, round by round.
func Ratio(a, b Figure) Figure {
	return pairwise(a, b, func(x, y float64) float64 {
		if y == 0 {
			return 0
		}
		return x / y
	})
}

// Diff is a minus b, round by round.
func Diff(a, b Figure) Figure { return pairwise(a, b, func(x, y float64) float64 { return x - y }) }

// Of returns the figure of f over the results, in their order.
func Of(rs []Result, f func(Result) float64) Figure {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	return FigureOf(v)
}

// Order returns the order in which block k runs n targets (indexes into
// their list): a Williams design, the rows of a balanced Latin square, so
// that over n blocks (2n for an odd n) every target runs in every position
// equally often and follows every other target equally often: no target
// always runs after the same one, or first, when the machine is coldest.
func Order(n, k int) []int {
	if n <= 0 {
		return nil
	}
	// The first row: 0, 1, n-1, 2, n-2, ...; row r adds r to each, mod n.
	first := make([]int, n)
	for i, lo, hi := 1, 1, n-1; i < n; i++ {
		if i%2 == 1 {
			first[i], lo = lo, lo+1
		} else {
			first[i], hi = hi, hi-1
		}
	}
	rows := n
	if n%2 == 1 {
		rows = 2 * n // an odd square needs its mirror too
	}
	k %= rows
	order := make([]int, n)
	for i := range n {
		order[i] = (first[i] + k) % n
	}
	if k >= n {
		slices.Reverse(order)
	}
	return order
}

package bench

import "slices"

// A Spread summarises the values of several rounds: their median, range and
// count.
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

// SpreadOf returns the spread of v: the median is the middle value, or the
// mean of the two middle ones for an even count; all zero for no values.
func SpreadOf(v []float64) Spread {
	if len(v) == 0 {
		return Spread{}
	}
	v = slices.Clone(v)
	slices.Sort(v)
	s := Spread{Min: v[0], Max: v[len(v)-1], N: len(v)}
	if n := len(v); n%2 == 0 {
		s.Median = (v[n/2-1] + v[n/2]) / 2
	} else {
		s.Median = v[n/2]
	}
	return s
}

// A Figure is one quantity over the rounds of a run: every round's value,
// in the order the rounds ran, and their spread.
type Figure struct {
	Spread
	Rounds []float64 `json:"rounds"`
}

// FigureOf returns the figure of the rounds v.
func FigureOf(v []float64) Figure { return Figure{SpreadOf(v), v} }

// Straddles reports whether the figure's range includes x: a comparison
// whose range straddles 1 (for a ratio) or 0 (for a difference) is within
// the noise of the run.
func (f Figure) Straddles(x float64) bool { return f.N > 0 && f.Min <= x && x <= f.Max }

// pairwise applies op to the rounds of a and b taken in pairs (round i of
// each ran side by side), as many as both have.
func pairwise(a, b Figure, op func(x, y float64) float64) Figure {
	n := min(len(a.Rounds), len(b.Rounds))
	v := make([]float64, 0, n)
	for i := range n {
		v = append(v, op(a.Rounds[i], b.Rounds[i]))
	}
	return FigureOf(v)
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

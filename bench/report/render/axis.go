package render

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"hellobench/bench/report"
)

// An axis maps the values lo…hi to the pixels from…to, on a log scale if
// asked; a value outside is drawn at the nearer end.
type axis struct {
	lo, hi, from, to float64
	log              bool
}

func (c axis) at(v float64) float64 {
	v, lo, hi := min(max(v, c.lo), c.hi), c.lo, c.hi
	if c.log {
		v, lo, hi = math.Log10(v), math.Log10(lo), math.Log10(hi)
	}
	return c.from + (c.to-c.from)*(v-lo)/(hi-lo)
}

// linTicks returns round ticks from 0 up to max or just beyond, about five
// of them: steps of 1, 2 or 5 times a power of ten.
func linTicks(max float64) []float64 {
	if max <= 0 {
		max = 1
	}
	e := math.Floor(math.Log10(max / 5))
	p := math.Pow(10, math.Abs(e))
	step := func(k float64) float64 { // k steps, exact for round values
		if e < 0 {
			return k / p
		}
		return k * p
	}
	m := 10.0
	for _, c := range []float64{1, 2, 5} {
		if step(c) >= max/5 {
			m = c
			break
		}
	}
	var t []float64
	for k := 0.0; ; k++ {
		t = append(t, step(k*m))
		if step(k*m) >= max {
			return t
		}
	}
}

// logTicks returns the powers of ten from the one at or under lo to the
// one at or over hi, at least two.
func logTicks(lo, hi float64) []float64 {
	a, b := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if b <= a {
		b = a + 1
	}
	var t []float64
	for e := a; e <= b; e++ {
		t = append(t, math.Pow(10, e))
	}
	return midTicks(t)
}

// midTicks adds 2 and 5 times the first tick to a decade alone, which two
// ticks leave hard to read.
func midTicks(t []float64) []float64 {
	if len(t) != 2 {
		return t
	}
	return []float64{t[0], 2 * t[0], 5 * t[0], t[1]}
}

// byteTicks is logTicks for sizes: 1, 10 and 100 B, KiB and MiB.
func byteTicks(lo, hi float64) []float64 {
	var all []float64
	for _, u := range []float64{1, 1 << 10, 1 << 20} {
		all = append(all, u, 10*u, 100*u)
	}
	a := max(0, slices.IndexFunc(all, func(v float64) bool { return v > lo })-1)
	b := slices.IndexFunc(all, func(v float64) bool { return v >= hi })
	if b < 0 {
		b = len(all) - 1
	}
	return midTicks(all[a : max(b, a+1)+1])
}

// positiveRange returns the least and the greatest of the positive values;
// 1 and 10 if there are none.
func positiveRange(vals []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), 0
	for _, v := range vals {
		if v > 0 {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if hi == 0 {
		return 1, 10
	}
	return lo, hi
}

// plainTick formats v with no more decimals than it needs.
func plainTick(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// countTick labels a count tick: 500, 50k, 1.5M.
func countTick(v float64) string {
	switch {
	case v >= 1e6:
		return plainTick(v/1e6) + "M"
	case v >= 1e3:
		return plainTick(v/1e3) + "k"
	}
	return plainTick(v)
}

// microsTick labels a tick of µs: 100 µs, 1 ms, 1 s.
func microsTick(v float64) string {
	switch {
	case v >= 1e6:
		return plainTick(v/1e6) + " s"
	case v >= 1e3:
		return plainTick(v/1e3) + " ms"
	}
	return plainTick(v) + " µs"
}

// sizeTick labels a tick of bytes: 100 B, 1 KiB, 10 MiB.
func sizeTick(v float64) string {
	switch {
	case v >= 1<<20:
		return plainTick(v/(1<<20)) + " MiB"
	case v >= 1<<10:
		return plainTick(v/(1<<10)) + " KiB"
	}
	return plainTick(v) + " B"
}

// sizeSpread formats a figure of bytes in B or, from 1 KiB, in KiB:
// "8.0 KiB (7.8–8.4)".
func sizeSpread(f report.Figure) string {
	if f.N == 0 {
		return "–"
	}
	unit, div, prec := "B", 1.0, 0
	if f.Median >= 1<<10 {
		unit, div, prec = "KiB", 1<<10, 1
	}
	s := num(f.Median/div, prec) + " " + unit
	if f.N > 1 {
		s += fmt.Sprintf(" (%s–%s)", num(f.Lo/div, prec), num(f.Hi/div, prec))
	}
	return s
}

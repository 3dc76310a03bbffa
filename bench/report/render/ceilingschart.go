package render

import (
	"fmt"
	"math"

	"hellobench/bench"
	"hellobench/bench/report"
)

// CeilingsSVG draws, for each mode, every server's CPU per request as a
// ratio to nginx's: a bar to the median with a min–max whisker, on a log
// axis, so that fcgi at fifteen times nginx leaves the Go stacks, within
// three times of it, apart enough to read.
func CeilingsSVG(rep report.Report) string {
	var modes [][]report.Point
	lo, hi := 1.0, 1.0
	for _, m := range bench.Modes {
		var rows []report.Point
		for _, p := range rep.Ceilings {
			if p.Mode == string(m) && p.CPUVsNginx != nil && p.CPUVsNginx.N > 0 {
				rows = append(rows, p)
				lo, hi = min(lo, p.CPUVsNginx.Lo), max(hi, p.CPUVsNginx.Hi)
			}
		}
		if len(rows) > 0 {
			modes = append(modes, byRank(rows, func(p report.Point) string { return p.Server }))
		}
	}
	if len(modes) == 0 {
		return ""
	}
	ticks := ratioTicks(lo, max(hi, 1.1))
	xs := axis{lo: ticks[0], hi: ticks[len(ticks)-1], from: plotL, to: barR, log: true}
	s := &svg{}
	s.heading("Server CPU per request relative to nginx",
		"bar: median of the blocks; whisker: its 95 % confidence interval; ≈ nginx: the interval includes 1.0; hatched: never saturated, no ceiling")
	y := 64.0
	for _, rows := range modes {
		y = s.ceilingPanel(rows, xs, ticks, y)
	}
	s.text((plotL+barR)/2, y+4, anchorMid+bold, "server CPU per request ÷ nginx's, log scale (lower is better)")
	return s.done(y + 18)
}

// PickSVG is CeilingsSVG of make bench's run alone: the pick table's
// ratios, drawn. Empty without the run.
func PickSVG(rep report.Report) string {
	if rep.Pick == nil {
		return ""
	}
	return CeilingsSVG(*rep.Pick)
}

// ceilingPanel draws one mode's bars from top and returns the y under them.
func (s *svg) ceilingPanel(rows []report.Point, xs axis, ticks []float64, top float64) float64 {
	s.text(10, top+14, bold, modeTitle(rows[0]))
	y0 := top + 40
	bottom := y0 + rowH*float64(len(rows))
	s.xGrid(xs, ticks, plainTick, y0, bottom)
	// The reference line goes over the bars; their values start right of
	// it, clear of its dashes.
	x := xs.at(1)
	values := make([]func(), len(rows))
	for k, p := range rows {
		f := *p.CPUVsNginx
		v := spread(f, 2) + fewBlocks(f)
		if f.N == 1 {
			v += " [1 block]" // no interval, nor a range, to draw
		}
		if f.N > 1 && f.Straddles(1) {
			v += " ≈ nginx"
		}
		if p.Label != "" {
			v += ", " + p.Label
		}
		values[k] = s.bar(p.Server, report.Rank(p.Server), xs, y0+rowH*float64(k), f, p.Label != "", v, x)
	}
	s.add(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#222222" stroke-width="1.5" stroke-dasharray="5 3"/>`, x, y0-4, x, bottom)
	s.text(x, y0-8, anchorMid, "nginx = 1")
	for _, v := range values {
		v()
	}
	return bottom + 30
}

func modeTitle(p report.Point) string {
	switch bench.Mode(p.Mode) {
	case bench.KeepAlive:
		return fmt.Sprintf("keep-alive, %d connections", p.Conns)
	case bench.Close:
		return fmt.Sprintf("a new connection per request, %d at a time", p.Conns)
	case bench.Pipeline:
		return fmt.Sprintf("pipelined, %d requests in flight on each of %d connections", bench.PipelineDepth, p.Conns)
	case bench.Conn10:
		return fmt.Sprintf("%d requests a connection, then a new one, %d connections at a time", bench.ConnRequests, p.Conns)
	}
	return fmt.Sprintf("%s, %d connections", p.Mode, p.Conns)
}

// ratioTicks are the 1-2-5 steps from the largest at or under lo to the
// first at or over hi: a log axis of ratios read at round values.
func ratioTicks(lo, hi float64) []float64 {
	var t []float64
	for e := math.Floor(math.Log10(lo)) - 1; ; e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v <= lo {
				t = []float64{v} // the largest at or under lo so far
				continue
			}
			t = append(t, v)
			if v >= hi {
				return t
			}
		}
	}
}

package render

import (
	"hellobench/bench/report"
)

// zeroAt is where "no work" sits on the chart's log axis: as far left of
// 1 µs as 5 µs is right of it.
const zeroAt = 0.2

// WorkSVG draws each server's ceiling against its handler's CPU work.
func WorkSVG(rep report.Report) string {
	if len(rep.Work) == 0 {
		return ""
	}
	s := &svg{}
	s.heading("Ceiling on one core against handler CPU work, keep-alive", "marker: median of the blocks; whisker: its interval")
	y := s.sweepPanel(rep.Work, chartPanel{ytitle: "requests per second (log scale)", log: true,
		val:    func(p report.Point) report.Figure { return p.Implied },
		tick:   countTick,
		tip:    func(v float64) string { return num(v, 0) + " req/s" },
		x:      func(p report.Point) float64 { return max(p.WorkCPU, zeroAt) },
		xtick:  workTick,
		xtitle: "CPU the handler burns per request (log scale)",
		at:     func(p report.Point) string { return workLabel(p.WorkCPU) + " of handler work" },
	}, 64)
	return s.finishSweep(rep.Work, y)
}

// workTick labels a tick of the work axis.
func workTick(v float64) string {
	if v == zeroAt {
		return "none"
	}
	return plainTick(v) + " µs"
}

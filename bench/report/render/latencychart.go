package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
)

// nines is where a percentile goes on the chart's axis: 1 / (1 - q), so
// that on a log axis each nine is one step.
var nines = []struct {
	q     float64
	label string
	val   func(report.Lat) report.Figure
}{
	{0.5, "50 %", func(l report.Lat) report.Figure { return l.P50 }},
	{0.9, "90 %", func(l report.Lat) report.Figure { return l.P90 }},
	{0.99, "99 %", func(l report.Lat) report.Figure { return l.P99 }},
	{0.999, "99.9 %", func(l report.Lat) report.Figure { return l.P999 }},
	{0.9999, "99.99 %", func(l report.Lat) report.Figure { return l.P9999 }},
}

// LatencySVG draws each stack's latency against percentile at the common
// rate, HdrHistogram's plot: one line per server.
func LatencySVG(rep report.Report) string {
	var ps []report.Point
	var missing []string
	for _, l := range rep.Latency {
		if l.Label != "r="+strconv.Itoa(report.LatRate) || l.Conns != report.CeilingConns {
			continue
		}
		if l.P99.N == 0 {
			missing = append(missing, l.Server)
			continue
		}
		// The line chart draws Points: each percentile is one, its figure
		// in P50 and its place on the nines axis in Wait.
		for _, n := range nines {
			ps = append(ps, report.Point{Server: l.Server, Mode: "keepalive", Conns: l.Conns, P50: n.val(l), Wait: 1 / (1 - n.q)})
		}
	}
	if len(ps) == 0 {
		return ""
	}
	sub := "marker: median of the rounds; whisker: their range; latency from each request's due time"
	// Runs from before the stall meter have no host line: say nothing of it.
	if host := hostLine(rep.Latency); host != nil {
		ps = append(ps, host...)
		sub += "; host: its own stalls, median and range over the points"
	}
	s := &svg{}
	s.heading(fmt.Sprintf("Latency against percentile at a steady %s req/s, keep-alive, %d connections", num(report.LatRate, 0), report.CeilingConns), sub)
	y := s.sweepPanel(ps, chartPanel{ytitle: "latency, µs (log scale)", log: true,
		val:    func(p report.Point) report.Figure { return p.P50 },
		tick:   countTick,
		tip:    func(v float64) string { return num(v, 0) + " µs" },
		x:      func(p report.Point) float64 { return p.Wait },
		xtick:  nineOf,
		xtitle: "percentile (each step one more nine)",
		at: func(p report.Point) string {
			return fmt.Sprintf("p%s", strings.TrimSuffix(nineOf(p.Wait), " %"))
		},
	}, 64)
	if len(missing) > 0 {
		s.text(10, y+10, dim, "not shown, no round kept (the client fell behind, or the server short of the rate): "+strings.Join(missing, ", "))
		y += 18
	}
	return s.finishSweep(ps, y)
}

// hostName is the line of the host's own stalls on the latency chart.
const hostName = "host (its stalls)"

// hostLine is the host's own stall p99 and p99.9 (package stall) at the
// common rate, over every server's point there: a stack's line at or
// under it at a percentile shows the machine, not the stack.
func hostLine(ls []report.Lat) []report.Point {
	var p99, p999 []float64
	for _, l := range ls {
		if l.Label == "r="+strconv.Itoa(report.LatRate) && l.Conns == report.CeilingConns && l.HostP99 != nil {
			p99, p999 = append(p99, l.HostP99.Median), append(p999, l.HostP999.Median)
		}
	}
	if len(p99) == 0 {
		return nil
	}
	return []report.Point{
		{Server: hostName, Mode: "keepalive", Conns: report.CeilingConns, P50: bench.FigureOf(p99), Wait: 100},
		{Server: hostName, Mode: "keepalive", Conns: report.CeilingConns, P50: bench.FigureOf(p999), Wait: 1000},
	}
}

// nineOf labels an axis position.
func nineOf(x float64) string {
	for _, n := range nines {
		if math.Abs(1/(1-n.q)-x) < 1e-6*x {
			return n.label
		}
	}
	return plainTick(x)
}

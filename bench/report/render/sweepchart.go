package render

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"hellobench/bench/report"
)

// SweepSVG draws req/s and p99 latency against connections, one line per
// server.
func SweepSVG(rep report.Report) string {
	if len(rep.Sweep) == 0 {
		return ""
	}
	s := &svg{}
	s.heading("Keep-alive by number of connections", "marker: median of the rounds; whisker: min–max")
	y := s.sweepPanel(rep.Sweep, chartPanel{title: "Throughput", ytitle: "requests per second",
		val: func(p report.Point) report.Figure { return p.ReqPerSec }, tick: countTick, tip: func(v float64) string { return num(v, 0) + " req/s" }}, 84)
	y = s.sweepPanel(rep.Sweep, chartPanel{title: "Tail latency", ytitle: "p99 latency (log scale)", log: true,
		val: func(p report.Point) report.Figure { return p.P99 }, tick: microsTick, tip: func(v float64) string { return num(v, 0) + " µs" }}, y+34)
	return s.finishSweep(rep.Sweep, y)
}

// CPUSVG draws the server's CPU per request against connections, one line
// per server.
func CPUSVG(rep report.Report) string {
	if len(rep.Sweep) == 0 {
		return ""
	}
	s := &svg{}
	s.heading("Server CPU per request by number of connections, keep-alive", "marker: median of the rounds; whisker: min–max")
	y := s.sweepPanel(rep.Sweep, chartPanel{ytitle: "server CPU per request (µs)",
		val: func(p report.Point) report.Figure { return p.CPU }, tick: plainTick, tip: func(v float64) string { return num(v, 2) + " µs/req" }}, 64)
	return s.finishSweep(rep.Sweep, y)
}

// finishSweep adds the legend and, when a point is hollow, what that means.
func (s *svg) finishSweep(ps []report.Point, y float64) string {
	var servers []string
	for _, p := range ps {
		if !slices.Contains(servers, p.Server) {
			servers = append(servers, p.Server)
		}
	}
	s.legend(byRank(servers, func(n string) string { return n }), lineR+28, 84)
	// A long legend (the latency chart's host line is its fifteenth) runs
	// below the plot: the chart ends under its last entry.
	y = max(y, 84+20*float64(len(servers)-1)+10)
	if slices.ContainsFunc(ps, func(p report.Point) bool { return p.Label != "" }) {
		s.text(10, y+10, dim, hollowNote)
		y += 18
	}
	return s.done(y + 6)
}

// A chartPanel is one plot of the sweep against connections.
type chartPanel struct {
	title  string                           // above the plot, if any
	ytitle string                           // the y axis's title, with its unit
	log    bool                             // a log y axis
	val    func(report.Point) report.Figure // the plotted figure
	tick   func(float64) string             // labels a y tick
	tip    func(float64) string             // formats a value in a point's tooltip
	// x places a point on the log x axis, xtick labels an x tick, xtitle
	// names the axis and at says where a point is, for its tooltip; nil
	// or "": the connections.
	x      func(report.Point) float64
	xtick  func(float64) string
	xtitle string
	at     func(report.Point) string
}

// xOf is where pt goes on p's x axis.
func (p chartPanel) xOf(pt report.Point) float64 {
	if p.x != nil {
		return p.x(pt)
	}
	return float64(pt.Conns)
}

// atOf says where pt is, for a tooltip: "5 000 connections".
func (p chartPanel) atOf(pt report.Point) string {
	if p.at != nil {
		return p.at(pt)
	}
	if pt.Conns == 1 {
		return "1 connection"
	}
	return fmt.Sprintf("%d connections", pt.Conns)
}

// sweepPanel draws p from top, one line per server through its medians,
// and returns the y under its x axis.
func (s *svg) sweepPanel(ps []report.Point, p chartPanel, top float64) float64 {
	if p.title != "" {
		s.text(plotL, top-8, bold, p.title)
	}
	bottom := top + panelH
	var xt []float64
	var vals []float64
	for _, pt := range ps {
		if x := p.xOf(pt); !slices.Contains(xt, x) {
			xt = append(xt, x)
		}
		if f := p.val(pt); f.N > 0 {
			vals = append(vals, f.Lo, f.Median, f.Hi)
		}
	}
	slices.Sort(xt)
	lo, hi := xt[0], xt[len(xt)-1]
	if lo == hi {
		lo, hi = lo/3, hi*3
	}
	xs := axis{lo: lo, hi: hi, from: plotL + 20, to: lineR - 20, log: true}
	var ticks []float64
	if p.log {
		ticks = logTicks(positiveRange(vals))
	} else {
		ticks = linTicks(slices.Max(append(vals, 0)))
	}
	ys := axis{lo: ticks[0], hi: ticks[len(ticks)-1], from: bottom, to: top, log: p.log}
	xtick, xtitle := countTick, "connections (log scale)"
	if p.xtick != nil {
		xtick, xtitle = p.xtick, p.xtitle
	}
	s.xGrid(xs, xt, xtick, top, bottom)
	s.yGrid(ys, ticks, p.tick, plotL, lineR)
	s.add(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#999999"/>`, plotL, top, lineR-plotL, panelH)
	s.text(plotL-58, (top+bottom)/2, anchorMid+fmt.Sprintf(` transform="rotate(-90 %.1f %.1f)"`, plotL-58, (top+bottom)/2), p.ytitle)
	s.text((plotL+lineR)/2, bottom+34, anchorMid, xtitle)
	s.lines(ps, p, xs, ys)
	return bottom + 42
}

// lines draws each server's points: a line through the medians, a min–max
// whisker and a marker, hollow when the point has a label. The servers are
// dodged a little sideways so that their whiskers stay apart.
func (s *svg) lines(ps []report.Point, p chartPanel, xs, ys axis) {
	by := map[string][]report.Point{}
	for _, pt := range ps {
		if p.val(pt).N > 0 {
			by[pt.Server] = append(by[pt.Server], pt)
		}
	}
	for _, server := range byRank(slices.Sorted(maps.Keys(by)), func(n string) string { return n }) {
		i := report.Rank(server)
		pts := slices.SortedFunc(slices.Values(by[server]), func(a, b report.Point) int { return cmp.Compare(p.xOf(a), p.xOf(b)) })
		dx := (float64(i) - float64(len(report.Order())-1)/2) * 2
		var line []string
		for _, pt := range pts {
			line = append(line, fmt.Sprintf("%.1f,%.1f", xs.at(p.xOf(pt))+dx, ys.at(p.val(pt).Median)))
		}
		s.add(`<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"%s/>`, strings.Join(line, " "), colour(i), dash(server))
		for _, pt := range pts {
			f, x := p.val(pt), xs.at(p.xOf(pt))+dx
			if f.N > 1 && f.Hi > f.Lo {
				s.add(`<path d="M%.1f %.1fV%.1fM%.1f %.1fh6M%.1f %.1fh6" stroke="%s" fill="none"/>`,
					x, ys.at(f.Lo), ys.at(f.Hi), x-3, ys.at(f.Lo), x-3, ys.at(f.Hi), colour(i))
			}
			tip := fmt.Sprintf("%s, %s: %s", pt.Server, p.atOf(pt), p.tip(f.Median))
			if pt.Label != "" {
				tip += " (" + pt.Label + ")"
			}
			s.marker(i, x, ys.at(f.Median), pt.Label != "", tip)
		}
	}
}

// MemorySVG draws each server's resident memory per idle connection, a
// group of bars per number of connections.
func MemorySVG(rep report.Report) string {
	if len(rep.Idle) == 0 {
		return ""
	}
	var counts []int
	var vals []float64
	for _, r := range rep.Idle {
		if !slices.Contains(counts, r.Conns) {
			counts = append(counts, r.Conns)
		}
		if r.PerConn.N > 0 {
			vals = append(vals, r.PerConn.Lo, r.PerConn.Median, r.PerConn.Hi)
		}
	}
	slices.Sort(counts)
	ticks := byteTicks(positiveRange(vals))
	xs := axis{lo: ticks[0], hi: ticks[len(ticks)-1], from: plotL, to: barR, log: true}
	s := &svg{}
	s.heading("Resident memory per idle connection",
		"bar: median of the rounds; whisker: min–max; hatched: fell over, holding fewer connections than it opened")
	y := 64.0
	for _, n := range counts {
		var rows []report.Idle
		for _, r := range rep.Idle {
			if r.Conns == n {
				rows = append(rows, r)
			}
		}
		rows = byRank(rows, func(r report.Idle) string { return r.Server })
		s.text(10, y+14, bold, num(float64(n), 0)+" idle connections")
		y0 := y + 26
		bottom := y0 + rowH*float64(len(rows))
		s.xGrid(xs, ticks, sizeTick, y0, bottom)
		for k, r := range rows {
			fell := r.Held.N > 0 && r.Held.Median < float64(r.Conns)
			v := sizeSpread(r.PerConn)
			if fell {
				v += fmt.Sprintf(", fell over: held %s of %s", num(r.Held.Median, 0), num(float64(r.Conns), 0))
			}
			s.bar(r.Server, report.Rank(r.Server), xs, y0+rowH*float64(k), r.PerConn, fell, v, 0)()
		}
		y = bottom + 30
	}
	s.text((plotL+barR)/2, y+4, anchorMid+bold, "resident memory per idle connection (log scale)")
	return s.done(y + 18)
}

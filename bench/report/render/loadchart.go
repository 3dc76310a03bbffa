package render

import (
	"strings"

	"hellobench/bench/report"
)

// LoadSVG draws each server's CPU per request against its load, a share
// of its own keep-alive ceiling (make bench-load), with its ceiling's CPU
// per request (make bench) at 100 % where both ran on one host: the price
// of a request rising as the load falls.
func LoadSVG(rep report.Report) string {
	// A point's share of its ceiling, in percent, stands where the sweep's
	// points have their connections: the x axis of the same panel.
	var ps []report.Point
	for _, l := range rep.Load {
		// nginx's second instances (its A/A twin, the one without the stall
		// meter) are for the tables: drawn, they would hide nginx's line.
		if l.CPU != nil && l.Share() > 0 && l.Conns == report.CeilingConns && !strings.Contains(l.Server, "/") {
			ps = append(ps, report.Point{Server: l.Server, Conns: int(l.Share()), CPU: *l.CPU})
		}
	}
	if len(ps) == 0 {
		return ""
	}
	// The ceilings are the load's 100 % only when measured on the same
	// host: a request's price differs from host to host.
	ceilings := false
	load, ceil := rep.Sections[report.LoadSection], rep.Sections[report.CeilingsSection]
	sameHost := report.HostKey(load.Machine) == report.HostKey(ceil.Machine)
	for _, s := range report.LatServers(rep.Load) {
		if !sameHost {
			break
		}
		if strings.Contains(s, "/") {
			continue
		}
		if p, ok := report.Find(rep.Ceilings, s, "keepalive"); ok && p.CPU.N > 0 {
			ps = append(ps, report.Point{Server: s, Conns: 100, CPU: p.CPU})
			ceilings = true
		}
	}
	sub, xtitle := "marker: median of the rounds; whisker: min–max", "load: share of the server's own keep-alive ceiling (log scale)"
	if ceilings {
		sub += "; at 100 %: the ceiling's blocks"
		xtitle = "load: share of its own keep-alive ceiling (log scale; the point left of 100 % is 90 %)"
	}
	s := &svg{}
	s.heading("Server CPU per request against load, keep-alive, 50 connections", sub)
	y := s.sweepPanel(ps, chartPanel{ytitle: "server CPU per request (µs, log scale)", log: true,
		val: func(p report.Point) report.Figure { return p.CPU }, tick: plainTick, tip: func(v float64) string { return num(v, 2) + " µs/req" },
		// 90 % and the ceiling lie too close on the log axis for two labels.
		xtick: func(v float64) string {
			if v == 90 && ceilings {
				return ""
			}
			return num(v, 0) + " %"
		}, xtitle: xtitle,
		at: func(p report.Point) string { return num(float64(p.Conns), 0) + " % of its ceiling" }}, 64)
	return s.finishSweep(ps, y)
}

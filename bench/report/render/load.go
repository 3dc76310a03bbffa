package render

import (
	"fmt"
	"slices"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
)

// CostAtLoad is REPORT.md's part for what a request costs below the
// ceiling: each server's CPU per request at the shares of its own ceiling
// and at the common ladder's rates, against nginx's at the same, and its
// ceiling's beside them.
func CostAtLoad(rep report.Report) string {
	var shares, ladder []report.Lat
	for _, l := range rep.Latency {
		switch {
		case l.CPU == nil || l.Conns != report.CeilingConns:
		case l.Share() > 0:
			shares = append(shares, l)
		default:
			ladder = append(ladder, l)
		}
	}
	if len(shares)+len(ladder) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("The server's CPU time per request while loadgen held it at a steady rate on " +
		fmt.Sprint(report.CeilingConns) + " keep-alive connections (make bench-latency's points), over the measured span after the warm-up; " +
		"after the semicolon, its ratio to nginx's at the same share of nginx's own ceiling, or at the same rate, round by round. " +
		"Below its ceiling a server wakes for fewer requests at a time, so each pays more of the system calls and wake-ups that a saturated server shares among many.\n\n")
	if len(shares) > 0 {
		b.WriteString(loadTable(rep, shares, "share of its own ceiling", func(l report.Lat) string { return fmt.Sprintf("%g %%", l.Share()) }, true))
	}
	if len(ladder) > 0 {
		b.WriteString(loadTable(rep, ladder, "rate, req/s", func(l report.Lat) string { return num(l.Rate, 0) }, false))
	}
	return b.String() + source(rep, "latency") + "\n"
}

// loadTable is one table of CPU per request: a row per server, a column
// per point (head names it), and with ceiling the keep-alive ceiling's.
func loadTable(rep report.Report, ls []report.Lat, what string, head func(report.Lat) string, ceiling bool) string {
	var labels, heads []string
	for _, l := range ls {
		if !slices.Contains(labels, l.Label) {
			labels, heads = append(labels, l.Label), append(heads, head(l))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| server (%s) | %s |", what, strings.Join(heads, " | "))
	if ceiling {
		b.WriteString(" at its ceiling |")
	}
	b.WriteString("\n|---|" + strings.Repeat("--:|", len(labels)+b2i(ceiling)) + "\n")
	for _, s := range report.LatServers(ls) {
		b.WriteString("| " + s + " |")
		for _, label := range labels {
			b.WriteString(" " + loadCell(ls, s, label) + " |")
		}
		if ceiling {
			c := "–"
			if p, ok := report.Find(rep.Ceilings, s, "keepalive"); ok && p.CPU.N > 0 {
				c = spread(p.CPU, 2)
			}
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	return b.String() + "\n"
}

// loadCell is a server's CPU per request at one point, with its ratio to
// nginx's at the same point.
func loadCell(ls []report.Lat, server, label string) string {
	l, ok := report.FindLat(ls, server, label, report.CeilingConns)
	if !ok {
		return "–"
	}
	cell := spread(*l.CPU, 2)
	if n, ok := report.FindLat(ls, "nginx", label, report.CeilingConns); ok && server != "nginx" {
		r := bench.Ratio(*l.CPU, *n.CPU)
		cell += "; " + versus(&r)
	}
	return cell
}

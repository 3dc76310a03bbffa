package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"hellobench/bench/report"
)

// gcCell is a point's collections: their count and the longest pause.
func gcCell(l report.Lat) string {
	if l.GCs == nil {
		return "not traced"
	}
	if l.GCs.Median == 0 && l.GCs.Hi == 0 {
		return "none"
	}
	return fmt.Sprintf("%s (longest %s µs)", spread(*l.GCs, 0), spread(*l.GCMax, 0))
}

// latCols is a latency table's columns after the server (and the rate
// asked), before the load's and the host's.
const latCols = 9

// latExtras says which of the later columns a table has: the server's CPU
// at the point and the host's stalls beside it, measured since.
func latExtras(group []report.Lat) (cpu, host bool) {
	for _, l := range group {
		cpu = cpu || l.CPU != nil
		host = host || l.HostMax != nil
	}
	return cpu, host
}

// hostOr is a percentile's cell, marked as the host's where the host's
// own stall at that percentile (or its longest, past p99.9) was as long:
// such a figure says nothing of the stack.
func hostOr(f report.Figure, host *report.Figure) string {
	if host != nil && f.N > 0 && f.Median <= host.Median {
		return spread(f, 0) + " (host)"
	}
	return spread(f, 0)
}

// latRow is one server's row: its figures, or why it has none.
func latRow(l report.Lat, withRate, cpu, host bool) string {
	lead := "| " + l.Server + " |"
	if withRate {
		lead += " " + num(l.Rate, 0) + " |"
	}
	cols := latCols + b2i(cpu) + b2i(host)
	switch {
	case l.FellOver > 0:
		return lead + " fell over: " + l.Why + strings.Repeat(" |", cols) + "\n"
	case l.P99.N == 0:
		return lead + fmt.Sprintf(" no round kept: %d of %d client-limited (loadgen's send lateness p99.9 %s µs, the latency p99.9 %s µs), %d short of the rate",
			l.ClientLimited, l.Rounds, spread(l.LateP999, 0), spread(l.AllP999, 0), l.Short) + strings.Repeat(" |", cols) + "\n"
	}
	cells := []string{spread(l.ReqPerSec, 0), spread(l.P50, 0), spread(l.P90, 0), hostOr(l.P99, l.HostP99), hostOr(l.P999, l.HostP999),
		hostOr(l.P9999, l.HostMax), hostOr(l.Max, l.HostMax), gcCell(l), spread(l.LateP999, 0)}
	if cpu {
		cells = append(cells, optionalCell(l.CPU, 2)+" ("+optionalCell(l.Busy, 0)+" %)")
	}
	if host {
		cells = append(cells, optionalCell(l.HostP99, 0)+" / "+optionalCell(l.HostP999, 0)+" / "+optionalCell(l.HostMax, 0))
	}
	return lead + " " + strings.Join(cells, " | ") + " |\n"
}

// optionalCell is a figure measured only since some run, or "–".
func optionalCell(f *report.Figure, prec int) string {
	if f == nil {
		return "–"
	}
	return spread(*f, prec)
}

// latTable is one point's table, every server held at it in a row.
func latTable(group []report.Lat, all []report.Lat) string {
	var b strings.Builder
	first := group[0]
	withRate := first.Share() > 0
	cpu, host := latExtras(group)
	fmt.Fprintf(&b, "### %s\n\n| server |", first.Title())
	if withRate {
		b.WriteString(" rate asked, req/s |")
	}
	b.WriteString(" achieved req/s | p50 µs | p90 µs | p99 µs | p99.9 µs | p99.99 µs | max µs | collections (longest pause) | loadgen's send lateness p99.9 µs |")
	if cpu {
		b.WriteString(" server CPU µs/req (busy) |")
	}
	if host {
		b.WriteString(" host stalls p99 / p99.9 / max µs |")
	}
	b.WriteString("\n|---|")
	if withRate {
		b.WriteString("--:|")
	}
	b.WriteString(strings.Repeat("--:|", latCols+b2i(cpu)+b2i(host)) + "\n")
	for _, l := range group {
		b.WriteString(latRow(l, withRate, cpu, host))
	}
	var skipped []string
	for _, s := range report.LatServers(all) {
		if !slices.ContainsFunc(group, func(l report.Lat) bool { return l.Server == s }) {
			skipped = append(skipped, s)
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "\nNot held at this rate, above 90 %% of its ceiling: %s.\n", strings.Join(skipped, ", "))
	}
	var left []string
	for _, l := range group {
		if l.ClientLimited+l.Short > 0 && l.P99.N > 0 {
			left = append(left, fmt.Sprintf("%s %d of %d", l.Server, l.ClientLimited+l.Short, l.Rounds))
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(&b, "\nRounds left out (loadgen client-limited, or the rate achieved more than 1 %% short): %s.\n", strings.Join(left, ", "))
	}
	return b.String()
}

// LatencySection is REPORT.md's part for make bench-latency.
func LatencySection(rep report.Report) string {
	if len(rep.Latency) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(latIntro(rep) + "\n")
	b.WriteString("![Latency against percentile at " + num(report.LatRate, 0) + " req/s](latency.svg)\n\n")
	for _, g := range report.LatGroups(rep.Latency) {
		b.WriteString(latTable(g, rep.Latency) + "\n")
	}
	b.WriteString(source(rep, report.LatencySection) + "\n")
	return b.String()
}

// latIntro says how the points were measured.
func latIntro(rep report.Report) string {
	s := rep.Sections[report.LatencySection]
	var byHost, hostNote string
	if _, host := latExtras(rep.Latency); host {
		byHost = ", or no more than the host's own stall p99.9 in that round: then the host held the client up as it held the server"
		hostNote = " Beside each row, the host's own stalls during the point (package bench/stall: a real-time thread on the server's and on the client's CPU sleeping " +
			"a millisecond at a time, the later wake-up of the two), and each percentile at or below the host's marked (host): such a figure is the machine's, not the stack's."
	}
	return fmt.Sprintf("Each server, pinned as for the ceilings, held by loadgen at fixed rates on keep-alive connections, open loop: "+
		"each request is due at its time whatever the server does, and its latency counts from then, so a stall is charged to every request it delayed "+
		"(coordinated omission corrected). %s, each running every server once in its own order, and each server's points in an order that changes from round to round; "+
		"each point is a warm-up on its connections, then a measured run (its HdrHistogram interval log is in latency/). "+
		"A round counts only if loadgen kept its pace (send lateness p99.9 within the larger of 10 %% of the latency p99.9 and 50 µs%s) "+
		"and the server its rate (within 1 %%). Collections are the Go runtime's (GODEBUG=gctrace=1) that began during the measured run, "+
		"with the longest stop-the-world pause among them.%s\n\n%s\n",
		plural(s.Rounds, "round"), byHost, hostNote, lateLine(rep.Latency))
}

// lateLine is loadgen's own send lateness at the top of the ladder,
// against nginx: how much of a tail the client itself could add.
func lateLine(ls []report.Lat) string {
	var top report.Lat
	for _, l := range ls {
		if l.Server == "nginx" && l.Share() == 0 && l.Rate > top.Rate && l.FellOver == 0 {
			top = l
		}
	}
	if top.LateP999.N == 0 {
		return ""
	}
	return fmt.Sprintf("loadgen's own send lateness against nginx at %s req/s on %d connections: p99.9 %s µs, max %s µs (over %s).",
		num(top.Rate, 0), top.Conns, spread(top.LateP999, 0), spread(top.LateMax, 0), plural(top.LateP999.N, "round"))
}

// LatencyPage is docs/latency.md's section: the table at the common rate.
func LatencyPage(rep report.Report) string {
	for _, g := range report.LatGroups(rep.Latency) {
		if g[0].Label == "r="+strconv.Itoa(report.LatRate) && g[0].Conns == report.CeilingConns {
			return latTable(g, rep.Latency) + "\n" + lateLine(rep.Latency) + "\n\n" + source(rep, report.LatencySection) + "\n"
		}
	}
	return ""
}

package render

import (
	"fmt"
	"slices"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
)

// CostAtLoad is REPORT.md's part for what a request costs below the
// ceiling (make bench-load): each server's CPU per request at the shares
// of its own ceiling and at the common ladder's rates, against nginx's at
// the same, and its ceiling's beside them.
func CostAtLoad(rep report.Report) string {
	var shares, ladder []report.Lat
	for _, l := range rep.Load {
		switch {
		case l.CPU == nil || l.Conns != report.CeilingConns:
		case l.Share() > 0:
			shares = append(shares, l)
		default:
			ladder = append(ladder, l)
		}
	}
	at := atLoadTable(rep)
	if len(shares)+len(ladder) == 0 {
		return at
	}
	var b strings.Builder
	b.WriteString(at)
	if at != "" {
		fmt.Fprintf(&b, "The tables below are another invocation of make bench-load (%s) and another method: rounds, with no reference beside each server, "+
			"each paired with nginx measured in the same round, minutes away. Their %s column is a second, coarser estimate of the blocks' figures above, "+
			"from another hour of the host; where the two differ, the blocks' is the one measured beside a reference.\n\n", rep.Sections[report.LoadSection].Date, pickLoad)
	}
	b.WriteString("The server's CPU time per request while loadgen held it at a steady rate on " +
		fmt.Sprint(report.CeilingConns) + " keep-alive connections, open loop, over the measured span after the warm-up; " +
		"after the semicolon, its ratio to nginx's at the same share of nginx's own ceiling, or at the same rate, round by round. " +
		"Below its ceiling a server wakes for fewer requests at a time, so each pays more of the system calls and wake-ups that a saturated server shares among many.\n\n")
	if len(shares) > 0 {
		b.WriteString(loadTable(shares, "share of its own ceiling", func(l report.Lat) string { return fmt.Sprintf("%g %%", l.Share()) }))
	}
	if len(ladder) > 0 {
		b.WriteString(loadTable(ladder, "rate, req/s", func(l report.Lat) string { return num(l.Rate, 0) }))
	}
	b.WriteString(meterLine(rep.Load))
	return b.String() + source(rep, report.LoadSection) + "\n"
}

// atLoadTable is make bench-load's blocks at a quarter of each ceiling
// (Report.AtLoad): each server's CPU per request there, its ratio to the
// reference nginx held beside it, and what it costs over its ceiling's.
// Empty without them.
func atLoadTable(rep report.Report) string {
	if len(rep.AtLoad) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "At %s of each server's own ceiling, measured in blocks as the ceilings are: each server held open loop on %d keep-alive connections, "+
		"with a reference nginx held at %s of its own ceiling right before and after it. "+
		"A block counts where the server held its rate (within 1 %%) and the host was at its usual level (the reference within ±%.0f %% of its usual CPU per request, before and after the server); "+
		"the ratio to nginx is taken in each block against the reference beside the server. "+
		"What a request costs at its ceiling is another run's figure, so it is not set beside these: the pick table's run holds both a ceiling and a steady rate.\n\n",
		pickLoad, report.CeilingConns, pickLoad, 100*report.HostTol)
	b.WriteString("| server | CPU µs/request | vs nginx beside it | server busy | blocks kept | note |\n|---|--:|--:|--:|--:|---|\n")
	for _, p := range rep.AtLoad {
		vs := "–"
		if p.Server != "nginx" {
			vs = versus(p.CPUVsNginx)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d of %d | %s |\n", p.Server, spread(p.CPU, 2), vs, pct(p.Busy), p.CPU.N, len(p.Blocks), atLoadNote(p))
	}
	return b.String() + "\n" + source(rep, report.AtLoadSection) + "\n\n"
}

// loadTarget is how closely make bench-load's issue wants a server's ratio
// to nginx at a quarter of the ceiling resolved (the A/A twin's: aaTarget).
const loadTarget = 0.05

// atLoadNote is a row's label, and where its ratio falls short of the
// resolution the bench aims at.
func atLoadNote(p report.Point) string {
	var notes []string
	if n := Note(p); n != "" {
		notes = append(notes, n)
	}
	switch f := p.CPUVsNginx; {
	case f == nil || f.N < 2:
	case p.Server == report.Twin && f.HalfWidth() > aaTarget:
		notes = append(notes, "A/A wider than ±3 %: the run's noise")
	case p.Server != report.Twin && f.HalfWidth() > loadTarget:
		notes = append(notes, "ratio not resolved to ±5 %")
	}
	return strings.Join(notes, "; ")
}

// meterLine is the stall meter's cost: nginx held without it against
// nginx held with it, at a quarter of its ceiling, beside the A/A twin's
// difference from nginx at the same point.
func meterLine(ls []report.Lat) string {
	label := pickLabel
	n, ok := report.FindLat(ls, "nginx", label, report.CeilingConns)
	q, okQ := report.FindLat(ls, "nginx"+bench.QuietSuffix, label, report.CeilingConns)
	a, okA := report.FindLat(ls, "nginx"+bench.TwinSuffix, label, report.CeilingConns)
	if !ok || !okQ || !okA || n.CPU == nil || q.CPU == nil || a.CPU == nil {
		return ""
	}
	quiet, aa := bench.Ratio(*q.CPU, *n.CPU), bench.Ratio(*a.CPU, *n.CPU)
	verdict := "outside the A/A interval: the meter's cost shows"
	switch within := quiet.Median >= aa.Lo && quiet.Median <= aa.Hi; {
	case within && (quiet.Lo > 1 || quiet.Hi < 1):
		verdict = "within the A/A interval, but its own interval leaves out 1: the meter moves nginx's CPU per request, if by less than two instances of nginx differ"
	case within:
		verdict = "within the A/A interval: no cost told apart from the noise"
	}
	return fmt.Sprintf("The stall meter's cost: nginx held at %s of its ceiling without the meter, over nginx held with it, %s; "+
		"the A/A twin (both held with it) over nginx, %s: %s.\n\n", pickLoad, versus(&quiet), versus(&aa), verdict)
}

// CapacityTable is REPORT.md's part for make bench-load's search: the rate
// each server held within the p99 bound, against its ceiling, with the
// host's own stall p99 beside it.
func CapacityTable(rep report.Report) string {
	if len(rep.Capacity) == 0 {
		return ""
	}
	slo := rep.Capacity[0].SLO
	var b strings.Builder
	fmt.Fprintf(&b, "The highest rate one core held open loop on %d keep-alive connections with its p99 within %s µs, found by bisection between %s and all of its keep-alive ceiling, "+
		"each step a warm-up then a measured run; a step counts as held when the server kept the rate (within 1 %%) and the p99 was within the bound (a client that fell behind can only fail a step, never pass one). "+
		"The bound lies well above the host's own stall p99 (measured beside every step), so a rate refused is the server's queue, not the machine's hiccups.\n\n",
		report.CeilingConns, num(slo, 0), "a fifth")
	b.WriteString("| server | rate held, req/s | share of its ceiling | host's stall p99 at that rate, µs |\n|---|--:|--:|--:|\n")
	for _, c := range rep.Capacity {
		if c.Rate.Max == 0 {
			fmt.Fprintf(&b, "| %s | none from a fifth of its ceiling up | | |\n", c.Server)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s %% | %s |\n", c.Server, spread(c.Rate, 0), spread(c.Share, 0), spread(c.HostP99, 0))
	}
	n := rep.Capacity[0].Rate.N
	return b.String() + "\n" + fmt.Sprintf("_`make bench-load`, %s, %s of the search%s; each cell is %s._\n", searchSection(rep).Date, plural(n, "round"), runHost(rep, searchSection(rep)), interval(n))
}

// loadTable is one table of CPU per request: a row per server, a column
// per point (head names it). A ceiling from another run is not set
// beside them: a page tells one run.
func loadTable(ls []report.Lat, what string, head func(report.Lat) string) string {
	var labels, heads []string
	for _, l := range ls {
		if !slices.Contains(labels, l.Label) {
			labels, heads = append(labels, l.Label), append(heads, head(l))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| server (%s) | %s |\n|---|%s\n", what, strings.Join(heads, " | "), strings.Repeat("--:|", len(labels)))
	for _, s := range report.LatServers(ls) {
		b.WriteString("| " + s + " |")
		for _, label := range labels {
			b.WriteString(" " + loadCell(ls, s, label) + " |")
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

package render

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"hellobench/bench/report"
)

// MinWaitCosts is bench/COSTS.md's section on io_uring's minimum wait
// (make bench-load PART=min-wait), its chart in results/.
func MinWaitCosts(rep report.Report) string { return minWait(rep, "../results/minwait.svg") }

// MinWaitPart is REPORT.md's part on io_uring's minimum wait.
func MinWaitPart(rep report.Report) string { return minWait(rep, "minwait.svg") }

// minWait is the min-wait run's table, what it shows, its chart (at
// chart) and its source; empty without the run.
func minWait(rep report.Report, chart string) string {
	mw := rep.MinWait
	if mw == nil || len(mw.Rows) == 0 {
		return ""
	}
	s := rep.Sections[report.MinWaitSection]
	var b strings.Builder
	if s.Quick {
		b.WriteString("**A quick smoke run (one block, short runs): not for publishing.**\n\n")
	}
	fmt.Fprintf(&b, "%s held open loop at %s on %d keep-alive connections, started with each minimum wait in turn (its `-min-wait`: "+
		"a wait that has a completion returns only after that long, unless more arrive): the server's CPU time per request over the measured span, "+
		"its ratio to the CPU per request with no minimum wait in the same block, and each request's latency from its due time.\n\n",
		mw.Server, loadText(mw), report.CeilingConns)
	b.WriteString("| min wait | CPU µs/req | vs none | p50 µs | p99 µs | blocks held |\n|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range mw.Rows {
		held := fmt.Sprintf("%d of %d", r.Held, r.Blocks)
		if r.FellOver > 0 {
			held += fmt.Sprintf("; fell over in %s: %s", plural(r.FellOver, "block"), r.Why)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n",
			waitText(r.WaitUS), spread(r.CPU, 2), versus(r.VsNone), spread(r.P50, 0), spread(r.P99, 0), held)
	}
	b.WriteString("\n" + minWaitVerdict(rep) + "\n\n")
	fmt.Fprintf(&b, "![%s's CPU per request with each minimum wait](%s)\n\n", mw.Server, chart)
	fmt.Fprintf(&b, "_`make bench-load PART=min-wait`, %s, %s%s, the waits in each block's own order; each cell is %s, a ratio taken block by block, "+
		"over the blocks in which the server held the rate (within 1 %%)._\n", s.Date, plural(s.Rounds, "block"), runHost(rep, s), interval(s.Rounds))
	return b.String()
}

// loadText says what rate the run held: "25 % of its keep-alive ceiling
// (12 500 req/s)", or "12 500 req/s".
func loadText(mw *report.MinWait) string {
	rate := num(mw.Rows[0].Rate, 0) + " req/s"
	if share, ok := strings.CutPrefix(mw.Load, "of="); ok {
		return strings.TrimSuffix(share, "%") + " % of its keep-alive ceiling (" + rate + ")"
	}
	return rate
}

// waitText is a minimum wait in µs, or "none".
func waitText(us float64) string {
	if us == 0 {
		return "none"
	}
	return num(us, 0) + " µs"
}

// minWaitVerdict says which minimum waits lowered the CPU per request
// beyond the noise (their ratio's interval below 1) with the p99 within
// the pick table's bound (make bench-load's search), and so could be the
// default.
func minWaitVerdict(rep report.Report) string {
	var slo float64 // µs; 0: no search in these results
	if len(rep.Capacity) > 0 {
		slo = rep.Capacity[0].SLO
	}
	var lower, over []string
	for _, r := range rep.MinWait.Rows {
		if r.VsNone == nil || r.VsNone.N < 2 || r.VsNone.Hi >= 1 {
			continue
		}
		w := fmt.Sprintf("%s (%s)", waitText(r.WaitUS), num(r.VsNone.Median, 2))
		if slo > 0 && r.P99.Hi > slo {
			over = append(over, w)
			continue
		}
		lower = append(lower, w)
	}
	bound := "no p99 bound in these results (make bench-load's search sets it)"
	if slo > 0 {
		bound = "the p99 within the pick table's bound of " + microsTick(slo)
	}
	var b strings.Builder
	if len(lower) == 0 {
		fmt.Fprintf(&b, "No minimum wait lowered the CPU per request beyond the noise with %s.", bound)
	} else {
		fmt.Fprintf(&b, "Lower CPU per request than with none, beyond the noise, and %s: %s.", bound, strings.Join(lower, ", "))
	}
	if len(over) > 0 {
		fmt.Fprintf(&b, " Lower, but with the p99 past the bound: %s.", strings.Join(over, ", "))
	}
	return b.String()
}

// MinWaitSVG charts the min-wait run: a bar for each wait's CPU per
// request, its interval as a whisker, its p99 beside it. Empty without
// the run.
func MinWaitSVG(rep report.Report) string {
	mw := rep.MinWait
	if mw == nil || len(mw.Rows) == 0 {
		return ""
	}
	var hi []float64
	for _, r := range mw.Rows {
		hi = append(hi, r.CPU.Hi, r.CPU.Median)
	}
	ticks := linTicks(slices.Max(hi))
	xs := axis{lo: 0, hi: ticks[len(ticks)-1], from: plotL, to: barR}
	const top = 60.0
	bottom := top + rowH*float64(len(mw.Rows))
	var s svg
	s.heading(fmt.Sprintf("%s's CPU per request with each io_uring minimum wait", mw.Server),
		fmt.Sprintf("at %s; bar: the median over the blocks held, whisker: its interval; right: the p99 latency", loadText(mw)))
	s.xGrid(xs, ticks, plainTick, top, bottom)
	var values []func()
	for k, r := range mw.Rows {
		value := "p99 " + microsTick(math.Round(r.P99.Median/10)*10) // three figures: 5.01 ms
		if r.CPU.N == 0 {
			value = "not held"
		}
		values = append(values, s.bar(waitText(r.WaitUS), report.Rank(mw.Server), xs, top+rowH*float64(k), r.CPU, false, value, xs.from))
	}
	for _, v := range values {
		v()
	}
	s.text((xs.from+xs.to)/2, bottom+34, anchorMid, "server CPU µs per request")
	return s.done(bottom + 50)
}

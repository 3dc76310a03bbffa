package render

import (
	"fmt"
	"math"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
)

// workLabel writes a level of handler CPU work: "none", "20 µs".
func workLabel(us float64) string {
	if us == 0 {
		return "none"
	}
	return num(us, 0) + " µs"
}

// calibration says whether the work added what it should at us: within
// ±10 % of us, by the median.
func calibration(d report.Figure, us float64) string {
	if d.N == 0 {
		return "–"
	}
	share := d.Median / us
	verdict := "within ±10 %"
	if math.Abs(share-1) > 0.10 {
		verdict = "**off by more than 10 %**"
	}
	return fmt.Sprintf("%s µs (%.0f %%), %s", spread(d, 1), 100*share, verdict)
}

// crossover says, for server, at which measured work its advantage over
// the baseline (1 - its CPU per request over the baseline's) is under
// matters, and where the zero-work costs alone put that point: with work
// D added to both, (b - a) / (b + D) < matters once D > (b - a)/matters - b.
func crossover(ps []report.Point, server string) string {
	ls := report.Levels(ps)
	r0, ok := report.VsBaseline(ps, server, 0)
	if !ok {
		return "–"
	}
	if 1-r0.Median < report.Matters {
		return fmt.Sprintf("no advantage to lose: it costs %s of %s's CPU per request with no work", versus(&r0), report.Baseline)
	}
	measured := fmt.Sprintf("still over %.0f %% at %s", 100*report.Matters, workLabel(ls[len(ls)-1]))
	for _, us := range ls[1:] {
		if r, ok := report.VsBaseline(ps, server, us); ok && 1-r.Median < report.Matters {
			measured = fmt.Sprintf("under %.0f %% at %s (%s)", 100*report.Matters, workLabel(us), versus(&r))
			break
		}
	}
	a, _ := report.At(ps, server, 0)
	b, _ := report.At(ps, report.Baseline, 0)
	d := (b.CPU.Median-a.CPU.Median)/report.Matters - b.CPU.Median
	return fmt.Sprintf("%s; from the costs with no work, about %s µs", measured, num(d, 0))
}

// header writes a table's head: a first column, one per level of work,
// then any others (each a right-aligned or "---" left one).
func header(b *strings.Builder, first string, ls []float64, more ...string) {
	fmt.Fprintf(b, "| %s |", first)
	for _, us := range ls {
		fmt.Fprintf(b, " %s |", workLabel(us))
	}
	for _, m := range more {
		fmt.Fprintf(b, " %s |", m)
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(ls)) + strings.Repeat("---|", len(more)) + "\n")
}

// row writes a table row, label then cell(us) for each level of work,
// without its line end.
func row(b *strings.Builder, label string, ls []float64, cell func(us float64) string) {
	fmt.Fprintf(b, "| %s |", label)
	for _, us := range ls {
		fmt.Fprintf(b, " %s |", cell(us))
	}
}

// ratioCell is server's CPU per request over the baseline's at a level.
func ratioCell(ps []report.Point, server string) func(us float64) string {
	return func(us float64) string {
		if r, ok := report.VsBaseline(ps, server, us); ok {
			return versus(&r)
		}
		return "–"
	}
}

// WorkSection is REPORT.md's part for make bench-work.
func WorkSection(rep report.Report) string {
	if len(rep.Work) == 0 && len(rep.Wait) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(workIntro(rep))
	if len(rep.Work) > 0 {
		b.WriteString("![Ceiling on one core against handler CPU work](work.svg)\n\n")
		b.WriteString(workTables(rep))
	}
	if len(rep.Wait) > 0 {
		b.WriteString(WaitTables(rep))
	}
	return b.String()
}

func workIntro(rep report.Report) string {
	sec, ok := rep.Sections[report.WorkSection]
	if !ok { // uring's rows alone (report.UringSection): their note says how they ran
		return ""
	}
	return fmt.Sprintf("Every Go server was started with `-work-cpu D` (its handler burns D of CPU, in one calibrated loop shared by every stack, before it answers) "+
		"or `-work-wait D` (it waits D using no CPU, as a call to a database does). "+
		"The ceilings are keep-alive at 50 connections, raised until the server is saturated, in %s, each block running every server and level in its own order; "+
		"a cell is %s. A ratio to %s is taken block by block.\n\n", plural(sec.Rounds, "block"), interval(sec.Rounds), report.Baseline)
}

// workTables are the ceilings with CPU work: CPU per request, ratio to
// the baseline, what the work added, and where the stack stops mattering.
func workTables(rep report.Report) string {
	ls := report.Levels(rep.Work)
	names := report.WorkServers(rep.Work)
	var b strings.Builder
	b.WriteString("**Server CPU per request (µs), by handler CPU work**\n\n")
	header(&b, "server", ls)
	for _, s := range names {
		row(&b, s, ls, func(us float64) string {
			p, ok := report.At(rep.Work, s, us)
			if !ok {
				return "–"
			}
			if p.Label != "" {
				return spread(p.CPU, 2) + " (" + p.Label + ")"
			}
			return spread(p.CPU, 2)
		})
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n**CPU per request over %s's, by handler CPU work** (under 1: cheaper than %s)\n\n", report.Baseline, report.Baseline)
	header(&b, "server", ls)
	for _, s := range names {
		if s != report.Baseline {
			row(&b, s, ls, ratioCell(rep.Work, s))
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "\n**Where the stack stops mattering**: the handler CPU work at which each stack's advantage over %s (1 − the ratio above) falls under %.0f %%\n\n| server | advantage under %.0f %% |\n|---|---|\n", report.Baseline, 100*report.Matters, 100*report.Matters)
	for _, s := range names {
		if s != report.Baseline {
			fmt.Fprintf(&b, "| %s | %s |\n", s, crossover(rep.Work, s))
		}
	}
	b.WriteString("\n**Calibration**: what the handler's work added to each server's CPU per request, block by block against no work, as a share of the work asked for\n\n")
	header(&b, "server", ls[1:])
	for _, s := range names {
		row(&b, s, ls[1:], func(us float64) string {
			d, _ := report.Added(rep.Work, s, us)
			return calibration(d, us)
		})
		b.WriteString("\n")
		if z, ok := report.At(rep.Work, s, 0); ok && z.AppCPU.N > 0 {
			// Where the work runs in one process of several (fcgi's
			// application behind lighttpd), that process's part alone.
			row(&b, s+", the application alone", ls[1:], func(us float64) string {
				p, ok := report.At(rep.Work, s, us)
				if !ok || p.AppCPU.N == 0 {
					return "–"
				}
				return calibration(bench.Diff(p.AppCPU, z.AppCPU), us)
			})
			b.WriteString("\n")
		}
	}
	return b.String() + "\n"
}

// WaitTables are the runs with a waiting handler, a table per wait.
func WaitTables(rep report.Report) string {
	var b strings.Builder
	b.WriteString("**Waiting handlers.** Each wait ran with the connections Little's law needs for a rate (connections = rate × wait); " +
		"a server that overlaps its waits serves close to that limit; **% of limit** is its req/s over connections ÷ wait. " +
		"gnet/inline waits on its event loop (the naive form), gnet answers from a bounded pool of goroutines through gnet's asynchronous write.\n\n")
	for _, w := range report.Waits(rep.Wait) {
		var rows []report.Point
		for _, p := range rep.Wait {
			if p.Wait == w {
				rows = append(rows, p)
			}
		}
		limit := float64(rows[0].Conns) / (w / 1000)
		fmt.Fprintf(&b, "Wait %s ms, %s connections: Little's limit %s req/s\n\n", num(w, 0), num(float64(rows[0].Conns), 0), num(limit, 0))
		b.WriteString("| server | req/s | % of limit | server CPU | CPU µs/req | p50 ms | p50 over the wait, ms | p99 ms | peak RSS MB |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		var short []string
		for _, p := range rows {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p.Server, spread(p.ReqPerSec, 0), spread(*p.Little, 1),
				pct(p.Busy), spread(p.CPU, 2), spread(scale(p.P50, 1e-3), 1), spread(shift(scale(p.P50, 1e-3), -w), 1), spread(scale(p.P99, 1e-3), 1), spread(p.RSS, 1))
			if p.Little.N > 0 && p.Little.Median < report.LittleTarget && p.Busy.Median < report.SaturatedBusy {
				short = append(short, p.Server)
			}
		}
		for _, p := range rows {
			if p.FellOver > 0 {
				fmt.Fprintf(&b, "\n%s %s; its figures are the other blocks'.\n", p.Server, Note(p))
			}
		}
		if len(short) > 0 {
			fmt.Fprintf(&b, "\nUnder %.0f %% of the limit with the core not saturated (under %.0f %% busy): %s.\n", report.LittleTarget, report.SaturatedBusy, strings.Join(short, ", "))
		}
		b.WriteString("\n")
		b.WriteString(openTable(rows, w))
	}
	if n := waitUringNote(rep); n != "" {
		b.WriteString(n + "\n")
	}
	return b.String()
}

// openSummary says how much the median request took over the wait at
// wait w's steady rate, across the servers that held it.
func openSummary(ps []report.Point, w float64) string {
	lo, hi, rate := math.Inf(1), math.Inf(-1), 0.0
	var held, not []string
	for _, p := range ps {
		if p.Wait != w || p.Open == nil || p.Open.ReqPerSec.N == 0 {
			continue
		}
		rate = p.Open.Rate
		if p.Open.ReqPerSec.Median < 0.95*p.Open.Rate {
			not = append(not, p.Server)
			continue
		}
		over := p.Open.P50.Median/1000 - w
		lo, hi = min(lo, over), max(hi, over)
		held = append(held, p.Server)
	}
	if len(held) == 0 {
		return ""
	}
	s := fmt.Sprintf("At a steady %s req/s instead (open loop, on twice the connections), the median request took %s–%s ms over its %s ms wait on %s",
		num(rate, 0), num(lo, 2), num(hi, 2), num(w, 0), strings.Join(held, ", "))
	if len(not) > 0 {
		s += fmt.Sprintf("; %s could not hold the rate", strings.Join(not, ", "))
	}
	return s + "."
}

// openTable is a wait's open-loop runs: the same wait at a steady rate
// below the limit, on twice the connections.
func openTable(rows []report.Point, w float64) string {
	var b strings.Builder
	for _, p := range rows {
		if p.Open == nil {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "The same wait at a steady %s req/s (open loop, loadgen -rate, %s connections; latency from each request's due time):\n\n",
				num(p.Open.Rate, 0), num(float64(2*p.Conns), 0))
			b.WriteString("| server | req/s | p50 over the wait, ms | p99 ms | client-limited |\n|---|---:|---:|---:|---|\n")
		}
		limited := "no"
		if p.Open.ClientLimited > 0 {
			limited = fmt.Sprintf("in %d of %d rounds", p.Open.ClientLimited, p.Open.ReqPerSec.N)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", p.Server, spread(p.Open.ReqPerSec, 0),
			spread(shift(scale(p.Open.P50, 1e-3), -w), 2), spread(scale(p.Open.P99, 1e-3), 1), limited)
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// shift adds d to every round of f.
func shift(f report.Figure, d float64) report.Figure {
	v := make([]float64, len(f.Rounds))
	for i, x := range f.Rounds {
		v[i] = x + d
	}
	return bench.FigureOf(v)
}

// WorkPage is docs/work.md's section: the ratio
// table, where each stack stops mattering and the waits, in short.
func WorkPage(rep report.Report) string {
	if len(rep.Work) == 0 {
		return ""
	}
	ls := report.Levels(rep.Work)
	var b strings.Builder
	fmt.Fprintf(&b, "CPU per request over %s's with the handler burning CPU before it answers (keep-alive ceilings on one core; "+
		"the full tables, the calibration and the chart are in [results/REPORT.md](../results/REPORT.md#when-the-stack-matters-make-bench-work)):\n\n", report.Baseline)
	header(&b, "server", ls, fmt.Sprintf("advantage under %.0f %%", 100*report.Matters))
	for _, s := range report.WorkServers(rep.Work) {
		if s != report.Baseline {
			row(&b, s, ls, ratioCell(rep.Work, s))
			fmt.Fprintf(&b, " %s |\n", crossover(rep.Work, s))
		}
	}
	b.WriteString("\n" + workSummary(rep.Work) + "\n")
	if len(rep.Wait) > 0 {
		b.WriteString("\nWith the handler waiting instead (Little's limit is connections ÷ wait):\n\n")
		for _, w := range report.Waits(rep.Wait) {
			var parts []string
			conns := 0
			for _, p := range rep.Wait {
				if p.Wait == w {
					conns = p.Conns
					if p.Little.N == 0 {
						parts = append(parts, p.Server+" failed requests")
						continue
					}
					parts = append(parts, fmt.Sprintf("%s %s %%", p.Server, percent(p.Little.Median)))
				}
			}
			fmt.Fprintf(&b, "- %s ms at %s connections: %s of the limit.\n", num(w, 0), num(float64(conns), 0), strings.Join(parts, ", "))
		}
	}
	if len(rep.Wait) > 0 {
		b.WriteString("\n" + waitSummary(rep.Wait) + "\n")
	}
	b.WriteString("\n" + source(rep, report.WorkSection) + "\n")
	if n := waitUringNote(rep); n != "" {
		b.WriteString("\n" + n)
	}
	return b.String()
}

// percent writes a percentage, with a decimal where it is small.
func percent(pct float64) string {
	if pct < 1 {
		return num(pct, 2)
	}
	if pct < 10 {
		return num(pct, 1)
	}
	return num(pct, 0)
}

// workSummary says in words where the stack stops mattering: the
// cheapest stack's ratio with no work and at the most work measured, and
// the measured work by which every stack's advantage is under matters.
func workSummary(ps []report.Point) string {
	ls := report.Levels(ps)
	if len(ls) < 2 || ls[0] != 0 {
		return ""
	}
	top := ls[len(ls)-1]
	cheapest, best := "", report.Figure{}
	by, still := 0.0, []string(nil)
	for _, s := range report.WorkServers(ps) {
		r0, ok := report.VsBaseline(ps, s, 0)
		if s == report.Baseline || !ok || 1-r0.Median < report.Matters {
			continue
		}
		if cheapest == "" || r0.Median < best.Median {
			cheapest, best = s, r0
		}
		first := -1.0
		for _, us := range ls[1:] {
			if r, ok := report.VsBaseline(ps, s, us); ok && 1-r.Median < report.Matters {
				first = us
				break
			}
		}
		if first < 0 {
			still = append(still, s)
		}
		by = max(by, first)
	}
	if cheapest == "" {
		return fmt.Sprintf("No stack costs less than %.0f %% under %s's CPU per request, even with no handler work.", 100*report.Matters, report.Baseline)
	}
	rTop, _ := report.VsBaseline(ps, cheapest, top)
	text := fmt.Sprintf("In words: on one core the stack matters while the handler is cheap. With no handler work the cheapest, %s, costs %s of %s's CPU per request; with %s of handler CPU it costs %s.",
		cheapest, versus(&best), report.Baseline, workLabel(top), versus(&rTop))
	if len(still) > 0 {
		return text + fmt.Sprintf(" At %s, %s still cost%s over %.0f %% less than %s (by the median).", workLabel(top), strings.Join(still, ", "), verbS(len(still)), 100*report.Matters, report.Baseline)
	}
	return text + fmt.Sprintf(" %s is the first level measured at which every stack is within %.0f %% of %s (by the median of the blocks): past that, pick a stack for what it gives the application, not for its cost.", workLabel(by), 100*report.Matters, report.Baseline)
}

// verbS is a present-tense verb's ending for n subjects.
func verbS(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

// waitSummary says in words what an event loop needs when handlers wait,
// from the wait nearest 10 ms: gnet with its pool against on its loop, and
// the memory with every connection waiting at the longest wait.
func waitSummary(ps []report.Point) string {
	find := func(server string, w float64) (report.Point, bool) {
		for _, p := range ps {
			if p.Server == server && p.Wait == w && p.Little.N > 0 {
				return p, true
			}
		}
		return report.Point{}, false
	}
	ws := report.Waits(ps)
	mid := ws[0]
	for _, w := range ws {
		if math.Abs(math.Log(w/10)) < math.Abs(math.Log(mid/10)) {
			mid = w
		}
	}
	var parts []string
	pool, okP := find("gnet", mid)
	inline, okI := find("gnet"+bench.InlineSuffix, mid)
	if okP && okI {
		parts = append(parts, fmt.Sprintf("An event loop must not wait on its loop: at %s ms and %s connections, gnet waiting on its loop served %s req/s (one wait at a time), gnet with its pool %s req/s (%s %% of the limit).",
			num(mid, 0), num(float64(pool.Conns), 0), num(inline.ReqPerSec.Median, 0), num(pool.ReqPerSec.Median, 0), percent(pool.Little.Median)))
	}
	long := ws[len(ws)-1]
	g, okG := find("gnet", long)
	n, okN := find(report.Baseline, long)
	if okG && okN {
		parts = append(parts, fmt.Sprintf("With all %s connections waiting %s ms, gnet's process peaked at %s MB against %s's %s MB (a goroutine per connection).",
			num(float64(g.Conns), 0), num(long, 0), num(g.RSS.Median, 0), report.Baseline, num(n.RSS.Median, 0)))
	}
	parts = append(parts, "A closed-loop client's every connection waits the wait and then the rest of its request, so no server reaches the limit; the report's p50 over the wait says how much more each request took.")
	if s := openSummary(ps, mid); s != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

package render

import (
	"fmt"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
)

// SweepOne is an idle server's cost: one connection at a time against fifty.
func SweepOne(rep report.Report) string {
	var b strings.Builder
	b.WriteString("| server | CPU µs/req at 1 connection | at 50 | p50 µs at 1 connection |\n|---|--:|--:|--:|\n")
	rows := 0
	for _, s := range report.Order() {
		one, ok1 := sweepPoint(rep, s, 1)
		fifty, ok2 := sweepPoint(rep, s, 50)
		if !ok1 || !ok2 {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", s, spread(one.CPU, 2), spread(fifty.CPU, 2), median(one.P50, 0))
		rows++
	}
	if rows == 0 {
		return ""
	}
	if s, ok := rep.Sections[report.SweepSection]; ok {
		fmt.Fprintf(&b, "\n_`make bench-sweep`'s sweep, %s, %s; %s._\n", s.Date, plural(s.Rounds, "round"), interval(s.Rounds))
	}
	return b.String()
}

func sweepPoint(rep report.Report, server string, conns int) (report.Point, bool) {
	for _, p := range rep.Sweep {
		if p.Server == server && p.Conns == conns && p.CPU.N > 0 {
			return p, true
		}
	}
	return report.Point{}, false
}

func SweepSection(rep report.Report) string {
	if len(rep.Sweep) == 0 {
		return ""
	}
	var b strings.Builder
	if s := rep.Sections[report.SweepSection]; s.Date != rep.Sections[report.CeilingsSection].Date {
		fmt.Fprintf(&b, "Measured %s, %s (the ceilings: %s).\n\n", s.Date, plural(s.Rounds, "round"), orNone(rep.Sections[report.CeilingsSection].Date))
	}
	b.WriteString("![req/s and p99 by connections](sweep.svg)\n\n![server CPU per request by connections](cpu.svg)\n\n")
	b.WriteString("Each run opens its connections, so at many connections part of the CPU per request is accepting them.\n\n")
	b.WriteString("| server | connections | CPU µs/req | req/s | p50 µs | p99 µs | peak RSS MB | server busy | client busy | note |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for _, p := range rep.Sweep {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p.Server, num(float64(p.Conns), 0), spread(p.CPU, 2),
			spread(p.ReqPerSec, 0), median(p.P50, 0), median(p.P99, 0), median(p.RSS, 1), pct(p.Busy), pct(p.ClientBusy), Note(p))
	}
	b.WriteString("\n" + samePoint(rep))
	return b.String()
}

// samePoint sets the sweep's 50-connection point beside the keep-alive
// ceiling: the same measurement, made twice.
func samePoint(rep report.Report) string {
	var b strings.Builder
	rows := 0
	for _, s := range report.Order() {
		sw, ok1 := sweepPoint(rep, s, report.CeilingConns)
		ce, ok2 := report.Find(rep.Ceilings, s, "keepalive")
		if !ok1 || !ok2 || ce.CPU.N == 0 {
			continue
		}
		if rows == 0 {
			fmt.Fprintf(&b, "The sweep at %d connections measures the keep-alive ceiling's point again:\n\n", report.CeilingConns)
			b.WriteString("| server | CPU µs/req, ceilings | in the sweep | sweep − ceilings (medians) |\n|---|--:|--:|--:|\n")
		}
		d := sw.CPU.Median - ce.CPU.Median
		within := "the intervals overlap"
		if sw.CPU.Lo > ce.CPU.Hi || sw.CPU.Hi < ce.CPU.Lo {
			within = "the intervals do not overlap: the runs differed"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %+.2f (%s) |\n", s, spread(ce.CPU, 2), spread(sw.CPU, 2), d, within)
		rows++
	}
	return b.String()
}

func IdleSection(rep report.Report) string {
	if len(rep.Idle) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("![memory per idle connection](memory.svg)\n\n")
	b.WriteString("N connections each send one request, read the answer and go quiet; the server's resident memory grows by the figure per connection, " +
		"and its CPU over the quiet period is what its timers and sweeps cost.\n\n")
	b.WriteString("| server | connections | held | memory per connection | idle CPU, ms per s |\n|---|--:|--:|--:|--:|\n")
	for _, i := range rep.Idle {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", i.Server, num(float64(i.Conns), 0), idleHeld(i), bytesRange(i.PerConn), spread(i.IdleCPU, 2))
	}
	if n := idleUringNote(rep); n != "" {
		b.WriteString("\n" + n)
	}
	return b.String()
}

// idleHeld is an idle row's connections held, and the fewest held in a
// round where some were lost.
func idleHeld(i report.Idle) string {
	held := median(i.Held, 0)
	if i.Held.N > 0 && i.Held.Min < float64(i.Conns) {
		held = fmt.Sprintf("%s (fell to %s)", held, num(i.Held.Min, 0))
	}
	return held
}

func bytesRange(f report.Figure) string {
	if f.N == 0 {
		return "–"
	}
	if f.N == 1 {
		return bytesText(f.Median)
	}
	return fmt.Sprintf("%s (%s–%s)", bytesText(f.Median), bytesText(f.Lo), bytesText(f.Hi))
}

// ScaleSection is bench-scale's ceilings per core count, with the
// efficiency against k times the one-core figure, round by round.
func ScaleSection(rep report.Report) string {
	if len(rep.Scale) == 0 {
		return ""
	}
	s := rep.Sections[report.ScaleSection]
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s, %s; server on CPUs %s, client on CPUs %s.", s.Date, plural(s.Rounds, "round"), s.ServerCPUs, s.ClientCPUs)
	if s.Shared {
		b.WriteString(" **The server and the client shared CPUs**: this run shows the mechanism, not a ceiling; a scaling figure needs a client on CPUs of its own.")
	}
	b.WriteString("\n\nEfficiency is the req/s on k cores over k times the req/s on one core, round by round: 1.00 is perfect scaling.\n\n")
	b.WriteString("| server | cores | req/s | CPU µs/req | server busy (all cores) | efficiency | note |\n|---|--:|--:|--:|--:|--:|---|\n")
	one := map[string]report.Point{}
	for _, p := range rep.Scale {
		if p.Cores == 1 {
			one[p.Server] = p
		}
	}
	for _, p := range rep.Scale {
		eff := "–"
		if o, ok := one[p.Server]; ok && p.Cores > 1 {
			eff = spread(bench.Ratio(p.ReqPerSec, scale(o.ReqPerSec, float64(p.Cores))), 2)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s |\n", p.Server, p.Cores, spread(p.ReqPerSec, 0), spread(p.CPU, 2), pct(p.Busy), eff, Note(p))
	}
	return b.String()
}

package render

import (
	"fmt"
	"math"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
)

// Caption adds the run a table comes from under it.
func Caption(render func(report.Report) string) func(report.Report) string {
	return func(rep report.Report) string {
		t := render(rep)
		if t == "" {
			return ""
		}
		return t + "\n" + source(rep, report.CeilingsSection) + "\n"
	}
}

// source says which run a table comes from and how to read its cells.
func source(rep report.Report, section string) string {
	s, ok := rep.Sections[section]
	if !ok {
		return ""
	}
	unit, run := "round", "make bench-ceilings"
	switch section {
	case report.CeilingsSection:
		unit = "block"
	case report.WorkSection:
		unit, run = "block", "make bench-work"
	case report.LoadSection:
		run = "make bench-load"
	case report.AtLoadSection:
		unit, run = "block", "make bench-load"
	case report.NewConnSection:
		unit, run = "block", "make bench-load PART=newconn"
	case report.TLSSection, report.TLSKeepAliveSection:
		unit, run = "block", "make bench-tls"
	case report.LatencySection:
		return fmt.Sprintf("_`make bench-latency`, %s, %s%s; each cell is %s of the rounds kept._",
			s.Date, plural(s.Rounds, "round"), runHost(rep, s), interval(s.Rounds))
	}
	return fmt.Sprintf("_`%s`, %s, %s%s; each cell is %s, a difference or ratio taken %s by %s._",
		run, s.Date, blocksRun(s, unit), runHost(rep, s), interval(s.Rounds), unit, unit)
}

func orNone(v string) string {
	if v == "" {
		return "(not installed)"
	}
	return v
}

// The figures' text is package bench's, shared with compare and
// make compare WHAT=clients; the rest of this file is the report's own.
var (
	num       = bench.Num
	spread    = bench.FormatFigure
	median    = bench.FormatMedian
	versus    = bench.FormatRatio
	fewBlocks = bench.FewBlocks
)

// interval says how to read spread's parentheses for n blocks or rounds.
func interval(n int) string {
	if n >= 6 {
		return "the median with its 95 % confidence interval (from the order statistics, no assumption about their distribution)"
	}
	return "the median with the range (min–max)"
}

// delta formats a difference of CPU per request, round by round: its median
// and range in µs, or "≈ 0 (within noise)" when the range straddles 0.
func delta(f report.Figure) string {
	if f.N == 0 {
		return "–"
	}
	if f.Straddles(0) {
		return "≈ 0 (within noise)"
	}
	return spread(f, 2)
}

// share formats a difference as a part of a total: "1.30 (14 %)"; a
// difference within the noise has no share.
func share(part, total report.Figure) string {
	if part.N == 0 || total.N == 0 {
		return "–"
	}
	if part.Straddles(0) {
		return "≈ 0 (within noise)"
	}
	return fmt.Sprintf("%s (%.0f %%)", spread(part, 2), 100*part.Median/total.Median)
}

// Note returns a point's label, or "" when its server was saturated; a
// server that fell over says in how many rounds, and why. A CPU figure read
// from few clock ticks says so.
func Note(p report.Point) string {
	if p.FellOver > 0 {
		return fmt.Sprintf("fell over in %s: %s", plural(p.FellOver, "round"), p.Why)
	}
	if t := p.Ticks(); p.Coarse && t > 0 && t < report.CoarseTicks {
		coarse := fmt.Sprintf("CPU from about %.0f clock ticks a round (one tick is %.0f %%)", t, 100/t)
		if p.Label == "" {
			return coarse
		}
		return p.Label + "; " + coarse
	}
	return p.Label
}

// pct formats a busy share in percent.
func pct(f report.Figure) string {
	if f.N == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f %%", f.Median)
}

// bytesText formats a number of bytes as B, KiB or MiB.
func bytesText(v float64) string {
	switch {
	case math.Abs(v) >= 1<<20:
		return fmt.Sprintf("%.1f MiB", v/(1<<20))
	case math.Abs(v) >= 1<<10:
		return fmt.Sprintf("%.1f KiB", v/(1<<10))
	}
	return fmt.Sprintf("%.0f B", v)
}

// plural writes a count of things: "1 round", "5 rounds".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// b2i counts a true as one: a column present, a row that agrees.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// flagArg is the argument a section's first command that has flag gives
// it, "" if none has it.
func flagArg(s report.Section, flag string) string {
	if args := flagArgs(s, flag); len(args) > 0 {
		return args[0]
	}
	return ""
}

// flagArgs are the arguments flag has in a section's commands, in order.
func flagArgs(s report.Section, flag string) []string {
	var args []string
	for _, c := range s.Commands {
		if _, rest, ok := strings.Cut(c, " "+flag+" "); ok {
			arg, _, _ := strings.Cut(rest, " ")
			args = append(args, arg)
		}
	}
	return args
}

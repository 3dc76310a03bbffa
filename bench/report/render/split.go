package render

import (
	"fmt"
	"math"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
	"hellobench/internal/targets"
)

// CostsSplit is COSTS.md's table of where each server's keep-alive
// request goes: user and kernel time at the ceiling (make bench's
// cgroup split) and the system calls it makes, by kind at the ceiling
// and in all at a quarter of it (make bench-load's count).
func CostsSplit(rep report.Report) string {
	var b strings.Builder
	b.WriteString("| server | user µs/req | kernel µs/req | system calls /req at the ceiling | of which read, write, epoll_wait, futex | at 25 % of the ceiling |\n|---|--:|--:|--:|--:|--:|\n")
	rows, off, split := 0, 0, 0
	for _, t := range targets.All {
		if t.Name == "lighttpd-static" {
			continue
		}
		p, ok := report.Find(rep.Ceilings, t.Name, string(bench.KeepAlive))
		sat, okS := report.FindWhy(rep.Why, t.Name, "saturated")
		q, okQ := report.FindWhy(rep.Why, t.Name, "of=25%")
		if !ok && !okS {
			continue
		}
		user, kernel := "–", "–"
		if ok && p.User.N > 0 && p.Sys.N > 0 {
			user, kernel = spread(p.User, 2), spread(p.Sys, 2)
			split++
			// Over the blocks, as the kernel's two counters add up: a
			// median of sums is not the sum of two medians.
			if u, k, c := total(p.User), total(p.Sys), total(p.CPU); math.Abs(u+k-c) > report.SplitTolerance/100*c {
				off++
			}
		}
		calls, kinds, quarter := "–", "–", "–"
		if okS {
			calls = spread(sat.Syscalls, 2)
			if sat.Reads.N > 0 {
				kinds = strings.Join([]string{median(sat.Reads, 2), median(sat.Writes, 2), median(sat.EpollWaits, 2), median(sat.Futex, 2)}, ", ")
			}
		}
		if okQ {
			quarter = spread(q.Syscalls, 2)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", t.Name, user, kernel, calls, kinds, quarter)
		rows++
	}
	if rows == 0 {
		return ""
	}
	b.WriteString("\n")
	if split > 0 {
		fmt.Fprintf(&b, "User + kernel time, summed over the blocks, is within %.0f %% of the total CPU in %d of %d rows. ", report.SplitTolerance, split-off, split)
	}
	b.WriteString(source(rep, report.CeilingsSection))
	if s, ok := rep.Sections[report.WhySection]; ok {
		fmt.Fprintf(&b, " The system calls: `make bench-load PART=why`, %s, %s%s, counted by perf on the kernel's tracepoints; each cell the median with the range (min–max).", s.Date, plural(s.Rounds, "round"), runHost(rep, s))
	} else if s, ok := rep.Sections[report.LoadSection]; ok && len(rep.Why) > 0 {
		fmt.Fprintf(&b, " The system calls: `make bench-load`, %s%s, counted by perf on the kernel's tracepoints; each cell the median with the range (min–max).", s.Date, runHost(rep, s))
	}
	if c, w := rep.Sections[report.CeilingsSection], rep.Sections[report.WhySection]; w.Date != "" && c.Date != "" && report.HostKey(c.Machine) != report.HostKey(w.Machine) {
		b.WriteString(" **The two come from different hosts**: the time split is one host's, the counts another's.")
	}
	return b.String() + "\n"
}

// total sums a figure's rounds, the NaNs of rounds that do not count left
// out.
func total(f report.Figure) float64 {
	var t float64
	for _, x := range f.Rounds {
		if !math.IsNaN(x) {
			t += x
		}
	}
	return t
}

package render

import (
	"fmt"
	"strings"

	"hellobench/bench/report"
)

// CostsWhy is COSTS.md's section on why a request costs more below the
// ceiling: what each server asks of the kernel per request at a quarter of
// its ceiling and saturated.
func CostsWhy(rep report.Report) string {
	if len(rep.Why) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| server | load | req/s (server busy) | system calls /req | epoll_wait /req | events per epoll_wait | voluntary switches /req | involuntary switches /req |\n|---|---|--:|--:|--:|--:|--:|--:|\n")
	for _, w := range rep.Why {
		load := "saturated"
		if w.Load != "saturated" {
			load = strings.Replace(strings.TrimPrefix(w.Load, "of="), "%", " %", 1) + " of its ceiling"
		}
		fmt.Fprintf(&b, "| %s | %s | %s (%s %%) | %s | %s | %s | %s | %s |\n", w.Server, load, spread(w.ReqPerSec, 0), spread(w.Busy, 0),
			spread(w.Syscalls, 2), spread(w.EpollWaits, 3), spread(w.EventsPerWait, 1), spread(w.Voluntary, 3), spread(w.Involuntary, 3))
	}
	b.WriteString("\n")
	for _, s := range report.Order() {
		q, ok := report.FindWhy(rep.Why, s, "of=25%")
		f, okF := report.FindWhy(rep.Why, s, "saturated")
		if !ok || !okF || f.Syscalls.Median == 0 || f.EpollWaits.Median == 0 {
			continue
		}
		fmt.Fprintf(&b, "- **%s**: at a quarter of its ceiling a request costs %s the system calls and %s the epoll_waits it costs saturated, and %s voluntary context switches against %s.\n",
			s, times(q.Syscalls.Median/f.Syscalls.Median), times(q.EpollWaits.Median/f.EpollWaits.Median), num(q.Voluntary.Median, 3), num(f.Voluntary.Median, 3))
	}
	s := rep.Sections["load"]
	fmt.Fprintf(&b, "\n_`make bench-load`, %s, %s on %s; counted by perf on the kernel's tracepoints and from /proc while the load ran; each cell is the median with the range (min–max) of the rounds._\n",
		s.Date, plural(rep.Why[0].Syscalls.N, "round"), rep.Machine.CPU)
	return b.String()
}

// times is a ratio as "2.3 times".
func times(r float64) string { return num(r, 1) + " times" }

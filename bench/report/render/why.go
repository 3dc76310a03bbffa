package render

import (
	"fmt"
	"strings"

	"hellobench/bench/report"
)

// CostsWhy is COSTS.md's section on why a request costs more below the
// ceiling: what each server asks of the kernel per request at a quarter of
// its ceiling and saturated, a row per server, each cell the quarter's
// figure then the saturated one.
func CostsWhy(rep report.Report) string {
	if len(rep.Why) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Each cell: at a quarter of the server's ceiling → saturated.\n\n")
	b.WriteString("| server | server busy | system calls /req | epoll_wait /req | events per epoll_wait | voluntary switches /req | involuntary switches /req |\n|---|--:|--:|--:|--:|--:|--:|\n")
	var goLo, goHi float64
	goRows := 0
	for _, s := range report.Order() {
		q, ok := report.FindWhy(rep.Why, s, "of=25%")
		f, okF := report.FindWhy(rep.Why, s, "saturated")
		if !ok || !okF {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s %% → %s %% | %s → %s | %s → %s | %s → %s | %s → %s | %s → %s |\n", s, median(q.Busy, 0), median(f.Busy, 0),
			median(q.Syscalls, 2), median(f.Syscalls, 2), median(q.EpollWaits, 3), median(f.EpollWaits, 3),
			median(q.EventsPerWait, 1), median(f.EventsPerWait, 1), median(q.Voluntary, 3), median(f.Voluntary, 3),
			median(q.Involuntary, 3), median(f.Involuntary, 3))
		if f.Syscalls.Median > 0 && s != "nginx" && s != "floor" && s != "floor-uring" {
			r := q.Syscalls.Median / f.Syscalls.Median
			if goRows == 0 || r < goLo {
				goLo = r
			}
			goHi = max(goHi, r)
			goRows++
		}
	}
	b.WriteString("\n")
	var parts []string
	for _, s := range []string{"nginx", "floor"} {
		q, ok := report.FindWhy(rep.Why, s, "of=25%")
		f, okF := report.FindWhy(rep.Why, s, "saturated")
		if ok && okF && f.Syscalls.Median > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", s, times(q.Syscalls.Median/f.Syscalls.Median)))
		}
	}
	if goRows > 0 {
		parts = append(parts, fmt.Sprintf("the other servers %s to %s", num(goLo, 1), times(goHi)))
	}
	if len(parts) > 0 {
		b.WriteString("At a quarter of its ceiling a request costs more system calls than saturated: " + strings.Join(parts, ", ") + ".\n")
	}
	s, ok := rep.Sections[report.WhySection]
	run := "make bench-load PART=why"
	if !ok {
		s, run = rep.Sections[report.LoadSection], "make bench-load"
	}
	fmt.Fprintf(&b, "\n_`%s`, %s, %s%s; counted by perf on the kernel's tracepoints and from /proc while the load ran; each cell is the median of the rounds._\n",
		run, s.Date, plural(rep.Why[0].Syscalls.N, "round"), runHost(rep, s))
	return b.String()
}

// times is a ratio as "2.3 times".
func times(r float64) string { return num(r, 1) + " times" }

package render

import (
	"fmt"
	"strings"

	"hellobench/bench/report"
)

// CostsReadiness is COSTS.md's section on what the readiness model costs
// over io_uring: per request, saturated, the system calls the floors and
// gnet make and their CPU split into their own code and the kernel's.
func CostsReadiness(rep report.Report) string {
	if len(rep.Readiness) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| server | req/s (server busy) | system calls /req | io_uring_enter /req | epoll_wait /req | user CPU µs/req | kernel CPU µs/req | voluntary switches /req |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, w := range rep.Readiness {
		fmt.Fprintf(&b, "| %s | %s (%s %%) | %s | %s | %s | %s | %s | %s |\n", w.Server, spread(w.ReqPerSec, 0), spread(w.Busy, 0),
			spread(w.Syscalls, 3), spread(w.URingEnters, 3), spread(w.EpollWaits, 3), spread(w.User, 2), spread(w.Sys, 2), spread(w.Voluntary, 4))
	}
	b.WriteString("\n")
	e, okE := report.FindWhy(rep.Readiness, "floor", "saturated")
	u, okU := report.FindWhy(rep.Readiness, "floor-uring", "saturated")
	if okE && okU && e.Sys.Median > 0 && e.User.Median > 0 && u.URingEnters.Median > 0 {
		fmt.Fprintf(&b, "The io_uring floor makes %s system calls per request against the epoll floor's %s (an io_uring_enter per %s requests, "+
			"against a read and a write for each), and spends %s times the epoll floor's kernel CPU per request and %s times its own (user) CPU: "+
			"the kernel's TCP work is the same, what goes is a system call's entry and exit per read and per write.\n",
			num(u.Syscalls.Median, 3), num(e.Syscalls.Median, 3), num(1/u.URingEnters.Median, 0),
			num(u.Sys.Median/e.Sys.Median, 2), num(u.User.Median/e.User.Median, 2))
	}
	g, okG := report.FindWhy(rep.Readiness, "gnet", "saturated")
	r, okR := report.FindWhy(rep.Readiness, "uring", "saturated")
	if okG && okR && g.Sys.Median > 0 && g.User.Median > 0 && r.URingEnters.Median > 0 {
		fmt.Fprintf(&b, "\nThe same HTTP on both models: uring, the project's parser on its io_uring loop, makes %s system calls per request against gnet's %s, "+
			"and spends %s times gnet's kernel CPU per request and %s times its own.\n",
			num(r.Syscalls.Median, 3), num(g.Syscalls.Median, 3), num(r.Sys.Median/g.Sys.Median, 2), num(r.User.Median/g.User.Median, 2))
	}
	s := rep.Sections[report.ReadinessSection]
	fmt.Fprintf(&b, "\n_`make bench-readiness`, %s, %s%s; each server saturated on 50 keep-alive connections, counted by perf on the kernel's tracepoints and from /proc (the CPU split in the clock's ticks) while the load ran; each cell is the median with the range (min–max) of the rounds._\n",
		s.Date, plural(rep.Readiness[0].Syscalls.N, "round"), runHost(rep, s))
	return b.String()
}

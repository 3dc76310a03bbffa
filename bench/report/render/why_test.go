package render

import (
	"strings"
	"testing"

	"hellobench/bench"
	"hellobench/bench/report"
)

// TestCostsWhy checks COSTS.md's counts per request: a row per server, a
// quarter of its ceiling beside saturated, and the line that sets the two
// against each other.
func TestCostsWhy(t *testing.T) {
	f := func(v ...float64) report.Figure { return bench.FigureOf(v) }
	rep := report.Report{Sections: map[string]report.Section{"load": {Rounds: 6, Date: "2026-12-04 13:00 UTC"}},
		Why: []report.Why{
			{Server: "nginx", Load: "of=25%", ReqPerSec: f(25000, 25000, 25000), Busy: f(30, 31, 32), Syscalls: f(2.6, 2.6, 2.7),
				EpollWaits: f(0.6, 0.6, 0.6), EventsPerWait: f(1.7, 1.7, 1.7), Voluntary: f(0.54, 0.55, 0.56), Involuntary: f(0.01, 0.01, 0.01)},
			{Server: "nginx", Load: "saturated", ReqPerSec: f(100000, 100000, 100000), Busy: f(99, 99, 99), Syscalls: f(2, 2, 2),
				EpollWaits: f(0.04, 0.04, 0.04), EventsPerWait: f(25, 25, 25), Voluntary: f(0.005, 0.005, 0.005), Involuntary: f(0.01, 0.01, 0.01)},
		}}
	got := CostsWhy(rep)
	for _, want := range []string{
		"| nginx | 31 % → 99 % | 2.60 → 2.00 | 0.600 → 0.040 | 1.7 → 25.0 | 0.550 → 0.005 | 0.010 → 0.010 |",
		"At a quarter of its ceiling a request costs more system calls than saturated: nginx 1.3 times.",
		"3 rounds",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the section lacks %q:\n%s", want, got)
		}
	}
	if CostsWhy(report.Report{}) != "" {
		t.Error("a run without counts renders a section")
	}
}

func TestCostsReadiness(t *testing.T) {
	f := func(v ...float64) report.Figure { return bench.FigureOf(v) }
	rep := report.Report{Sections: map[string]report.Section{"readiness": {Rounds: 3, Date: "2026-12-04 22:00 UTC"}},
		Readiness: []report.Why{
			{Server: "floor", Load: "saturated", ReqPerSec: f(170000, 170000, 170000), Busy: f(99, 99, 99), Syscalls: f(2.04, 2.04, 2.05),
				EpollWaits: f(0.04, 0.04, 0.04), Voluntary: f(0.002, 0.002, 0.002), User: f(0.5, 0.5, 0.5), Sys: f(5.3, 5.3, 5.3)},
			{Server: "floor-uring", Load: "saturated", ReqPerSec: f(200000, 200000, 200000), Busy: f(99, 99, 99), Syscalls: f(0.05, 0.05, 0.05),
				URingEnters: f(0.04, 0.04, 0.04), Voluntary: f(0.001, 0.001, 0.001), User: f(0.2, 0.2, 0.2), Sys: f(4.77, 4.77, 4.77)},
		}}
	got := CostsReadiness(rep)
	for _, want := range []string{
		"| floor | 170\u2009000 (170\u2009000–170\u2009000) (99 (99–99) %) | 2.040 (2.040–2.050) | – |",
		"| floor-uring | 200\u2009000",
		"The io_uring floor makes 0.050 system calls per request against the epoll floor's 2.040 (an io_uring_enter per 25 requests",
		"spends 0.90 times the epoll floor's kernel CPU per request and 0.40 times its own (user) CPU",
		"3 rounds",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the section lacks %q:\n%s", want, got)
		}
	}
	if CostsReadiness(report.Report{}) != "" {
		t.Error("a run without counts renders a section")
	}
}

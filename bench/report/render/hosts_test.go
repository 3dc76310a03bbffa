package render

import (
	"strings"
	"testing"

	"hellobench/bench/report"
)

// TestCompareDir sets a run recorded in the history (12-04 22:43, from git
// show 3e36f20:results/bench.txt) beside the recorded hosts: its cells are
// the ones that commit's results.json gives (nginx 6.0635 µs, fasthttp
// 1.158 of nginx in 1.137-1.188, gnet 0.917 in 0.906-0.924), and the
// stack it did not measure (uring) has a dash.
func TestCompareDir(t *testing.T) {
	out, err := CompareDir("testdata/compare-1204", "../../../results")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"This run: 2026-12-04 22:43 UTC, AMD EPYC (host key amd-epyc_linux-6.18.44-fc-v1272_mitigations-not-recorded); nginx 6.06 µs per keep-alive request.",
		"| stack | this run | host A | host B |",
		"The model's prediction for this run (bench/COSTS.md, section 11), from its nginx and floor and host",
		"| nginx, µs per request | 6.06 |",
		"| fasthttp | 1.16 (1.14–1.19) |",
		"| gnet | 0.92 (0.91–0.92) |",
		"| uring | – |",
		"User and kernel time: not recorded in this run.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	_, err = CompareDir(t.TempDir(), "../../../results")
	if err == nil || !strings.Contains(err.Error(), "holds no run: no bench.txt there") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a directory without a run: %v, want one line saying so", err)
	}
}

// TestOrderingsText: the sentence names the ordered groups and the flips
// from the data, and with one host says no ordering holds across hosts.
func TestOrderingsText(t *testing.T) {
	mk := func(r map[string]float64) report.Host {
		run := report.HostRun{Ratios: map[string]report.Figure{}}
		for s, v := range r {
			f := report.Figure{}
			f.Median, f.Lo, f.Hi, f.N = v, v-0.01, v+0.01, 1
			run.Ratios[s] = f
		}
		return report.Host{Runs: []report.HostRun{run}}
	}
	a := mk(map[string]float64{"nethttp": 1.95, "gnet": 0.91, "floor": 0.87})
	b := mk(map[string]float64{"nethttp": 1.91, "gnet": 0.92, "floor": 0.93})
	got := orderings([]report.Host{a, b})
	want := "On each of the 2 hosts, cheapest first, every interval of a group lies below every one of the next's: floor, gnet < nethttp. " +
		"Within a group the difference is smaller than the spread across hosts or a host's own interval, and is not a ranking. Swapping places between hosts: floor/gnet.\n"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := orderings([]report.Host{a}); !strings.HasPrefix(got, "One host recorded") {
		t.Errorf("one host: %q", got)
	}
}

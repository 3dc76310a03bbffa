package render

import (
	"strings"
	"testing"

	"hellobench/bench/report"
)

func TestCrossoverAndCalibration(t *testing.T) {
	ps := []report.Point{
		workAt(t, "nethttp", "0us", 20, 20, 20),
		workAt(t, "nethttp", "20us", 40, 41, 40),
		workAt(t, "fast", "0us", 13, 13, 13),
		workAt(t, "fast", "20us", 33.5, 33.5, 33.5),
		workAt(t, "same", "0us", 20.2, 20.2, 20.2),
		workAt(t, "same", "20us", 40.2, 40.2, 40.2),
		workAt(t, "thin", "0us", 10, 10, 10),
		workAt(t, "thin", "20us", 37, 37, 37),
	}
	for server, want := range map[string]string{
		// (20 - 13)/0.1 - 20 = 50: still 0.84 of nethttp at 20 µs.
		"fast": "still over 10 % at 20 µs; from the costs with no work, about 50 µs",
		"same": "no advantage to lose",
		"thin": "under 10 % at 20 µs",
	} {
		if got := crossover(ps, server); !strings.HasPrefix(got, want) {
			t.Errorf("crossover(%s) = %q; want it to start %q", server, got, want)
		}
	}
	d, ok := report.Added(ps, "fast", 20)
	if !ok || d.Median != 20.5 {
		t.Fatalf("added(fast, 20) = %v, %v; want 20.5", d.Median, ok)
	}
	if got := calibration(d, 20); !strings.Contains(got, "within ±10 %") {
		t.Errorf("calibration of 20.5 at 20 µs: %q", got)
	}
	d, _ = report.Added(ps, "thin", 20)
	if got := calibration(d, 20); !strings.Contains(got, "off by more than 10 %") {
		t.Errorf("calibration of %v at 20 µs: %q", d.Median, got)
	}
}

func TestWaitOpenLoop(t *testing.T) {
	s := report.Samples{"little-%": {83}, "open-rate": {15000, 15000}, "open-req/s": {14925, 14924},
		"open-p50-us": {10130, 10140}, "open-p99-us": {14800, 15000}, "open-client-limited": {1, 0}}
	p, _ := report.WaitPoint("nethttp/wait=10ms/c=200", s)
	if p.Open == nil || p.Open.Rate != 15000 || p.Open.ClientLimited != 1 || p.Open.P50.Median != 10135 {
		t.Fatalf("open loop read as %+v", p.Open)
	}
	got := openTable([]report.Point{p}, 10)
	for _, want := range []string{"steady " + num(15000, 0) + " req/s", "400 connections", "| 0.14 (0.13–0.14) |", "in 1 of 2 rounds"} {
		if !strings.Contains(got, want) {
			t.Errorf("openTable lacks %q:\n%s", want, got)
		}
	}
}

// workAt is a BenchmarkWork point for server at work us with these
// blocks' CPU per request, every block saturated.
func workAt(t *testing.T, server string, us string, cpu ...float64) report.Point {
	t.Helper()
	s := report.Samples{"cpu-us/req": cpu}
	for range cpu {
		s["saturated"] = append(s["saturated"], 1)
	}
	p, ok := report.WorkPoint(server+"/cpu="+us, s, 50)
	if !ok {
		t.Fatalf("WorkPoint(%s/cpu=%s) refused", server, us)
	}
	return p
}

func TestWaitFellOver(t *testing.T) {
	ok, _ := report.WaitPoint("nethttp/wait=10ms/c=200", report.Samples{"little-%": {83, 82, 84}, "cpu-%": {45, 46, 44}})
	slow, _ := report.WaitPoint("fast/wait=10ms/c=200", report.Samples{"little-%": {77, 78}, "cpu-%": {30, 31}})
	fell, _ := report.WaitPoint("fcgi/wait=10ms/c=200", report.Samples{})
	fell.FellOver, fell.Why = 2, "warm-up: 174 non-2xx"
	got := WaitTables(report.Report{Wait: []report.Point{ok, slow, fell}})
	for _, want := range []string{
		"fcgi fell over in 2 rounds: warm-up: 174 non-2xx; its figures are the other blocks'.",
		"Under 80 % of the limit with the core not saturated (under 97 % busy): fast.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("waitTables lacks %q:\n%s", want, got)
		}
	}
}

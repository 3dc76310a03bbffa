package main

import (
	"strings"
	"testing"
)

// latSamples are three rounds of a point at 25 000 req/s: the second
// client-limited, the third 2 % short of the rate.
func latSamples() samples {
	return samples{
		"N": {1, 1, 1}, "rate": {25000, 25000, 25000}, "req/s": {24990, 25001, 24500},
		"samples": {100000, 100000, 98000}, "client-limited": {0, 1, 0},
		"p50-us": {100, 900, 120}, "p90-us": {150, 950, 160}, "p99-us": {300, 990, 320},
		"p99.9-us": {900, 5000, 950}, "p99.99-us": {2000, 9000, 2100}, "max-us": {4000, 12000, 4100},
		"late-p99.9-us": {20, 800, 25}, "late-max-us": {60, 2000, 70},
		"gcs": {12, 40, 13}, "gc-max-us": {250, 300, 260},
	}
}

func TestLatPoint(t *testing.T) {
	l, ok := latPoint("nethttp/r=25000/c=50", latSamples(), "")
	if !ok {
		t.Fatal("latPoint refused nethttp/r=25000/c=50")
	}
	if l.Server != "nethttp" || l.Label != "r=25000" || l.Conns != 50 || l.Rate != 25000 || l.Rounds != 3 {
		t.Errorf("point %+v", l)
	}
	// Only the first round is kept: the second was client-limited, the
	// third short of the rate by more than 1 %.
	if l.ClientLimited != 1 || l.Short != 1 || l.P99.N != 1 || l.P99.Median != 300 || l.P999.Median != 900 || l.Max.Median != 4000 {
		t.Errorf("kept: %d client-limited, %d short, p99 %+v, p99.9 %+v, max %+v", l.ClientLimited, l.Short, l.P99.Spread, l.P999.Spread, l.Max.Spread)
	}
	if l.GCs == nil || l.GCs.Median != 12 || l.GCMax.Median != 250 {
		t.Errorf("collections %+v, longest %+v; want 12 and 250 µs", l.GCs, l.GCMax)
	}
	// The client's lateness counts in every round: it is why one was left out.
	if l.LateP999.N != 3 || l.LateP999.Hi != 800 {
		t.Errorf("send lateness p99.9 %+v; want all three rounds", l.LateP999.Spread)
	}
	s, ok := latPoint("gnet/of=50%/c=50", samples{"N": {1}, "rate": {55000}, "req/s": {55000}, "p99-us": {80}, "client-limited": {0}}, "")
	if !ok || s.share() != 50 || s.GCs != nil || s.P99.Median != 80 {
		t.Errorf("gnet/of=50%%/c=50: %+v, %v", s, ok)
	}
	for _, name := range []string{"nethttp/r=25000", "nethttp/c=50", "nethttp/wait=10ms/c=50"} {
		if _, ok := latPoint(name, latSamples(), ""); ok {
			t.Errorf("latPoint(%q) accepted", name)
		}
	}
}

func TestLatencyTables(t *testing.T) {
	n, _ := latPoint("nethttp/r=25000/c=50", latSamples(), "")
	n55, _ := latPoint("nginx/r=55000/c=50", samples{"N": {1}, "rate": {55000}, "req/s": {55000}, "p99-us": {80}, "client-limited": {0},
		"late-p99.9-us": {31}, "late-max-us": {90}}, "")
	g, _ := latPoint("nginx/r=25000/c=50", samples{"N": {1}, "rate": {25000}, "req/s": {25000}, "p99-us": {70}, "p99.9-us": {150}, "client-limited": {0}}, "")
	fell, _ := latPoint("gin/r=25000/c=50", samples{"N": {1}, "fell-over": {1}}, "500 failed requests")
	rep := Report{Latency: []Lat{n55, fell, n, g}, Sections: map[string]Section{"latency": {Rounds: 3, Date: "2026-12-04 13:00 UTC"}}}
	sortLat(rep.Latency)
	var got []string
	for _, l := range rep.Latency {
		got = append(got, l.Server+" "+l.Label)
	}
	if want := "nethttp r=25000, gin r=25000, nginx r=25000, nginx r=55000"; strings.Join(got, ", ") != want {
		t.Errorf("order %s; want %s", strings.Join(got, ", "), want)
	}
	text := latencySection(rep)
	for _, want := range []string{
		"### 25\u2009000 req/s, 50 connections",
		"| nethttp | 24\u2009990 | 100 | 150 | 300 | 900 | 2000 | 4000 | 12 (longest 250 µs) | 25 (20–800) |",
		"| gin | fell over: 500 failed requests",
		"Rounds left out (loadgen client-limited, or the rate achieved more than 1 % short): nethttp 2 of 3.",
		"Not held at this rate, above 90 % of its ceiling: nethttp, gin.",
		"against nginx at 55\u2009000 req/s on 50 connections: p99.9 31 µs, max 90 µs (over 1 round)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the section lacks %q:\n%s", want, text)
		}
	}
	if got := tailAt(rep, "nginx"); got != "150" {
		t.Errorf("nginx's p99.9 at the common rate: %q", got)
	}
	svg := latencySVG(rep)
	for _, want := range []string{"99.99 %", "nethttp", "nginx"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
}

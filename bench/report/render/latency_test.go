package render

import (
	"strings"
	"testing"

	"hellobench/bench/report"
)

func TestLatencyTables(t *testing.T) {
	lat, err := report.Read(map[string]string{"latency": "../testdata/latency.txt"})
	if err != nil || len(lat.Latency) != 1 {
		t.Fatalf("../testdata/latency.txt: %d points, %v", len(lat.Latency), err)
	}
	n := lat.Latency[0]
	n55, _ := report.LatPoint("nginx/r=55000/c=50", report.Samples{"N": {1}, "rate": {55000}, "req/s": {55000}, "p99-us": {80}, "client-limited": {0},
		"late-p99.9-us": {31}, "late-max-us": {90}}, "")
	g, _ := report.LatPoint("nginx/r=25000/c=50", report.Samples{"N": {1}, "rate": {25000}, "req/s": {25000}, "p99-us": {70}, "p99.9-us": {150}, "client-limited": {0}}, "")
	fell, _ := report.LatPoint("gin/r=25000/c=50", report.Samples{"N": {1}, "fell-over": {1}}, "500 failed requests")
	rep := report.Report{Latency: []report.Lat{n55, fell, n, g}, Sections: map[string]report.Section{"latency": {Rounds: 3, Date: "2026-12-04 13:00 UTC"}}}
	report.SortLat(rep.Latency)
	var got []string
	for _, l := range rep.Latency {
		got = append(got, l.Server+" "+l.Label)
	}
	if want := "nethttp r=25000, gin r=25000, nginx r=25000, nginx r=55000"; strings.Join(got, ", ") != want {
		t.Errorf("order %s; want %s", strings.Join(got, ", "), want)
	}
	text := LatencySection(rep)
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
	svg := LatencySVG(rep)
	for _, want := range []string{"99.99 %", "nethttp", "nginx"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
}

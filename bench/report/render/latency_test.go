package render

import (
	"strings"
	"testing"

	"hellobench/bench"
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
	svg := LatencySVG(rep)
	for _, want := range []string{"99.99 %", "nethttp", "nginx"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
}

// TestCostAtLoad checks the server's CPU at fixed rates: its table with
// the ratio to nginx's at the same share, round by round, the pick table's
// cores at 10 000 req/s and rate within the bound, and the latency rows marking a
// percentile no longer than the host's own stall as the host's.
func TestCostAtLoad(t *testing.T) {
	at := func(name string, cpu ...float64) report.Lat {
		s := report.Samples{"N": {1, 1, 1}, "rate": {10000, 10000, 10000}, "req/s": {10000, 10000, 10000}, "client-limited": {0, 0, 0},
			"p99-us": {300, 310, 320}, "p99.9-us": {900, 1000, 1100}, "max-us": {5000, 5000, 5000},
			"cpu-us/req": cpu, "cpu-%": {30, 31, 32},
			"host-p99-us": {100, 100, 100}, "host-p99.9-us": {1200, 1200, 1200}, "host-max-us": {4000, 4000, 4000}, "host-rt": {1, 1, 1}}
		l, ok := report.LatPoint(name, s, "")
		if !ok {
			t.Fatalf("LatPoint(%s) refused", name)
		}
		return l
	}
	rep := report.Report{Sections: map[string]report.Section{"load": {Rounds: 3, Date: "2026-12-04 13:00 UTC"}},
		Load:     []report.Lat{at("nethttp/of=25%/c=50", 40, 44, 48), at("nginx/of=25%/c=50", 20, 20, 20), at("nethttp/r=10000/c=50", 30, 30, 30)},
		Capacity: []report.Capacity{{Server: "nethttp", SLO: 5000, Rate: bench.FigureOf([]float64{30000, 31000, 32000}), Share: bench.FigureOf([]float64{60, 62, 64}), HostP99: bench.FigureOf([]float64{200, 210, 220})}}}
	report.SortLat(rep.Load)
	text := CostAtLoad(rep)
	for _, want := range []string{
		"| server (share of its own ceiling) | 25 % |\n",
		"| nethttp | 44.00 (40.00–48.00); 2.20 (2.00–2.40) [range of 3] |\n",
		"| nginx | 20.00 (20.00–20.00) |\n",
		"| server (rate, req/s) | 10\u2009000 |",
		"| nethttp | 30.00 (30.00–30.00) |",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the section lacks %q:\n%s", want, text)
		}
	}
	if got := coresCell(rep, "nethttp"); got != "0.30" {
		t.Errorf("the pick table's cores at 10 000 req/s: %q, want 0.30 (30 µs a request)", got)
	}
	if got := heldCell(rep, "nethttp"); got != "31\u2009000" {
		t.Errorf("the pick table's capacity cell: %q", got)
	}
	if got := CapacityTable(rep); !strings.Contains(got, "| nethttp | 31\u2009000 (30\u2009000–32\u2009000) | 62 (60–64) % | 210 (200–220) |") || !strings.Contains(got, "p99 within 5000 µs") {
		t.Errorf("the capacity table:\n%s", got)
	}
	rows := latTable(rep.Load[:1], rep.Load)
	for _, want := range []string{"| 310 (300–320) | 1000 (900–1100) (host) |", "| 5000 (5000–5000) | not traced |", "| 30.00 (30.00–30.00) (31 (30–32) %) | 100 (100–100) / 1200 (1200–1200) / 4000 (4000–4000) |"} {
		if !strings.Contains(rows, want) {
			t.Errorf("the latency row lacks %q:\n%s", want, rows)
		}
	}
}

// TestAtLoadTable checks make bench-load's blocks at a quarter of the
// ceiling in the report: the table with each ratio to the reference
// beside the server and the blocks kept.
func TestAtLoadTable(t *testing.T) {
	rep, err := report.Read(map[string]string{"atload": "../testdata/atload.txt"})
	if err != nil {
		t.Fatal(err)
	}
	text := CostAtLoad(rep)
	for _, want := range []string{
		"| nethttp | 43.10 (40.00–46.20) | 2.05 (2.00–2.10) [range of 2] | 43 % | 2 of 3 |",
		"| nginx/aa | 21.21 (20.20–22.00) | 1.01 (1.00–1.01) [range of 3], tie | 53 % |",
		"_`make bench-load`, 2026-12-02 11:00 UTC, 3 blocks",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the section lacks %q:\n%s", want, text)
		}
	}
}

// TestLatencyHostLine checks the latency chart's line of the host's own
// stalls: drawn dashed, in the plot and in the legend, and no server's
// line dashed.
func TestLatencyHostLine(t *testing.T) {
	s := report.Samples{"N": {1, 1, 1}, "rate": {25000, 25000, 25000}, "req/s": {25000, 25000, 25000}, "client-limited": {0, 0, 0},
		"p50-us": {50, 50, 50}, "p90-us": {80, 80, 80}, "p99-us": {300, 310, 320}, "p99.9-us": {900, 1000, 1100}, "p99.99-us": {2000, 2000, 2000}, "max-us": {5000, 5000, 5000},
		"host-p99-us": {100, 100, 100}, "host-p99.9-us": {1200, 1200, 1200}, "host-max-us": {4000, 4000, 4000}, "host-rt": {1, 1, 1}}
	l, ok := report.LatPoint("nethttp/r=25000/c=50", s, "")
	if !ok {
		t.Fatal("LatPoint refused")
	}
	svg := LatencySVG(report.Report{Latency: []report.Lat{l}})
	if !strings.Contains(svg, hostName) {
		t.Fatalf("no host line in:\n%s", svg)
	}
	// One dashed polyline (the plot) and one dashed legend line.
	if n := strings.Count(svg, `stroke-dasharray="6 3"`); n != 2 {
		t.Errorf("%d dashed lines, want 2 (the host's, plot and legend):\n%s", n, svg)
	}
}

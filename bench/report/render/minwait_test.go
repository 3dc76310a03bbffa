package render

import (
	"strings"
	"testing"

	"hellobench/bench/report"
)

// minWaitReport is testdata's min-wait run (three blocks; 100 µs fell
// over in one) read as bin/report reads it, with make bench-load's search
// bound at slo µs (0: no search).
func minWaitReport(t *testing.T, slo float64) report.Report {
	t.Helper()
	var rep report.Report
	if err := report.AddMinWait(&rep, "../testdata/minwait.txt"); err != nil {
		t.Fatal(err)
	}
	if slo > 0 {
		rep.Capacity = []report.Capacity{{Server: "uring", SLO: slo}}
	}
	return rep
}

// TestMinWaitTable: a row a wait, none first, the figures of the blocks
// held with their range, the ratio to none block by block, the blocks
// held and why one fell over; the chart's link, from COSTS.md and from
// REPORT.md; the run's source.
func TestMinWaitTable(t *testing.T) {
	rep := minWaitReport(t, 5000)
	got := MinWaitCosts(rep)
	for _, want := range []string{
		"uring held open loop at 25 % of its keep-alive ceiling (12\u2009500 req/s) on 50 keep-alive connections, started with each minimum wait in turn",
		"| min wait | CPU µs/req | vs none | p50 µs | p99 µs | blocks held |\n|--:|--:|--:|--:|--:|--:|\n" +
			"| none | 10.00 (10.00–11.00) | – | 52 (50–55) | 210 (200–220) | 3 of 3 |\n" +
			"| 50 µs | 9.50 (9.00–9.90) | 0.90 (0.90–0.95) [range of 3] | 105 (100–110) | 310 (300–320) | 3 of 3 |\n" +
			"| 100 µs | 8.93 (8.50–9.35) | 0.85 (0.85–0.85) [range of 2] | 155 (150–160) | 410 (400–420) | 2 of 3; fell over in 1 block: loadgen: 12 requests failed |\n",
		"\nLower CPU per request than with none, beyond the noise, and the p99 within the pick table's bound of 5 ms: 50 µs (0.90), 100 µs (0.85).\n",
		"![uring's CPU per request with each minimum wait](../results/minwait.svg)",
		"_`make bench-load PART=min-wait`, 2026-12-06 09:00 UTC, 3 blocks, on Test CPU, the waits in each block's own order; each cell is the median with the range (min–max), a ratio taken block by block, over the blocks in which the server held the rate (within 1 %)._\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if part := MinWaitPart(rep); !strings.Contains(part, "](minwait.svg)") || strings.Replace(part, "](minwait.svg)", "](../results/minwait.svg)", 1) != got {
		t.Errorf("REPORT.md's part differs from COSTS.md's but for the chart's link:\n%s", part)
	}
	if strings.Contains(got, "quick") {
		t.Errorf("a full run called quick:\n%s", got)
	}
	if got := MinWaitCosts(report.Report{}); got != "" {
		t.Errorf("no run: %q, want \"\"", got)
	}
}

// TestMinWaitVerdict: a wait counts as lowering the CPU only with its
// ratio's interval under 1, and with its p99's under the pick table's
// bound when the results have one.
func TestMinWaitVerdict(t *testing.T) {
	for slo, want := range map[float64]string{
		5000: "Lower CPU per request than with none, beyond the noise, and the p99 within the pick table's bound of 5 ms: 50 µs (0.90), 100 µs (0.85).",
		350:  "Lower CPU per request than with none, beyond the noise, and the p99 within the pick table's bound of 350 µs: 50 µs (0.90). Lower, but with the p99 past the bound: 100 µs (0.85).",
		300:  "No minimum wait lowered the CPU per request beyond the noise with the p99 within the pick table's bound of 300 µs. Lower, but with the p99 past the bound: 50 µs (0.90), 100 µs (0.85).",
		0:    "Lower CPU per request than with none, beyond the noise, and no p99 bound in these results (make bench-load's search sets it): 50 µs (0.90), 100 µs (0.85).",
	} {
		if got := minWaitVerdict(minWaitReport(t, slo)); got != want {
			t.Errorf("bound %g µs:\n got %s\nwant %s", slo, got, want)
		}
	}
	// A ratio whose interval reaches 1 is no saving.
	rep := minWaitReport(t, 5000)
	rep.MinWait.Rows[1].VsNone.Hi = 1.01
	if got, want := minWaitVerdict(rep), "Lower CPU per request than with none, beyond the noise, and the p99 within the pick table's bound of 5 ms: 100 µs (0.85)."; got != want {
		t.Errorf("50 µs's ratio straddling 1:\n got %s\nwant %s", got, want)
	}
}

// TestMinWaitSVG: a bar a wait, labelled, with its p99 beside it; none
// without the run.
func TestMinWaitSVG(t *testing.T) {
	root := parseSVG(t, "minwait.svg", MinWaitSVG(minWaitReport(t, 0)))
	wantSVGTexts(t, "minwait.svg", root, "uring's CPU per request with each io_uring minimum wait",
		"none", "50 µs", "100 µs", "p99 210 µs", "p99 310 µs", "p99 410 µs", "server CPU µs per request", "0", "5", "10", "15")
	bars := 0
	root.walk(func(n svgNode) {
		if n.XMLName.Local == "rect" && n.attr("fill") == colour(report.Rank("uring")) {
			bars++
		}
	})
	if bars != 3 {
		t.Errorf("%d bars in uring's colour, want 3", bars)
	}
	if got := MinWaitSVG(report.Report{}); got != "" {
		t.Errorf("no run: %q, want \"\"", got)
	}
}

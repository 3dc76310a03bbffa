package render

import (
	"strings"
	"testing"

	"hellobench/bench/report"
)

// conn10Report is a run with keep-alive rows and, for two servers and
// nginx, rows at 10 requests a connection, one of which never saturated
// its server.
func conn10Report(withConn10 bool) report.Report {
	rep := report.Report{Ceilings: []report.Point{
		{Server: "nethttp", Mode: "keepalive", Conns: 50, CPU: chartFig(11, 12, 13), CPUVsNginx: chartRatio(1.9, 2.0, 2.1)},
		{Server: "nbio", Mode: "keepalive", Conns: 50, CPU: chartFig(9, 10, 11), CPUVsNginx: chartRatio(1.6, 1.7, 1.8)},
		{Server: "nginx", Mode: "keepalive", Conns: 50, CPU: chartFig(5, 6, 7)},
	}}
	if withConn10 {
		rep.Ceilings = append(rep.Ceilings,
			report.Point{Server: "nethttp", Mode: "conn10", Conns: 50, CPU: chartFig(20, 21, 22), CPUVsNginx: chartRatio(1.4, 1.5, 1.6)},
			report.Point{Server: "nbio", Mode: "conn10", Conns: 50, CPU: chartFig(15, 16, 17), CPUVsNginx: chartRatio(1.1, 1.2, 1.3), Label: report.Unsaturated},
			report.Point{Server: "nginx", Mode: "conn10", Conns: 50, CPU: chartFig(13, 14, 15)})
	}
	return rep
}

// TestConn10 renders the mode of 10 requests a connection where a run has
// it: a column of docs/ceilings.md's table, a table of REPORT.md and a
// panel of the chart, a row not saturated labelled as such; and nothing of
// it where the run has none, so that pages of runs before the mode stay as
// they were.
func TestConn10(t *testing.T) {
	with := conn10Report(true)
	page := CeilingsPage(with)
	for _, want := range []string{
		"| allocs/request (in memory) | 10 a connection: CPU µs/request, vs nginx | note |\n|---|--:|--:|--:|--:|--:|--:|---|\n",
		"| nethttp | 12.00 (11.00–13.00) | 2.00 (1.90–2.10) [range of 3] |",
		"| 21.00 (20.00–22.00), 1.50 (1.40–1.60) [range of 3] |",
		"| 16.00 (15.00–17.00), 1.20 (1.10–1.30) [range of 3] (" + report.Unsaturated + ") |",
		"| nginx | 6.00 (5.00–7.00) | – |",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("docs/ceilings.md's table lacks %q:\n%s", want, page)
		}
	}
	tables := CeilingTables(with)
	if !strings.Contains(tables, "### "+modeTitles["conn10"]+"\n") {
		t.Errorf("REPORT.md's ceilings lack the conn10 table:\n%s", tables)
	}
	root := parseSVG(t, "ceilings", CeilingsSVG(with))
	wantSVGTexts(t, "ceilings", root, "10 requests a connection, then a new one, 50 connections at a time",
		"1.20 (1.10–1.30) [range of 3], "+report.Unsaturated)

	without := conn10Report(false)
	if page := CeilingsPage(without); strings.Contains(page, "10 a connection") || !strings.Contains(page, "| note |\n|---|--:|--:|--:|--:|--:|---|\n") {
		t.Errorf("a run without conn10 has its column:\n%s", page)
	}
	if tables := CeilingTables(without); strings.Contains(tables, modeTitles["conn10"]) || !strings.Contains(tables, "### "+modeTitles["close"]+"\n\nNot measured in this run.") {
		t.Errorf("a run without conn10: its table shown, or the modes of before not:\n%s", tables)
	}
	for _, s := range svgTexts(parseSVG(t, "ceilings", CeilingsSVG(without))) {
		if strings.HasPrefix(s, "10 requests") {
			t.Errorf("a panel %q for a run without conn10", s)
		}
	}
}

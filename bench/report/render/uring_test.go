package render

import (
	"strings"
	"testing"

	"hellobench/bench/report"
)

// TestUringNote checks the footnotes of the tables whose uring rows come
// from make bench-work PART=uring's run (report's testdata: 4 blocks
// against work.txt's 2 and sweep.txt's 3): each names the rows it
// replaced, the run, its date and blocks, and the rows keep their own
// blocks' spread; without the run there is no note.
func TestUringNote(t *testing.T) {
	rep, err := report.Read(map[string]string{"work": "../testdata/work-uring.txt", "sweep": "../testdata/sweep-uring.txt", report.UringSection: "../testdata/uring.txt"})
	if err != nil {
		t.Fatal(err)
	}
	const run = ": `make bench-work PART=uring` (`bin/report -uring`), 2026-12-06 01:00 UTC, 4 blocks, on AMD EPYC; each of their cells is the median with the range (min–max). The other rows are the whole run's._\n"
	wait := "_uring's rows" + run
	idle := "_uring's and floor-uring's rows" + run
	waits := WaitTables(rep)
	if !strings.HasSuffix(waits, "\n"+wait+"\n") || strings.Count(waits, "rows: `make bench-work PART=uring`") != 1 {
		t.Errorf("the wait tables do not end with one note %q:\n%s", wait, waits)
	}
	// uring's 4 blocks, gnet's 2, each row its own spread (thousands
	// set off by a thin space).
	for _, row := range []string{
		"| gnet | 17\u2009000 (17\u2009000–17\u2009000) | 90.0 (90.0–90.1) | 15 % | 8.05 (8.00–8.10) |",
		"| uring | 17\u2009000 (17\u2009000–17\u2009000) | 98.2 (98.0–98.3) | 15 % | 5.15 (5.00–5.30) |",
	} {
		if !strings.Contains(waits, row) {
			t.Errorf("the wait tables lack %q:\n%s", row, waits)
		}
	}
	if got := IdleSection(rep); !strings.HasSuffix(got, "\n"+idle) || !strings.Contains(got, "| uring | 1000 | 1000 | 2.5 KiB (2.5 KiB–2.5 KiB) | 0.32 (0.30–0.33) |") {
		t.Errorf("the idle table does not end with %q, or lacks uring's 4 rounds:\n%s", idle, got)
	}
	rep.Work = []report.Point{{Server: report.Baseline, CPU: report.Figure{}}}
	if got := WorkPage(rep); !strings.HasSuffix(got, "\n"+wait) {
		t.Errorf("docs/work.md's section does not end with %q:\n%s", wait, got)
	}
	delete(rep.Sections, report.UringSection)
	if got := WaitTables(rep) + IdleSection(rep) + WorkPage(rep); strings.Contains(got, "PART=uring") {
		t.Errorf("a note without make bench-work PART=uring's run:\n%s", got)
	}
}

package render

import (
	"slices"
	"testing"

	"hellobench/bench/report"
)

// TestGroupBlocks checks that a command run once per block is listed once,
// its blocks beside it, one without a block with the times it ran, and
// one run once as it ran, in the order of first appearance.
func TestGroupBlocks(t *testing.T) {
	cmds := []string{
		"go test -bench . -count 5 ./servers/...",
		"go test -bench Sweep ./bench",
		"go test -bench Ceiling ./bench -args -for 300ms -block 0",
		"go test -bench Ceiling ./bench -args -for 300ms -block 1",
		"go test -bench TLS ./bench -args -servers nginx -block 2 -tls12",
		"go test -bench Ceiling ./bench -args -for 300ms -block 2",
		"go test -bench Ceiling ./bench -args -for 300ms -block 5",
		"go test -bench TLS ./bench -args -servers chi -block 12",
		"go test -bench TLS ./bench -args -servers nginx -block 3 -tls12",
		"go test -bench TLS ./bench -args -servers nginx -block 4 -tls12",
		"go test -bench TLS ./bench -args -servers nginx -block 6 -tls12",
		"go test -bench Sweep ./bench",
	}
	want := []string{
		"go test -bench . -count 5 ./servers/...",
		"go test -bench Sweep ./bench  # 2 times",
		"go test -bench Ceiling ./bench -args -for 300ms -block K  # K: 0–2, 5",
		"go test -bench TLS ./bench -args -servers nginx -block K -tls12  # K: 2–4, 6",
		"go test -bench TLS ./bench -args -servers chi -block 12",
	}
	if got := groupBlocks(cmds); !slices.Equal(got, want) {
		t.Errorf("groupBlocks:\n%q\nwant\n%q", got, want)
	}
}

// TestCommandList checks the list's headings: each section's file, the
// make invocations that write it and its date, in the order asked for,
// and nothing for a section not run.
func TestCommandList(t *testing.T) {
	rep := report.Report{Sections: map[string]report.Section{
		"ceilings": {Date: "2026-12-05 00:59 UTC", Commands: []string{"go test -bench Ceiling ./bench -args -block 0", "go test -bench Ceiling ./bench -args -block 1"}},
		"atload":   {Date: "2026-12-05 02:00 UTC", Commands: []string{"go test -bench AtLoad ./bench -args -block 0"}},
	}}
	got := CommandList(rep, []string{"atload", "sweep", "ceilings"})
	want := "Each section's go test commands, run from the repository root block by block: a command run in several blocks is listed once, with `-block K` and its blocks. " +
		"The raw output of each section is the .txt file of its name beside this report (bench.txt for the ceilings), or that file gzip-compressed (.txt.gz), which bin/report reads as it is; `benchstat old.txt new.txt` compares two runs (`gunzip -k` first).\n" +
		"\natload.txt, `make bench-load` or `make bench-load PART=at-load`, 2026-12-05 02:00 UTC:\n\n```\ngo test -bench AtLoad ./bench -args -block 0\n```\n" +
		"\nbench.txt, `make bench-ceilings`, 2026-12-05 00:59 UTC:\n\n```\ngo test -bench Ceiling ./bench -args -block K  # K: 0–1\n```\n"
	if got != want {
		t.Errorf("CommandList:\n%s\nwant\n%s", got, want)
	}
}

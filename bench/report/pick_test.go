package report

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadRobustness checks the robustness page as the pick table reads
// it: its date, host and size, each server's results by kind, a server
// not run, and the corpus table after the servers left out.
func TestReadRobustness(t *testing.T) {
	r, err := ReadRobustness("testdata/ROBUSTNESS.md")
	if err != nil {
		t.Fatal(err)
	}
	if r.Date != "2026-12-07 00:51 UTC" || r.Host != "amd-26-2_linux-6.18_mit-0a1b2c3d" || !r.Full || len(r.Servers) != 3 {
		t.Fatalf("read %+v", r)
	}
	if h, ok := r.Find("nethttp"); !ok || h.Held != 2 || h.Deviations != nil || h.Failed != nil {
		t.Errorf("nethttp: %+v", h)
	}
	h, ok := r.Find("hertz")
	if !ok || h.Held != 1 || !slices.Equal(h.Deviations, []string{"slow body"}) || !slices.Equal(h.Failed, []string{"many pipeliners, never read"}) || !slices.Equal(h.Skipped, []string{"soak"}) {
		t.Errorf("hertz: %+v", h)
	}
	if _, ok := r.Find("uring"); ok {
		t.Error("uring, not run, has results")
	}
	if r, err := ReadRobustness(filepath.Join(t.TempDir(), "none.md")); r != nil || err != nil {
		t.Errorf("a missing page: %v, %v", r, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.md")
	os.WriteFile(bad, []byte("# Robustness\n\n## nethttp\n\n| slowloris | 1 | maybe | x |\n"), 0o644)
	if _, err := ReadRobustness(bad); err == nil {
		t.Error("a page with an unknown result and no date read without an error")
	}
}

// TestReadPick checks make bench's run read on its own: its pick sizes,
// how long each command took, and no run at all.
func TestReadPick(t *testing.T) {
	dir := t.TempDir()
	if rep, err := ReadPick(dir); rep != nil || err != nil {
		t.Fatalf("no pick.txt: %v, %v", rep, err)
	}
	text := DatePrefix + "2026-12-08 01:00 UTC\n" + RoundsPrefix + "1\n" + PickPrefix + "rate 30000 idle 10000\n" +
		CommandPrefix + "go test -run '^$' -bench Ceiling ./bench\n" +
		"pkg: hellobench/bench\n" +
		"BenchmarkCeiling/nginx/keepalive-2 \t 1\t 7.8 cpu-us/req\t 1.0 saturated\t 128000 req/s\n" +
		"ok  \thellobench/bench\t12.5s\n" +
		CommandPrefix + "go test -run '^$' -bench Idle ./bench\n" +
		"ok  \thellobench/bench\t30.25s\n"
	if err := os.WriteFile(filepath.Join(dir, PickFile), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := ReadPick(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Sections[PickSection]
	if s.Rate != 30000 || s.Idle != 10000 || s.Took != 42.75 || !slices.Equal(s.Durations, []float64{12.5, 30.25}) || len(rep.Ceilings) != 1 {
		t.Errorf("section %+v, %d ceilings", s, len(rep.Ceilings))
	}
}

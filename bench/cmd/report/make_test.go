package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"hellobench/bench/report"
	"hellobench/bench/report/render"
)

// runOf is the make run of target and part.
func runOf(t *testing.T, target, part string) makeRun {
	t.Helper()
	for _, r := range makeRuns {
		if r.target == target && r.part == part {
			return r
		}
	}
	t.Fatalf("no make %s PART=%s", target, part)
	return makeRun{}
}

// TestAgreeDirs checks the directories an agreement page compares: with
// AGAIN=N results/ and its re-runs 2 to N; without, every re-run of the
// target's kind there is, in the order of their numbers.
func TestAgreeDirs(t *testing.T) {
	results := t.TempDir()
	bench, load, tls := runOf(t, "bench-ceilings", ""), runOf(t, "bench-load", "why"), runOf(t, "bench-tls", "")
	if dirs, err := bench.agreeDirs(results, ""); err != nil || dirs != nil {
		t.Errorf("no re-run: %q %v, want none", dirs, err)
	}
	for _, d := range []string{"10", "2", "9", "load-10", "load-2", "tls-keepalive-12", "tls-3", "h3-2"} {
		if err := os.MkdirAll(filepath.Join(results, "again", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	again := func(names ...string) []string {
		dirs := []string{results}
		for _, n := range names {
			dirs = append(dirs, filepath.Join(results, "again", n))
		}
		return dirs
	}
	for _, c := range []struct {
		r     makeRun
		again string
		want  []string
	}{
		{bench, "", again("2", "9", "10")},
		{bench, "4", again("2", "3", "4")},
		{load, "", again("load-2", "load-10")},
		{runOf(t, "bench-load", ""), "3", again("load-2", "load-3")},
		{tls, "", again("tls-3")},
		{runOf(t, "bench-tls", "h3"), "", again("h3-2")},
	} {
		got, err := c.r.agreeDirs(results, c.again)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("make %s PART=%s AGAIN=%s: %q %v, want %q", c.r.target, c.r.part, c.again, got, err, c.want)
		}
	}
	if got := runOf(t, "bench-latency", "").againDir("results", "3"); got != "results/again/latency-3" {
		t.Errorf("make bench-latency AGAIN=3 writes %s, want results/again/latency-3", got)
	}
}

// copyResults copies the results.json of the committed run in from (under
// the module root's results/) into to.
func copyResults(t *testing.T, from, to string) {
	t.Helper()
	b, err := report.ReadFile(filepath.Join(root, "results", from, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(to, "results.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFinish checks that a run writes its agreement page from results/
// and its re-runs in the order of their numbers, prints it with AGAIN
// only, and that a latency re-run keeps no HdrHistogram logs.
func TestFinish(t *testing.T) {
	results := t.TempDir()
	copyResults(t, ".", results)
	copyResults(t, "again/2", filepath.Join(results, "again", "2"))
	copyResults(t, "again/10", filepath.Join(results, "again", "10"))
	var out bytes.Buffer
	if err := runOf(t, "bench-ceilings", "").finish(results, "", &out); err != nil {
		t.Fatal(err)
	}
	want, err := render.Agree([]string{results, filepath.Join(results, "again", "2"), filepath.Join(results, "again", "10")})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(results, "agreement.md")); err != nil || string(got) != want {
		t.Errorf("agreement.md is not render.Agree(results, again/2, again/10): %v\n%s", err, firstDiff(string(got), want))
	}
	if out.Len() != 0 {
		t.Errorf("without AGAIN the page was printed too")
	}

	logs := filepath.Join(results, "again", "latency-2", "latency")
	copyResults(t, "again/latency-2", filepath.Join(results, "again", "latency-2"))
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runOf(t, "bench-latency", "").finish(results, "2", &out); err != nil {
		t.Fatal(err)
	}
	want, err = render.AgreeLatency([]string{results, filepath.Join(results, "again", "latency-2")})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(results, "latency-agreement.md")); err != nil || string(got) != want || out.String() != want {
		t.Errorf("latency-agreement.md (%v) or what was printed is not render.AgreeLatency(results, again/latency-2)", err)
	}
	if _, err := os.Stat(logs); !os.IsNotExist(err) {
		t.Errorf("the re-run's latency logs are still there: %v", err)
	}
	if err := runOf(t, "bench-sweep", "").finish(results, "", &out); err != nil {
		t.Errorf("make bench-sweep, which has no agreement page: %v", err)
	}
}

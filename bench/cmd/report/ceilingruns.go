package main

import (
	"os"
	"path/filepath"

	"hellobench/bench/report/plan"
)

// The runs that take shares of the keep-alive ceilings a run before them
// measured.

// runLatency runs make bench-latency's rounds into file, the points'
// HdrHistogram logs into out/latency (replaced only when every round ran),
// at shares of the keep-alive ceilings in ceilingFile.
func runLatency(root, out, ceilingFile, file string, quick bool, forced string, rounds int) error {
	ceilings, err := plan.KeepAliveCeilings(ceilingFile)
	if err != nil {
		return err
	}
	logs, err := filepath.Abs(filepath.Join(out, "latency"))
	if err != nil {
		return err
	}
	tmp := logs + ".partial"
	os.RemoveAll(tmp)
	defer os.RemoveAll(tmp)
	rounds = plan.Blocks(quick, rounds)
	// The test binary runs in bench/: the path from there, so that the
	// commands recorded name no directory of this machine.
	rel, err := filepath.Rel(filepath.Join(root, "bench"), tmp)
	if err != nil {
		return err
	}
	if err := runAll(root, file, quick, forced, rounds, plan.Latency(quick, rounds, ceilings, rel)); err != nil {
		return err
	}
	if err := os.RemoveAll(logs); err != nil {
		return err
	}
	return os.Rename(tmp, logs)
}

// runMinWait runs bin/report -min-wait's blocks into file: uring at a
// quarter of its keep-alive ceiling in ceilingFile with each of waits
// (BenchmarkMinWait's -min-waits); -quick holds it at a fixed rate, no
// ceiling needed, with no wait and one.
func runMinWait(root, file, ceilingFile string, quick bool, forced string, blocks int, waits string) error {
	ceilings := ""
	if !quick {
		var err error
		if ceilings, err = plan.KeepAliveCeilings(ceilingFile); err != nil {
			return err
		}
	}
	blocks = plan.Blocks(quick, blocks)
	return runAll(root, file, quick, forced, blocks, plan.MinWait(quick, blocks, ceilings, waits))
}

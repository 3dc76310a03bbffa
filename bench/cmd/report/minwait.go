package main

import (
	"fmt"
	"slices"
)

// runMinWait runs bin/report -min-wait's blocks into file: uring at a
// quarter of its keep-alive ceiling in ceilingFile with each of waits
// (BenchmarkMinWait's -min-waits); -quick holds it at a fixed rate, no
// ceiling needed, with no wait and one.
func runMinWait(root, file, ceilingFile string, quick bool, forced string, blocks int, waits string) error {
	ceilings := ""
	if !quick {
		var err error
		if ceilings, err = keepAliveCeilings(ceilingFile); err != nil {
			return err
		}
	}
	blocks = blockCount(quick, blocks)
	return runAll(root, file, quick, forced, blocks, minWaitCommands(quick, blocks, ceilings, waits))
}

// minWaitCommands are bin/report -min-wait's blocks: in each, uring held
// at a quarter of its keep-alive ceiling once with each minimum wait, in
// the block's order (BenchmarkMinWait). -quick runs one block of short
// runs at 10 000 req/s, with no minimum wait and 100 µs.
func minWaitCommands(quick bool, blocks int, ceilings, waits string) [][]string {
	args := []string{"-bench", "^BenchmarkMinWait$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args"}
	if quick {
		return [][]string{goTest(slices.Concat(args, []string{"-min-wait-rate", "10000", "-min-waits", "0,100us", "-for", "300ms", "-lat-warmup", "100ms", "-block", "0"})...)}
	}
	args = append(args, "-ceilings", ceilings, "-at", "0.25", "-min-waits", waits)
	var cmds [][]string
	for k := range blocks {
		cmds = append(cmds, goTest(slices.Concat(args, []string{"-for", "1s", "-lat-warmup", "300ms", "-block", fmt.Sprint(k)})...))
	}
	return cmds
}

package plan

import (
	"fmt"
	"slices"
)

// MinWait are bin/report -min-wait's blocks: in each, uring held
// at a quarter of its keep-alive ceiling once with each minimum wait, in
// the block's order (BenchmarkMinWait). -quick runs one block of short
// runs at 10 000 req/s, with no minimum wait and 100 µs.
func MinWait(quick bool, blocks int, ceilings, waits string) [][]string {
	args := []string{"-bench", "^BenchmarkMinWait$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args"}
	if quick {
		return [][]string{GoTest(slices.Concat(args, []string{"-min-wait-rate", "10000", "-min-waits", "0,100us", "-for", "300ms", "-lat-warmup", "100ms", "-block", "0"})...)}
	}
	args = append(args, "-ceilings", ceilings, "-at", "0.25", "-min-waits", waits)
	var cmds [][]string
	for k := range blocks {
		cmds = append(cmds, GoTest(slices.Concat(args, []string{"-for", "1s", "-lat-warmup", "300ms", "-block", fmt.Sprint(k)})...))
	}
	return cmds
}

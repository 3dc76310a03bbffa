package plan

import (
	"fmt"
	"slices"
)

// NewConn are make bench-load PART=newconn's blocks: in each, every server
// and reference on a new connection per request at rate, in the block's
// order, beside a reference nginx at the same rate (BenchmarkNewConn).
// -quick holds nethttp and nginx for one short block.
func NewConn(quick bool, blocks int, rate float64) [][]string {
	args := []string{"-bench", "^BenchmarkNewConn$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args", "-conn-rate", fmt.Sprint(rate)}
	if quick {
		return [][]string{GoTest(slices.Concat(args, []string{"-lat-servers", "nethttp,nginx", "-for", "300ms", "-lat-warmup", "100ms", "-block", "0"})...)}
	}
	var cmds [][]string
	for k := range blocks {
		cmds = append(cmds, GoTest(slices.Concat(args, []string{"-for", "500ms", "-lat-warmup", "200ms", "-block", fmt.Sprint(k)})...))
	}
	return cmds
}

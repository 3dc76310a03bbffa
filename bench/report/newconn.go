package report

import "strings"

// newConnPrefix starts the benchmark keys of the new connections at a
// fixed rate (BenchmarkNewConn).
const newConnPrefix = "hellobench/bench/BenchmarkNewConn/"

// buildNewConn builds the rows of BenchmarkNewConn as BenchmarkAtLoad's
// are built: each server's CPU per request on a new connection per
// request at the run's rate, over the blocks in which it held the rate,
// and its ratio to the reference nginx held at the same rate beside it,
// block by block. The host's speed is not judged: a new connection's CPU
// moves by more than HostTol from block to block whatever the host does,
// so the usual-level rule kept 1 to 5 blocks of 12, and the ratio to the
// reference beside the server already cancels the host's level. Point.Mode
// is the rate, "rate=5000".
func buildNewConn(all map[string]Samples, sections map[string]Section) []Point {
	return buildHeld(all, newConnPrefix, Coarse(sections[NewConnSection]), false)
}

// ConnRate is the rate of new connections a BenchmarkNewConn mode names
// ("rate=5000"), or "" for another.
func ConnRate(mode string) string {
	r, _ := strings.CutPrefix(mode, "rate=")
	if r == mode {
		return ""
	}
	return r
}

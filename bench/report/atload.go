package report

import (
	"maps"
	"slices"
	"strings"
)

// atLoadPrefix starts the benchmark keys of make bench-load's blocks at a
// share of each ceiling (BenchmarkAtLoad).
const atLoadPrefix = "hellobench/bench/BenchmarkAtLoad/"

// NeverHeld labels a server that held its rate in no block of the host's
// usual level.
const NeverHeld = "never held its rate at the host's usual speed: no figure"

// buildAtLoad builds the rows of BenchmarkAtLoad as the ceilings are
// built: each server's CPU per request at a share of its own ceiling over
// the blocks in which it held its rate and the host ran at its usual
// speed, and its ratio to the reference nginx held beside it, block by
// block. Point.Mode is the share, "of=25%".
func buildAtLoad(all map[string]Samples, sections map[string]Section) []Point {
	return buildHeld(all, atLoadPrefix, Coarse(sections[AtLoadSection]), true)
}

// buildHeld builds the rows of a bench at a fixed rate beside a reference
// nginx at its own (BenchmarkAtLoad, BenchmarkNewConn), whose keys under
// prefix are server/mode: the blocks count in which the server held its
// rate and, where level is set, the host ran at its usual speed.
func buildHeld(all map[string]Samples, prefix string, coarse, level bool) []Point {
	var usual map[string]float64
	if level {
		usual = usualSpeedsOf(all, prefix)
	}
	var ps []Point
	for key, s := range all {
		rest, ok := strings.CutPrefix(key, prefix)
		i := strings.LastIndex(rest, "/")
		if !ok || i < 0 {
			continue
		}
		mode := rest[i+1:]
		// Holding the rate is what saturation is to a ceiling: the
		// condition for a block to count.
		s = maps.Clone(s)
		s["saturated"] = s["held"]
		p := ceilingPoint(rest[:i], mode, CeilingConns, s, usual[mode])
		// Its core is not meant to be busy: a label says only that it
		// held its rate in no block that counts.
		p.Label = ""
		if p.CPU.N == 0 || len(p.Saturated) > 0 && p.Implied.N == 0 {
			p.Label = NeverHeld
		}
		p.Implied = Figure{} // 1e6 / its CPU per request is no ceiling here
		p.Coarse = coarse
		ps = append(ps, p)
	}
	atRefSpeed(ps, usual)
	compare(ps)
	slices.SortFunc(ps, func(a, b Point) int {
		if d := Rank(a.Server) - Rank(b.Server); d != 0 {
			return d
		}
		return strings.Compare(a.Server, b.Server)
	})
	return ps
}

package report

import (
	"math"
	"slices"
	"strings"

	"hellobench/bench"
	"hellobench/internal/proc"
)

// The host's speed does not only drift: it moves between a few levels that
// each last many seconds, and the reference nginx's CPU per request shows
// which one a block ran in. Rounds side by side cancel what nginx and a
// server share of a level, but not all of it: a server's ratio to nginx
// differs from level to level, so a median over blocks is a mix of levels
// that changes from run to run. The ceilings therefore count the blocks of
// one level, the one the reference sat at most often in the run (its
// usual state), and leave out the blocks in which the host changed level
// while the server ran.

// HostTol is how far a block's reference may lie from the usual speed, and
// the reference after a server from the one before it, for the block to
// count: the levels lie far further apart, and the reference rounds of one
// level within it.
const HostTol = 0.05

// Why a block is left out for the host's state (Point.Host).
const (
	HostChanged = "changed"    // the reference before and after the server differ by over hostTol
	HostOther   = "other"      // the reference lies over hostTol from the usual speed
	hostUsual   = ""           // the usual state, or no reference to tell
	refUnit     = "ref-us/req" // the reference rounds beside a ceiling (their mean)
	driftUnit   = "ref-drift"  // the reference after a ceiling over the one before
)

// HostBlocks is the fewest blocks in which a usual level can be told from
// a passing one: below it (a smoke run of one block) every block counts.
const HostBlocks = 6

// usualSpeeds is each mode's usual reference speed (CPU µs per request)
// over the ceilings in all; a mode without reference rounds, or of fewer
// than HostBlocks blocks, has none.
func usualSpeeds(all map[string]Samples) map[string]float64 {
	return usualSpeedsOf(all, ceilingPrefix)
}

// usualSpeedsOf is usualSpeeds over the benchmarks whose keys start with
// prefix: the ceilings', or make bench-tls's (tlsPrefix).
func usualSpeedsOf(all map[string]Samples, prefix string) map[string]float64 {
	refs, blocks := map[string][]float64{}, map[string]int{}
	for key, s := range all {
		rest, ok := strings.CutPrefix(key, prefix)
		if !ok {
			continue
		}
		mode := rest[strings.LastIndex(rest, "/")+1:]
		blocks[mode] = max(blocks[mode], len(s[refUnit]))
		for _, x := range s[refUnit] {
			if x > 0 {
				refs[mode] = append(refs[mode], x)
			}
		}
	}
	var usual map[string]float64 // nil for none, so that results.json leaves it out
	for mode, v := range refs {
		if blocks[mode] >= HostBlocks {
			if usual == nil {
				usual = map[string]float64{}
			}
			usual[mode] = usualSpeed(v)
		}
	}
	return usual
}

// usualSpeed is the level most of refs lie at: the median of the largest
// set of them within HostTol of one of them (the lowest such set on a
// tie), 0 for none.
func usualSpeed(refs []float64) float64 {
	v := slices.Sorted(slices.Values(refs))
	var best []float64
	for _, c := range v {
		var near []float64
		for _, x := range v {
			if within(x, c) {
				near = append(near, x)
			}
		}
		if len(near) > len(best) {
			best = near
		}
	}
	if len(best) == 0 {
		return 0
	}
	return figureOf(best).Median
}

// within reports whether x lies within HostTol of c.
func within(x, c float64) bool { return math.Abs(x/c-1) <= HostTol }

// hostStates says, block by block, whether a ceiling's block ran in the
// usual state: ref and drift are its reference rounds (ref-us/req and
// ref-drift, either perhaps absent), usual the mode's usual speed (0:
// none, and every block counts).
func hostStates(ref, drift []float64, usual float64) []string {
	if usual == 0 || len(ref) == 0 {
		return nil
	}
	host := make([]string, len(ref))
	for i, r := range ref {
		switch {
		case r == 0: // no saturated reference round: nothing to tell by
		case i < len(drift) && drift[i] > 0 && !within(drift[i], 1):
			host[i] = HostChanged
		case !within(r, usual):
			host[i] = HostOther
		}
	}
	return host
}

// usualAt reports whether block i of host states (hostStates; nil: none
// judged) is in the usual state.
func usualAt(host []string, i int) bool { return i >= len(host) || host[i] == hostUsual }

// HostCounts counts a mode's blocks by host state over its ceilings: those
// in the usual state with a reference beside them, and those left out
// because the host changed speed or ran at another.
func HostCounts(ps []Point, mode string) (usual, changed, other int) {
	for _, p := range ps {
		if p.Mode != mode {
			continue
		}
		for i, h := range p.Host {
			switch {
			case h == HostChanged:
				changed++
			case h == HostOther:
				other++
			case p.Ref[i] > 0:
				usual++
			}
		}
	}
	return usual, changed, other
}

// Coarse reports whether a section's CPU was read in clock ticks.
func Coarse(s Section) bool { return s.CPUSource == "" || s.CPUSource == proc.SourceTicks }

// BlockCPU is a point's CPU per request block by block, NaN in the blocks
// in which its server was not saturated (pairwise operations skip those
// pairs); a point without blocks (the sweep) is its rounds.
func BlockCPU(p Point) Figure {
	if len(p.Blocks) == 0 {
		return p.CPU
	}
	if p.Scaled != nil {
		return saturated(p, p.Scaled)
	}
	return saturated(p, p.Blocks)
}

// saturated is v, a value per block of p, NaN in the blocks in which p's
// server was not saturated, the host was not in its usual state, or v has
// no value.
func saturated(p Point, v []float64) Figure {
	return bench.Only(Figure{Spread: p.CPU.Spread, Rounds: v}, func(i int) bool {
		return i < len(p.Saturated) && p.Saturated[i] && usualAt(p.Host, i) && v[i] > 0
	})
}

// refCPU is a ceiling's reference rounds block by block, NaN where none
// was saturated.
func refCPU(p Point) Figure {
	return bench.Only(Figure{Rounds: p.Ref}, func(i int) bool { return p.Ref[i] > 0 })
}

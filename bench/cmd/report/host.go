package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
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

// hostTol is how far a block's reference may lie from the usual speed, and
// the reference after a server from the one before it, for the block to
// count: the levels lie far further apart, and the reference rounds of one
// level within it.
const hostTol = 0.05

// Why a block is left out for the host's state (Point.Host).
const (
	HostChanged = "changed"    // the reference before and after the server differ by over hostTol
	HostOther   = "other"      // the reference lies over hostTol from the usual speed
	hostUsual   = ""           // the usual state, or no reference to tell
	refUnit     = "ref-us/req" // the reference rounds beside a ceiling (their mean)
	driftUnit   = "ref-drift"  // the reference after a ceiling over the one before
)

// hostBlocks is the fewest blocks in which a usual level can be told from
// a passing one: below it (a smoke run of one block) every block counts.
const hostBlocks = 6

// usualSpeeds is each mode's usual reference speed (CPU µs per request)
// over the ceilings in all; a mode without reference rounds, or of fewer
// than hostBlocks blocks, has none.
func usualSpeeds(all map[string]samples) map[string]float64 {
	refs, blocks := map[string][]float64{}, map[string]int{}
	for key, s := range all {
		rest, ok := strings.CutPrefix(key, ceilingPrefix)
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
		if blocks[mode] >= hostBlocks {
			if usual == nil {
				usual = map[string]float64{}
			}
			usual[mode] = usualSpeed(v)
		}
	}
	return usual
}

// usualSpeed is the level most of refs lie at: the median of the largest
// set of them within hostTol of one of them (the lowest such set on a
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

// within reports whether x lies within hostTol of c.
func within(x, c float64) bool { return math.Abs(x/c-1) <= hostTol }

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

// hostCounts counts a mode's blocks by host state over its ceilings: those
// in the usual state with a reference beside them, and those left out
// because the host changed speed or ran at another.
func hostCounts(ps []Point, mode string) (usual, changed, other int) {
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

// hostParts says, per mode with a usual speed, where it lay and how many
// server blocks counted or were left out for the host's state.
func hostParts(rep Report) []string {
	var parts []string
	for _, mode := range modeNames() {
		u, ok := rep.Usual[mode]
		if !ok {
			continue
		}
		n, changed, other := hostCounts(rep.Ceilings, mode)
		parts = append(parts, fmt.Sprintf("%s %s µs (%d of %d server blocks with a reference in it; %d left out as the host changed speed, %d at another)",
			mode, num(u, 2), n, n+changed+other, changed, other))
	}
	return parts
}

// hostLine is the report header's account of the host's state.
func hostLine(rep Report) string {
	parts := hostParts(rep)
	if len(parts) == 0 {
		if referenced(rep) {
			return fmt.Sprintf("- Host state: not judged, every block counts: under %d blocks, the host's usual speed cannot be told from a passing one.\n", hostBlocks)
		}
		return ""
	}
	return fmt.Sprintf("- Host state: the host's speed moves between levels that last many seconds, and a server's ratio to nginx differs between them, "+
		"so a ceiling block counts only at the level the reference nginx sat at most often (within ±%.0f %% of its usual CPU per request) "+
		"and only if the reference after the server was within ±%.0f %% of the one before it (the host did not change level meanwhile). Usual reference: %s.\n",
		100*hostTol, 100*hostTol, strings.Join(parts, "; "))
}

package report

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
)

// MinWait is bin/report -min-wait's run (BenchmarkMinWait): uring held at
// one rate below its ceiling, started with each of io_uring's minimum
// waits in turn, in blocks that change the waits' order.
type MinWait struct {
	Server string `json:"server"`
	// Load is the rate's name: "of=25%", a share of the server's
	// keep-alive ceiling, or "r=10000", a rate in req/s.
	Load string       `json:"load"`
	Rows []MinWaitRow `json:"rows"`
}

// A MinWaitRow is one minimum wait over the blocks.
type MinWaitRow struct {
	WaitUS float64 `json:"min_wait_us"`
	Rate   float64 `json:"rate"` // asked, req/s
	// CPU (µs per request), Busy (percent), P50 and P99 (µs, from each
	// request's due time) are of the blocks in which the server held the
	// rate within 1 %.
	CPU  Figure `json:"cpu_us_per_req"`
	Busy Figure `json:"server_cpu_pct"`
	P50  Figure `json:"p50_us"`
	P99  Figure `json:"p99_us"`
	// VsNone is CPU over the same block's with no minimum wait, block by
	// block, of the blocks in which both held the rate; nil for no wait.
	VsNone *Figure `json:"cpu_vs_no_min_wait,omitempty"`
	// Blocks is the blocks that ran the wait, Held those in which the
	// server held the rate; FellOver counts those in which requests
	// failed, and Why says why (the first).
	Blocks   int    `json:"blocks"`
	Held     int    `json:"held_blocks"`
	FellOver int    `json:"fell_over_blocks,omitempty"`
	Why      string `json:"fell_over_why,omitempty"`
}

// minWaitKey matches a BenchmarkMinWait key: the server, the load and the
// minimum wait in µs.
var minWaitKey = regexp.MustCompile(`^hellobench/bench/BenchmarkMinWait/(.+)/((?:of|r)=[^/]+)/min-wait=(\d+)us$`)

// AddMinWait reads bin/report -min-wait's output, file, into rep:
// Report.MinWait and its section. A file that does not exist is a run not
// made, and leaves rep as it is.
func AddMinWait(rep *Report, file string) error {
	all, why := map[string]Samples{}, map[string]string{}
	sec, ok, err := ReadBench(file, all, why)
	if err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	if !ok {
		return nil
	}
	mw, err := minWaitOf(all, why)
	if err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	if rep.Sections == nil {
		rep.Sections = map[string]Section{}
	}
	rep.Sections[MinWaitSection] = sec
	rep.MinWait = mw
	return nil
}

// minWaitOf builds the run from the samples of its benchmarks, the rows
// by wait; nil if there are none.
func minWaitOf(all map[string]Samples, why map[string]string) (*MinWait, error) {
	var mw *MinWait
	for key, s := range all {
		m := minWaitKey.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		if mw == nil {
			mw = &MinWait{Server: m[1], Load: m[2]}
		}
		if m[1] != mw.Server || m[2] != mw.Load {
			return nil, fmt.Errorf("one run holds %s at %s and %s at %s: want one server at one load", mw.Server, mw.Load, m[1], m[2])
		}
		wait, _ := strconv.ParseFloat(m[3], 64)
		mw.Rows = append(mw.Rows, minWaitRow(wait, s, why[key]))
	}
	if mw == nil {
		return nil, nil
	}
	slices.SortFunc(mw.Rows, func(a, b MinWaitRow) int { return cmp.Compare(a.WaitUS, b.WaitUS) })
	if mw.Rows[0].WaitUS == 0 {
		none := all[minWaitName(mw, 0)]
		for i := range mw.Rows[1:] {
			r := &mw.Rows[i+1]
			v := ratio(heldOnly(all[minWaitName(mw, r.WaitUS)], "cpu-us/req"), heldOnly(none, "cpu-us/req"))
			r.VsNone = &v
		}
	}
	return mw, nil
}

// minWaitName is the benchmark key of a wait of the run.
func minWaitName(mw *MinWait, waitUS float64) string {
	return fmt.Sprintf("hellobench/bench/BenchmarkMinWait/%s/%s/min-wait=%.0fus", mw.Server, mw.Load, waitUS)
}

// minWaitRow is one wait's row from its benchmark's samples, a block each.
func minWaitRow(wait float64, s Samples, why string) MinWaitRow {
	r := MinWaitRow{WaitUS: wait, Blocks: len(s["N"]), Why: why}
	if rate := s["rate"]; len(rate) > 0 {
		r.Rate = rate[0]
	}
	for _, f := range s["fell-over"] {
		if f == 1 {
			r.FellOver++
		}
	}
	held := func(unit string) Figure {
		var v []float64
		for _, x := range heldOnly(s, unit).Rounds {
			if !math.IsNaN(x) {
				v = append(v, x)
			}
		}
		return figureOf(v)
	}
	r.CPU, r.Busy, r.P50, r.P99 = held("cpu-us/req"), held("cpu-%"), held("p50-us"), held("p99-us")
	r.Held = r.CPU.N
	return r
}

// heldOnly is unit's figure over the blocks, NaN in those in which the
// server did not hold the rate (or that have no held record), so that a
// ratio block by block leaves them out.
func heldOnly(s Samples, unit string) Figure {
	v, held := s[unit], s["held"]
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.NaN()
		if i < len(held) && held[i] == 1 {
			out[i] = x
		}
	}
	return Figure{Rounds: out}
}

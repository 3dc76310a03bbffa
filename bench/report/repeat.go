package report

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
)

// A Repeat is how far the keep-alive ceilings' ratios to nginx moved
// between separate invocations of make bench: what a difference between
// two stacks must exceed to be worth acting on.
type Repeat struct {
	// Dates are the invocations' dates, this report's first.
	Dates []string `json:"dates"`
	// AA is the half-width of the A/A twin's interval in this report
	// (0.02: ±2 %): the run's own noise.
	AA float64 `json:"aa_half_width"`
	// Moved is the largest half-range of one server's median ratio over
	// the invocations, relative to their median, and Server whose it is.
	Moved  float64 `json:"moved_half_range"`
	Server string  `json:"server"`
	// Hosts is how many hosts (HostKey) the invocations ran on: a ratio
	// that moved between hosts may move again on the reader's.
	Hosts int `json:"hosts"`
}

// Act is the smallest difference between two stacks' ratios worth acting
// on: the run's own noise plus the most a ratio moved between
// invocations, either of which could reverse a smaller one.
func (r Repeat) Act() float64 { return r.AA + r.Moved }

// AgainDirs are the output directories of make bench's invocations beside
// the one in out: out/again/N, each with the ceilings' results.json (or
// results.json.gz).
func AgainDirs(out string) ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(out, "again", "[0-9]*", "results.json*"))
	for i, d := range dirs {
		dirs[i] = filepath.Dir(d)
	}
	slices.Sort(dirs)
	return slices.Compact(dirs), err
}

// ReadRepeat compares rep's keep-alive ratios to nginx with those of the
// invocations beside it in out (AgainDirs); nil without other
// invocations, or without the A/A twin.
func ReadRepeat(rep Report, out string) (*Repeat, error) {
	dirs, err := AgainDirs(out)
	if err != nil || len(dirs) == 0 {
		return nil, err
	}
	others, err := ReadReports(dirs)
	if err != nil {
		return nil, err
	}
	// A re-run of some modes alone (make bench PART=json) has no
	// keep-alive ratios to compare.
	others = slices.DeleteFunc(others, func(o Report) bool {
		p, ok := Find(o.Ceilings, Twin, "keepalive")
		return !ok || p.CPUVsNginx == nil
	})
	if len(others) == 0 {
		return repeatOfHosts(rep), nil
	}
	return repeatOf(rep, others)
}

// repeatOfHosts is the Repeat over every run recorded under the hosts
// (rep.Hosts), where no re-run beside rep has keep-alive ratios: how far
// a ratio moved between invocations, on one host and across hosts; nil
// for fewer than two runs.
func repeatOfHosts(rep Report) *Repeat {
	twin, ok := Find(rep.Ceilings, Twin, "keepalive")
	if !ok || twin.CPUVsNginx == nil || math.IsInf(twin.CPUVsNginx.HalfWidth(), 0) {
		return nil
	}
	r := &Repeat{AA: twin.CPUVsNginx.HalfWidth(), Hosts: len(rep.Hosts)}
	meds := map[string][]float64{}
	for _, h := range rep.Hosts {
		for _, run := range h.Runs {
			r.Dates = append(r.Dates, run.Date)
			for s, f := range run.Ratios {
				meds[s] = append(meds[s], f.Median)
			}
		}
	}
	if len(r.Dates) < 2 {
		return nil
	}
	for _, s := range Order() {
		if m := meds[s]; len(m) >= 2 {
			f := figureOf(m)
			if moved := (f.Max - f.Min) / 2 / f.Median; moved > r.Moved {
				r.Moved, r.Server = moved, s
			}
		}
	}
	return r
}

// repeatOf is ReadRepeat over reports already read.
func repeatOf(rep Report, others []Report) (*Repeat, error) {
	const mode = "keepalive"
	twin, ok := Find(rep.Ceilings, Twin, mode)
	if !ok || twin.CPUVsNginx == nil {
		return nil, nil
	}
	r := &Repeat{Dates: []string{rep.Sections[CeilingsSection].Date}, AA: twin.CPUVsNginx.HalfWidth()}
	hosts := map[string]bool{HostKey(rep.Machine): true}
	for i, o := range others {
		hosts[HostKey(o.Machine)] = true
		s, ok := o.Sections[CeilingsSection]
		if !ok {
			return nil, fmt.Errorf("invocation %d of make bench: no ceilings", i+2)
		}
		r.Dates = append(r.Dates, s.Date)
	}
	for _, p := range rep.Ceilings {
		if p.Mode != mode || p.Server == Twin || p.CPUVsNginx == nil {
			continue
		}
		m := []float64{p.CPUVsNginx.Median}
		for _, o := range others {
			if q, ok := Find(o.Ceilings, p.Server, mode); ok && q.CPUVsNginx != nil {
				m = append(m, q.CPUVsNginx.Median)
			}
		}
		if len(m) < 2 {
			continue // newer than the other invocations
		}
		f := figureOf(m)
		if moved := (f.Max - f.Min) / 2 / f.Median; moved > r.Moved {
			r.Moved, r.Server = moved, p.Server
		}
	}
	r.Hosts = len(hosts)
	if math.IsInf(r.AA, 0) {
		return nil, nil
	}
	return r, nil
}

package report

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"hellobench/bench"
	"hellobench/internal/targets"
)

// ProfileSection is bin/report -profile's key in Report.Sections, and its
// file's name, profile.txt; the folded stacks and allocation profiles it
// names are in ProfileDir beside it.
const ProfileSection = "profile"

// ProfileDir is the directory, beside profile.txt, of the run's folded
// stacks (NAME_LOAD.folded.gz) and allocation profiles.
const ProfileDir = "profiles"

// Profiles is bin/report -profile's run: every server's CPU profile
// saturated and at a quarter of its keep-alive ceiling, sorted into
// categories, and each Go stack's allocations per request by site.
type Profiles struct {
	Rows   []ProfileRow `json:"rows"`
	Allocs []AllocStack `json:"allocs,omitempty"`
}

// A ProfileRow is one server's profile at one load.
type ProfileRow struct {
	Server string `json:"server"`
	// Load is "saturated" (closed loop) or "of=25%" (open loop at a
	// quarter of the keep-alive ceiling, Rate req/s).
	Load      string  `json:"load"`
	Rate      float64 `json:"rate,omitempty"`
	ReqPerSec float64 `json:"req_per_sec"`
	Requests  float64 `json:"requests"`
	// Samples are perf's, each PeriodUS of the server's CPU time.
	Samples  int64   `json:"samples"`
	PeriodUS float64 `json:"period_us"`
	// CPU is /proc's count of the server's CPU per request over the same
	// run, µs: the samples' total should be near it.
	CPU        float64        `json:"cpu_us_per_req"`
	Categories []CategoryCost `json:"categories"`
	// Folded is the folded stacks' file, under ProfileDir.
	Folded string `json:"folded"`
}

// Profiled is the CPU per request the samples add up to, µs.
func (r ProfileRow) Profiled() float64 { return r.PerRequest(r.Samples) }

// PerRequest is n samples as µs per request.
func (r ProfileRow) PerRequest(n int64) float64 {
	if r.Requests == 0 {
		return 0
	}
	return float64(n) * r.PeriodUS / r.Requests
}

// Resolution is one sample as µs per request: the profile's grain.
func (r ProfileRow) Resolution() float64 { return r.PerRequest(1) }

// A CategoryCost is a category's samples and their CPU per request (µs).
type CategoryCost struct {
	Category string  `json:"category"`
	Samples  int64   `json:"samples"`
	USPerReq float64 `json:"us_per_req"`
}

// profileKey matches a BenchmarkProfile key: the server and the load.
var profileKey = regexp.MustCompile(`^hellobench/bench/BenchmarkProfile/([^/]+)/(saturated|of=[^/]+)$`)

// AddProfile reads bin/report -profile's output, file, and the folded
// stacks and allocation profiles in dir, into rep: Report.Profiles and
// its section. A file that does not exist is a run not made, and leaves
// rep as it is.
func AddProfile(rep *Report, file, dir string) error {
	all, why := map[string]Samples{}, map[string]string{}
	sec, ok, err := ReadBench(file, all, why)
	if err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	if !ok {
		return nil
	}
	p, err := profilesOf(all, why, dir)
	if err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	if rep.Sections == nil {
		rep.Sections = map[string]Section{}
	}
	rep.Sections[ProfileSection] = sec
	rep.Profiles = p
	return nil
}

// profilesOf builds the run from its benchmarks' samples and the files in
// dir; nil if it holds no profile.
func profilesOf(all map[string]Samples, why map[string]string, dir string) (*Profiles, error) {
	var p Profiles
	for _, key := range slices.Sorted(maps.Keys(all)) {
		m := profileKey.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		if w, ok := why[key]; ok {
			return nil, fmt.Errorf("%s fell over: %s", key, w)
		}
		row, err := profileRow(m[1], m[2], all[key], dir)
		if err != nil {
			return nil, err
		}
		p.Rows = append(p.Rows, row)
	}
	allocs, err := readAllocs(all, dir)
	if err != nil {
		return nil, err
	}
	p.Allocs = allocs
	if len(p.Rows) == 0 && len(p.Allocs) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(p.Rows, func(a, b ProfileRow) int {
		return cmp.Or(cmp.Compare(serverRank(a.Server), serverRank(b.Server)), strings.Compare(b.Load, a.Load))
	})
	return &p, nil
}

// profileRow is one profile: its benchmark's figures (one run) and its
// folded stacks sorted into categories.
func profileRow(server, load string, s Samples, dir string) (ProfileRow, error) {
	one := func(unit string) float64 {
		if v := s[unit]; len(v) > 0 {
			return v[len(v)-1]
		}
		return 0
	}
	r := ProfileRow{Server: server, Load: load, Rate: one("rate"), ReqPerSec: one("req/s"), Requests: one("requests"),
		PeriodUS: one("period-us"), CPU: one("cpu-us/req"), Folded: bench.ProfileFile(server, load)}
	if r.Requests <= 0 || r.PeriodUS <= 0 {
		return r, fmt.Errorf("BenchmarkProfile/%s/%s: no requests or no sampling period", server, load)
	}
	folded, err := bench.ReadFolded(filepath.Join(dir, r.Folded))
	if err != nil {
		return r, err
	}
	by := Categorize(folded)
	for _, c := range Categories {
		r.Categories = append(r.Categories, CategoryCost{Category: c, Samples: by[c], USPerReq: r.PerRequest(by[c])})
		r.Samples += by[c]
	}
	if want := int64(one("samples")); r.Samples != want {
		return r, fmt.Errorf("%s holds %d samples, its benchmark counted %d", r.Folded, r.Samples, want)
	}
	return r, nil
}

// serverRank orders the rows as the target table does, unknown last.
func serverRank(name string) int {
	for i, n := range targets.Names() {
		if n == name {
			return i
		}
	}
	return 1 << 20
}

package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// An AllocStack is one Go stack's allocations per request in its
// in-memory keep-alive benchmark, by the function that makes them.
type AllocStack struct {
	Server string `json:"server"`
	// Runs are the two benchmark lengths whose profiles' difference,
	// over the difference of the lengths, is one request's allocations.
	Runs [2]int `json:"runs"`
	// Bytes and Count are the listed sites' sums, RestBytes and RestCount
	// the other sites' (each under minAllocs a request: what pools and
	// buffers allocate again after a collection, which varies from run to
	// run, so it can come out below zero); BenchBytes and BenchCount the
	// benchmark's own B/op and allocs/op (of the longer run).
	Bytes      float64     `json:"bytes_per_req"`
	Count      float64     `json:"allocs_per_req"`
	RestBytes  float64     `json:"rest_bytes_per_req"`
	RestCount  float64     `json:"rest_allocs_per_req"`
	BenchBytes float64     `json:"bench_bytes_per_op"`
	BenchCount float64     `json:"bench_allocs_per_op"`
	Sites      []AllocSite `json:"sites"`
}

// An AllocSite is a function that allocates, called from From, with its
// bytes and allocations per request.
type AllocSite struct {
	Function string  `json:"function"`
	From     string  `json:"from"`
	Bytes    float64 `json:"bytes_per_req"`
	Count    float64 `json:"allocs_per_req"`
}

// allocFile matches an allocation profile's name (plan.AllocFile).
var allocFile = regexp.MustCompile(`^(.+)_alloc_(\d+)\.pprof$`)

// minAllocs is the fewest allocations per request a site is listed with:
// below it, the difference of two runs is what the benchmark allocates
// now and then (a pool refilled, a buffer grown), not per request.
const minAllocs = 0.05

// readAllocs reads the allocation profiles in dir, two runs a server,
// with the benchmarks' B/op and allocs/op from all.
func readAllocs(all map[string]Samples, dir string) ([]AllocStack, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_alloc_*.pprof"))
	if err != nil {
		return nil, err
	}
	runs := map[string][]int{}
	for _, f := range files {
		m := allocFile.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		runs[m[1]] = append(runs[m[1]], n)
	}
	var stacks []AllocStack
	for server, ns := range runs {
		slices.Sort(ns)
		if len(ns) != 2 || ns[0] == ns[1] {
			return nil, fmt.Errorf("%s: %s has allocation profiles of %v requests: want two lengths", dir, server, ns)
		}
		s, err := allocStack(server, [2]int{ns[0], ns[1]}, dir)
		if err != nil {
			return nil, err
		}
		for key, samples := range all {
			if strings.HasPrefix(key, "hellobench/servers/"+server+"/") && len(samples["allocs/op"]) > 0 {
				s.BenchBytes = slices.Max(samples["B/op"])
				s.BenchCount = slices.Max(samples["allocs/op"])
			}
		}
		stacks = append(stacks, s)
	}
	slices.SortFunc(stacks, func(a, b AllocStack) int { return cmp.Compare(serverRank(a.Server), serverRank(b.Server)) })
	return stacks, nil
}

// allocStack is one server's sites: the longer run's allocations less
// the shorter's, per request of the difference.
func allocStack(server string, runs [2]int, dir string) (AllocStack, error) {
	var by [2]map[[2]string][2]int64
	for i, n := range runs {
		m, err := allocSites(filepath.Join(dir, fmt.Sprintf("%s_alloc_%d.pprof", server, n)))
		if err != nil {
			return AllocStack{}, err
		}
		by[i] = m
	}
	s := AllocStack{Server: server, Runs: runs}
	per := float64(runs[1] - runs[0])
	// Every site of either run, in one order: the sums come out the same
	// each time they are read.
	keys := slices.Collect(maps.Keys(by[1]))
	for key := range by[0] {
		if _, ok := by[1][key]; !ok {
			keys = append(keys, key)
		}
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1])) })
	for _, key := range keys {
		long, short := by[1][key], by[0][key]
		site := AllocSite{Function: key[0], From: key[1], Count: float64(long[0]-short[0]) / per, Bytes: float64(long[1]-short[1]) / per}
		if site.Count < minAllocs {
			s.RestBytes += site.Bytes
			s.RestCount += site.Count
			continue
		}
		s.Bytes += site.Bytes
		s.Count += site.Count
		s.Sites = append(s.Sites, site)
	}
	slices.SortFunc(s.Sites, func(a, b AllocSite) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(b.Count, a.Count), strings.Compare(a.Function, b.Function), strings.Compare(a.From, b.From))
	})
	s.Bytes, s.Count, s.RestBytes, s.RestCount = round3(s.Bytes), round3(s.Count), round3(s.RestBytes), round3(s.RestCount)
	return s, nil
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// allocSites reads an allocation profile (go test -memprofile): the
// allocations and bytes ever allocated, by site: the innermost function
// outside the runtime, and the one that called it.
func allocSites(file string) (map[[2]string][2]int64, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	objects, space := -1, -1
	for i, t := range p.SampleType {
		switch t.Type {
		case "alloc_objects":
			objects = i
		case "alloc_space":
			space = i
		}
	}
	if objects < 0 || space < 0 {
		return nil, fmt.Errorf("%s: no alloc_objects and alloc_space: not an allocation profile", file)
	}
	sites := map[[2]string][2]int64{}
	for _, s := range p.Sample {
		var funcs []string
		for _, loc := range s.Location {
			for _, l := range loc.Line { // innermost (inlined) first
				if l.Function != nil && !strings.HasPrefix(l.Function.Name, "runtime.") {
					funcs = append(funcs, l.Function.Name)
				}
			}
		}
		key := [2]string{"(runtime)", ""}
		if len(funcs) > 0 {
			key[0] = funcs[0]
		}
		if len(funcs) > 1 {
			key[1] = funcs[1]
		}
		v := sites[key]
		sites[key] = [2]int64{v[0] + s.Value[objects], v[1] + s.Value[space]}
	}
	return sites, nil
}

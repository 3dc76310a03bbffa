package report

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// make bench-work: the ceilings with the handler burning CPU, and the
// runs with the handler waiting, at Little's-law connections.

// Baseline is the stack every other is set against in bench-work: the
// standard library's server, where most Go services start.
const Baseline = "nethttp"

// Matters is the advantage over the baseline under which the choice of
// stack is taken to stop mattering: 10 % of CPU per request.
const Matters = 0.10

// A waiting server should reach LittleTarget % of Little's limit unless
// its core is the limit: SaturatedBusy % busy or more.
const (
	LittleTarget  = 80.0
	SaturatedBusy = 97.0
)

// WorkPoint reads a BenchmarkWork name, "server/cpu=20us".
func WorkPoint(name string, s Samples, conns int) (Point, bool) {
	i := strings.LastIndex(name, "/cpu=")
	if i < 0 {
		return Point{}, false
	}
	us, err := strconv.ParseFloat(strings.TrimSuffix(name[i+len("/cpu="):], "us"), 64)
	if err != nil {
		return Point{}, false
	}
	p := ceilingPoint(name[:i], "keepalive", conns, s, 0)
	p.WorkCPU = us
	return p, true
}

// WaitPoint reads a BenchmarkWait name, "server/wait=10ms/c=200".
func WaitPoint(name string, s Samples) (Point, bool) {
	rest, c, ok := cutLast(name, "/c=")
	n, err := strconv.Atoi(c)
	if !ok || err != nil {
		return Point{}, false
	}
	server, w, ok := cutLast(rest, "/wait=")
	ms, err := strconv.ParseFloat(strings.TrimSuffix(w, "ms"), 64)
	if !ok || err != nil {
		return Point{}, false
	}
	p := point(server, "keepalive", n, s)
	p.Wait = ms
	l := s.figure("little-%")
	p.Little = &l
	p.Label = "" // a waiting server is idle by design: not a ceiling to label
	if o := s.figure("open-req/s"); o.N > 0 {
		p.Open = &OpenLoop{Rate: s.figure("open-rate").Median, ReqPerSec: o, P50: s.figure("open-p50-us"), P99: s.figure("open-p99-us")}
		for _, v := range s["open-client-limited"] {
			if v == 1 {
				p.Open.ClientLimited++
			}
		}
	}
	return p, true
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// sortWork puts bench-work's points in table order, then by work or wait.
func sortWork(work, wait []Point) {
	sort.Slice(work, func(i, j int) bool {
		a, b := work[i], work[j]
		if a.Server != b.Server {
			return workRank(a.Server) < workRank(b.Server)
		}
		return a.WorkCPU < b.WorkCPU
	})
	sort.Slice(wait, func(i, j int) bool {
		a, b := wait[i], wait[j]
		if a.Wait != b.Wait {
			return a.Wait < b.Wait
		}
		if a.Server != b.Server {
			return workRank(a.Server) < workRank(b.Server)
		}
		return a.Server < b.Server
	})
}

// workRank orders a server and its inline form ("gnet/inline") after it.
func workRank(s string) int {
	base, _, _ := strings.Cut(s, "/")
	return 2*Rank(base) + map[bool]int{true: 1}[base != s]
}

// Levels returns the handler CPU work levels measured, in µs, ascending.
func Levels(ps []Point) []float64 { return distinct(ps, func(p Point) float64 { return p.WorkCPU }) }

// Waits returns the handler waits measured, in ms, ascending.
func Waits(ps []Point) []float64 { return distinct(ps, func(p Point) float64 { return p.Wait }) }

// distinct returns the values of f over ps, each once, ascending.
func distinct(ps []Point, f func(Point) float64) []float64 {
	var vs []float64
	for _, p := range ps {
		if v := f(p); !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	return vs
}

// WorkServers returns the servers of ps in table order.
func WorkServers(ps []Point) []string {
	var names []string
	for _, p := range ps {
		if !slices.Contains(names, p.Server) {
			names = append(names, p.Server)
		}
	}
	sort.SliceStable(names, func(i, j int) bool { return workRank(names[i]) < workRank(names[j]) })
	return names
}

// At returns server's bench-work ceiling at work us.
func At(ps []Point, server string, us float64) (Point, bool) {
	for _, p := range ps {
		if p.Server == server && p.WorkCPU == us {
			return p, true
		}
	}
	return Point{}, false
}

// VsBaseline is server's CPU per request over the baseline's at work us,
// block by block.
func VsBaseline(ps []Point, server string, us float64) (Figure, bool) {
	p, ok := At(ps, server, us)
	n, okN := At(ps, Baseline, us)
	if !ok || !okN {
		return Figure{}, false
	}
	r := blockRatio(p, n)
	return r, r.N > 0
}

// Added is what the handler's work added to server's CPU per request at
// work us, block by block against no work.
func Added(ps []Point, server string, us float64) (Figure, bool) {
	p, ok := At(ps, server, us)
	z, okZ := At(ps, server, 0)
	if !ok || !okZ {
		return Figure{}, false
	}
	d := diff(BlockCPU(p), BlockCPU(z))
	return d, d.N > 0
}

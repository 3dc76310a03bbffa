package main

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"hellobench/bench"
	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

// Figure, and how two are compared, come from package bench.
type Figure = bench.Figure

var (
	figureOf = bench.FigureOf
	ratio    = bench.Ratio
	diff     = bench.Diff
)

// A Point is one target measured in one mode at one concurrency: a ceiling
// (50 connections, each mode) or a point of the sweep (keep-alive).
type Point struct {
	Server   string `json:"server"`
	Mode     string `json:"mode"`
	Conns    int    `json:"connections"`
	Cores    int    `json:"cores,omitempty"` // bench-scale: the server's cores
	Requests int    `json:"requests_per_round"`
	// The server's CPU time per request in µs (for fcgi, lighttpd's and the
	// application's together; AppCPU is the application's part). For a
	// ceiling, over the blocks in which the server was saturated.
	CPU Figure `json:"cpu_us_per_req"`
	// Blocks is a ceiling's CPU per request in every block, in order, and
	// Saturated whether the server was saturated in it: ratios pair the
	// blocks in which both servers were.
	Blocks    []float64 `json:"cpu_us_per_req_by_block,omitempty"`
	Saturated []bool    `json:"saturated_by_block,omitempty"`
	// Ref is, block by block, the CPU per request of the reference nginx
	// measured right before and after the ceiling (their mean; 0 where
	// neither was saturated): the ratio to nginx is taken against it.
	Ref []float64 `json:"ref_cpu_us_per_req_by_block,omitempty"`
	// Scaled is Blocks at the run's usual reference speed (each block
	// times the mode's usual speed over the block's Ref; as measured where
	// Ref is 0), so that differences between servers lose the host's drift too.
	Scaled []float64 `json:"cpu_us_per_req_at_ref_speed_by_block,omitempty"`
	// Drift is, block by block, the reference round after the ceiling
	// over the one before it (0: one was not saturated), and Host why the
	// block is left out for the host's state (HostChanged, HostOther; ""
	// in the mode's usual state): only the usual state's blocks count.
	Drift []float64 `json:"ref_drift_by_block,omitempty"`
	Host  []string  `json:"host_by_block,omitempty"`
	// UsedConns is the connections a ceiling run ended with: more than
	// Conns where the harness raised them to saturate the server.
	UsedConns Figure `json:"connections_used"`
	AppCPU    Figure `json:"app_cpu_us_per_req"`
	// Implied is one core's ceiling, 1e6 / CPU, in requests per second.
	Implied   Figure `json:"implied_ceiling_req_per_sec"`
	ReqPerSec Figure `json:"req_per_sec"`
	// Busy and ClientBusy are the server's and the client's CPU time over
	// the run's wall time, in percent.
	Busy       Figure `json:"server_cpu_pct"`
	ClientBusy Figure `json:"client_cpu_pct"`
	ClientCPU  Figure `json:"client_cpu_us_per_req"`
	P50        Figure `json:"p50_us"`
	P99        Figure `json:"p99_us"`
	RSS        Figure `json:"peak_rss_mb"`
	// CPUVsNginx and CPUVsFloor are the CPU per request over nginx's and
	// the floor's in the same mode and concurrency, round by round.
	CPUVsNginx *Figure `json:"cpu_vs_nginx,omitempty"`
	CPUVsFloor *Figure `json:"cpu_vs_floor,omitempty"`
	// Label says what bounded a run whose server was not saturated.
	Label string `json:"label,omitempty"`
	// WorkCPU is the CPU the handler burned per request in bench-work's
	// ceilings (µs), Wait what it waited in bench-work's waits (ms), and
	// Little the req/s of a wait point as a share of Little's limit
	// (connections over the wait), in percent.
	WorkCPU float64 `json:"work_cpu_us,omitempty"`
	Wait    float64 `json:"wait_ms,omitempty"`
	Little  *Figure `json:"little_pct,omitempty"`
	// Open is a wait point's open-loop run, at a rate below the limit.
	Open *OpenLoop `json:"open_loop,omitempty"`
	// Coarse says the CPU was read in clock ticks, not nanoseconds.
	Coarse bool `json:"-"`
	// FellOver counts the rounds in which the server failed requests, and
	// Why says why (the first); its figures are of the other rounds.
	FellOver int    `json:"fell_over_rounds,omitempty"`
	Why      string `json:"fell_over_why,omitempty"`
}

// coarseTicks is the clock ticks of server CPU (10 ms each, /proc/PID/stat's
// unit) under which a round's CPU per request is coarse enough to say so:
// one tick either way is then over 5 %.
const coarseTicks = 20

// ticks is the clock ticks of server CPU a round of p measured, from its
// median: CPU per request (µs) times requests, over 10 000 µs a tick.
func (p Point) ticks() float64 {
	return p.CPU.Median * float64(p.Requests) / 10000
}

// Labels of a run whose server core was under bench.Saturated busy: the
// three of bench.Label's and the report's own.
const (
	LatencyBound = bench.LatencyBound
	ClientBound  = bench.ClientBound
	Unsaturated  = bench.Unsaturated
	FellOver     = "fell over" // the server failed requests
	// NeverSaturated is a ceiling whose server stayed under
	// bench.SaturatedCeiling in every block, even at raised connections.
	NeverSaturated = "never saturated: no ceiling"
	// NeverUsual is a ceiling saturated only in blocks in which the host
	// was not in its usual state.
	NeverUsual = "saturated only while the host ran at another speed: no ceiling"
)

// label names what bounded a run from the medians of its rounds: nothing
// when the server's core was saturated.
var label = bench.Label

// An Idle figure is a server holding Conns connections that each sent one
// request and then went quiet.
type Idle struct {
	Server string `json:"server"`
	Conns  int    `json:"connections"`
	// Held counts the connections answered and still open at the end.
	Held Figure `json:"held"`
	// PerConn is the growth of the server's resident memory over the
	// connections, in bytes per connection.
	PerConn Figure `json:"rss_bytes_per_conn"`
	// IdleCPU is the CPU the server spends while they idle, in ms per s.
	IdleCPU Figure `json:"idle_cpu_ms_per_s"`
}

// A Memory figure is one in-memory benchmark of a server package.
type Memory struct {
	Stack     string `json:"stack"`
	Benchmark string `json:"benchmark"`
	NsOp      Figure `json:"ns_per_op"`
	BytesOp   Figure `json:"bytes_per_op"`
	AllocsOp  Figure `json:"allocs_per_op"`
}

// A Section records when and how one part of the report was measured.
type Section struct {
	Date     string   `json:"date"`
	Commands []string `json:"commands"`
	Rounds   int      `json:"rounds"`
	Quick    bool     `json:"quick,omitempty"`
	// Machine is where it ran, recorded when it ran.
	Machine Machine `json:"machine"`
	// CPUSource is where the servers' CPU time was read from (proc's
	// names); "" in a file from before it was recorded: clock ticks.
	CPUSource string `json:"cpu_source,omitempty"`
	// Forced, when set, says the run was forced while other processes
	// were busy on its CPUs, and which.
	Forced string `json:"forced,omitempty"`
	// CPUs is the placement: the server's and the client's CPU sets and
	// the server's GOMAXPROCS.
	ServerCPUs string `json:"server_cpus,omitempty"`
	ClientCPUs string `json:"client_cpus,omitempty"`
	// Shared says the server's and the client's CPU sets overlapped.
	Shared bool `json:"shared,omitempty"`
}

// Report is everything results.json holds.
type Report struct {
	Machine Machine `json:"machine"`
	// Sections maps "ceilings" (with the in-memory benchmarks) and "sweep"
	// (with the idle connections) to when they ran; a section absent here
	// was not measured.
	Sections map[string]Section `json:"sections"`
	Ceilings []Point            `json:"ceilings"`
	InMemory []Memory           `json:"in_memory"`
	Sweep    []Point            `json:"sweep,omitempty"`
	Idle     []Idle             `json:"idle,omitempty"`
	// Scale is bench-scale's keep-alive ceilings on 1, 2, … cores.
	Scale []Point `json:"scale,omitempty"`
	// Shared says the scale run's server and client shared CPUs.
	Shared bool `json:"scale_shared_cpus,omitempty"`
	// Work is bench-work's keep-alive ceilings with handler CPU work, and
	// Wait its runs with handler waits at Little's-law connections.
	Work []Point `json:"work,omitempty"`
	Wait []Point `json:"wait,omitempty"`
	// Latency is make bench-latency's points: servers held at fixed rates.
	Latency []Lat `json:"latency,omitempty"`
	// Usual is each mode's usual reference speed in the ceilings, CPU µs
	// per request: the level of the host's speed whose blocks count.
	Usual map[string]float64 `json:"usual_ref_us_per_req,omitempty"`
	// Clients is make compare-clients' run, when there is one.
	Clients *bench.ClientsRun `json:"-"`
}

// twin is nginx's A/A twin, measured beside it in the ceilings.
const twin = "nginx" + bench.TwinSuffix

// order is the servers' order in tables and charts.
func order() []string { return targets.Names() }

// rank is a server's place in order(); nginx's twin shares nginx's (and so
// its colour), and sorts after it by name.
func rank(s string) int {
	s = strings.TrimSuffix(s, bench.TwinSuffix)
	if i := slices.Index(order(), s); i >= 0 {
		return i
	}
	return len(order())
}

// modeNames are bench.Modes' names, in report order.
func modeNames() []string {
	names := make([]string, len(bench.Modes))
	for i, m := range bench.Modes {
		names[i] = string(m)
	}
	return names
}

func modeRank(m string) int {
	for i, o := range bench.Modes {
		if string(o) == m {
			return i
		}
	}
	return len(bench.Modes)
}

// point builds a Point from the samples of one benchmark.
func point(server, mode string, conns int, s samples) Point {
	p := Point{Server: server, Mode: mode, Conns: conns,
		CPU: s.figure("cpu-us/req"), AppCPU: s.figure("app-us/req"),
		ReqPerSec: s.figure("req/s"), Busy: s.figure("cpu-%"), ClientBusy: s.figure("client-cpu-%"),
		ClientCPU: s.figure("client-us/req"), P50: s.figure("p50-us"), P99: s.figure("p99-us"), RSS: s.figure("rss-MB")}
	if n := s.figure("N"); n.N > 0 {
		p.Requests = int(n.Median)
	}
	implied := make([]float64, len(p.CPU.Rounds))
	for i, c := range p.CPU.Rounds {
		if c > 0 {
			implied[i] = 1e6 / c
		}
	}
	p.Implied = figureOf(implied)
	p.Label = label(conns, p.Busy.Median, p.ClientBusy.Median)
	return p
}

// ceilingPoint builds a ceiling's Point: its figures come from the blocks
// in which the server was saturated and the host ran at usual, the mode's
// usual reference speed (0: every block's host counts), every block kept
// in Blocks.
func ceilingPoint(server, mode string, conns int, s samples, usual float64) Point {
	sat := s["saturated"]
	if len(sat) == 0 { // a file from before the rule: every round counts
		return point(server, mode, conns, s)
	}
	var ref, drift []float64
	if r := s[refUnit]; len(r) == len(s["cpu-us/req"]) {
		ref = r
		if d := s[driftUnit]; len(d) == len(r) {
			drift = d
		}
	}
	host := hostStates(ref, drift, usual)
	kept, saturated := samples{}, false
	for unit, v := range s {
		for i, x := range v {
			if i < len(sat) && sat[i] == 1 {
				saturated = true
				if usualAt(host, i) {
					kept[unit] = append(kept[unit], x)
				}
			}
		}
	}
	none := len(kept["cpu-us/req"]) == 0
	if none {
		kept = s // the figures of every block, labelled, and no ceiling
	}
	p := point(server, mode, conns, kept)
	p.Blocks, p.UsedConns = s["cpu-us/req"], s.figure("conns")
	p.Ref, p.Drift, p.Host = ref, drift, host
	for _, x := range sat {
		p.Saturated = append(p.Saturated, x == 1)
	}
	switch {
	case none && saturated:
		p.Implied, p.Label = Figure{}, NeverUsual
	case none:
		p.Implied = Figure{}
		p.Label = NeverSaturated
		if p.ClientBusy.Median >= bench.Saturated {
			p.Label += " (client-bound)"
		}
	}
	return p
}

// OpenLoop is a wait point's run at a steady rate (loadgen -rate) on
// twice its connections: latency counted from each request's due time.
type OpenLoop struct {
	Rate      float64 `json:"rate"` // the rate asked for, req/s
	ReqPerSec Figure  `json:"req_per_sec"`
	P50       Figure  `json:"p50_us"`
	P99       Figure  `json:"p99_us"`
	// ClientLimited counts the rounds loadgen called client-limited.
	ClientLimited int `json:"client_limited_rounds"`
}

// build assembles the report from the samples of the benchmark files.
func build(all map[string]samples, why map[string]string, sections map[string]Section, conns int) Report {
	rep := Report{Sections: sections, Usual: usualSpeeds(all)}
	// The machine the figures come from: the ceilings', else the sweep's.
	for _, name := range []string{"work", "sweep", "ceilings"} {
		if s, ok := sections[name]; ok && s.Machine.CPU != "" {
			rep.Machine = s.Machine
		}
	}
	for key, s := range all {
		switch {
		case strings.HasPrefix(key, "hellobench/servers/"):
			stack, name, _ := strings.Cut(strings.TrimPrefix(key, "hellobench/servers/"), "/")
			rep.InMemory = append(rep.InMemory, Memory{Stack: stack, Benchmark: name,
				NsOp: s.figure("ns/op"), BytesOp: s.figure("B/op"), AllocsOp: s.figure("allocs/op")})
		case strings.HasPrefix(key, ceilingPrefix):
			// server/mode, the server perhaps itself server/twin.
			f := strings.Split(strings.TrimPrefix(key, ceilingPrefix), "/")
			if len(f) >= 2 {
				p := ceilingPoint(strings.Join(f[:len(f)-1], "/"), f[len(f)-1], conns, s, rep.Usual[f[len(f)-1]])
				p.Coarse = coarse(sections["ceilings"])
				rep.Ceilings = append(rep.Ceilings, p)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkSweep/"):
			server, c, ok := strings.Cut(strings.TrimPrefix(key, "hellobench/bench/BenchmarkSweep/"), "/c=")
			if n, err := strconv.Atoi(c); ok && err == nil {
				p := point(server, "keepalive", n, s)
				p.Coarse = coarse(sections["sweep"])
				if f := s["fell-over"]; len(f) > 0 {
					p.FellOver, p.Why, p.Label = len(f), why[key], FellOver
				}
				rep.Sweep = append(rep.Sweep, p)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkScale/"):
			server, c, ok := strings.Cut(strings.TrimPrefix(key, "hellobench/bench/BenchmarkScale/"), "/cores=")
			if k, err := strconv.Atoi(c); ok && err == nil {
				p := point(server, "keepalive", conns, s)
				p.Cores = k
				// Saturated is per core: k cores are busy at k × 90 %.
				p.Label = label(conns, p.Busy.Median/float64(k), p.ClientBusy.Median)
				rep.Scale = append(rep.Scale, p)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkWork/"):
			if p, ok := workPoint(strings.TrimPrefix(key, "hellobench/bench/BenchmarkWork/"), s, conns); ok {
				p.Coarse = coarse(sections["work"])
				rep.Work = append(rep.Work, p)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkWait/"):
			if p, ok := waitPoint(strings.TrimPrefix(key, "hellobench/bench/BenchmarkWait/"), s); ok {
				if f := s["fell-over"]; len(f) > 0 {
					p.FellOver, p.Why = len(f), why[key]
				}
				rep.Wait = append(rep.Wait, p)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkLatency/"):
			if l, ok := latPoint(strings.TrimPrefix(key, "hellobench/bench/BenchmarkLatency/"), s, why[key]); ok {
				rep.Latency = append(rep.Latency, l)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkIdle/"):
			server, c, ok := strings.Cut(strings.TrimPrefix(key, "hellobench/bench/BenchmarkIdle/"), "/c=")
			if n, err := strconv.Atoi(c); ok && err == nil {
				rep.Idle = append(rep.Idle, Idle{Server: server, Conns: n, Held: s.figure("held"),
					PerConn: s.figure("rss-B/conn"), IdleCPU: s.figure("idle-cpu-ms/s")})
			}
		}
	}
	atRefSpeed(rep.Ceilings, rep.Usual)
	sortLat(rep.Latency)
	compare(rep.Ceilings)
	compare(rep.Sweep)
	sort.Slice(rep.Ceilings, func(i, j int) bool { return pointLess(rep.Ceilings[i], rep.Ceilings[j]) })
	sort.Slice(rep.Sweep, func(i, j int) bool { return pointLess(rep.Sweep[i], rep.Sweep[j]) })
	sort.Slice(rep.Scale, func(i, j int) bool {
		a, b := rep.Scale[i], rep.Scale[j]
		if a.Server != b.Server {
			return rank(a.Server) < rank(b.Server)
		}
		return a.Cores < b.Cores
	})
	sortWork(rep.Work, rep.Wait)
	rep.Shared = sections["scale"].Shared
	sort.Slice(rep.InMemory, func(i, j int) bool {
		a, b := rep.InMemory[i], rep.InMemory[j]
		if a.Stack != b.Stack {
			return rank(a.Stack) < rank(b.Stack)
		}
		return a.Benchmark < b.Benchmark
	})
	sort.Slice(rep.Idle, func(i, j int) bool {
		a, b := rep.Idle[i], rep.Idle[j]
		if a.Server != b.Server {
			return rank(a.Server) < rank(b.Server)
		}
		return a.Conns < b.Conns
	})
	return rep
}

// coarse reports whether a section's CPU was read in clock ticks.
func coarse(s Section) bool { return s.CPUSource == "" || s.CPUSource == proc.SourceTicks }

// blockCPU is a point's CPU per request block by block, NaN in the blocks
// in which its server was not saturated (pairwise operations skip those
// pairs); a point without blocks (the sweep) is its rounds.
func blockCPU(p Point) Figure {
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

// atRefSpeed sets each ceiling's scaled blocks: its CPU per request in each
// block times the mode's usual reference speed over the block's reference,
// as measured where the block has none.
func atRefSpeed(ps []Point, usual map[string]float64) {
	for i := range ps {
		p := &ps[i]
		m := usual[p.Mode]
		if len(p.Ref) == 0 || m == 0 {
			continue
		}
		p.Scaled = make([]float64, len(p.Blocks))
		for j, x := range p.Blocks {
			p.Scaled[j] = x // no saturated reference (often with a new connection per request): nothing to scale by
			if p.Ref[j] > 0 {
				p.Scaled[j] = x * m / p.Ref[j]
			}
		}
	}
}

// blockRatio is a over b block by block, over the blocks in which both
// servers were saturated (round by round for the sweep).
func blockRatio(a, b Point) Figure { return ratio(blockCPU(a), blockCPU(b)) }

// compare sets each point's CPU ratios to nginx and the floor at the same
// mode and concurrency, block by block (round by round in the sweep). A
// ceiling with reference rounds is compared with them, the nginx measured
// right beside it, rather than with the block's nginx target.
func compare(ps []Point) {
	ref := map[string]Point{}
	for _, p := range ps {
		if p.Server == "nginx" || p.Server == "floor" {
			ref[p.Server+"/"+p.Mode+"/"+strconv.Itoa(p.Conns)] = p
		}
	}
	for i := range ps {
		p := &ps[i]
		at := "/" + p.Mode + "/" + strconv.Itoa(p.Conns)
		if len(p.Ref) > 0 && p.Server != "nginx" {
			r := ratio(saturated(*p, p.Blocks), refCPU(*p))
			p.CPUVsNginx = &r
		} else if n, ok := ref["nginx"+at]; ok && p.Server != "nginx" {
			r := blockRatio(*p, n)
			p.CPUVsNginx = &r
		}
		if f, ok := ref["floor"+at]; ok && p.Server != "floor" {
			r := blockRatio(*p, f)
			p.CPUVsFloor = &r
		}
	}
}

func pointLess(a, b Point) bool {
	switch {
	case modeRank(a.Mode) != modeRank(b.Mode):
		return modeRank(a.Mode) < modeRank(b.Mode)
	case rank(a.Server) != rank(b.Server):
		return rank(a.Server) < rank(b.Server)
	case a.Server != b.Server:
		return a.Server < b.Server
	}
	return a.Conns < b.Conns
}

// ceilingPrefix starts the benchmark keys of the ceilings.
const ceilingPrefix = "hellobench/bench/BenchmarkCeiling/"

// find returns the point of server in mode from ps, if measured.
func find(ps []Point, server, mode string) (Point, bool) {
	for _, p := range ps {
		if p.Server == server && p.Mode == mode {
			return p, true
		}
	}
	return Point{}, false
}

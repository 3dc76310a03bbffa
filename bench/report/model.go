// Package report is the model of the bench's results: it reads the `go
// test -bench` output of each bench (bench.txt, sweep.txt, scale.txt,
// work.txt, latency.txt) into a Report, what results.json holds, and
// decides which blocks and rounds count (rules.go: saturation and the
// host's usual state). Package render writes a Report as markdown and
// SVG; the report command runs the benches and writes the files.
package report

import (
	"slices"
	"strings"

	"hellobench/bench"
	"hellobench/internal/targets"
)

// Machine is what the report records of the machine it ran on, so that
// readers compare across machines by ratios to the floor and to nginx.
type Machine struct {
	CPU      string `json:"cpu"`
	Cores    int    `json:"cores"`
	Kernel   string `json:"kernel"`
	Go       string `json:"go"`
	Nginx    string `json:"nginx"`
	Lighttpd string `json:"lighttpd"`
	// SyscallNS is one raw getppid(2) on the server's CPU, in ns, and
	// Mitigations the kernel's CPU vulnerability entries other than "Not
	// affected": what a system call costs here, and so what io_uring's
	// batching saves, which differs between machines.
	SyscallNS float64 `json:"syscall_ns,omitempty"`
	// Vendor, Family, Model, Stepping and Microcode are /proc/cpuinfo's
	// (proc.CPUID): what tells apart hosts that CPU names alike. Runs
	// before 2026-12-06 did not record them.
	Vendor      string   `json:"vendor,omitempty"`
	Family      string   `json:"family,omitempty"`
	Model       string   `json:"model,omitempty"`
	Stepping    string   `json:"stepping,omitempty"`
	Microcode   string   `json:"microcode,omitempty"`
	Mitigations []string `json:"mitigations,omitempty"`
	// UDP is what a QUIC server's sockets get: net.core.rmem_max and
	// wmem_max and whether the kernel offers GSO (proc.GSO). Recorded from
	// 2026-12-06 on.
	UDP string `json:"udp,omitempty"`
	// Versions is each Go stack's modules as the build resolves them
	// (StackVersions), "path version" each, by stack name.
	Versions map[string][]string `json:"versions,omitempty"`
}

const DateFormat = "2006-01-02 15:04 MST"

// CeilingConns is the connections of the ceiling benchmarks (their default).
const CeilingConns = 50

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
	// User and Sys split CPU into the server's own code and the kernel's
	// on its behalf (cgroup v1's cpuacct usage_user and usage_sys), where
	// the run recorded the split.
	User Figure `json:"user_us_per_req,omitzero"`
	Sys  Figure `json:"sys_us_per_req,omitzero"`
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
	// Source is the section of its own a wait point came from, replacing
	// its whole run's (UringSection); "": the whole run's.
	Source string `json:"source,omitempty"`
	// FellOver counts the rounds in which the server failed requests, and
	// Why says why (the first); its figures are of the other rounds.
	FellOver int    `json:"fell_over_rounds,omitempty"`
	Why      string `json:"fell_over_why,omitempty"`
}

// CoarseTicks is the clock ticks of server CPU (10 ms each, /proc/PID/stat's
// unit) under which a round's CPU per request is coarse enough to say so:
// one tick either way is then over 5 %.
const CoarseTicks = 20

// Ticks is the clock ticks of server CPU a round of p measured, from its
// median: CPU per request (µs) times requests, over 10 000 µs a tick.
func (p Point) Ticks() float64 {
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
	// Source is the section of its own the row came from, replacing the
	// sweep's (UringSection); "": the sweep's.
	Source string `json:"source,omitempty"`
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
	Date string `json:"date"`
	// Invocation is the start of the bin/report invocation that wrote
	// it (InvocationPrefix); "" in a file from before it was recorded.
	Invocation string   `json:"invocation,omitempty"`
	Commands   []string `json:"commands"`
	Rounds     int      `json:"rounds"`
	// Kept and Most are a run's stopping rule, when it has one (make
	// bench-tls's keep-alive blocks): after Rounds whole blocks, blocks
	// of the rows short of Kept blocks kept, Most blocks at most in all.
	Kept  int  `json:"kept,omitempty"`
	Most  int  `json:"most,omitempty"`
	Quick bool `json:"quick,omitempty"`
	// Rate and Idle are make bench's pick sizes (PickFormat): the rate
	// its cores are priced at and the idle connections it holds.
	Rate int `json:"rate,omitempty"`
	Idle int `json:"idle,omitempty"`
	// Took is the seconds the run's commands took, from go test's own
	// account of each.
	Took float64 `json:"took_s,omitempty"`
	// Durations are the seconds each command took, by its index in
	// Commands (0 for one whose time is not in the file).
	Durations []float64 `json:"-"`
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
	// Load is make bench-load's points (servers held at shares of their
	// ceilings and at the ladder, for their CPU per request), and Capacity
	// its search for the rate each holds within a p99 bound.
	Load     []Lat      `json:"load,omitempty"`
	Capacity []Capacity `json:"capacity,omitempty"`
	// AtLoad is make bench-load's blocks at a quarter of each ceiling,
	// beside a reference nginx at a quarter of its own (Point.Mode is the
	// share, "of=25%"): the CPU per request and its ratio to nginx that
	// the pick table prices a request at.
	AtLoad []Point `json:"at_load,omitempty"`
	// NewConn is make bench-load PART=newconn's blocks: every server on a new
	// connection per request at one fixed rate, beside a reference nginx
	// at the same rate (Point.Mode is the rate, "rate=5000").
	NewConn []Point `json:"new_conn,omitempty"`
	// Protocols are make bench-tls PART=h3's rows: one server over HTTP/1.1 with
	// TLS, HTTP/2 and HTTP/3 at fixed rates.
	Protocols []ProtoPoint `json:"protocols,omitempty"`
	// ProtoCalls are the server's system calls per request in each of
	// make bench-tls PART=h3's keep-alive rows, at one rate (Why.Server is
	// the row, Why.Load the rate, "rate=5000").
	ProtoCalls []Why `json:"protocol_calls,omitempty"`
	// ProtoIdle is the memory and CPU of the server's idle connections in
	// each of bench.IdleProtocols (Idle.Server is the protocol).
	ProtoIdle []Idle `json:"protocol_idle,omitempty"`
	// MinWait is bin/report -min-wait's run: uring below its ceiling with
	// each of io_uring's minimum waits (AddMinWait).
	MinWait *MinWait `json:"min_wait,omitempty"`
	// Pick is make bench's one run (PickSection): every figure of the
	// pick table from one invocation on one host, read on its own so
	// that no cell can mix it with another run's.
	Pick *Report `json:"pick,omitempty"`
	// Robustness is the robustness suite's page, as the pick table's
	// hostile-clients column reads it (ReadRobustness).
	Robustness *Robustness `json:"robustness,omitempty"`
	// Profiles is bin/report -profile's run: CPU profiles by category
	// and allocations by site (AddProfile).
	Profiles *Profiles `json:"profiles,omitempty"`
	// Traces are bin/report -trace's system calls of a request, a server
	// each (AddTrace).
	Traces []Trace `json:"traces,omitempty"`
	// Repeat is how far the ceilings' ratios to nginx moved between
	// separate invocations of make bench (ReadRepeat), when there were any.
	Repeat *Repeat `json:"repeat,omitempty"`
	// Why is make bench-load's count of system calls, epoll_waits and
	// context switches per request, at a quarter of the ceiling and
	// saturated.
	Why []Why `json:"why,omitempty"`
	// Readiness is make bench-readiness's count of what the floors on
	// epoll and on io_uring (and gnet, and nginx) ask of the kernel per
	// request, saturated.
	Readiness []Why `json:"readiness,omitempty"`
	// TLS is make bench-tls's rows: each server over TLS and HTTP/2, in
	// each mode, beside a reference nginx over TLS.
	TLS []TLSRow `json:"tls,omitempty"`
	// Usual is each mode's usual reference speed in the ceilings, CPU µs
	// per request: the level of the host's speed whose blocks count.
	Usual map[string]float64 `json:"usual_ref_us_per_req,omitempty"`
	// Clients is make compare WHAT=clients' run, when there is one.
	Clients *bench.ClientsRun `json:"-"`
	// Hosts is every host recorded under results/hosts (ReadHosts).
	Hosts []Host `json:"-"`
}

// Twin is nginx's A/A twin, measured beside it in the ceilings.
const Twin = "nginx" + bench.TwinSuffix

// Order is the servers' order in tables and charts.
func Order() []string { return targets.Names() }

// Rank is a server's place in order(); nginx's twin and its instance held
// without the stall meter share nginx's (and so its colour), and sort
// after it by name.
func Rank(s string) int {
	s = strings.TrimSuffix(s, bench.TwinSuffix)
	s = strings.TrimSuffix(s, bench.QuietSuffix)
	if i := slices.Index(Order(), s); i >= 0 {
		return i
	}
	return len(Order())
}

// ModeNames are bench.Modes' names, in report order.
func ModeNames() []string {
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

// ceilingPrefix starts the benchmark keys of the ceilings.
const ceilingPrefix = "hellobench/bench/BenchmarkCeiling/"

// Find returns the point of server in mode from ps, if measured.
func Find(ps []Point, server, mode string) (Point, bool) {
	for _, p := range ps {
		if p.Server == server && p.Mode == mode {
			return p, true
		}
	}
	return Point{}, false
}

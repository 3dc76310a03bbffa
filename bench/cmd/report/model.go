package main

import (
	"sort"
	"strconv"
	"strings"

	"hellobench/bench"
	"hellobench/internal/targets"
)

// A Ceiling is one server in one mode over loopback, medians of the runs.
type Ceiling struct {
	Server      string  `json:"server"`
	Mode        string  `json:"mode"`
	Runs        int     `json:"runs"`
	Requests    float64 `json:"requests_per_run"`
	ReqPerSec   float64 `json:"req_per_sec"`
	CPUPerReq   float64 `json:"cpu_us_per_req"`
	AppPerReq   float64 `json:"app_cpu_us_per_req,omitempty"` // fcgi: the application's share of CPUPerReq
	Ceiling     float64 `json:"implied_ceiling_req_per_sec"`
	Busy        float64 `json:"server_cpu_pct"`
	P50         float64 `json:"p50_us"`
	P99         float64 `json:"p99_us"`
	RSS         float64 `json:"peak_rss_mb"`
	ClientBound bool    `json:"client_bound"`
	// Ratios to nginx in the same mode; 0 when nginx was not measured.
	VsNginx        float64 `json:"req_per_sec_vs_nginx,omitempty"`
	CeilingVsNginx float64 `json:"ceiling_vs_nginx,omitempty"`
	// From the stack's in-memory benchmark of the same connection use.
	Allocs float64 `json:"allocs_per_op"`
	Bytes  float64 `json:"bytes_per_op"`
	NsOp   float64 `json:"in_memory_ns_per_op"`
	HasMem bool    `json:"-"`
}

// A Memory figure is one in-memory benchmark of a server package.
type Memory struct {
	Stack     string  `json:"stack"`
	Benchmark string  `json:"benchmark"`
	Runs      int     `json:"runs"`
	NsOp      float64 `json:"ns_per_op"`
	BytesOp   float64 `json:"bytes_per_op"`
	AllocsOp  float64 `json:"allocs_per_op"`
}

// A Sweep point is one server keep-alive at one concurrency.
type Sweep struct {
	Server      string  `json:"server"`
	Conns       int     `json:"connections"`
	ReqPerSec   float64 `json:"req_per_sec"`
	P99         float64 `json:"p99_us"`
	CPUPerReq   float64 `json:"cpu_us_per_req"`
	Busy        float64 `json:"server_cpu_pct"`
	ClientBound bool    `json:"client_bound"`
}

// Report is everything results.json holds.
type Report struct {
	Machine  Machine   `json:"machine"`
	Commands []string  `json:"commands"`
	Ceilings []Ceiling `json:"ceilings"`
	InMemory []Memory  `json:"in_memory"`
	Sweep    []Sweep   `json:"sweep,omitempty"`
}

// order is the servers' order in tables and charts.
func order() []string { return targets.Names() }

func rank(s string) int {
	for i, o := range order() {
		if o == s {
			return i
		}
	}
	return len(order())
}

func modeRank(m string) int {
	for i, o := range bench.Modes {
		if string(o) == m {
			return i
		}
	}
	return len(bench.Modes)
}

// memBench names the in-memory benchmark that matches a mode's connection
// use.
var memBench = map[string][]string{
	"keepalive": {"BenchmarkServeKeepAlive"},
	"close":     {"BenchmarkServeClose"},
	"pipeline":  {"BenchmarkServePipelined", "BenchmarkServeKeepAlive"},
}

func build(all map[string]samples, commands []string) Report {
	rep := Report{Machine: machine(), Commands: commands}
	mem := map[string]samples{} // stack/Benchmark → samples
	for key, s := range all {
		switch {
		case strings.HasPrefix(key, "hellobench/servers/"):
			rest := strings.TrimPrefix(key, "hellobench/servers/")
			stack, name, _ := strings.Cut(rest, "/")
			mem[stack+"/"+name] = s
			rep.InMemory = append(rep.InMemory, Memory{Stack: stack, Benchmark: name, Runs: s.runs(),
				NsOp: s.get("ns/op"), BytesOp: s.get("B/op"), AllocsOp: s.get("allocs/op")})
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkCeiling/"):
			f := strings.Split(strings.TrimPrefix(key, "hellobench/bench/BenchmarkCeiling/"), "/")
			if len(f) != 2 {
				continue
			}
			c := Ceiling{Server: f[0], Mode: f[1], Runs: s.runs(), Requests: s.get("N"),
				ReqPerSec: s.get("req/s"), CPUPerReq: s.get("cpu-us/req"), AppPerReq: s.get("app-us/req"),
				Busy: s.get("cpu-%"), P50: s.get("p50-us"), P99: s.get("p99-us"), RSS: s.get("rss-MB")}
			if c.CPUPerReq > 0 {
				c.Ceiling = 1e6 / c.CPUPerReq
			}
			c.ClientBound = c.Busy < bench.Saturated
			rep.Ceilings = append(rep.Ceilings, c)
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkSweep/"):
			server, conns, ok := strings.Cut(strings.TrimPrefix(key, "hellobench/bench/BenchmarkSweep/"), "/c=")
			n, err := strconv.Atoi(conns)
			if !ok || err != nil {
				continue
			}
			p := Sweep{Server: server, Conns: n, ReqPerSec: s.get("req/s"), P99: s.get("p99-us"),
				CPUPerReq: s.get("cpu-us/req"), Busy: s.get("cpu-%")}
			p.ClientBound = p.Busy < bench.Saturated
			rep.Sweep = append(rep.Sweep, p)
		}
	}
	nginx := map[string]Ceiling{}
	for _, c := range rep.Ceilings {
		if c.Server == "nginx" {
			nginx[c.Mode] = c
		}
	}
	for i := range rep.Ceilings {
		c := &rep.Ceilings[i]
		if n, ok := nginx[c.Mode]; ok && n.ReqPerSec > 0 && n.Ceiling > 0 {
			c.VsNginx = c.ReqPerSec / n.ReqPerSec
			c.CeilingVsNginx = c.Ceiling / n.Ceiling
		}
		for _, b := range memBench[c.Mode] {
			if s, ok := mem[c.Server+"/"+b]; ok {
				c.Allocs, c.Bytes, c.NsOp, c.HasMem = s.get("allocs/op"), s.get("B/op"), s.get("ns/op"), true
				break
			}
		}
	}
	sort.Slice(rep.Ceilings, func(i, j int) bool {
		a, b := rep.Ceilings[i], rep.Ceilings[j]
		if modeRank(a.Mode) != modeRank(b.Mode) {
			return modeRank(a.Mode) < modeRank(b.Mode)
		}
		return rank(a.Server) < rank(b.Server)
	})
	sort.Slice(rep.InMemory, func(i, j int) bool {
		a, b := rep.InMemory[i], rep.InMemory[j]
		if a.Stack != b.Stack {
			return rank(a.Stack) < rank(b.Stack)
		}
		return a.Benchmark < b.Benchmark
	})
	sort.Slice(rep.Sweep, func(i, j int) bool {
		a, b := rep.Sweep[i], rep.Sweep[j]
		if a.Server != b.Server {
			return rank(a.Server) < rank(b.Server)
		}
		return a.Conns < b.Conns
	})
	return rep
}

package report

import (
	"cmp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"hellobench/bench"
)

// point builds a Point from the samples of one benchmark.
func point(server, mode string, conns int, s Samples) Point {
	p := Point{Server: server, Mode: mode, Conns: conns,
		CPU: s.figure("cpu-us/req"), AppCPU: s.figure("app-us/req"),
		ReqPerSec: s.figure("req/s"), Busy: s.figure("cpu-%"), ClientBusy: s.figure("client-cpu-%"),
		ClientCPU: s.figure("client-us/req"), P50: s.figure("p50-us"), P99: s.figure("p99-us"), RSS: s.figure("rss-MB"),
		User: s.figure("user-us/req"), Sys: s.figure("sys-us/req")}
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
func ceilingPoint(server, mode string, conns int, s Samples, usual float64) Point {
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
	kept, saturated := Samples{}, false
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

// Build assembles the report from the samples of the benchmark files; own
// are the benchmarks that came from a file of their own (ownRows), by its
// section, whose host level is their run's, not the file's they replace
// part of.
func Build(all map[string]Samples, why map[string]string, sections map[string]Section, own map[string]string, conns int) Report {
	rep := Report{Sections: sections, Usual: usualSpeeds(all)}
	// The machine the figures come from: the ceilings', else the sweep's.
	for _, name := range []string{NewConnSection, TLSHandshakeSection, TLSKeepAliveSection, TLSSection, LoadSection, LatencySection, WorkSection, SweepSection, CeilingsSection} {
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
				p.Coarse = Coarse(sections[CeilingsSection])
				rep.Ceilings = append(rep.Ceilings, p)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkSweep/"):
			server, c, ok := strings.Cut(strings.TrimPrefix(key, "hellobench/bench/BenchmarkSweep/"), "/c=")
			if n, err := strconv.Atoi(c); ok && err == nil {
				p := point(server, "keepalive", n, s)
				p.Coarse = Coarse(sections[SweepSection])
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
			if p, ok := WorkPoint(strings.TrimPrefix(key, "hellobench/bench/BenchmarkWork/"), s, conns); ok {
				p.Coarse = Coarse(sections[WorkSection])
				rep.Work = append(rep.Work, p)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkWait/"):
			if p, ok := WaitPoint(strings.TrimPrefix(key, "hellobench/bench/BenchmarkWait/"), s); ok {
				if f := s["fell-over"]; len(f) > 0 {
					p.FellOver, p.Why = len(f), why[key]
				}
				p.Source = own[key]
				rep.Wait = append(rep.Wait, p)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkLatency/"):
			if l, ok := LatPoint(strings.TrimPrefix(key, "hellobench/bench/BenchmarkLatency/"), s, why[key]); ok {
				rep.Latency = append(rep.Latency, l)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkLoad/"):
			if l, ok := LatPoint(strings.TrimPrefix(key, "hellobench/bench/BenchmarkLoad/"), s, why[key]); ok {
				rep.Load = append(rep.Load, l)
			}
		case strings.HasPrefix(key, capacityPrefix):
			if c, ok := capacityPoint(strings.TrimPrefix(key, capacityPrefix), s); ok {
				rep.Capacity = append(rep.Capacity, c)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkWhy/"):
			if w, ok := whyPoint(strings.TrimPrefix(key, "hellobench/bench/BenchmarkWhy/"), s); ok {
				rep.Why = append(rep.Why, w)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkProtoCalls/"):
			if w, ok := whyPoint(strings.TrimPrefix(key, "hellobench/bench/BenchmarkProtoCalls/"), s); ok {
				rep.ProtoCalls = append(rep.ProtoCalls, w)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkReadiness/"):
			if w, ok := whyPoint(strings.TrimPrefix(key, "hellobench/bench/BenchmarkReadiness/"), s); ok {
				rep.Readiness = append(rep.Readiness, w)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkIdle/"):
			if i, ok := idlePoint(strings.TrimPrefix(key, "hellobench/bench/BenchmarkIdle/"), s); ok {
				i.Source = own[key]
				rep.Idle = append(rep.Idle, i)
			}
		case strings.HasPrefix(key, "hellobench/bench/BenchmarkProtoIdle/"):
			if i, ok := idlePoint(strings.TrimPrefix(key, "hellobench/bench/BenchmarkProtoIdle/"), s); ok {
				rep.ProtoIdle = append(rep.ProtoIdle, i)
			}
		}
	}
	atRefSpeed(rep.Ceilings, rep.Usual)
	SortLat(rep.Latency)
	SortLat(rep.Load)
	slices.SortFunc(rep.Why, func(a, b Why) int {
		return cmp.Or(CompareServers(a.Server, b.Server), strings.Compare(a.Load, b.Load)) // "of=25%" before "saturated"
	})
	slices.SortFunc(rep.Readiness, func(a, b Why) int { return CompareServers(a.Server, b.Server) })
	slices.SortFunc(rep.ProtoCalls, func(a, b Why) int { return protoRank(a.Server) - protoRank(b.Server) })
	slices.SortFunc(rep.ProtoIdle, func(a, b Idle) int {
		return slices.Index(bench.IdleProtocols, a.Server) - slices.Index(bench.IdleProtocols, b.Server)
	})
	slices.SortFunc(rep.Capacity, func(a, b Capacity) int { return CompareServers(a.Server, b.Server) })

	compare(rep.Ceilings)
	compare(rep.Sweep)
	sort.Slice(rep.Ceilings, func(i, j int) bool { return pointLess(rep.Ceilings[i], rep.Ceilings[j]) })
	sort.Slice(rep.Sweep, func(i, j int) bool { return pointLess(rep.Sweep[i], rep.Sweep[j]) })
	sort.Slice(rep.Scale, func(i, j int) bool {
		a, b := rep.Scale[i], rep.Scale[j]
		if a.Server != b.Server {
			return Rank(a.Server) < Rank(b.Server)
		}
		return a.Cores < b.Cores
	})
	sortWork(rep.Work, rep.Wait)
	rep.TLS = buildTLS(all, sections, own, rep.Ceilings, conns)
	rep.AtLoad = buildAtLoad(all, sections)
	rep.NewConn = buildNewConn(all, sections)
	rep.Protocols = buildProtocols(all, sections)
	rep.Shared = sections[ScaleSection].Shared
	sort.Slice(rep.InMemory, func(i, j int) bool {
		a, b := rep.InMemory[i], rep.InMemory[j]
		if a.Stack != b.Stack {
			return Rank(a.Stack) < Rank(b.Stack)
		}
		return a.Benchmark < b.Benchmark
	})
	sort.Slice(rep.Idle, func(i, j int) bool {
		a, b := rep.Idle[i], rep.Idle[j]
		if a.Server != b.Server {
			return Rank(a.Server) < Rank(b.Server)
		}
		return a.Conns < b.Conns
	})
	return rep
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
func blockRatio(a, b Point) Figure { return ratio(BlockCPU(a), BlockCPU(b)) }

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
	case Rank(a.Server) != Rank(b.Server):
		return Rank(a.Server) < Rank(b.Server)
	case a.Server != b.Server:
		return a.Server < b.Server
	}
	return a.Conns < b.Conns
}

// idlePoint reads an idle benchmark's key, "server/c=N" (a protocol for
// BenchmarkProtoIdle), and its samples.
func idlePoint(key string, s Samples) (Idle, bool) {
	server, c, ok := strings.Cut(key, "/c=")
	n, err := strconv.Atoi(c)
	if !ok || err != nil {
		return Idle{}, false
	}
	return Idle{Server: server, Conns: n, Held: s.figure("held"), PerConn: s.figure("rss-B/conn"), IdleCPU: s.figure("idle-cpu-ms/s")}, true
}

package render

import (
	"fmt"
	"slices"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
	"hellobench/internal/targets"
)

// The cost tables split a request's server CPU time into layers by
// differences of CPU µs per request, each taken block by block between two
// servers that ran in the same block (and were saturated in it): the floor, each stack's server loop
// beyond it, the router on top, a new connection, the FastCGI hop, and what
// pipelining saves. A difference whose interval contains zero is within the
// noise and is printed as such, never as a negative cost.

// cpuOf returns the CPU figure of server in mode, block by block (BlockCPU)
// so that differences pair the blocks in which both servers were saturated.
func cpuOf(rep report.Report, server, mode string) (report.Figure, bool) {
	p, ok := report.Find(rep.Ceilings, server, mode)
	return report.BlockCPU(p), ok && p.CPU.N > 0
}

// A stack is a row of the keep-alive table: the server, its server loop
// (itself, or the stack its router runs on) and whether it is a router.
type stack struct {
	name, loop string
	router     bool
	uring      bool // on io_uring: its floor is the io_uring floor
}

// stacks are the rows of the keep-alive table, from the target table: each
// server loop followed by the routers on it. The floors are the table's
// last rows, and a target of several processes (fcgi) has a table of its
// own.
func stacks() []stack {
	var loops []targets.Target
	for _, t := range targets.All {
		if t.Name != "floor" && t.Name != "floor-uring" && t.RouterOn == "" && len(t.Counted) == 1 {
			loops = append(loops, t)
		}
	}
	var rows []stack
	for _, l := range loops {
		rows = append(rows, stack{name: l.Name, loop: l.Name, uring: l.URing})
		for _, t := range targets.All {
			if t.RouterOn == l.Name {
				rows = append(rows, stack{name: t.Name, loop: l.Name, router: true})
			}
		}
	}
	return rows
}

// CostsKeepAlive splits each stack's keep-alive request into the io_uring
// floor (the kernel's TCP work and the least a server can ask of it), what
// the readiness model costs over it (the epoll floor less the io_uring
// floor) for a stack on epoll, its server loop beyond its own floor, and a
// router on top. Where the io_uring floor did not run (io_uring refused),
// the epoll floor is the lowest.
func CostsKeepAlive(rep report.Report) string {
	floor, ok := cpuOf(rep, "floor", "keepalive")
	if !ok {
		return ""
	}
	lowest, onURing := cpuOf(rep, "floor-uring", "keepalive")
	if !onURing {
		return costsOverFloor(rep, floor)
	}
	readiness := bench.Diff(floor, lowest)
	var b strings.Builder
	b.WriteString("| stack | total CPU µs/req | io_uring floor | readiness model over it | server loop beyond its floor | router on top of its loop |\n|---|--:|--:|--:|--:|--:|\n")
	for _, s := range stacks() {
		total, ok1 := cpuOf(rep, s.name, "keepalive")
		loop, ok2 := cpuOf(rep, s.loop, "keepalive")
		if !ok1 || !ok2 {
			continue
		}
		its, model := floor, share(readiness, total)
		if s.uring {
			its, model = lowest, "– (on io_uring)"
		}
		router := "–"
		if s.router {
			router = routerCell(bench.Diff(total, loop), total, s.loop)
		}
		fmt.Fprintf(&b, "| %s | %s | %.0f %% | %s | %s | %s |\n", s.name, spread(total, 2),
			100*lowest.Median/total.Median, model, share(bench.Diff(loop, its), total), router)
	}
	fmt.Fprintf(&b, "| floor | %s | %.0f %% | %s | – | – |\n", spread(floor, 2), 100*lowest.Median/floor.Median, share(readiness, floor))
	fmt.Fprintf(&b, "| floor-uring | %s | 100 %% | – | – | – |\n", spread(lowest, 2))
	return b.String()
}

// routerCell is a router's share over the loop it runs on. A router is
// set against its loop's own server, which routes too (nethttp through
// net/http's ServeMux, fasthttp through a switch on the path): a negative
// one costs less than the routing it replaces, and its cell says so.
func routerCell(part, total report.Figure, loop string) string {
	cell := share(part, total)
	if part.N > 0 && !part.Straddles(0) && part.Median < 0 {
		replaced := "a switch on the path"
		if loop == "nethttp" {
			replaced = "net/http's ServeMux"
		}
		cell += ": less than " + replaced + ", which its loop's own server routes with"
	}
	return cell
}

// costsOverFloor is the keep-alive table with the epoll floor as the
// lowest, for a run without the io_uring floor.
func costsOverFloor(rep report.Report, floor report.Figure) string {
	var b strings.Builder
	b.WriteString("| stack | total CPU µs/req | syscall floor | server loop beyond the floor | router on top of its loop |\n|---|--:|--:|--:|--:|\n")
	for _, s := range stacks() {
		total, ok1 := cpuOf(rep, s.name, "keepalive")
		loop, ok2 := cpuOf(rep, s.loop, "keepalive")
		if !ok1 || !ok2 || s.uring {
			continue
		}
		router := "–"
		if s.router {
			router = routerCell(bench.Diff(total, loop), total, s.loop)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", s.name, spread(total, 2),
			fmt.Sprintf("%.0f %%", 100*floor.Median/total.Median), share(bench.Diff(loop, floor), total), router)
	}
	fmt.Fprintf(&b, "| floor | %s | 100 %% | – | – |\n", spread(floor, 2))
	return b.String()
}

// CostsClose sets each stack's keep-alive request beside one on a new
// connection: what the connection adds, as a share of the latter.
func CostsClose(rep report.Report) string {
	return costsBeside(rep, "close", "one connection per request | what the connection adds",
		func(ka, cl report.Figure) string { return share(bench.Diff(cl, ka), cl) })
}

// CostsPipeline sets each stack's keep-alive request beside a pipelined
// one: what pipelining saves, as a share of the former, or, where a
// pipelined request costs more (lighttpd's FastCGI side), what it costs.
func CostsPipeline(rep report.Report) string {
	return costsBeside(rep, "pipeline", "pipelined, 16 in flight | saved by pipelining",
		func(ka, pl report.Figure) string {
			if saved := bench.Diff(ka, pl); saved.N == 0 || saved.Straddles(0) || saved.Median >= 0 {
				return share(saved, ka)
			}
			more := bench.Diff(pl, ka)
			return fmt.Sprintf("none: it costs %s µs more (%.0f %%)", spread(more, 2), 100*more.Median/ka.Median)
		})
}

// costsBeside is a table of each stack's keep-alive CPU per request, its
// CPU in mode and what cost makes of the two, under the last two columns'
// headers; "" when no stack ran both modes.
func costsBeside(rep report.Report, mode, headers string, cost func(ka, other report.Figure) string) string {
	var b strings.Builder
	b.WriteString("| stack | keep-alive CPU µs/req | " + headers + " |\n|---|--:|--:|--:|\n")
	rows := 0
	for _, s := range report.Order() {
		ka, ok1 := cpuOf(rep, s, "keepalive")
		other, ok2 := cpuOf(rep, s, mode)
		if !ok1 || !ok2 {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", s, spread(ka, 2), spread(other, 2), cost(ka, other))
		rows++
	}
	if rows == 0 {
		return ""
	}
	return b.String()
}

func CostsFcgi(rep report.Report) string {
	fcgi, ok := report.Find(rep.Ceilings, "fcgi", "keepalive")
	static, ok2 := cpuOf(rep, "lighttpd-static", "keepalive")
	nethttp, ok3 := cpuOf(rep, "nethttp", "keepalive")
	floor, ok4 := cpuOf(rep, "floor", "keepalive")
	if !ok || !ok2 || !ok3 || !ok4 || fcgi.CPU.N == 0 {
		return ""
	}
	// lighttpd's and the application's shares pair the blocks in which fcgi
	// was saturated, as fcgi.CPU and fcgi.AppCPU hold; against other
	// servers fcgi's CPU is taken block by block.
	lighttpd := bench.Diff(fcgi.CPU, fcgi.AppCPU)
	if len(fcgi.Blocks) > 0 && slices.Contains(fcgi.Saturated, false) {
		lighttpd = report.Figure{Spread: lighttpd.Spread} // unpaired: shown alone, not differenced
	}
	var b strings.Builder
	b.WriteString("| part | CPU µs/req |\n|---|--:|\n")
	fmt.Fprintf(&b, "| the syscall floor | %s |\n", share(floor, fcgi.CPU))
	fmt.Fprintf(&b, "| lighttpd serving a static file, beyond the floor | %s |\n", share(bench.Diff(static, floor), fcgi.CPU))
	fmt.Fprintf(&b, "| lighttpd's FastCGI side (lighttpd here, minus lighttpd static) | %s |\n", share(bench.Diff(lighttpd, static), fcgi.CPU))
	fmt.Fprintf(&b, "| the application: net/http/fcgi and the handler | %s |\n", share(fcgi.AppCPU, fcgi.CPU))
	fmt.Fprintf(&b, "| total | %s |\n", spread(fcgi.CPU, 2))
	fmt.Fprintf(&b, "| nethttp answering HTTP itself | %s |\n", spread(nethttp, 2))
	fmt.Fprintf(&b, "| the hop's cost over nethttp | %s, %s× nethttp's CPU |\n", delta(bench.Diff(report.BlockCPU(fcgi), nethttp)), spread(bench.Ratio(report.BlockCPU(fcgi), nethttp), 1))
	return b.String()
}

// CostsInMemory sets each stack's in-memory request against its server
// loop over loopback: the difference is getting bytes in and out.
func CostsInMemory(rep report.Report) string {
	floor, ok := cpuOf(rep, "floor", "keepalive")
	if !ok {
		return ""
	}
	var b strings.Builder
	b.WriteString("| stack | in memory, µs/req | allocs/req | over loopback, beyond the epoll floor (its loop and any router) |\n|---|--:|--:|--:|\n")
	rows := 0
	var missing []string
	for _, st := range stacks() {
		s := st.name
		m, ok1 := memory(rep, s, "BenchmarkServeKeepAlive")
		cpu, ok2 := cpuOf(rep, s, "keepalive")
		if !ok1 || !ok2 {
			if ok2 {
				missing = append(missing, s)
			}
			continue
		}
		us := report.Figure{}
		if m.NsOp.N > 0 {
			us = scale(m.NsOp, 1e-3)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", s, spread(us, 2), median(m.AllocsOp, 0), delta(bench.Diff(cpu, floor)))
		rows++
	}
	if rows == 0 {
		return ""
	}
	return b.String() + noMemoryRow(missing)
}

// whyNoLoop says, for the servers whose loop has no in-memory benchmark,
// why not, so that a table without their rows says so.
var whyNoLoop = map[string]string{
	"hertz": "netpoll serves only a listener with a file descriptor, so hertz's loop cannot run over a fake connection (servers/hertz/bench_test.go)",
	"nbio":  "nbio's poller reads each connection's socket through its file descriptor (nbio.NBConn takes a TCP, Unix or UDP connection), so nbio's loop cannot run over a fake connection (servers/nbio/bench_test.go)",
	"fcgi":  "its in-memory benchmarks run the application's side of the FastCGI hop alone, without lighttpd, which is not a loop answering HTTP",
}

// noMemoryRow is the line under an in-memory table naming the servers it
// has no row for and why; "" where it lacks none.
func noMemoryRow(servers []string) string {
	var why, unrun []string
	for _, s := range servers {
		if w, ok := whyNoLoop[s]; ok {
			why = append(why, s+": "+w)
		} else {
			unrun = append(unrun, s)
		}
	}
	if len(unrun) > 0 {
		why = append(why, strings.Join(unrun, ", ")+": this run has no in-memory figure for them")
	}
	if len(why) == 0 {
		return ""
	}
	return "\nNo row for " + strings.Join(why, "; ") + ".\n"
}

// memory returns a stack's in-memory benchmark.
func memory(rep report.Report, stack, bench string) (report.Memory, bool) {
	for _, m := range rep.InMemory {
		if m.Stack == stack && m.Benchmark == bench {
			return m, true
		}
	}
	return report.Memory{}, false
}

// scale multiplies every round of f by k.
func scale(f report.Figure, k float64) report.Figure {
	v := make([]float64, len(f.Rounds))
	for i, x := range f.Rounds {
		v[i] = x * k
	}
	return bench.FigureOf(v)
}

func CostSections(rep report.Report) string {
	var b strings.Builder
	for _, c := range []struct {
		title  string
		render func(report.Report) string
	}{
		{"A keep-alive request, layer by layer", CostsKeepAlive},
		{"A new connection per request", CostsClose},
		{"The FastCGI hop (keep-alive)", CostsFcgi},
		{"What pipelining saves", CostsPipeline},
	} {
		fmt.Fprintf(&b, "### %s\n\n", c.title)
		if t := c.render(rep); t != "" {
			b.WriteString(t + "\n")
		} else {
			b.WriteString("Not measured in this run.\n\n")
		}
	}
	b.WriteString("bench/COSTS.md explains each layer.\n")
	return b.String()
}

func InMemoryTable(rep report.Report) string {
	if len(rep.InMemory) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("`testing.B` at `-cpu 1` over an in-memory connection (servers/*/bench_test.go): keep-alive requests on one connection, " +
		"and one request per connection (`Close`).\n\n")
	b.WriteString("| stack | benchmark | ns/op | B/op | allocs/op |\n|---|---|--:|--:|--:|\n")
	for _, m := range rep.InMemory {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", m.Stack, strings.TrimPrefix(m.Benchmark, "Benchmark"), spread(m.NsOp, 0), median(m.BytesOp, 0), median(m.AllocsOp, 0))
	}
	return b.String()
}

package render

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
)

// protoTitles head the protocols table's columns.
var protoTitles = []struct{ row, title string }{
	{"h1-tls", "HTTP/1.1 over TLS"},
	{"h2-1", "HTTP/2, 1 stream"},
	{"h2-16", "HTTP/2, 16 streams"},
	{"h3-1", "HTTP/3, 1 stream"},
	{"h3-16", "HTTP/3, 16 streams"},
}

// ProtocolsTable is make bench-tls PART=h3's table: at each fixed rate, the
// server's CPU per request over each protocol and, under it, its ratio to
// HTTP/2 with as many streams; then the A/A line.
func ProtocolsTable(rep report.Report) string {
	if len(rep.Protocols) == 0 {
		return ""
	}
	rates := protoRates(rep)
	var b strings.Builder
	b.WriteString("| rate, req/s |")
	for _, t := range protoTitles {
		b.WriteString(" " + t.title + " |")
	}
	b.WriteString("\n|--:|" + strings.Repeat("--:|", len(protoTitles)) + "\n")
	var aa []string
	for _, rate := range rates {
		fmt.Fprintf(&b, "| %s |", num(float64(report.ProtoRate(rate)), 0))
		for _, t := range protoTitles {
			b.WriteString(" " + protoCell(rep, t.row, rate) + " |")
		}
		b.WriteString("\n")
		if p, ok := findProto(rep, "h2-1"+bench.TwinSuffix, rate); ok && p.VsBase != nil && p.VsBase.N > 0 {
			aa = append(aa, fmt.Sprintf("%s req/s %s", num(float64(report.ProtoRate(rate)), 0), versus(p.VsBase)))
		}
	}
	b.WriteString("\nEach cell: the server's CPU µs per request, then its ratio to HTTP/2 with as many streams a connection (HTTP/1.1 and HTTP/3's single stream against HTTP/2's), taken block by block.")
	if len(aa) > 0 {
		b.WriteString(" A/A, HTTP/2 on 50 connections against itself: " + strings.Join(aa, ", ") + ".")
	}
	b.WriteString("\n\n" + protoMaxTable(rep) + handshakeTable(rep) + protoCallsTable(rep) + protoIdleTable(rep))
	return b.String() + protoSource(rep) + "\n"
}

// protoCallsTable is what the server asks of the kernel per request in
// each keep-alive row (BenchmarkProtoCalls, at one rate), beside the
// user and kernel parts of its CPU at that rate from the blocks; "" when
// not counted.
func protoCallsTable(rep report.Report) string {
	if len(rep.ProtoCalls) == 0 {
		return ""
	}
	rate := rep.ProtoCalls[0].Load
	var b strings.Builder
	fmt.Fprintf(&b, "| at %s req/s, per request | system calls | reads | writes | futex | epoll_wait | user µs | kernel µs |\n|---|--:|--:|--:|--:|--:|--:|--:|\n",
		num(float64(report.ProtoRate(rate)), 0))
	var missed []string
	for _, t := range protoTitles {
		w, ok := report.FindWhy(rep.ProtoCalls, t.row, rate)
		if !ok {
			continue
		}
		user, kernel := "–", "–"
		if p, ok := findProto(rep, t.row, rate); ok && p.Label == "" && p.User.N > 0 {
			// A split that misses the total is no split: over the
			// blocks, as the two counters add up, and in the medians
			// shown, which a few wild blocks can leave apart.
			u, k, c := total(p.User), total(p.Sys), total(p.CPU)
			med := p.User.Median + p.Sys.Median
			switch {
			case math.Abs(u+k-c) > splitBelowCeiling/100*c:
				missed = append(missed, fmt.Sprintf("%s (%.0f %% of its CPU)", t.title, 100*(u+k)/c))
				user, kernel = "missed", "missed"
			case math.Abs(med-p.CPU.Median) > splitBelowCeiling/100*p.CPU.Median:
				missed = append(missed, fmt.Sprintf("%s (medians %.0f %% of its CPU's)", t.title, 100*med/p.CPU.Median))
				user, kernel = "missed", "missed"
			default:
				user, kernel = spread(p.User, 1), spread(p.Sys, 1)
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", t.title, median(w.Syscalls, 1), median(w.Reads, 1),
			median(w.Writes, 1), median(w.Futex, 1), median(w.EpollWaits, 1), user, kernel)
	}
	b.WriteString("\nThe system calls are counted once, in a run of their own (perf, on the kernel's tracepoints, which slows the server); reads and writes are of every form (UDP's recvmsg and sendmsg among them). User and kernel µs split the CPU of the blocks above at the same rate (cgroup v1's usage_user and usage_sys)")
	if len(missed) > 0 {
		fmt.Fprintf(&b, "; \"missed\" where the two, summed over the blocks or as medians, are more than %.0f %% away from the total: %s. The kernel splits CPU time by sampling which mode a task is in at each clock tick, and a load whose work falls between ticks is sampled short; the total is counted exactly", splitBelowCeiling, strings.Join(missed, ", "))
	}
	b.WriteString(".\n\n")
	return b.String()
}

// protoMaxTable is each keep-alive protocol in a closed loop: the
// server's ceiling where one client core saturated it, else what the
// client reached and how busy the server was; "" without those rows.
func protoMaxTable(rep report.Report) string {
	var b strings.Builder
	var bound []string
	for _, t := range protoTitles {
		p, ok := findProto(rep, t.row, bench.ProtoMax)
		if !ok {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("| as fast as the client asks | req/s | server busy | CPU µs per request | ratio to HTTP/2 |\n|---|--:|--:|--:|--:|\n")
		}
		cpu, vs := spread(p.CPU, 1), "–"
		if p.Label != "" {
			cpu = "client-bound"
			bound = append(bound, t.title)
		} else if p.VsBase != nil && p.VsBase.N > 0 {
			vs = versus(p.VsBase)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", t.title, spread(p.ReqPerSec, 0), pct(p.Busy), cpu, vs)
	}
	if b.Len() == 0 {
		return ""
	}
	fmt.Fprintf(&b, "\nA closed loop on the same connections, each request sent when the last answer is read: a ceiling where the server's core was at least %.0f %% busy, its CPU per request over those blocks alone.", bench.Saturated)
	if len(bound) > 0 {
		fmt.Fprintf(&b, " **Client-bound** (%s): one client core could not keep the server's core busy, the client costing more per request than the server does, so there is no ceiling to show; the rates above price those protocols instead.", strings.Join(bound, "; "))
	}
	return b.String() + "\n\n"
}

// idleTitles name bench.IdleProtocols in the idle table.
var idleTitles = map[string]string{"h1-tls": "HTTP/1.1 over TLS", "h2": "HTTP/2", "h3": "HTTP/3"}

// protoIdleTable is the server's memory and CPU per idle connection in
// each protocol (BenchmarkProtoIdle); "" when not measured.
func protoIdleTable(rep report.Report) string {
	if len(rep.ProtoIdle) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| idle connections | connections | held | memory per connection | server CPU while idle, ms per s |\n|---|--:|--:|--:|--:|\n")
	for _, i := range rep.ProtoIdle {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cmp.Or(idleTitles[i.Server], i.Server), num(float64(i.Conns), 0), idleHeld(i), bytesRange(i.PerConn), spread(i.IdleCPU, 2))
	}
	fmt.Fprintf(&b, "\nEach connection makes its handshake, asks the page once and goes quiet; the server's resident memory grows by the figure per connection held, and its CPU while they are quiet is what its timers cost. "+
		"Each protocol on a server started for it (Go's heap keeps what it grew to), %s, the protocols in an order that changes from block to block. "+
		"HTTP/3's connections each have a UDP socket of their own, as separate clients would; none sends keep-alive pings.\n\n", plural(rep.ProtoIdle[0].PerConn.N, "block"))
	return b.String()
}

// splitBelowCeiling is how far, in percent, user + kernel time may be from
// the total below the ceiling, where fewer busy ticks sample the split.
const splitBelowCeiling = 10.0

// handshakeRows head the handshake table's rows, and name each row's base.
var handshakeRows = []struct{ row, title, base string }{
	{"h1-tls-full", "HTTP/1.1 over TLS, full handshake", ""},
	{"h1-tls-resumed", "HTTP/1.1 over TLS, resumed", "its full handshake"},
	{"h3-full", "HTTP/3, full handshake", "HTTP/1.1's full handshake"},
	{"h3-resumed", "HTTP/3, resumed", "HTTP/1.1's resumed one"},
	{"h3-0rtt", "HTTP/3, resumed, 0-RTT offered", "HTTP/3 resumed"},
}

// findHandshake returns a handshake row, at whatever rate it ran.
func findHandshake(rep report.Report, row string) (report.ProtoPoint, bool) {
	for _, p := range rep.Protocols {
		if p.Server == row {
			return p, true
		}
	}
	return report.ProtoPoint{}, false
}

// handshakeTable is make bench-tls PART=h3's handshake rows: the server's
// CPU per connection (a new one for each request) and its ratio to its
// base, then the A/A line; "" without them.
func handshakeTable(rep report.Report) string {
	var b strings.Builder
	var rate string
	for _, h := range handshakeRows {
		p, ok := findHandshake(rep, h.row)
		if !ok {
			continue
		}
		rate = p.Mode
		if b.Len() == 0 {
			b.WriteString("| a new connection for each request | CPU µs per connection | set against | ratio |\n|---|--:|---|--:|\n")
		}
		cpu, vs, base := "rate not held", "–", h.base
		if p.Label == "" {
			cpu = spread(p.CPU, 1)
			if p.VsBase != nil && p.VsBase.N > 0 {
				vs = versus(p.VsBase)
			}
		}
		if base == "" {
			base = "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", h.title, cpu, base, vs)
	}
	if b.Len() == 0 {
		return ""
	}
	fmt.Fprintf(&b, "\nAt %s new connections a second, open loop, each with one request and closed by the client; a connection's CPU is its handshake, its request and its close. The server issues session tickets in every row; a full handshake is the client not offering one. With 0-RTT offered, a resumed connection's request goes in 0-RTT when the client sends it before its handshake ends, as most do (loadgen's -json counts them, early_data).", num(float64(report.ProtoRate(rate)), 0))
	if p, ok := findProto(rep, "h3-full"+bench.TwinSuffix, rate); ok && p.VsBase != nil && p.VsBase.N > 0 {
		b.WriteString(" A/A, HTTP/3's full handshake against itself: " + versus(p.VsBase) + ".")
	}
	return b.String() + "\n\n"
}

// protoRates are the rates of rep's keep-alive rows, in their order
// (rising).
func protoRates(rep report.Report) []string {
	var rates []string
	for _, p := range rep.Protocols {
		if !report.HandshakeRow(p.Server) && p.Mode != bench.ProtoMax && !slices.Contains(rates, p.Mode) {
			rates = append(rates, p.Mode)
		}
	}
	return rates
}

func findProto(rep report.Report, row, rate string) (report.ProtoPoint, bool) {
	for _, p := range rep.Protocols {
		if p.Server == row && p.Mode == rate {
			return p, true
		}
	}
	return report.ProtoPoint{}, false
}

// protoCell is a row's CPU per request at a rate and its ratio to its
// base, or why there is none.
func protoCell(rep report.Report, row, rate string) string {
	p, ok := findProto(rep, row, rate)
	switch {
	case !ok:
		return "–"
	case p.Label != "":
		return "rate not held"
	case p.VsBase == nil:
		return spread(p.CPU, 1)
	}
	return spread(p.CPU, 1) + "; " + versus(p.VsBase)
}

// protoSource says which run the table comes from.
func protoSource(rep report.Report) string {
	s, ok := rep.Sections[report.ProtocolsSection]
	if !ok {
		return ""
	}
	udp := ""
	if s.Machine.UDP != "" {
		udp = " UDP: " + s.Machine.UDP + "."
	}
	return fmt.Sprintf("_`make bench-tls PART=h3`, %s, %s%s, nethttp over each protocol, loadgen as the client on its pacer (its own TLS for HTTP/1.1, Go's HTTP/2 and quic-go's http3 for HTTP/2 and HTTP/3); each cell is %s.%s_",
		s.Date, plural(s.Rounds, "block"), runHost(rep, s), interval(s.Rounds), udp)
}

// lineBlocks is the fewest blocks a figure in the README's line takes: an
// interval over fewer is the blocks' whole range, or none.
const lineBlocks = 6

// ProtocolsLine is the README's sentence on what HTTP/3 costs a Go server,
// from make bench-tls PART=h3's highest rate at which HTTP/3 and HTTP/1.1 held
// (the busiest, so the steadiest): HTTP/3 with one stream a connection
// against HTTP/2 and against HTTP/1.1 over TLS.
func ProtocolsLine(rep report.Report) string {
	rates := protoRates(rep)
	slices.Reverse(rates)
	for _, rate := range rates {
		h3, ok3 := findProto(rep, "h3-1", rate)
		h1, ok1 := findProto(rep, "h1-tls", rate)
		if !ok3 || !ok1 || h3.Label != "" || h1.Label != "" || h3.VsBase == nil || h3.VsBase.N == 0 || h1.VsBase == nil || h1.VsBase.N == 0 {
			continue
		}
		vsH1 := bench.Ratio(report.BlockCPU(h3.Point), report.BlockCPU(h1.Point))
		full := ""
		if p, ok := findHandshake(rep, "h3-full"); ok {
			if p.Label == "" && p.VsBase != nil && p.VsBase.N >= lineBlocks {
				full = fmt.Sprintf("; a new connection with a full handshake cost it %s times one over TCP and TLS", spread(*p.VsBase, 2))
			} else {
				held := 0
				for _, h := range p.Saturated {
					held += b2i(h)
				}
				full = fmt.Sprintf("; a full QUIC handshake's cost needs %d blocks with its rate held, and this run has %d (of %s)", lineBlocks, held, plural(len(p.Saturated), "block"))
			}
		}
		sec := rep.Sections[report.ProtocolsSection]
		return fmt.Sprintf("HTTP/3 costs %s HTTP/2's CPU per request at %s req/s%s, and %s HTTP/1.1 over TLS's: nethttp on quic-go, one request at a time on each of 50 connections%s%s ([bench/COSTS.md](bench/COSTS.md#12-http3-against-http2-and-http11-over-tls), `make bench-tls PART=h3`, %s%s).\n",
			timesFig(*h3.VsBase), num(float64(report.ProtoRate(rate)), 0), protoTarget(*h3.VsBase), timesFig(vsH1), full, idleClause(rep), sec.Date, runHost(rep, sec))
	}
	return ""
}

// timesFig is a ratio as a multiple, median first: "1.61× (1.44–1.69)".
func timesFig(f report.Figure) string {
	return fmt.Sprintf("%s× (%s–%s)", num(f.Median, 2), num(f.Lo, 2), num(f.Hi, 2))
}

// protoTarget says when a protocol's ratio to HTTP/2 is known less
// well than a reader's choice between protocols asks: ±10 %.
func protoTarget(f report.Figure) string {
	if hw := f.HalfWidth(); hw > 0.10 {
		return fmt.Sprintf(" (**unresolved**: ±%s %%, target ±10 %%)", num(100*hw, 1))
	}
	return ""
}

// idleClause is the README line's memory per idle connection over HTTP/3
// against HTTP/2, where both were measured.
func idleClause(rep report.Report) string {
	var h2, h3 report.Idle
	for _, i := range rep.ProtoIdle {
		switch i.Server {
		case "h2":
			h2 = i
		case "h3":
			h3 = i
		}
	}
	if h2.PerConn.N == 0 || h3.PerConn.N == 0 {
		return ""
	}
	return fmt.Sprintf("; an idle connection held %s of its memory over HTTP/3 against %s over HTTP/2", bytesRange(h3.PerConn), bytesRange(h2.PerConn))
}

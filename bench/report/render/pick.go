package render

import (
	"fmt"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
	"hellobench/internal/targets"
)

// gives is what the stack s gives a real application beyond the page,
// from the target table; "" for a target without the line.
func gives(s string) string {
	t, err := targets.Lookup(s)
	if err != nil {
		return ""
	}
	return t.Gives
}

// pickRow gathers one stack's figures for the pick sections.
type pickRow struct {
	name                            string
	vsNginx, vsFloor, conn, perConn string
	allocs                          string
	load                            string // CPU per request at a quarter of its ceiling
	held                            string // the rate held within the p99 bound
	// overTLS is the CPU per keep-alive request over TLS vs nginx over
	// TLS, and handshake the CPU a full handshake per request adds to
	// the stack's plaintext connection per request (make bench-tls).
	overTLS, handshake string
}

func pickRows(rep report.Report) []pickRow {
	var rows []pickRow
	for _, s := range report.Order() {
		if gives(s) == "" {
			continue
		}
		p, ok := report.Find(rep.Ceilings, s, "keepalive")
		if !ok {
			continue
		}
		r := pickRow{name: s, vsNginx: versus(p.CPUVsNginx), vsFloor: versus(p.CPUVsFloor), allocs: "–", conn: "–", perConn: "–", load: atLoad(rep, s), held: heldWithin(rep, s)}
		if m, ok := memory(rep, s, "BenchmarkServeKeepAlive"); ok {
			r.allocs = median(m.AllocsOp, 0)
		}
		if cl, ok := cpuOf(rep, s, "close"); ok {
			r.conn = delta(bench.Diff(cl, report.BlockCPU(p)))
		}
		if i, ok := idleAt(rep, s, 10000); ok {
			r.perConn = bytesText(i.PerConn.Median)
		}
		r.overTLS, r.handshake = tlsPick(rep, s)
		rows = append(rows, r)
	}
	return rows
}

func idleAt(rep report.Report, server string, conns int) (report.Idle, bool) {
	for _, i := range rep.Idle {
		if i.Server == server && i.Conns == conns && i.PerConn.N > 0 {
			return i, true
		}
	}
	return report.Idle{}, false
}

// pickTable is the figures side of the choice.
func pickTable(rep report.Report) string {
	rows := pickRows(rep)
	if len(rows) == 0 {
		return ""
	}
	// The TLS columns only with make bench-tls's rows in the results.
	tls := len(rep.TLS) > 0
	var b strings.Builder
	fmt.Fprintf(&b, "| stack | CPU per keep-alive request vs nginx | vs the floor | allocs/request | a new connection adds, CPU µs | memory per idle connection (10 000 held) | CPU µs per request at %s of its ceiling; vs nginx at %s of its | req/s one core holds with p99 within %s |", pickLoad, pickLoad, sloText(rep))
	if tls {
		b.WriteString(" over TLS vs nginx over TLS | a request with a full TLS handshake, CPU µs |")
	}
	b.WriteString("\n|---|--:|--:|--:|--:|--:|--:|--:|")
	if tls {
		b.WriteString("--:|--:|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |", r.name, r.vsNginx, r.vsFloor, r.allocs, r.conn, r.perConn, r.load, r.held)
		if tls {
			fmt.Fprintf(&b, " %s | %s |", r.overTLS, r.handshake)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// tlsPick is a stack's keep-alive CPU over TLS as a ratio to nginx's over
// TLS, and its CPU per request on a new connection with a full TLS 1.3
// handshake (ECDSA, bench.TLSFull), or "–" (no TLS, not measured, never
// saturated). The handshake's whole request, not what it adds to a
// plaintext connection: few stacks' plaintext connection per request
// saturates a core.
func tlsPick(rep report.Report, s string) (overTLS, handshake string) {
	overTLS, handshake = "–", "–"
	for _, r := range rep.TLS {
		switch {
		case r.Server != s:
		case r.Mode == string(bench.TLSKeepAlive) && r.Implied.N > 0:
			overTLS = versus(r.CPUVsNginx)
		case r.Mode == string(bench.TLSFull) && r.Implied.N > 0:
			handshake = spread(r.CPU, 0)
		}
	}
	return overTLS, handshake
}

// pickLoad is the load the pick table prices a request at: a quarter of
// each stack's own ceiling, where services commonly run, and where a
// request costs far more than at the ceiling.
const pickLoad = "25 %"

// pickLabel is the points of make bench-load at pickLoad.
const pickLabel = "of=25%"

// atLoad is a stack's CPU per request at pickLoad of its ceiling (make
// bench-load) with its ratio to nginx's at pickLoad of nginx's: block by
// block against the reference beside it where make bench-load ran its
// blocks at pickLoad (Report.AtLoad), else round by round, or why it has
// none.
func atLoad(rep report.Report, server string) string {
	if p, ok := report.Find(rep.AtLoad, server, pickLabel); ok {
		switch {
		case p.CPU.N == 0 || p.Label != "":
			return Note(p)
		case p.CPUVsNginx == nil || server == "nginx":
			return spread(p.CPU, 2)
		}
		return spread(p.CPU, 2) + "; " + versus(p.CPUVsNginx)
	}
	label := pickLabel
	l, ok := report.FindLat(rep.Load, server, label, report.CeilingConns)
	switch {
	case ok && l.CPU != nil:
		n, ok := report.FindLat(rep.Load, "nginx", label, report.CeilingConns)
		if !ok || n.CPU == nil || server == "nginx" {
			return spread(*l.CPU, 2)
		}
		r := bench.Ratio(*l.CPU, *n.CPU)
		return spread(*l.CPU, 2) + "; " + versus(&r)
	case ok:
		return "fell over"
	}
	return "not measured in this run"
}

// heldWithin is the rate a stack held within the p99 bound (make
// bench-load), or why it has none.
func heldWithin(rep report.Report, server string) string {
	c, ok := report.FindCapacity(rep.Capacity, server)
	if !ok {
		return "not measured in this run"
	}
	if c.Rate.Max == 0 {
		return "none from a fifth of its ceiling"
	}
	return spread(c.Rate, 0)
}

// sloText is the p99 bound of make bench-load's search, as the pick table
// heads its column.
func sloText(rep report.Report) string {
	if len(rep.Capacity) == 0 {
		return "a bound"
	}
	return num(rep.Capacity[0].SLO/1000, 0) + " ms"
}

// PickShort is the README's section: the table and one line per stack.
func PickShort(rep report.Report) string {
	t := pickTable(rep)
	if t == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(t + "\n")
	for _, s := range report.Order() {
		if g := gives(s); g != "" {
			fmt.Fprintf(&b, "- **%s**: %s.\n", s, g)
		}
	}
	b.WriteString("\nA ratio whose range straddles 1 is a tie. " + source(rep, "ceilings") + "\n")
	_, load := rep.Sections["load"]
	_, at := rep.Sections["atload"]
	if at {
		fmt.Fprintf(&b, "\nThe column at %s of the ceiling, against a reference nginx held at %s of its own right before and after each server: %s\n", pickLoad, pickLoad, source(rep, "atload"))
	}
	switch {
	case load && at:
		fmt.Fprintf(&b, "\nThe column within %s: %s\n", sloText(rep), source(rep, "load"))
	case load:
		fmt.Fprintf(&b, "\nThe columns at %s of the ceiling and within %s: %s\n", pickLoad, sloText(rep), source(rep, "load"))
	}
	_, tls := rep.Sections["tls"]
	_, ka := rep.Sections["tls-keepalive"]
	switch {
	case len(rep.TLS) == 0:
	case tls && ka:
		b.WriteString("\nThe TLS column against nginx, keep-alive over TLS 1.3, from make bench-tls's keep-alive blocks: " + source(rep, "tls-keepalive") + "\n")
		b.WriteString("\nThe handshake column, a new connection per request with a full TLS 1.3 handshake (ECDSA P-256, no resumption): " + source(rep, "tls") + "\n")
	case tls || ka:
		sec := "tls"
		if ka {
			sec = "tls-keepalive"
		}
		b.WriteString("\nThe TLS columns, keep-alive over TLS 1.3 and a new connection per request with a full TLS 1.3 handshake (ECDSA P-256, no resumption): " + source(rep, sec) + "\n")
	}
	return b.String()
}

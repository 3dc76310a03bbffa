package render

import (
	"fmt"
	"slices"
	"strconv"
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
	tail                            string // p99.9 at the common steady rate
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
		r := pickRow{name: s, vsNginx: versus(p.CPUVsNginx), vsFloor: versus(p.CPUVsFloor), allocs: "–", conn: "–", perConn: "–", tail: tailAt(rep, s)}
		if m, ok := memory(rep, s, "BenchmarkServeKeepAlive"); ok {
			r.allocs = median(m.AllocsOp, 0)
		}
		if cl, ok := cpuOf(rep, s, "close"); ok {
			r.conn = delta(bench.Diff(cl, report.BlockCPU(p)))
		}
		if i, ok := idleAt(rep, s, 10000); ok {
			r.perConn = bytesText(i.PerConn.Median)
		}
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
	var b strings.Builder
	fmt.Fprintf(&b, "| stack | CPU per keep-alive request vs nginx | vs the floor | allocs/request | a new connection adds, CPU µs | memory per idle connection (10 000 held) | p99.9 at a steady %s req/s, µs |\n|---|--:|--:|--:|--:|--:|--:|\n", num(report.LatRate, 0))
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.name, r.vsNginx, r.vsFloor, r.allocs, r.conn, r.perConn, r.tail)
	}
	return b.String()
}

// tailAt is a stack's p99.9 at the common steady rate (make bench-latency),
// or why it has none.
func tailAt(rep report.Report, server string) string {
	l, ok := report.FindLat(rep.Latency, server, "r="+strconv.Itoa(report.LatRate), report.CeilingConns)
	switch {
	case ok && l.P999.N > 0:
		return spread(l.P999, 0)
	case ok:
		return "no round kept"
	case len(rep.Latency) > 0 && slices.Contains(report.LatServers(rep.Latency), server):
		return "above 90 % of its ceiling"
	}
	return "–"
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
	if _, ok := rep.Sections["latency"]; ok {
		b.WriteString("\nThe p99.9 column: " + source(rep, "latency") + "\n")
	}
	return b.String()
}

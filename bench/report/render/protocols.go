package render

import (
	"fmt"
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

// ProtocolsTable is make bench-h3's table: at each fixed rate, the
// server's CPU per request over each protocol and, under it, its ratio to
// HTTP/2 with as many streams; then the A/A line.
func ProtocolsTable(rep report.Report) string {
	if len(rep.Protocols) == 0 {
		return ""
	}
	var rates []string
	for _, p := range rep.Protocols {
		if !contains(rates, p.Mode) {
			rates = append(rates, p.Mode)
		}
	}
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
	return b.String() + "\n\n" + protoSource(rep) + "\n"
}

func contains(v []string, s string) bool {
	for _, x := range v {
		if x == s {
			return true
		}
	}
	return false
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
	return fmt.Sprintf("_`make bench-h3`, %s, %s on %s, nethttp over each protocol with h2load (nghttp2 with ngtcp2) as the client; each cell is %s._",
		s.Date, plural(s.Rounds, "block"), rep.Machine.CPU, interval(s.Rounds))
}

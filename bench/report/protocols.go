package report

import (
	"slices"
	"strings"

	"hellobench/bench"
)

// protocolsPrefix starts the benchmark keys of make bench-tls PART=h3's blocks
// (BenchmarkProtocols): "row/rate=N", the row a protocol ("h3-16") or
// HTTP/2's A/A twin ("h2-1/aa").
const protocolsPrefix = "hellobench/bench/BenchmarkProtocols/"

// A ProtoPoint is one protocol's row at one fixed rate: the server's CPU
// per request over the blocks in which it held the rate (Point.Server is
// the row, Point.Mode the rate, "rate=5000"), and its ratio, block by
// block, to its HTTP/2 row (Base) at the same rate.
type ProtoPoint struct {
	Point
	Base   string  `json:"base,omitempty"`
	VsBase *Figure `json:"cpu_vs_base,omitempty"`
}

// ProtoBase is the row a protocol's row is set against; "" for the base
// rows themselves. A keep-alive row's is HTTP/2 with as many streams a
// connection (HTTP/1.1, one request at a time, against HTTP/2's single
// stream). A handshake row's is its kind over HTTP/1.1 and TLS (HTTP/3's
// full and resumed handshakes), the full handshake (a resumed one over
// HTTP/1.1), or HTTP/3's resumed handshake (0-RTT); an A/A twin's, its row.
func ProtoBase(row string) string {
	if r, ok := strings.CutSuffix(row, bench.TwinSuffix); ok {
		return r
	}
	switch row {
	case "h2-1", "h2-16", "h1-tls-full":
		return ""
	case "h3-16":
		return "h2-16"
	case "h1-tls-resumed", "h3-full":
		return "h1-tls-full"
	case "h3-resumed":
		return "h1-tls-resumed"
	case "h3-0rtt":
		return "h3-resumed"
	}
	return "h2-1" // h1-tls, h3-1
}

// HandshakeRow says whether row is one of bench.Handshakes' (or its twin):
// a new connection per request.
func HandshakeRow(row string) bool {
	p, ok := bench.ProtocolByName(row)
	return ok && p.New
}

// NeverSaturatedMax labels a closed-loop row (bench.ProtoMax) in which
// one client core never saturated the server's: no ceiling.
const NeverSaturatedMax = "client-bound in every block: one client core never saturated the server's core, so no ceiling"

// buildProtocols builds make bench-tls PART=h3's rows as the blocks at a fixed
// rate are built (buildHeld), then each row's ratio to its base.
func buildProtocols(all map[string]Samples, sections map[string]Section) []ProtoPoint {
	held := buildHeld(all, protocolsPrefix, Coarse(sections[ProtocolsSection]), true)
	var ps []ProtoPoint
	for _, p := range held {
		if p.Mode == bench.ProtoMax && p.Label != "" {
			p.Label = NeverSaturatedMax
		}
		pp := ProtoPoint{Point: p, Base: ProtoBase(p.Server)}
		if pp.Base != "" {
			if b, ok := Find(held, pp.Base, p.Mode); ok {
				r := blockRatio(p, b)
				pp.VsBase = &r
			}
		}
		ps = append(ps, pp)
	}
	slices.SortFunc(ps, func(a, b ProtoPoint) int {
		if a.Mode != b.Mode {
			return ProtoRate(a.Mode) - ProtoRate(b.Mode)
		}
		return protoRank(a.Server) - protoRank(b.Server)
	})
	return ps
}

// protoRows are the rows in the report's order.
var protoRows = []string{"h1-tls", "h2-1", "h2-1" + bench.TwinSuffix, "h2-16", "h3-1", "h3-16",
	"h1-tls-full", "h1-tls-resumed", "h3-full", "h3-full" + bench.TwinSuffix, "h3-resumed", "h3-0rtt"}

func protoRank(row string) int {
	if i := slices.Index(protoRows, row); i >= 0 {
		return i
	}
	return len(protoRows)
}

// ProtoRate is a row's rate from its mode, "rate=5000"; 0 if none.
func ProtoRate(mode string) int {
	n := 0
	for _, c := range strings.TrimPrefix(mode, "rate=") {
		if c < '0' || c > '9' {
			return 0
		}
		n = 10*n + int(c-'0')
	}
	return n
}

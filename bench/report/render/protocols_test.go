package render

import (
	"strings"
	"testing"

	"hellobench/bench"
	"hellobench/bench/report"
)

// TestProtocolsTable checks make bench-tls PART=h3's table: a row a rate, a column
// a protocol with its ratio to HTTP/2, a rate not held said so, the A/A
// line, and the README's sentence from the lowest rate every row held.
func TestProtocolsTable(t *testing.T) {
	f := func(v ...float64) report.Figure { return bench.FigureOf(v) }
	pt := func(row, rate string, cpu []float64, vs *report.Figure, label string) report.ProtoPoint {
		sat := make([]bool, len(cpu))
		for i := range sat {
			sat[i] = true
		}
		return report.ProtoPoint{Point: report.Point{Server: row, Mode: rate, CPU: bench.FigureOf(cpu), Blocks: cpu, Saturated: sat, Label: label},
			Base: report.ProtoBase(row), VsBase: vs}
	}
	r := func(v ...float64) *report.Figure { x := f(v...); return &x }
	rep := report.Report{Sections: map[string]report.Section{report.ProtocolsSection: {Date: "d", Rounds: 3}}, Protocols: []report.ProtoPoint{
		pt("h1-tls", "rate=5000", []float64{50, 52, 54}, r(1.3, 1.3, 1.4), ""),
		pt("h2-1", "rate=5000", []float64{40, 40, 40}, nil, ""),
		pt("h2-1/aa", "rate=5000", []float64{40, 41, 40}, r(1, 1.02, 1), ""),
		pt("h3-1", "rate=5000", []float64{70, 72, 74}, r(1.75, 1.8, 1.85), ""),
		pt("h3-1", "rate=10000", []float64{90}, nil, report.NeverHeld),
	}}
	got := ProtocolsTable(rep)
	for _, want := range []string{
		"| rate, req/s | HTTP/1.1 over TLS | HTTP/2, 1 stream | HTTP/2, 16 streams | HTTP/3, 1 stream | HTTP/3, 16 streams |",
		"| 5000 | 52.0 (50.0–54.0); 1.30 (1.30–1.40) [range of 3] | 40.0 (40.0–40.0) | – | 72.0 (70.0–74.0); 1.80 (1.75–1.85) [range of 3] | – |",
		"| 10\u2009000 | – | – | – | rate not held | – |",
		"A/A, HTTP/2 on 50 connections against itself: 5000 req/s 1.00 (1.00–1.02) [range of 3], tie.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the table lacks %q:\n%s", want, got)
		}
	}
	line := ProtocolsLine(rep)
	if !strings.HasPrefix(line, "HTTP/3 (quic-go) cost nethttp 1.80 (1.75–1.85) times its CPU per request over HTTP/2 and 1.38 (1.37–1.40) times its HTTP/1.1-over-TLS figure, at 5000 req/s, one request at a time on each of 50 connections") {
		t.Errorf("README line: %q", line)
	}
	if ProtocolsTable(report.Report{}) != "" || ProtocolsLine(report.Report{}) != "" {
		t.Error("no run renders something")
	}
}

package render

import (
	"slices"
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
	if !strings.HasPrefix(line, "HTTP/3 costs 1.80× (1.75–1.85) HTTP/2's CPU per request at 5000 req/s, and 1.38× (1.37–1.40) HTTP/1.1 over TLS's: nethttp on quic-go, one request at a time on each of 50 connections") {
		t.Errorf("README line: %q", line)
	}
	if ProtocolsTable(report.Report{}) != "" || ProtocolsLine(report.Report{}) != "" {
		t.Error("no run renders something")
	}
	if strings.Contains(got, "a new connection") {
		t.Errorf("a handshake table without handshake rows:\n%s", got)
	}

	// The handshake rows: their own table, in handshakeRows' order, each
	// against its base; none in the rates' table.
	rep.Protocols = append(rep.Protocols,
		pt("h3-0rtt", "rate=1000", []float64{300, 310, 320}, r(0.95, 1, 1.05), ""),
		pt("h1-tls-full", "rate=1000", []float64{200, 210, 220}, nil, ""),
		pt("h3-full", "rate=1000", []float64{400, 420, 440}, r(2, 2, 2), ""),
		pt("h3-full/aa", "rate=1000", []float64{400, 420, 440}, r(0.99, 1, 1.01), ""),
		pt("h1-tls-resumed", "rate=1000", []float64{150}, nil, report.NeverHeld),
	)
	got = ProtocolsTable(rep)
	want := "| a new connection for each request | CPU µs per connection | set against | ratio |\n|---|--:|---|--:|\n" +
		"| HTTP/1.1 over TLS, full handshake | 210.0 (200.0–220.0) | – | – |\n" +
		"| HTTP/1.1 over TLS, resumed | rate not held | its full handshake | – |\n" +
		"| HTTP/3, full handshake | 420.0 (400.0–440.0) | HTTP/1.1's full handshake | 2.00 (2.00–2.00) [range of 3] |\n" +
		"| HTTP/3, resumed, 0-RTT offered | 310.0 (300.0–320.0) | HTTP/3 resumed | 1.00 (0.95–1.05) [range of 3], tie |\n"
	if !strings.Contains(got, want) || !strings.Contains(got, "At 1000 new connections a second") ||
		!strings.Contains(got, "A/A, HTTP/3's full handshake against itself: 1.00 (0.99–1.01) [range of 3], tie.") {
		t.Errorf("the handshake table is not\n%s\nin:\n%s", want, got)
	}
	// Three blocks are too few for the README's line; six are enough.
	if line := ProtocolsLine(rep); !strings.Contains(line, "on each of 50 connections; a full QUIC handshake's cost needs 6 blocks with its rate held, and this run has 3 (of 3 blocks) (") {
		t.Errorf("README line with handshakes in 3 blocks: %q", line)
	}
	six := rep
	six.Protocols = slices.Clone(rep.Protocols)
	for i, p := range six.Protocols {
		if p.Server == "h3-full" {
			six.Protocols[i] = pt("h3-full", "rate=1000", []float64{400, 420, 440, 400, 420, 440}, r(2, 2, 2, 2, 2, 2), "")
		}
	}
	if line := ProtocolsLine(six); !strings.Contains(line, "on each of 50 connections; a new connection with a full handshake cost it 2.00 (2.00–2.00) times one over TCP and TLS (") {
		t.Errorf("README line with handshakes in 6 blocks: %q", line)
	}
	if strings.Contains(got, "| 1000 |") {
		t.Errorf("a handshake rate among the keep-alive rates:\n%s", got)
	}
	if strings.Contains(got, "system calls") {
		t.Errorf("a calls table without counts:\n%s", got)
	}

	// The system calls, in the rows' order, with the user and kernel
	// split of the blocks at the same rate where there is one.
	rep.Protocols[3].User, rep.Protocols[3].Sys = f(50, 52, 54), f(20, 20, 21)
	rep.ProtoCalls = []report.Why{
		{Server: "h3-1", Load: "rate=5000", Syscalls: f(9.5), Reads: f(3), Writes: f(2.5), Futex: f(3.25), EpollWaits: f(0.5)},
		{Server: "h1-tls", Load: "rate=5000", Syscalls: f(2.5), Reads: f(1), Writes: f(1), Futex: f(0.25), EpollWaits: f(0.25)},
	}
	got = ProtocolsTable(rep)
	want = "| at 5000 req/s, per request | system calls | reads | writes | futex | epoll_wait | user µs | kernel µs |\n|---|--:|--:|--:|--:|--:|--:|--:|\n" +
		"| HTTP/1.1 over TLS | 2.5 | 1.0 | 1.0 | 0.2 | 0.2 | – | – |\n" +
		"| HTTP/3, 1 stream | 9.5 | 3.0 | 2.5 | 3.2 | 0.5 | 52.0 (50.0–54.0) | 20.0 (20.0–21.0) |\n"
	if !strings.Contains(got, want) {
		t.Errorf("the calls table is not\n%s\nin:\n%s", want, got)
	}

	if strings.Contains(got, "idle connections") {
		t.Errorf("an idle table without idle rows:\n%s", got)
	}

	// The idle connections, a protocol that lost some saying how many
	// it held at worst.
	rep.ProtoIdle = []report.Idle{
		{Server: "h1-tls", Conns: 2000, Held: f(2000, 1990, 2000), PerConn: f(10240, 10240, 11264), IdleCPU: f(0, 0, 0)},
		{Server: "h3", Conns: 2000, Held: f(2000, 2000, 2000), PerConn: f(20480, 21504, 22528), IdleCPU: f(1, 1.5, 2)},
	}
	got = ProtocolsTable(rep)
	want = "| idle connections | connections | held | memory per connection | server CPU while idle, ms per s |\n|---|--:|--:|--:|--:|\n" +
		"| HTTP/1.1 over TLS | 2000 | 2000 (fell to 1990) | 10.0 KiB (10.0 KiB–11.0 KiB) | 0.00 (0.00–0.00) |\n" +
		"| HTTP/3 | 2000 | 2000 | 21.0 KiB (20.0 KiB–22.0 KiB) | 1.50 (1.00–2.00) |\n"
	if !strings.Contains(got, want) || !strings.Contains(got, "on a server started for it (Go's heap keeps what it grew to), 3 blocks") {
		t.Errorf("the idle table is not\n%s\nin:\n%s", want, got)
	}
	if line := ProtocolsLine(rep); strings.Contains(line, "an idle connection") {
		t.Errorf("README line without HTTP/2's idle row: %q", line)
	}
	rep.ProtoIdle = append(rep.ProtoIdle, report.Idle{Server: "h2", Conns: 2000, Held: f(2000), PerConn: f(12288, 13312, 14336)})
	if line := ProtocolsLine(rep); !strings.Contains(line, "; an idle connection held 21.0 KiB (20.0 KiB–22.0 KiB) of its memory over HTTP/3 against 13.0 KiB (12.0 KiB–14.0 KiB) over HTTP/2 (") {
		t.Errorf("README line with the idle rows: %q", line)
	}

	if strings.Contains(got, "as fast as the client asks") {
		t.Errorf("a closed-loop table without closed-loop rows:\n%s", got)
	}

	// The closed loop: a ceiling where the server's core was saturated,
	// "client-bound" where one client core could not saturate it; no
	// column of its own in the rates' table.
	h1 := pt("h1-tls", "max", []float64{11, 11.5, 12}, r(0.9, 0.95, 1), "")
	h1.ReqPerSec, h1.Busy = f(85000, 86000, 87000), f(97, 98, 99)
	h3 := pt("h3-16", "max", []float64{40, 41, 42}, nil, report.NeverHeld)
	h3.ReqPerSec, h3.Busy = f(20000, 21000, 22000), f(60, 61, 62)
	rep.Protocols = append(rep.Protocols, h1, h3)
	got = ProtocolsTable(rep)
	want = "| as fast as the client asks | req/s | server busy | CPU µs per request | ratio to HTTP/2 |\n|---|--:|--:|--:|--:|\n" +
		"| HTTP/1.1 over TLS | 86\u2009000 (85\u2009000–87\u2009000) | 98 % | 11.5 (11.0–12.0) | 0.95 (0.90–1.00) [range of 3], tie |\n" +
		"| HTTP/3, 16 streams | 21\u2009000 (20\u2009000–22\u2009000) | 61 % | client-bound | – |\n"
	if !strings.Contains(got, want) || !strings.Contains(got, "**Client-bound** (HTTP/3, 16 streams)") || strings.Contains(got, "| max |") {
		t.Errorf("the closed-loop table is not\n%s\nin:\n%s", want, got)
	}
}

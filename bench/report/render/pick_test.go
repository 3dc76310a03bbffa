package render

import (
	"slices"
	"strings"
	"testing"

	"hellobench/bench"
	"hellobench/bench/report"
)

// pickRun is a make bench run with every figure the pick table reads,
// for nethttp, gnet, nginx and nginx's A/A twin, on the machine m.
func pickRun(t *testing.T, m report.Machine) report.Report {
	t.Helper()
	fig := func(v ...float64) report.Figure { return bench.FigureOf(v) }
	ptr := func(f report.Figure) *report.Figure { return &f }
	ka := func(server string, cpu float64, vs *report.Figure) report.Point {
		return report.Point{Server: server, Mode: "keepalive", CPU: fig(cpu, cpu, cpu), Implied: fig(1e6/cpu, 1e6/cpu, 1e6/cpu), CPUVsNginx: vs}
	}
	at := func(server string, cpu float64) report.Lat {
		l, ok := report.LatPoint(server+"/r=10000/c=50", report.Samples{"N": {1, 1}, "rate": {10000, 10000}, "req/s": {10000, 10000},
			"client-limited": {0, 0}, "p99-us": {300, 300}, "cpu-us/req": {cpu, cpu}, "cpu-%": {cpu, cpu}}, "")
		if !ok {
			t.Fatalf("LatPoint(%s) refused", server)
		}
		return l
	}
	tls := func(server, mode string, cpu float64) report.TLSRow {
		return report.TLSRow{Point: report.Point{Server: server, Mode: mode, CPU: fig(cpu, cpu), Implied: fig(1e6/cpu, 1e6/cpu)}, Key: "ecdsa"}
	}
	return report.Report{
		Sections: map[string]report.Section{report.PickSection: {Date: "2026-12-08 01:00 UTC", Rounds: 26, Rate: 10000, Idle: 10000, Took: 1800, Machine: m}},
		Ceilings: []report.Point{
			ka("nethttp", 11.05, ptr(fig(1.90, 1.90, 1.91, 1.91, 1.91, 1.92, 1.92))), ka("gnet", 5.3, ptr(fig(0.92, 0.92, 0.92, 0.92, 0.93, 0.93, 0.93))),
			ka("nginx", 5.75, nil), ka("nginx/aa", 5.75, ptr(fig(0.99, 0.995, 1.0, 1.0, 1.0, 1.005, 1.01)))},
		Load:     []report.Lat{at("nethttp", 26.1), at("gnet", 20.8), at("nginx", 14.2)},
		Capacity: []report.Capacity{{Server: "nethttp", SLO: 5000, Rate: fig(40000, 40000)}, {Server: "gnet", SLO: 5000, Rate: fig(0, 0)}, {Server: "nginx", SLO: 5000, Rate: fig(139213, 139213)}},
		Idle:     []report.Idle{{Server: "nethttp", Conns: 10000, PerConn: fig(20464)}, {Server: "gnet", Conns: 10000, PerConn: fig(890)}, {Server: "nginx", Conns: 10000, PerConn: fig(526)}},
		TLS:      []report.TLSRow{tls("nethttp", "tls-keepalive", 13.26), tls("nethttp", "tls-full", 145.86), tls("nginx", "tls-keepalive", 8.1), tls("nginx", "tls-full", 169)},
	}
}

// pickMachine is the test's host, filed as host A.
var pickMachine = report.Machine{CPU: "AMD EPYC", Kernel: "Linux 6.18", Vendor: "AuthenticAMD", Family: "26", Model: "2", Stepping: "1", Microcode: "0x1"}

// pickReport is a results directory's report holding the run, with its
// host recorded and the robustness page read.
func pickReport(t *testing.T) report.Report {
	run := pickRun(t, pickMachine)
	return report.Report{
		Pick:  &run,
		Hosts: []report.Host{{Key: report.HostKey(pickMachine)}},
		Robustness: &report.Robustness{Date: "2026-12-07 00:51 UTC", Host: report.HostKey(pickMachine), Full: true, Servers: []report.Hostile{
			{Server: "nethttp", Held: 10}, {Server: "gnet", Held: 9, Failed: []string{"many pipeliners, never read"}}, {Server: "nginx", Held: 1}}},
	}
}

// TestPickTable checks the README's pick section: the one run it shows,
// seven columns, each cell from that run's figures, the references
// below the adoptable stacks with a status line each.
func TestPickTable(t *testing.T) {
	got := PickShort(pickReport(t))
	for _, want := range []string{
		"One run of `make bench` on [host A](docs/glossary.md#host) (AMD EPYC, family 26 model 2), 2026-12-08 01:00 UTC, 30 minutes;",
		"| cores at 10\u2009000 req/s | req/s held with p99 ≤ 5 ms",
		"| **nethttp** · h2 · TLS | 1.91× (1.90–1.92) | 0.26 | 40\u2009000 | 20.0 KiB | +20 % · 11.0 requests | [holds](results/ROBUSTNESS.md#nethttp) |\n",
		"| **gnet** · no h2 · no TLS | 0.92× (0.92–0.93) | 0.21 | none | 0.9 KiB | no TLS | [many pipeliners, never read (failed)](results/ROBUSTNESS.md#gnet) |\n",
		"| *[references](docs/glossary.md#reference)* | | | | | | |\n| **nginx** · h2 · TLS | 1× | 0.14 | 139\u2009000 | 0.5 KiB | +41 % · 20.9 requests | [holds](results/ROBUSTNESS.md#nginx) |\n",
		"nginx against itself (the [A/A row](docs/glossary.md#aa-row)) is within ±1.0 % in this run",
		"Hostile clients: `make robust` (full sizes) on host A, 2026-12-07 00:51 UTC",
		"- **uring**: this project's own server on io_uring, **not for production**",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the pick section lacks %q:\n%s", want, got)
		}
	}
	header := strings.Split(got, "\n")[2]
	if n := strings.Count(header, " | ") + 1; n != 7 {
		t.Errorf("%d columns, want 7: %s", n, header)
	}
}

// TestPickOneRun checks that the table draws on make bench's run alone:
// figures of other runs in the same results change no cell.
func TestPickOneRun(t *testing.T) {
	rep := pickReport(t)
	want := PickShort(rep)
	other := pickRun(t, report.Machine{CPU: "Other CPU"})
	for i := range other.Ceilings {
		other.Ceilings[i].CPU = bench.FigureOf([]float64{99, 99})
	}
	rep.Sections, rep.Ceilings, rep.Load, rep.Capacity, rep.Idle, rep.TLS = other.Sections, other.Ceilings, other.Load, other.Capacity, other.Idle, other.TLS
	if got := PickShort(rep); got != want {
		t.Errorf("another run's figures changed the pick table:\n%s\nwant:\n%s", got, want)
	}
}

// TestPickUnresolved checks a ratio wider than its target, and one on
// too few kept blocks for an interval: each cell says so, and the
// command's closing lines say how many blocks would resolve it and how
// long they would take.
func TestPickUnresolved(t *testing.T) {
	rep := pickReport(t)
	wide := bench.FigureOf([]float64{1.80, 1.85, 1.88, 1.90, 1.91, 1.93, 1.96, 2.02})
	few := bench.FigureOf([]float64{0.90, 0.92, 0.95})
	rep.Pick.Ceilings[0].CPUVsNginx, rep.Pick.Ceilings[1].CPUVsNginx = &wide, &few
	s := rep.Pick.Sections[report.PickSection]
	s.Commands = []string{"go test -run '^$' -bench Ceiling -benchtime 1x ./bench -args -block 0", "go test -run '^$' -bench '^BenchmarkLoad$' ./bench"}
	s.Durations = []float64{26 * 12, 100}
	rep.Pick.Sections[report.PickSection] = s
	got := PickShort(rep)
	for _, want := range []string{
		"| 1.90× (1.80–2.02), **unresolved**: ±6.0 % on 8 blocks, target ±2.5 % |",
		"| 0.92× (0.90–0.95), **unresolved**: 3 blocks kept, too few for an interval (the range shown) |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	lines := PickShortfalls(*rep.Pick)
	want := []string{
		"nethttp: ratio to nginx ±6.0 % on 8 of 26 blocks kept, target ±2.5 %: about 152 blocks (-pick-blocks 152), about 26 minutes more",
		"gnet: ratio to nginx no interval on 3 of 26 blocks kept, target ±2.5 %: about 52 blocks (-pick-blocks 52), about 6 minutes more",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("shortfalls:\n%q\nwant\n%q", lines, want)
	}
}

// TestPickUnmeasured checks the cells of figures not measured, and the
// section when make bench never ran.
func TestPickUnmeasured(t *testing.T) {
	rep := pickReport(t)
	rep.Pick.Load, rep.Pick.Idle, rep.Pick.TLS, rep.Robustness = nil, nil, nil, nil
	got := PickShort(rep)
	if !strings.Contains(got, "| **nethttp** · h2 · TLS | 1.91× (1.90–1.92) | – | 40\u2009000 | – | – | – |\n") {
		t.Errorf("the row without load, idle, TLS and robustness figures:\n%s", got)
	}
	rep.Pick = nil
	if got := PickShort(rep); got != "No `make bench` run is recorded yet: run it to make this table.\n" {
		t.Errorf("without a run: %q", got)
	}
}

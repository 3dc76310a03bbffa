package render

import (
	"strings"
	"testing"

	"hellobench/bench"
	"hellobench/bench/report"
)

// pickReport is a report with every figure the pick table reads, for
// nethttp, gnet and nginx.
func pickReport(t *testing.T) report.Report {
	t.Helper()
	fig := func(v ...float64) report.Figure { return bench.FigureOf(v) }
	ptr := func(f report.Figure) *report.Figure { return &f }
	ka := func(server string, cpu float64, vs *report.Figure) report.Point {
		return report.Point{Server: server, Mode: "keepalive", CPU: fig(cpu, cpu, cpu), CPUVsNginx: vs}
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
		return report.TLSRow{Point: report.Point{Server: server, Mode: mode, CPU: fig(cpu, cpu), Implied: fig(1e6/cpu, 1e6/cpu)}}
	}
	return report.Report{
		Machine:  report.Machine{CPU: "Test CPU"},
		Sections: map[string]report.Section{"ceilings": {Date: "2026-12-05 00:59 UTC", Rounds: 26}, "load": {Date: "2026-12-05 02:01 UTC", Rounds: 6}},
		Ceilings: []report.Point{ka("nethttp", 11.05, ptr(fig(1.90, 1.91, 1.95))), ka("gnet", 5.3, ptr(fig(0.92, 0.92, 0.93))), ka("nginx", 5.75, nil)},
		Load:     []report.Lat{at("nethttp", 26.1), at("gnet", 20.8), at("nginx", 14.2)},
		Capacity: []report.Capacity{{Server: "nethttp", SLO: 5000, Rate: fig(76892, 76892)}, {Server: "gnet", SLO: 5000, Rate: fig(0, 0)}, {Server: "nginx", SLO: 5000, Rate: fig(139213, 139213)}},
		Idle:     []report.Idle{{Server: "nethttp", Conns: 10000, PerConn: fig(20464)}, {Server: "gnet", Conns: 10000, PerConn: fig(890)}, {Server: "nginx", Conns: 10000, PerConn: fig(526)}},
		TLS:      []report.TLSRow{tls("nethttp", "tls-keepalive", 11.2), tls("nethttp", "tls-full", 145), tls("nginx", "tls-keepalive", 8.1), tls("nginx", "tls-full", 169)},
		Repeat:   &report.Repeat{Dates: []string{"2026-12-05 00:59 UTC", "2026-12-04 15:07 UTC"}, AA: 0.008, Moved: 0.021, Server: "fiber"},
	}
}

// TestPickTable checks the README's pick section: seven columns, each
// row's cells from the figures, the references below the adoptable
// stacks, "no TLS" for a stack without it, and the line on what
// difference is worth acting on computed from the invocations.
func TestPickTable(t *testing.T) {
	got := PickShort(pickReport(t))
	lines := strings.Split(got, "\n")
	if n := strings.Count(lines[0], "|") - 1; n != 7 {
		t.Errorf("%d columns, want 7: %s", n, lines[0])
	}
	for _, want := range []string{
		"| stack | handlers · HTTP/2 · TLS | CPU/request · vs nginx | cores for 10\u2009000 req/s | req/s one core holds, p99 ≤ 5 ms | memory, 10\u2009000 idle connections | HTTPS: CPU/request · full handshake |\n",
		"| nethttp | net/http · h2 · TLS | 11.1 µs · 1.91× | 0.26 | 76\u2009900 | 200 MB | 11.2 µs · 145 µs |\n",
		"| gnet | own HTTP · no h2 · no TLS | 5.3 µs · 0.92× | 0.21 | none | 8.5 MB | no TLS |\n| *references* | | | | | | |\n",
		"| nginx | C · h2 · TLS | 5.8 µs · 1× | 0.14 | 139\u2009000 | 5.0 MB | 8.1 µs · 169 µs |\n",
		"A difference under 3 % between two stacks is not worth acting on: the A/A twin's interval is ±0.8 %, and a ratio to nginx moved by up to ±2.1 % (fiber) over 2 invocations of make bench, 2026-12-04 15:07 UTC to 2026-12-05 00:59 UTC.",
		"_Runs: ceilings 2026-12-05 00:59 UTC (26 blocks); load 2026-12-05 02:01 UTC (6 rounds); p99 search 2026-12-05 02:01 UTC (2 rounds); the hosts by letter and the stacks' versions: [results/REPORT.md](results/REPORT.md)._",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the pick section lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "–") {
		t.Errorf("a dash in a table with every figure measured:\n%s", got)
	}
	var notes int
	for _, l := range lines {
		if l != "" && !strings.HasPrefix(l, "|") {
			notes++
		}
	}
	if notes > 3 {
		t.Errorf("%d lines under the table, want 3 at most:\n%s", notes, got)
	}
}

// TestPickUnmeasured checks the cells of figures not measured: a dash,
// and no line on differences without other invocations.
func TestPickUnmeasured(t *testing.T) {
	rep := pickReport(t)
	rep.Load, rep.Idle, rep.TLS, rep.Repeat = nil, nil, nil, nil
	got := PickShort(rep)
	if !strings.Contains(got, "| nethttp | net/http · h2 · TLS | 11.1 µs · 1.91× | – | 76\u2009900 | – | – |\n") || !strings.Contains(got, "| gnet | own HTTP · no h2 · no TLS | 5.3 µs · 0.92× | – | none | – | no TLS |\n") {
		t.Errorf("the rows without load, idle and TLS figures:\n%s", got)
	}
	if strings.Contains(got, "worth acting on") {
		t.Errorf("a threshold without other invocations:\n%s", got)
	}
}

// TestPickMixedHosts checks the warning, in the runs line, that the
// table's columns come from runs on two hosts, naming which from which.
func TestPickMixedHosts(t *testing.T) {
	rep := pickReport(t)
	b := report.Machine{CPU: "AMD EPYC", Kernel: "Linux 6.18", Vendor: "AuthenticAMD", Family: "26", Model: "2", Stepping: "1", Microcode: "0x1"}
	d := b
	d.Family, d.Model = "23", "49"
	rep.Hosts = []report.Host{{Key: report.HostKey(b)}, {Key: report.HostKey(d)}}
	ceil, load := rep.Sections["ceilings"], rep.Sections["load"]
	ceil.Machine, load.Machine = d, b
	rep.Sections = map[string]report.Section{"ceilings": ceil, "load": load}
	got := PickShort(rep)
	want := "**Columns from more than one host**: CPU/request from host B; cores, req/s from host A. Hosts run at different speeds, so compare stacks within a column, not one column's figure with another's. _Runs: ceilings"
	if !strings.Contains(got, want) {
		t.Errorf("the pick section lacks %q:\n%s", want, got)
	}
	rep.Sections["load"] = report.Section{Date: load.Date, Rounds: load.Rounds, Machine: d}
	if got := PickShort(rep); strings.Contains(got, "more than one host") {
		t.Errorf("a warning with every column from one host:\n%s", got)
	}
}

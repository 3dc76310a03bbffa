package render

import (
	"strings"
	"testing"

	"hellobench/bench"
	"hellobench/bench/report"
)

// jsonPoint is a ceiling saturated in every block, with its ratio to nginx.
func jsonPoint(server, mode string, cpu, vs []float64) report.Point {
	sat := make([]bool, len(cpu))
	for i := range sat {
		sat[i] = true
	}
	r := bench.FigureOf(vs)
	return report.Point{Server: server, Mode: mode, CPU: bench.FigureOf(cpu), Blocks: cpu, Saturated: sat, CPUVsNginx: &r}
}

// TestJSONTable checks the JSON rows (the encoder named, what JSON adds
// block by block) and the sentence on the order: nethttp and fasthttp
// keep theirs; gin passes echo and nethttp, its /json interval apart
// from theirs.
func TestJSONTable(t *testing.T) {
	six := func(x float64) []float64 { return []float64{x, x + .1, x - .1, x + .2, x - .2, x} }
	rep := report.Report{Sections: map[string]report.Section{"ceilings": {Date: "d", Rounds: 6}}, Ceilings: []report.Point{
		jsonPoint("nethttp", "keepalive", six(9), six(2.0)),
		jsonPoint("nethttp", "json", six(10), six(2.2)),
		jsonPoint("fasthttp", "keepalive", six(5), six(1.1)),
		jsonPoint("fasthttp", "json", six(5.5), six(1.2)),
		jsonPoint("gin", "keepalive", six(9.5), six(2.1)),
		jsonPoint("gin", "json", six(9.8), six(1.6)),
		jsonPoint("echo", "keepalive", six(9.2), six(2.05)),
		jsonPoint("echo", "json", six(11), six(2.6)),
		jsonPoint("nginx", "keepalive", six(4.5), six(1)),
		jsonPoint("nginx", "json", six(4.4), six(1)),
	}}
	got := JSONTable(rep)
	for _, want := range []string{
		"| nethttp | `json.NewEncoder(w).Encode`: encoding/json, 28 bytes | 10.00 (9.80–10.20) | 2.20 (2.00–2.40) | 9.00 (8.80–9.20) | 1.00 (1.00–1.00) |",
		"| gin | `c.JSON`: encoding/json (gin's default build) | ",
		"| nginx | none: a fixed string | 4.40 (4.20–4.60) | 1 | 4.50 (4.30–4.70) | -0.10 (-0.10–-0.10) |",
		"What JSON changes against the page's order (the /json intervals apart): gin now costs less than echo; gin now costs less than nethttp.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the JSON table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "| fiber |") {
		t.Errorf("a server without a json ceiling has a row:\n%s", got)
	}
	// Under 6 blocks the order is not judged.
	for i := range rep.Ceilings {
		p := &rep.Ceilings[i]
		r := bench.FigureOf(p.CPUVsNginx.Rounds[:3])
		p.CPUVsNginx = &r
	}
	if got := jsonOrder(rep, []string{"gin", "echo"}); !strings.HasPrefix(got, "Too few blocks") {
		t.Errorf("3 blocks: %q", got)
	}
}

// TestUnpaired checks the difference of two unpaired figures: the medians'
// difference, the widest interval the two allow.
func TestUnpaired(t *testing.T) {
	a := bench.FigureOf([]float64{10, 11, 12, 13, 14, 15, 16, 17, 18, 19})
	b := bench.FigureOf([]float64{5, 5, 5, 5, 5, 6, 6, 6, 6, 6})
	d := unpaired(a, b)
	if d.Median != a.Median-b.Median || d.Lo != a.Lo-b.Hi || d.Hi != a.Hi-b.Lo || d.N != 10 {
		t.Errorf("unpaired: %+v from %+v and %+v", d.Spread, a.Spread, b.Spread)
	}
	if unpaired(a, report.Figure{}).N != 0 {
		t.Error("a difference with an empty figure is not empty")
	}
}

// TestCostsJSON checks the in-memory JSON table: fcgi set beside its own
// application benchmark (it has no page loop of its own), and a server
// with neither benchmark named under the table with the reason.
func TestCostsJSON(t *testing.T) {
	ten := func(x float64) report.Figure {
		return bench.FigureOf([]float64{x, x, x, x, x, x + 10, x + 10, x + 10, x + 10, x + 10})
	}
	mem := func(stack, b string, ns float64) report.Memory {
		return report.Memory{Stack: stack, Benchmark: b, NsOp: ten(ns), AllocsOp: ten(1)}
	}
	rep := report.Report{Sections: map[string]report.Section{"ceilings": {Date: "d"}}, InMemory: []report.Memory{
		mem("gnet", "BenchmarkServeKeepAlive", 250), mem("gnet", "BenchmarkServeJSON", 490),
		mem("fcgi", "BenchmarkKeepConn", 3000), mem("fcgi", "BenchmarkServeJSON", 3400),
	}}
	got := CostsJSON(rep)
	for _, want := range []string{
		"| gnet | `json.Marshal`: encoding/json | 255 (250–260) | 495 (490–500) | 240 (230–250) |",
		"| fcgi, the application alone (no lighttpd) | `json.NewEncoder(&b).Encode`: encoding/json, 28 bytes | 3005 (3000–3010) | 3405 (3400–3410) | 400 (390–410) |",
		"No row for hertz: netpoll serves only a listener with a file descriptor",
		"; nethttp, fasthttp, fiber, gin, echo, chi, uring: this run has no in-memory figure for them.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the in-memory JSON table lacks %q:\n%s", want, got)
		}
	}
}

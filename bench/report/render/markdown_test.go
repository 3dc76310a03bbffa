package render

import (
	"strings"
	"testing"

	"hellobench/bench"
	"hellobench/bench/report"
)

// A CPU figure read from few clock ticks says so, with the label if any;
// read in nanoseconds, it need not.
func TestCoarseNote(t *testing.T) {
	for _, tc := range []struct {
		cpu      float64 // µs per request
		requests int
		label    string
		want     string
	}{
		{10, 100000, "", ""}, // 100 ticks
		{0.9, 100000, "", "CPU from about 9 clock ticks a round (one tick is 11 %)"},
		{0.8, 100000, report.Unsaturated, "unsaturated; CPU from about 8 clock ticks a round (one tick is 12 %)"},
		{2.5, 100000, report.ClientBound, report.ClientBound}, // 25 ticks
	} {
		p := report.Point{CPU: bench.FigureOf([]float64{tc.cpu}), Requests: tc.requests, Label: tc.label, Coarse: true}
		if got := Note(p); got != tc.want {
			t.Errorf("%v µs × %d requests, label %q: note %q, want %q", tc.cpu, tc.requests, tc.label, got, tc.want)
		}
	}
}

func TestNoise(t *testing.T) {
	// The floor against nginx: 9/10, 19/21, 29/10: a range over 1, a tie.
	rep := parsed(t)
	floor, _ := report.Find(rep.Ceilings, "floor", "keepalive")
	if got := versus(floor.CPUVsNginx); !strings.HasSuffix(got, ", tie") {
		t.Errorf("floor vs nginx %q, want a tie", got)
	}
	// A difference that changes sign across rounds is noise, never a cost.
	d := bench.Diff(bench.FigureOf([]float64{10, 12, 11}), bench.FigureOf([]float64{11, 11, 11}))
	if got := delta(d); got != "≈ 0 (within noise)" {
		t.Errorf("delta %q", got)
	}
	if got := share(d, bench.FigureOf([]float64{10, 12, 11})); got != "≈ 0 (within noise)" {
		t.Errorf("share %q", got)
	}
	if got := delta(bench.Diff(bench.FigureOf([]float64{12, 13, 14}), bench.FigureOf([]float64{10, 10, 10}))); got != "3.00 (2.00–4.00)" {
		t.Errorf("delta %q", got)
	}
	if got := num(126882.4, 0); got != "126\u2009882" {
		t.Errorf("num %q", got)
	}
}

func TestMarkdown(t *testing.T) {
	rep := parsed(t)
	parts := []Part{
		{[]string{"ceilings"}, "Ceilings", CeilingTables},
		{[]string{"ceilings"}, "What a request costs", CostSections},
		{[]string{"sweep"}, "How cost grows with connections (keep-alive)", SweepSection},
	}
	md := Markdown(rep, parts)
	for _, want := range []string{
		"| nethttp | 25.00 (20.00–30.00) | 2.50 (0.95–3.00) [range of 3], tie |",
		"client-bound",
		"80.00 (20.00–80.00)"[:5],
		"go test -run '^$' -bench Ceiling ./bench",
		"## How cost grows with connections (keep-alive)\n\nNot measured in this run.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	// The quick run says so.
	rep.Sections["ceilings"] = report.Section{Quick: true}
	if !strings.Contains(Markdown(rep, parts), "not for publishing") {
		t.Error("a quick run's report does not say it is one")
	}
}

// TestMarkdownSections checks that a part is measured when any of its
// sections is: make bench-tls's keep-alive blocks alone render the TLS
// part, and their commands are listed.
func TestMarkdownSections(t *testing.T) {
	rep, err := report.Read(map[string]string{"tls-keepalive": "../testdata/tls-keepalive.txt"})
	if err != nil {
		t.Fatal(err)
	}
	md := Markdown(rep, []Part{{[]string{"tls", "tls-keepalive"}, "What TLS and HTTP/2 cost", TLSCosts}})
	for _, want := range []string{"Keep-alive over TLS 1.3, 50 connections:", "-tls-modes tls-keepalive -for 300ms -block K  # K: 0–2\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("REPORT.md of the keep-alive blocks alone lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Not measured in this run") {
		t.Errorf("the keep-alive blocks alone are not measured:\n%s", md)
	}
}

// parsed is the report of the model's test data, read as the report
// command reads a bench.txt.
func parsed(t *testing.T) report.Report {
	t.Helper()
	rep, err := report.Read(map[string]string{"ceilings": "../testdata/ceilings.txt"})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestNotes checks how a row says what its figures lack: a server that
// fell over, a ceiling never saturated.
func TestNotes(t *testing.T) {
	rep := parsed(t)
	if got := Note(rep.Sweep[2]); got != "fell over in 1 round: warm-up: 12 non-2xx" {
		t.Errorf("a server that fell over: %q", got)
	}
	if got := median(report.Figure{}, 0); got != "–" {
		t.Errorf("no ceiling reads %q, want –", got)
	}
}

// TestHostLine checks the header's account of the host's state: not
// judged without usual speeds, else the usual speed and the blocks kept
// and left out per mode.
func TestHostLine(t *testing.T) {
	ps := []report.Point{{Server: "gin", Mode: "keepalive", Ref: []float64{10, 14, 10, 10.2, 9.8},
		Host: []string{"", report.HostOther, report.HostChanged, "", ""}}}
	if got := HostLine(report.Report{Ceilings: ps}); !strings.Contains(got, "not judged") {
		t.Errorf("host line without usual speeds = %q; want it to say the state was not judged", got)
	}
	if got := HostLine(report.Report{Ceilings: ps, Usual: map[string]float64{"keepalive": 10}}); !strings.Contains(got, "keepalive 10.00 µs (3 of 5 server blocks with a reference in it; 1 left out as the host changed speed, 1 at another)") {
		t.Errorf("host line = %q", got)
	}
}

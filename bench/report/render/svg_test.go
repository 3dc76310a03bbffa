package render

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"hellobench/bench"
	"hellobench/bench/report"
)

// chartFig is a figure of the rounds v.
func chartFig(v ...float64) report.Figure { return bench.FigureOf(v) }

func chartRatio(v ...float64) *report.Figure {
	f := bench.FigureOf(v)
	return &f
}

// chartReport is a hand-made report: three servers and nginx in two modes,
// a sweep whose single connections are latency-bound, and idle rows where
// fcgi fell over at 10 000 connections.
func chartReport() report.Report {
	rep := report.Report{
		Ceilings: []report.Point{
			{Server: "nethttp", Mode: "keepalive", Conns: 50, CPUVsNginx: chartRatio(1.9, 2.0, 2.1)},
			{Server: "gnet", Mode: "keepalive", Conns: 50, CPUVsNginx: chartRatio(0.90, 0.93, 0.97)},
			{Server: "fcgi", Mode: "keepalive", Conns: 50, CPUVsNginx: chartRatio(2.9, 3.1, 3.2), Label: report.ClientBound},
			{Server: "nginx", Mode: "keepalive", Conns: 50},
			{Server: "floor", Mode: "keepalive", Conns: 50, CPUVsNginx: chartRatio(0.97, 1.02, 1.06)},
			{Server: "nethttp", Mode: "close", Conns: 50, CPUVsNginx: chartRatio(1.2, 1.3, 1.4)},
			{Server: "nginx", Mode: "close", Conns: 50},
		},
	}
	conns := []int{1, 10, 50, 100, 1000, 5000, 10000}
	for i, server := range []string{"nethttp", "gnet", "nginx"} {
		for j, c := range conns {
			k := float64(i+1) * float64(j+1)
			p := report.Point{Server: server, Mode: "keepalive", Conns: c,
				ReqPerSec: chartFig(10000*k, 11000*k, 12000*k),
				P99:       chartFig(80*k*k, 90*k*k, 100*k*k),
				CPU:       chartFig(3*k, 3.2*k, 3.5*k)}
			if c == 1 {
				p.Label = report.LatencyBound
			}
			rep.Sweep = append(rep.Sweep, p)
		}
	}
	for _, c := range []int{1000, 10000} {
		n := float64(c)
		rep.Idle = append(rep.Idle,
			report.Idle{Server: "nethttp", Conns: c, Held: chartFig(n, n, n), PerConn: chartFig(8000, 8200, 8600)},
			report.Idle{Server: "gnet", Conns: c, Held: chartFig(n, n, n), PerConn: chartFig(600, 650, 700)},
			report.Idle{Server: "nginx", Conns: c, Held: chartFig(n, n, n), PerConn: chartFig(500, 520, 560)})
	}
	rep.Idle = append(rep.Idle, report.Idle{Server: "fcgi", Conns: 10000, Held: chartFig(800, 812, 900), PerConn: chartFig(20000, 25000, 30000)})
	return rep
}

// An svgNode is an element of a parsed chart.
type svgNode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Nodes   []svgNode  `xml:",any"`
}

func (n svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// walk calls f on n and every element under it.
func (n svgNode) walk(f func(svgNode)) {
	f(n)
	for _, c := range n.Nodes {
		c.walk(f)
	}
}

// parseSVG checks that doc is well-formed XML, token by token to its end,
// and returns its tree.
func parseSVG(t *testing.T, name, doc string) svgNode {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", name, err)
		}
	}
	var root svgNode
	if err := xml.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if root.XMLName.Local != "svg" || root.attr("width") != "900" {
		t.Fatalf("%s: root <%s width=%q>, want <svg width=\"900\">", name, root.XMLName.Local, root.attr("width"))
	}
	return root
}

// svgTexts returns the text of every <text> element.
func svgTexts(root svgNode) []string {
	var s []string
	root.walk(func(n svgNode) {
		if n.XMLName.Local == "text" {
			s = append(s, n.Text)
		}
	})
	return s
}

// wantSVGTexts checks that each of want is the whole text of some element.
func wantSVGTexts(t *testing.T, name string, root svgNode, want ...string) {
	t.Helper()
	got := svgTexts(root)
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s: no text %q among %q", name, w, got)
		}
	}
}

// legendKeys returns the legend's entries and the colours of their lines.
func legendKeys(root svgNode) (names, colours []string) {
	root.walk(func(n svgNode) {
		if n.XMLName.Local != "g" || n.attr("class") != "key" {
			return
		}
		for _, c := range n.Nodes {
			switch c.XMLName.Local {
			case "text":
				names = append(names, c.Text)
			case "line":
				colours = append(colours, c.attr("stroke"))
			}
		}
	})
	return names, colours
}

// svgMarkers returns the plotted markers (those with a tooltip) by tooltip.
func svgMarkers(root svgNode) map[string]svgNode {
	m := map[string]svgNode{}
	root.walk(func(n svgNode) {
		for _, c := range n.Nodes {
			if c.XMLName.Local == "title" {
				m[c.Text] = n
			}
		}
	})
	return m
}

func TestChartsEmpty(t *testing.T) {
	for name, f := range map[string]func(report.Report) string{"ceilings": CeilingsSVG, "sweep": SweepSVG, "cpu": CPUSVG, "memory": MemorySVG} {
		if got := f(report.Report{}); got != "" {
			t.Errorf("%s of an empty report: %q, want \"\"", name, got)
		}
	}
	// Ceilings without nginx have nothing to be a ratio to.
	rep := report.Report{Ceilings: []report.Point{{Server: "gnet", Mode: "keepalive", Conns: 50, CPU: chartFig(3)}}}
	if got := CeilingsSVG(rep); got != "" {
		t.Errorf("ceilings without ratios to nginx: %q, want \"\"", got)
	}
}

func TestSweepSVG(t *testing.T) {
	rep := chartReport()
	for name, f := range map[string]func(report.Report) string{"sweep": SweepSVG, "cpu": CPUSVG} {
		root := parseSVG(t, name, f(rep))
		names, colours := legendKeys(root)
		if want := []string{"nethttp", "gnet", "nginx"}; !slices.Equal(names, want) {
			t.Errorf("%s: legend %q, want %q", name, names, want)
		}
		if c := slices.Compact(slices.Sorted(slices.Values(colours))); len(c) != len(names) || len(colours) != len(names) {
			t.Errorf("%s: legend colours %q are not one distinct colour per server", name, colours)
		}
		// 1 to 10 000 connections, log scale.
		wantSVGTexts(t, name, root, "1", "10", "5k", "10k", "connections (log scale)", hollowNote)
		m := svgMarkers(root)
		if panels := map[string]int{"sweep": 2, "cpu": 1}[name]; len(m) != len(rep.Sweep)*panels {
			t.Errorf("%s: %d markers with a tooltip, want one per point and panel (%d points)", name, len(m), len(rep.Sweep))
		}
		for tip, n := range m {
			hollow := n.attr("fill") == "white"
			if labelled := strings.Contains(tip, report.LatencyBound); hollow != labelled {
				t.Errorf("%s: marker %q has fill %q; hollow only when labelled", name, tip, n.attr("fill"))
			}
			if !slices.Contains(colours, n.attr("stroke")) {
				t.Errorf("%s: marker %q stroked %q, no server's colour", name, tip, n.attr("stroke"))
			}
		}
	}
	// req/s up to 252k on round linear ticks; p99 from 80 µs to 44 ms on
	// powers of ten; CPU up to 73.5 µs.
	root := parseSVG(t, "sweep", SweepSVG(rep))
	wantSVGTexts(t, "sweep", root, "0", "100k", "300k", "10 µs", "100 µs", "1 ms", "10 ms", "100 ms", "requests per second", "p99 latency (log scale)")
	root = parseSVG(t, "cpu", CPUSVG(rep))
	wantSVGTexts(t, "cpu", root, "0", "20", "80", "server CPU per request (µs)")
}

// TestEveryServer checks that every target has a colour and a marker of
// its own, in the legend in order().
func TestEveryServer(t *testing.T) {
	var rep report.Report
	for i, server := range report.Order() {
		rep.Sweep = append(rep.Sweep, report.Point{Server: server, Mode: "keepalive", Conns: 50,
			ReqPerSec: chartFig(1000 * float64(i+1)), P99: chartFig(100), CPU: chartFig(5)})
	}
	names, colours := legendKeys(parseSVG(t, "sweep", SweepSVG(rep)))
	if !slices.Equal(names, report.Order()) {
		t.Errorf("legend %q, want %q", names, report.Order())
	}
	if c := slices.Compact(slices.Sorted(slices.Values(colours))); len(c) != len(report.Order()) {
		t.Errorf("legend colours %q: %d distinct for %d servers", colours, len(c), len(report.Order()))
	}
	seen := map[string]bool{}
	for i := range report.Order() {
		seen[fmt.Sprint(shape(i))] = true
	}
	if len(seen) != len(report.Order()) {
		t.Errorf("%d distinct marker shapes for %d servers", len(seen), len(report.Order()))
	}
}

func TestCeilingsSVG(t *testing.T) {
	root := parseSVG(t, "ceilings", CeilingsSVG(chartReport()))
	wantSVGTexts(t, "ceilings", root,
		"keep-alive, 50 connections", "a new connection per request, 50 at a time",
		"nethttp", "gnet", "fcgi", "floor", "nginx = 1",
		"0.93 (0.90–0.97) [range of 3]", "2.00 (1.90–2.10) [range of 3]", "1.02 (0.97–1.06) [range of 3] ≈ nginx", "3.10 (2.90–3.20) [range of 3], client-bound",
		"0.5", "1", "2", "5", "server CPU per request ÷ nginx's, log scale (lower is better)")
	for _, s := range svgTexts(root) {
		if strings.HasPrefix(s, "pipelined") {
			t.Errorf("ceilings: a panel %q for a mode not measured", s)
		}
	}
	// Bars are filled with the server's colour; fcgi's, client-bound, is
	// hatched.
	fills := map[string]int{}
	root.walk(func(n svgNode) {
		if n.XMLName.Local == "rect" && n.attr("stroke") != "" {
			fills[n.attr("fill")]++
		}
	})
	if fills["url(#hatch5)"] != 1 || len(fills) != 4 {
		t.Errorf("ceilings: bar fills %v, want 3 colours and fcgi's hatch", fills)
	}
}

func TestMemorySVG(t *testing.T) {
	root := parseSVG(t, "memory", MemorySVG(chartReport()))
	wantSVGTexts(t, "memory", root,
		"1000 idle connections", "10\u2009000 idle connections",
		"100 B", "1 KiB", "10 KiB", "100 KiB",
		"8.0 KiB (7.8–8.4)", "650 B (600–700)", "24.4 KiB (19.5–29.3), fell over: held 812 of 10\u2009000",
		"resident memory per idle connection (log scale)")
	hatched := 0
	root.walk(func(n svgNode) {
		if n.XMLName.Local == "rect" && strings.HasPrefix(n.attr("fill"), "url(#hatch") {
			hatched++
		}
	})
	if hatched != 1 {
		t.Errorf("memory: %d hatched bars, want 1 (fcgi fell over)", hatched)
	}
}

func TestTicks(t *testing.T) {
	for _, c := range []struct {
		max  float64
		want []float64
	}{
		{160000, []float64{0, 50000, 100000, 150000, 200000}},
		{1.3, []float64{0, 0.5, 1, 1.5}},
		{0.7, []float64{0, 0.2, 0.4, 0.6, 0.8}},
		{0, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
	} {
		if got := linTicks(c.max); !slices.Equal(got, c.want) {
			t.Errorf("linTicks(%v) = %v, want %v", c.max, got, c.want)
		}
	}
	if got, want := logTicks(80, 30000), []float64{10, 100, 1000, 1e4, 1e5}; !slices.Equal(got, want) {
		t.Errorf("logTicks(80, 30000) = %v, want %v", got, want)
	}
	if got, want := logTicks(100, 100), []float64{100, 200, 500, 1000}; !slices.Equal(got, want) {
		t.Errorf("logTicks(100, 100) = %v, want %v", got, want)
	}
	if got, want := byteTicks(1500, 3000), []float64{1024, 2048, 5120, 10240}; !slices.Equal(got, want) {
		t.Errorf("byteTicks(1500, 3000) = %v, want %v", got, want)
	}
	if got, want := byteTicks(512, 30000), []float64{100, 1024, 10240, 102400}; !slices.Equal(got, want) {
		t.Errorf("byteTicks(512, 30000) = %v, want %v", got, want)
	}
	for v, want := range map[float64]string{100: "100 µs", 1000: "1 ms", 1e5: "100 ms", 1e6: "1 s"} {
		if got := microsTick(v); got != want {
			t.Errorf("microsTick(%v) = %q, want %q", v, got, want)
		}
	}
}

package main

import (
	"cmp"
	"fmt"
	"html"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"hellobench/bench"
	"hellobench/internal/targets"
)

// The charts share one layout, 900 px wide: names left of the plot, and
// right of it a bar's value or a line chart's legend.
const (
	chartW = 900
	plotL  = 140.0 // a plot's left edge
	barR   = 560.0 // a bar chart's right edge; the values follow
	lineR  = 700.0 // a line chart's right edge; the legend follows
	rowH   = 22.0  // one bar's row
	panelH = 240.0 // one line chart's plot

	anchorEnd = ` text-anchor="end"`
	anchorMid = ` text-anchor="middle"`
	dim       = ` fill="#555555"`
	bold      = ` font-weight="bold"`
	halo      = ` paint-order="stroke" stroke="white" stroke-width="3"` // keeps text readable over grid lines
)

// colour and shape give each target in order() its colour and marker in
// every chart. The servers take Okabe and Ito's colour-blind-safe set, then
// three of Tol's; the references take black, yellow (the faintest on
// white) and grey, after the servers however many there are.
var (
	serverColours    = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#882255", "#44AA99", "#332288"}
	referenceColours = []string{"#000000", "#F0E442", "#999999"}
	shapes           = [][]float64{nil, ringShape(4, 45, 1.2), ringShape(3, -90, 1.35), ringShape(4, 0, 1.35),
		ringShape(3, 90, 1.35), ringShape(10, -90, 1.45, 0.6), plusShape(0), plusShape(45), ringShape(3, 0, 1.35),
		ringShape(5, -90, 1.3), ringShape(6, 0, 1.3), ringShape(8, -90, 1.45, 0.55)}
)

// colour is the colour of the target at rank i.
func colour(i int) string {
	n := len(targets.Names(targets.Server))
	if i < n {
		return serverColours[i%len(serverColours)]
	}
	return referenceColours[(i-n)%len(referenceColours)]
}

// shape is the marker of the target at rank i.
func shape(i int) []float64 { return shapes[i%len(shapes)] }

// hollowNote explains the hollow markers of the sweep's charts.
const hollowNote = "hollow: not saturated — latency-bound at 1 connection, client-bound or unsaturated otherwise"

// ceilingsSVG draws, for each mode, every server's CPU per request as a
// ratio to nginx's: a bar to the median with a min–max whisker.
func ceilingsSVG(rep Report) string {
	var modes [][]Point
	hi := 1.0
	for _, m := range bench.Modes {
		var rows []Point
		for _, p := range rep.Ceilings {
			if p.Mode == string(m) && p.CPUVsNginx != nil && p.CPUVsNginx.N > 0 {
				rows = append(rows, p)
				hi = max(hi, p.CPUVsNginx.Hi)
			}
		}
		if len(rows) > 0 {
			modes = append(modes, byRank(rows, func(p Point) string { return p.Server }))
		}
	}
	if len(modes) == 0 {
		return ""
	}
	ticks := linTicks(max(hi, 1.1))
	xs := axis{lo: 0, hi: ticks[len(ticks)-1], from: plotL, to: barR}
	s := &svg{}
	s.heading("Server CPU per request relative to nginx",
		"bar: median of the blocks; whisker: its 95 % confidence interval; ≈ nginx: the interval includes 1.0; hatched: never saturated, no ceiling")
	y := 64.0
	for _, rows := range modes {
		y = s.ceilingPanel(rows, xs, ticks, y)
	}
	s.text((plotL+barR)/2, y+4, anchorMid+bold, "server CPU per request ÷ nginx's (lower is better)")
	return s.done(y + 18)
}

// ceilingPanel draws one mode's bars from top and returns the y under them.
func (s *svg) ceilingPanel(rows []Point, xs axis, ticks []float64, top float64) float64 {
	s.text(10, top+14, bold, modeTitle(rows[0]))
	y0 := top + 40
	bottom := y0 + rowH*float64(len(rows))
	s.xGrid(xs, ticks, plainTick, y0, bottom)
	// The reference line goes over the bars; their values start right of
	// it, clear of its dashes.
	x := xs.at(1)
	values := make([]func(), len(rows))
	for k, p := range rows {
		f := *p.CPUVsNginx
		v := spread(f, 2) + fewBlocks(f)
		if f.N > 1 && f.Straddles(1) {
			v += " ≈ nginx"
		}
		if p.Label != "" {
			v += ", " + p.Label
		}
		values[k] = s.bar(p.Server, rank(p.Server), xs, y0+rowH*float64(k), f, p.Label != "", v, x)
	}
	s.add(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#222222" stroke-width="1.5" stroke-dasharray="5 3"/>`, x, y0-4, x, bottom)
	s.text(x, y0-8, anchorMid, "nginx = 1")
	for _, v := range values {
		v()
	}
	return bottom + 30
}

func modeTitle(p Point) string {
	switch bench.Mode(p.Mode) {
	case bench.KeepAlive:
		return fmt.Sprintf("keep-alive, %d connections", p.Conns)
	case bench.Close:
		return fmt.Sprintf("a new connection per request, %d at a time", p.Conns)
	case bench.Pipeline:
		return fmt.Sprintf("pipelined, %d requests in flight on each of %d connections", bench.PipelineDepth, p.Conns)
	}
	return fmt.Sprintf("%s, %d connections", p.Mode, p.Conns)
}

// sweepSVG draws req/s and p99 latency against connections, one line per
// server.
func sweepSVG(rep Report) string {
	if len(rep.Sweep) == 0 {
		return ""
	}
	s := &svg{}
	s.heading("Keep-alive by number of connections", "marker: median of the rounds; whisker: min–max")
	y := s.sweepPanel(rep.Sweep, chartPanel{title: "Throughput", ytitle: "requests per second",
		val: func(p Point) Figure { return p.ReqPerSec }, tick: countTick, tip: func(v float64) string { return num(v, 0) + " req/s" }}, 84)
	y = s.sweepPanel(rep.Sweep, chartPanel{title: "Tail latency", ytitle: "p99 latency (log scale)", log: true,
		val: func(p Point) Figure { return p.P99 }, tick: microsTick, tip: func(v float64) string { return num(v, 0) + " µs" }}, y+34)
	return s.finishSweep(rep.Sweep, y)
}

// cpuSVG draws the server's CPU per request against connections, one line
// per server.
func cpuSVG(rep Report) string {
	if len(rep.Sweep) == 0 {
		return ""
	}
	s := &svg{}
	s.heading("Server CPU per request by number of connections, keep-alive", "marker: median of the rounds; whisker: min–max")
	y := s.sweepPanel(rep.Sweep, chartPanel{ytitle: "server CPU per request (µs)",
		val: func(p Point) Figure { return p.CPU }, tick: plainTick, tip: func(v float64) string { return num(v, 2) + " µs/req" }}, 64)
	return s.finishSweep(rep.Sweep, y)
}

// finishSweep adds the legend and, when a point is hollow, what that means.
func (s *svg) finishSweep(ps []Point, y float64) string {
	var servers []string
	for _, p := range ps {
		if !slices.Contains(servers, p.Server) {
			servers = append(servers, p.Server)
		}
	}
	s.legend(byRank(servers, func(n string) string { return n }), lineR+28, 84)
	if slices.ContainsFunc(ps, func(p Point) bool { return p.Label != "" }) {
		s.text(10, y+10, dim, hollowNote)
		y += 18
	}
	return s.done(y + 6)
}

// A chartPanel is one plot of the sweep against connections.
type chartPanel struct {
	title  string               // above the plot, if any
	ytitle string               // the y axis's title, with its unit
	log    bool                 // a log y axis
	val    func(Point) Figure   // the plotted figure
	tick   func(float64) string // labels a y tick
	tip    func(float64) string // formats a value in a point's tooltip
	// x places a point on the log x axis, xtick labels an x tick, xtitle
	// names the axis and at says where a point is, for its tooltip; nil
	// or "": the connections.
	x      func(Point) float64
	xtick  func(float64) string
	xtitle string
	at     func(Point) string
}

// xOf is where pt goes on p's x axis.
func (p chartPanel) xOf(pt Point) float64 {
	if p.x != nil {
		return p.x(pt)
	}
	return float64(pt.Conns)
}

// atOf says where pt is, for a tooltip: "5 000 connections".
func (p chartPanel) atOf(pt Point) string {
	if p.at != nil {
		return p.at(pt)
	}
	if pt.Conns == 1 {
		return "1 connection"
	}
	return fmt.Sprintf("%d connections", pt.Conns)
}

// sweepPanel draws p from top, one line per server through its medians,
// and returns the y under its x axis.
func (s *svg) sweepPanel(ps []Point, p chartPanel, top float64) float64 {
	if p.title != "" {
		s.text(plotL, top-8, bold, p.title)
	}
	bottom := top + panelH
	var xt []float64
	var vals []float64
	for _, pt := range ps {
		if x := p.xOf(pt); !slices.Contains(xt, x) {
			xt = append(xt, x)
		}
		if f := p.val(pt); f.N > 0 {
			vals = append(vals, f.Lo, f.Median, f.Hi)
		}
	}
	slices.Sort(xt)
	lo, hi := xt[0], xt[len(xt)-1]
	if lo == hi {
		lo, hi = lo/3, hi*3
	}
	xs := axis{lo: lo, hi: hi, from: plotL + 20, to: lineR - 20, log: true}
	var ticks []float64
	if p.log {
		ticks = logTicks(positiveRange(vals))
	} else {
		ticks = linTicks(slices.Max(append(vals, 0)))
	}
	ys := axis{lo: ticks[0], hi: ticks[len(ticks)-1], from: bottom, to: top, log: p.log}
	xtick, xtitle := countTick, "connections (log scale)"
	if p.xtick != nil {
		xtick, xtitle = p.xtick, p.xtitle
	}
	s.xGrid(xs, xt, xtick, top, bottom)
	s.yGrid(ys, ticks, p.tick, plotL, lineR)
	s.add(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#999999"/>`, plotL, top, lineR-plotL, panelH)
	s.text(plotL-58, (top+bottom)/2, anchorMid+fmt.Sprintf(` transform="rotate(-90 %.1f %.1f)"`, plotL-58, (top+bottom)/2), p.ytitle)
	s.text((plotL+lineR)/2, bottom+34, anchorMid, xtitle)
	s.lines(ps, p, xs, ys)
	return bottom + 42
}

// lines draws each server's points: a line through the medians, a min–max
// whisker and a marker, hollow when the point has a label. The servers are
// dodged a little sideways so that their whiskers stay apart.
func (s *svg) lines(ps []Point, p chartPanel, xs, ys axis) {
	by := map[string][]Point{}
	for _, pt := range ps {
		if p.val(pt).N > 0 {
			by[pt.Server] = append(by[pt.Server], pt)
		}
	}
	for _, server := range byRank(slices.Sorted(maps.Keys(by)), func(n string) string { return n }) {
		i := rank(server)
		pts := slices.SortedFunc(slices.Values(by[server]), func(a, b Point) int { return cmp.Compare(p.xOf(a), p.xOf(b)) })
		dx := (float64(i) - float64(len(order())-1)/2) * 2
		var line []string
		for _, pt := range pts {
			line = append(line, fmt.Sprintf("%.1f,%.1f", xs.at(p.xOf(pt))+dx, ys.at(p.val(pt).Median)))
		}
		s.add(`<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`, strings.Join(line, " "), colour(i))
		for _, pt := range pts {
			f, x := p.val(pt), xs.at(p.xOf(pt))+dx
			if f.N > 1 && f.Hi > f.Lo {
				s.add(`<path d="M%.1f %.1fV%.1fM%.1f %.1fh6M%.1f %.1fh6" stroke="%s" fill="none"/>`,
					x, ys.at(f.Lo), ys.at(f.Hi), x-3, ys.at(f.Lo), x-3, ys.at(f.Hi), colour(i))
			}
			tip := fmt.Sprintf("%s, %s: %s", pt.Server, p.atOf(pt), p.tip(f.Median))
			if pt.Label != "" {
				tip += " (" + pt.Label + ")"
			}
			s.marker(i, x, ys.at(f.Median), pt.Label != "", tip)
		}
	}
}

// memorySVG draws each server's resident memory per idle connection, a
// group of bars per number of connections.
func memorySVG(rep Report) string {
	if len(rep.Idle) == 0 {
		return ""
	}
	var counts []int
	var vals []float64
	for _, r := range rep.Idle {
		if !slices.Contains(counts, r.Conns) {
			counts = append(counts, r.Conns)
		}
		if r.PerConn.N > 0 {
			vals = append(vals, r.PerConn.Lo, r.PerConn.Median, r.PerConn.Hi)
		}
	}
	slices.Sort(counts)
	ticks := byteTicks(positiveRange(vals))
	xs := axis{lo: ticks[0], hi: ticks[len(ticks)-1], from: plotL, to: barR, log: true}
	s := &svg{}
	s.heading("Resident memory per idle connection",
		"bar: median of the rounds; whisker: min–max; hatched: fell over, holding fewer connections than it opened")
	y := 64.0
	for _, n := range counts {
		var rows []Idle
		for _, r := range rep.Idle {
			if r.Conns == n {
				rows = append(rows, r)
			}
		}
		rows = byRank(rows, func(r Idle) string { return r.Server })
		s.text(10, y+14, bold, num(float64(n), 0)+" idle connections")
		y0 := y + 26
		bottom := y0 + rowH*float64(len(rows))
		s.xGrid(xs, ticks, sizeTick, y0, bottom)
		for k, r := range rows {
			fell := r.Held.N > 0 && r.Held.Median < float64(r.Conns)
			v := sizeSpread(r.PerConn)
			if fell {
				v += fmt.Sprintf(", fell over: held %s of %s", num(r.Held.Median, 0), num(float64(r.Conns), 0))
			}
			s.bar(r.Server, rank(r.Server), xs, y0+rowH*float64(k), r.PerConn, fell, v, 0)()
		}
		y = bottom + 30
	}
	s.text((plotL+barR)/2, y+4, anchorMid+bold, "resident memory per idle connection (log scale)")
	return s.done(y + 18)
}

// An svg is a chart being drawn: its elements and the patterns they use.
type svg struct {
	b    strings.Builder
	defs []string
}

func (s *svg) add(format string, a ...any) {
	fmt.Fprintf(&s.b, format, a...)
	s.b.WriteByte('\n')
}

// text writes t at x, y; attrs are more attributes, each after a space.
func (s *svg) text(x, y float64, attrs, t string) {
	s.add(`<text x="%.1f" y="%.1f"%s>%s</text>`, x, y, attrs, html.EscapeString(t))
}

// heading writes the chart's title and, under it, how to read it.
func (s *svg) heading(title, key string) {
	s.text(10, 22, ` font-size="15"`+bold, title)
	s.text(10, 40, dim, key)
}

// done returns the document, h pixels high.
func (s *svg) done(h float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="sans-serif" font-size="12">`+"\n",
		chartW, h, chartW, h)
	if len(s.defs) > 0 {
		b.WriteString("<defs>\n" + strings.Join(s.defs, "\n") + "\n</defs>\n")
	}
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	b.WriteString(s.b.String())
	b.WriteString("</svg>\n")
	return b.String()
}

// xGrid draws a vertical line from top to bottom at each tick, labelled
// under bottom.
func (s *svg) xGrid(c axis, ticks []float64, label func(float64) string, top, bottom float64) {
	for _, t := range ticks {
		x := c.at(t)
		s.add(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e2e2e2"/>`, x, top, x, bottom)
		s.text(x, bottom+15, anchorMid+dim, label(t))
	}
}

// yGrid draws a horizontal line from left to right at each tick, labelled
// left of left.
func (s *svg) yGrid(c axis, ticks []float64, label func(float64) string, left, right float64) {
	for _, t := range ticks {
		y := c.at(t)
		s.add(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e2e2e2"/>`, left, y, right, y)
		s.text(left-6, y+4, anchorEnd+dim, label(t))
	}
}

// bar draws a row of a bar chart at y: the name, target i's bar to f's
// median (hatched if asked) and a min–max whisker. It returns the drawing
// of value after them and right of x, for the caller to put on top.
func (s *svg) bar(name string, i int, xs axis, y float64, f Figure, hatched bool, value string, x float64) func() {
	c := colour(i)
	fill := c
	if hatched {
		fill = s.hatch(i)
	}
	mid := y + rowH/2
	s.text(plotL-8, mid+4, anchorEnd, name)
	end := xs.at(f.Median)
	s.add(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="%s"/>`, xs.from, y+4, end-xs.from, rowH-8, fill, c)
	if f.N > 1 && f.Hi > f.Lo {
		lo, hi := xs.at(f.Lo), xs.at(f.Hi)
		s.add(`<path d="M%.1f %.1fH%.1fM%.1f %.1fv8M%.1f %.1fv8" stroke="#222222" stroke-width="1.2" fill="none"/>`,
			lo, mid, hi, lo, mid-4, hi, mid-4)
		end = max(end, hi)
	}
	end = max(end, x)
	return func() { s.text(end+6, mid+4, halo, value) }
}

// hatch returns the fill of a hatched bar of target i's colour.
func (s *svg) hatch(i int) string {
	id := "hatch" + strconv.Itoa(i)
	def := fmt.Sprintf(`<pattern id="%s" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">`+
		`<rect width="6" height="6" fill="white"/><line x1="0" y1="0" x2="0" y2="6" stroke="%s" stroke-width="3"/></pattern>`, id, colour(i))
	if !slices.Contains(s.defs, def) {
		s.defs = append(s.defs, def)
	}
	return "url(#" + id + ")"
}

// marker draws target i's marker at x, y, hollow if asked, with tip as its
// tooltip.
func (s *svg) marker(i int, x, y float64, hollow bool, tip string) {
	c := colour(i)
	fill := c
	if hollow {
		fill = "white"
	}
	attrs := fmt.Sprintf(`fill="%s" stroke="%s" stroke-width="1.5"`, fill, c)
	if tip != "" {
		tip = "<title>" + html.EscapeString(tip) + "</title>"
	}
	const r = 4.0
	outline := shape(i)
	if outline == nil {
		s.add(`<circle cx="%.1f" cy="%.1f" r="%.1f" %s>%s</circle>`, x, y, r, attrs, tip)
		return
	}
	pts := make([]string, 0, len(outline)/2)
	for k := 0; k < len(outline); k += 2 {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x+r*outline[k], y+r*outline[k+1]))
	}
	s.add(`<polygon points="%s" %s>%s</polygon>`, strings.Join(pts, " "), attrs, tip)
}

// legend lists the servers from x, y down, each with its line and marker.
func (s *svg) legend(servers []string, x, y float64) {
	for _, name := range servers {
		i := rank(name)
		s.add(`<g class="key">`)
		s.add(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"/>`, x, y, x+26, y, colour(i))
		s.marker(i, x+13, y, false, "")
		s.text(x+34, y+4, "", name)
		s.add(`</g>`)
		y += 20
	}
}

// An axis maps the values lo…hi to the pixels from…to, on a log scale if
// asked; a value outside is drawn at the nearer end.
type axis struct {
	lo, hi, from, to float64
	log              bool
}

func (c axis) at(v float64) float64 {
	v, lo, hi := min(max(v, c.lo), c.hi), c.lo, c.hi
	if c.log {
		v, lo, hi = math.Log10(v), math.Log10(lo), math.Log10(hi)
	}
	return c.from + (c.to-c.from)*(v-lo)/(hi-lo)
}

// linTicks returns round ticks from 0 up to max or just beyond, about five
// of them: steps of 1, 2 or 5 times a power of ten.
func linTicks(max float64) []float64 {
	if max <= 0 {
		max = 1
	}
	e := math.Floor(math.Log10(max / 5))
	p := math.Pow(10, math.Abs(e))
	step := func(k float64) float64 { // k steps, exact for round values
		if e < 0 {
			return k / p
		}
		return k * p
	}
	m := 10.0
	for _, c := range []float64{1, 2, 5} {
		if step(c) >= max/5 {
			m = c
			break
		}
	}
	var t []float64
	for k := 0.0; ; k++ {
		t = append(t, step(k*m))
		if step(k*m) >= max {
			return t
		}
	}
}

// logTicks returns the powers of ten from the one at or under lo to the
// one at or over hi, at least two.
func logTicks(lo, hi float64) []float64 {
	a, b := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if b <= a {
		b = a + 1
	}
	var t []float64
	for e := a; e <= b; e++ {
		t = append(t, math.Pow(10, e))
	}
	return midTicks(t)
}

// midTicks adds 2 and 5 times the first tick to a decade alone, which two
// ticks leave hard to read.
func midTicks(t []float64) []float64 {
	if len(t) != 2 {
		return t
	}
	return []float64{t[0], 2 * t[0], 5 * t[0], t[1]}
}

// byteTicks is logTicks for sizes: 1, 10 and 100 B, KB and MB.
func byteTicks(lo, hi float64) []float64 {
	var all []float64
	for _, u := range []float64{1, 1 << 10, 1 << 20} {
		all = append(all, u, 10*u, 100*u)
	}
	a := max(0, slices.IndexFunc(all, func(v float64) bool { return v > lo })-1)
	b := slices.IndexFunc(all, func(v float64) bool { return v >= hi })
	if b < 0 {
		b = len(all) - 1
	}
	return midTicks(all[a : max(b, a+1)+1])
}

// positiveRange returns the least and the greatest of the positive values;
// 1 and 10 if there are none.
func positiveRange(vals []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), 0
	for _, v := range vals {
		if v > 0 {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if hi == 0 {
		return 1, 10
	}
	return lo, hi
}

// plainTick formats v with no more decimals than it needs.
func plainTick(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// countTick labels a count tick: 500, 50k, 1.5M.
func countTick(v float64) string {
	switch {
	case v >= 1e6:
		return plainTick(v/1e6) + "M"
	case v >= 1e3:
		return plainTick(v/1e3) + "k"
	}
	return plainTick(v)
}

// microsTick labels a tick of µs: 100 µs, 1 ms, 1 s.
func microsTick(v float64) string {
	switch {
	case v >= 1e6:
		return plainTick(v/1e6) + " s"
	case v >= 1e3:
		return plainTick(v/1e3) + " ms"
	}
	return plainTick(v) + " µs"
}

// sizeTick labels a tick of bytes: 100 B, 1 KB, 10 MB.
func sizeTick(v float64) string {
	switch {
	case v >= 1<<20:
		return plainTick(v/(1<<20)) + " MB"
	case v >= 1<<10:
		return plainTick(v/(1<<10)) + " KB"
	}
	return plainTick(v) + " B"
}

// sizeSpread formats a figure of bytes in B or, from 1 KB, in KB:
// "8.0 KB (7.8–8.4)".
func sizeSpread(f Figure) string {
	if f.N == 0 {
		return "–"
	}
	unit, div, prec := "B", 1.0, 0
	if f.Median >= 1<<10 {
		unit, div, prec = "KB", 1<<10, 1
	}
	s := num(f.Median/div, prec) + " " + unit
	if f.N > 1 {
		s += fmt.Sprintf(" (%s–%s)", num(f.Lo/div, prec), num(f.Hi/div, prec))
	}
	return s
}

// byRank returns xs in the servers' order of order().
func byRank[T any](xs []T, server func(T) string) []T {
	return slices.SortedStableFunc(slices.Values(xs), func(a, b T) int { return cmp.Compare(rank(server(a)), rank(server(b))) })
}

// ringShape returns the corners of a regular polygon of n corners on a unit
// circle, the first at deg degrees; with two radii, a star.
func ringShape(n int, deg float64, radii ...float64) []float64 {
	var p []float64
	for i := range n {
		a := (deg + 360*float64(i)/float64(n)) * math.Pi / 180
		r := radii[i%len(radii)]
		p = append(p, r*math.Cos(a), r*math.Sin(a))
	}
	return p
}

// plusShape returns the outline of a plus sign turned by deg degrees.
func plusShape(deg float64) []float64 {
	const w, l = 0.45, 1.35
	pts := []float64{-w, -l, w, -l, w, -w, l, -w, l, w, w, w, w, l, -w, l, -w, w, -l, w, -l, -w, -w, -w}
	sin, cos := math.Sincos(deg * math.Pi / 180)
	for k := 0; k < len(pts); k += 2 {
		x, y := pts[k], pts[k+1]
		pts[k], pts[k+1] = x*cos-y*sin, x*sin+y*cos
	}
	return pts
}

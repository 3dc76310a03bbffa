package render

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"

	"hellobench/bench/report"
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
// five of Tol's; the references take black, yellow (the faintest on
// white), grey and dark brown, after the servers however many there are.
var (
	serverColours    = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#882255", "#44AA99", "#332288", "#117733", "#999933"}
	referenceColours = []string{"#000000", "#F0E442", "#999999", "#661100"}
	shapes           = [][]float64{nil, ringShape(4, 45, 1.2), ringShape(3, -90, 1.35), ringShape(4, 0, 1.35),
		ringShape(3, 90, 1.35), ringShape(10, -90, 1.45, 0.6), plusShape(0), plusShape(45), ringShape(3, 0, 1.35),
		ringShape(5, -90, 1.3), ringShape(6, 0, 1.3), ringShape(8, -90, 1.45, 0.55), ringShape(7, -90, 1.4),
		ringShape(4, 0, 1.5, 0.45), ringShape(5, 90, 1.3)}
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
func (s *svg) bar(name string, i int, xs axis, y float64, f report.Figure, hatched bool, value string, x float64) func() {
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
		i := report.Rank(name)
		s.add(`<g class="key">`)
		s.add(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"%s/>`, x, y, x+26, y, colour(i), dash(name))
		s.marker(i, x+13, y, false, "")
		s.text(x+34, y+4, "", name)
		s.add(`</g>`)
		y += 20
	}
}

// dash is the line style of a series: dashed for the host's own stalls,
// which is no server and, ranked after them all, shares nginx's black;
// solid for every server.
func dash(name string) string {
	if name == hostName {
		return ` stroke-dasharray="6 3"`
	}
	return ""
}

// byRank returns xs in the servers' order of order().
func byRank[T any](xs []T, server func(T) string) []T {
	return slices.SortedStableFunc(slices.Values(xs), func(a, b T) int { return cmp.Compare(report.Rank(server(a)), report.Rank(server(b))) })
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

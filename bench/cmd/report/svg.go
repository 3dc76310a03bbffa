package main

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// Colours of the charts: measured, implied ceiling, and lines of the sweep.
var (
	measuredColor = "#4878a8"
	ceilingColor  = "#e0a040"
	lineColors    = []string{"#4878a8", "#e0a040", "#58a058", "#c84848", "#8860b0", "#906048", "#d070b0", "#707070", "#40a0b0"}
)

// ceilingsSVG draws, for every server keep-alive, two bars: measured req/s
// and the implied ceiling, each as a ratio to nginx's.
func ceilingsSVG(rep Report) string {
	var rows []Ceiling
	for _, c := range rep.Ceilings {
		if c.Mode == "keepalive" && c.CeilingVsNginx > 0 {
			rows = append(rows, c)
		}
	}
	const left, barH, gap, width = 150, 14, 12, 900
	plotW := float64(width - left - 240) // room for the value after the longest bar
	top := 64
	height := top + len(rows)*(2*barH+gap) + 40
	maxR := 1.0
	for _, c := range rows {
		maxR = math.Max(maxR, math.Max(c.VsNginx, c.CeilingVsNginx))
	}
	maxR = math.Ceil(maxR*4) / 4
	x := func(r float64) float64 { return float64(left) + plotW*r/maxR }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="15" font-weight="bold">One core, keep-alive, 50 connections: ratio to nginx (1.0)</text>`+"\n")
	fmt.Fprintf(&b, `<rect x="10" y="32" width="12" height="12" fill="%s"/><text x="28" y="42">measured req/s</text>`+"\n", measuredColor)
	fmt.Fprintf(&b, `<rect x="140" y="32" width="12" height="12" fill="%s"/><text x="158" y="42">implied ceiling, 1e6 / server CPU µs per request</text>`+"\n", ceilingColor)
	if len(rows) == 0 {
		fmt.Fprintf(&b, `<text x="10" y="80">No keep-alive results with nginx to compare with.</text>`+"\n</svg>\n")
		return b.String()
	}
	// Grid every 0.25.
	for r := 0.0; r <= maxR+1e-9; r += 0.25 {
		stroke := "#e0e0e0"
		if math.Abs(r-1) < 1e-9 {
			stroke = "#404040"
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`+"\n", x(r), top-6, x(r), height-30, stroke)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#606060">%s</text>`+"\n", x(r), height-14, strconv.FormatFloat(r, 'g', -1, 64))
	}
	y := top
	for _, c := range rows {
		label := c.Server
		bound := ""
		if c.ClientBound {
			bound = ", client-bound"
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-8, y+barH+4, html.EscapeString(label))
		for i, v := range []float64{c.VsNginx, c.CeilingVsNginx} {
			color, value := measuredColor, fmt.Sprintf("%.2f (%.0f req/s%s)", v, c.ReqPerSec, bound)
			if i == 1 {
				color, value = ceilingColor, fmt.Sprintf("%.2f (%.0f req/s, %.2f µs)", v, c.Ceiling, c.CPUPerReq)
			}
			by := y + i*barH
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", left, by, x(v)-float64(left), barH-2, color)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10">%s</text>`+"\n", x(v)+4, by+barH-4, html.EscapeString(value))
		}
		y += 2*barH + gap
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// sweepSVG draws req/s and p99 latency against connections (log scale),
// one line per server.
func sweepSVG(rep Report) string {
	var servers []string
	by := map[string][]Sweep{}
	conns := map[int]bool{}
	for _, p := range rep.Sweep {
		if by[p.Server] == nil {
			servers = append(servers, p.Server)
		}
		by[p.Server] = append(by[p.Server], p)
		conns[p.Conns] = true
	}
	const panelW, panelH, pad, width = 360, 260, 60, 2*360 + 3*60
	height := panelH + 2*pad + 20*((len(servers)+3)/4) + 30
	minC, maxC := math.MaxFloat64, 1.0
	for c := range conns {
		minC, maxC = math.Min(minC, float64(c)), math.Max(maxC, float64(c))
	}
	if maxC <= minC {
		maxC = minC * 10
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	b.WriteString(`<text x="10" y="20" font-size="15" font-weight="bold">Keep-alive on one core by number of connections</text>` + "\n")
	panel := func(x0 int, title string, val func(Sweep) float64, logY bool) {
		y0 := pad
		maxV, minV := 0.0, math.MaxFloat64
		for _, p := range rep.Sweep {
			maxV, minV = math.Max(maxV, val(p)), math.Min(minV, val(p))
		}
		if maxV <= 0 {
			maxV = 1
		}
		lo, hi := 0.0, maxV*1.05
		if logY {
			lo, hi = math.Log10(math.Max(minV, 1)), math.Log10(maxV)+0.05
		}
		px := func(c int) float64 {
			return float64(x0) + panelW*(math.Log10(float64(c))-math.Log10(minC))/(math.Log10(maxC)-math.Log10(minC))
		}
		py := func(v float64) float64 {
			if logY {
				v = math.Log10(math.Max(v, 1))
			}
			return float64(y0+panelH) - panelH*(v-lo)/(hi-lo)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", x0, y0-12, title)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#a0a0a0"/>`+"\n", x0, y0, panelW, panelH)
		for c := range conns {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#606060">%d</text>`+"\n", px(c), y0+panelH+16, c)
		}
		for i := 0; i <= 4; i++ {
			v := lo + (hi-lo)*float64(i)/4
			label := v
			if logY {
				label = math.Pow(10, v)
			}
			yy := float64(y0+panelH) - panelH*float64(i)/4
			fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eeeeee"/>`+"\n", x0, yy, x0+panelW, yy)
			fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="#606060" font-size="10">%s</text>`+"\n", x0-4, yy+3, short(label))
		}
		for i, s := range servers {
			var pts []string
			for _, p := range by[s] {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p.Conns), py(val(p))))
			}
			color := lineColors[i%len(lineColors)]
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), color)
			for _, p := range by[s] {
				fill := color
				if p.ClientBound {
					fill = "white" // hollow: client-bound
				}
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s" stroke="%s"/>`+"\n", px(p.Conns), py(val(p)), fill, color)
			}
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="#606060">connections</text>`+"\n", x0+panelW/2, y0+panelH+32)
	}
	panel(pad, "requests per second", func(p Sweep) float64 { return p.ReqPerSec }, false)
	panel(2*pad+panelW, "p99 latency, µs (log scale)", func(p Sweep) float64 { return p.P99 }, true)
	ly := pad + panelH + 50
	for i, s := range servers {
		x := pad + (i%4)*180
		y := ly + (i/4)*20
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="4" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", x, y-4, lineColors[i%len(lineColors)], x+18, y, html.EscapeString(s))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#606060">hollow point: client-bound (server core under 90 %% busy)</text>`+"\n", pad, ly+20*((len(servers)+3)/4))
	b.WriteString("</svg>\n")
	return b.String()
}

func short(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

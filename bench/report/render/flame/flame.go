// Package flame draws a flame graph, as an SVG file, from folded stacks
// (frames from the root down, joined by ";", with a sample count): each
// function a box as wide as the samples it was on the stack for, its
// callees stacked on it, the root at the bottom, as Brendan Gregg's
// flamegraph.pl draws them. It depends on the standard library alone, so
// that the bench that records a profile can draw it.
package flame

import (
	"fmt"
	"hash/fnv"
	"html"
	"maps"
	"slices"
	"strings"
)

// Layout of the graph, in pixels.
const (
	width    = 1200.0
	margin   = 10.0
	frameH   = 16.0
	top      = 50.0 // the title and the key above the frames
	charW    = 6.6  // a character of the 11 px font, about
	minWidth = 4.0  // a box narrower than this is not drawn (nor its callees)
)

// KernelSuffix marks a kernel function (bench.KernelSuffix): such boxes
// are drawn orange.
const KernelSuffix = "_[k]"

// A node is a function at one place in the call tree.
type node struct {
	name     string
	samples  int64
	children map[string]*node
}

func (n *node) child(name string) *node {
	c, ok := n.children[name]
	if !ok {
		c = &node{name: name, children: map[string]*node{}}
		n.children[name] = c
	}
	return c
}

// SVG draws folded as a flame graph titled title; key says how to read it
// (what a sample is), under the title.
func SVG(folded map[string]int64, title, key string) string {
	root := &node{name: "all", children: map[string]*node{}}
	for stack, n := range folded {
		if n <= 0 {
			continue
		}
		root.samples += n
		at := root
		for _, f := range strings.Split(stack, ";") {
			at = at.child(f)
			at.samples += n
		}
	}
	g := graph{total: root.samples}
	if g.total > 0 {
		g.scale = (width - 2*margin) / float64(g.total)
	}
	g.walk(root, margin, 0, func(*node, float64, int, float64) {})
	g.h = top + float64(g.depth+1)*frameH + margin
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n", width, g.h, width, g.h)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="20" font-size="15" font-weight="bold">%s</text>`+"\n", margin, html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="%.0f" y="38" fill="#555555">%s</text>`+"\n", margin, html.EscapeString(key))
	g.walk(root, margin, 0, func(n *node, x float64, d int, w float64) { g.box(&b, n, x, d, w) })
	b.WriteString("</svg>\n")
	return b.String()
}

// A graph is a flame graph's scale: pixels per sample, its deepest row
// drawn and its height.
type graph struct {
	total int64
	scale float64
	depth int
	h     float64
}

// walk calls draw for n at x, depth d, and its callees on it, left to
// right by name as flamegraph.pl sorts them (the x axis is not time),
// skipping a box narrower than minWidth and its callees.
func (g *graph) walk(n *node, x float64, d int, draw func(n *node, x float64, d int, w float64)) {
	w := float64(n.samples) * g.scale
	if w < minWidth {
		return
	}
	g.depth = max(g.depth, d)
	draw(n, x, d, w)
	for _, name := range slices.Sorted(maps.Keys(n.children)) {
		c := n.children[name]
		g.walk(c, x, d+1, draw)
		x += float64(c.samples) * g.scale
	}
}

// box writes n's box at x, depth d (the root's row at the bottom), w
// wide, with its samples and share in its tooltip.
func (g *graph) box(b *strings.Builder, n *node, x float64, d int, w float64) {
	y := g.h - margin - float64(d+1)*frameH
	tip := fmt.Sprintf("%s: %d samples, %.2f %%", n.name, n.samples, 100*float64(n.samples)/float64(g.total))
	fmt.Fprintf(b, `<g><title>%s</title><rect x="%.1f" y="%.0f" width="%.1f" height="%.0f" fill="%s"/>`,
		html.EscapeString(tip), x, y, w, frameH-1, fill(n.name))
	if label := fit(n.name, w); label != "" {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f">%s</text>`, x+3, y+frameH-4.5, html.EscapeString(label))
	}
	b.WriteString("</g>\n")
}

// fit is name cut to fit w pixels, with ".." where cut; "" if not even
// three characters fit.
func fit(name string, w float64) string {
	room := int((w - 6) / charW)
	if room < 3 {
		return ""
	}
	if r := []rune(name); len(r) > room {
		return string(r[:room-2]) + ".."
	}
	return name
}

// fill is a box's colour: kernel functions orange, Go's runtime aqua,
// every other function a warm colour of its own (hashed from its name, so
// that a function has one colour in every graph), as flamegraph.pl's
// "java" palette tells the kinds apart.
func fill(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	v := float64(h.Sum32()%1000) / 1000
	switch {
	case name == "all":
		return "rgb(200,200,200)"
	case strings.HasSuffix(name, KernelSuffix):
		return fmt.Sprintf("rgb(%d,%d,%d)", 220+int(20*v), 120+int(60*v), 40)
	case strings.HasPrefix(name, "runtime.") || strings.HasPrefix(name, "internal/runtime/"):
		return fmt.Sprintf("rgb(%d,%d,%d)", 80+int(40*v), 190+int(40*v), 190+int(40*v))
	default:
		return fmt.Sprintf("rgb(%d,%d,%d)", 230+int(25*v), 80+int(120*v), 60+int(30*v))
	}
}

package flame

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// TestSVG draws two stacks of a three samples and one: the root as wide
// as the graph, each callee as wide as its share, and the tooltips.
func TestSVG(t *testing.T) {
	doc := SVG(map[string]int64{"main.serve;main.parse": 3, "main.serve;write_[k]": 1}, "a title", "a key")
	d := xml.NewDecoder(strings.NewReader(doc))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, doc)
		}
	}
	// 1180 px for 4 samples: 295 a sample.
	for _, want := range []string{
		`<title>all: 4 samples, 100.00 %</title><rect x="10.0" y="`,
		`<title>main.serve: 4 samples, 100.00 %</title><rect x="10.0" y="`,
		`<title>main.parse: 3 samples, 75.00 %</title><rect x="10.0" y="`,
		`" width="885.0" height="15" fill="rgb(`,
		`<title>write_[k]: 1 samples, 25.00 %</title><rect x="895.0" y="`,
		`" width="295.0" height="15" fill="rgb(2`, // kernel: orange
		`>a title</text>`, `>a key</text>`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("no %q in\n%s", want, doc)
		}
	}
	// Three rows: the root's at the bottom.
	if !strings.Contains(doc, `height="108"`) {
		t.Errorf("the graph is not 50 + 3×16 + 10 px high:\n%s", doc)
	}
	if SVG(nil, "empty", "") == "" {
		t.Error("no graph of no samples")
	}
}

func TestFit(t *testing.T) {
	for _, c := range []struct {
		name string
		w    float64
		want string
	}{{"runtime.mallocgc", 200, "runtime.mallocgc"}, {"runtime.mallocgc", 60, "runtim.."}, {"runtime.mallocgc", 20, ""}} {
		if got := fit(c.name, c.w); got != c.want {
			t.Errorf("fit(%q, %g) = %q, want %q", c.name, c.w, got, c.want)
		}
	}
}

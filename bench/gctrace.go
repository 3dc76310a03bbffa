package bench

import (
	"regexp"
	"strings"
	"time"
)

// GCTrace is the environment that makes a Go runtime trace each
// collection on its standard error.
const GCTrace = "GODEBUG=gctrace=1"

// GCs are the collections a Go runtime traced over a span of time.
type GCs struct {
	Count    int
	MaxPause time.Duration // the longest stop-the-world phase of any of them
}

// gcLine is a gctrace line: "gc 12 @3.512s 2%: 0.021+1.2+0.015 ms clock, ...";
// the first and last of the clock times are the two stop-the-world phases
// (sweep termination, mark termination), the middle one runs beside the
// program.
var gcLine = regexp.MustCompile(`^gc \d+ @([0-9.]+)s \d+%: ([0-9.]+)\+[0-9.]+\+([0-9.]+) ms clock`)

// GCsIn reads the collections in a Go program's output (GODEBUG=gctrace=1)
// that began in [from, to), the program's runtime having started at start.
func GCsIn(output string, start, from, to time.Time) GCs {
	var g GCs
	for _, line := range strings.Split(output, "\n") {
		m := gcLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		at := start.Add(parseUnit(m[1], "s"))
		if at.Before(from) || !at.Before(to) {
			continue
		}
		g.Count++
		g.MaxPause = max(g.MaxPause, parseUnit(m[2], "ms"), parseUnit(m[3], "ms"))
	}
	return g
}

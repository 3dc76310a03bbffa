package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A Lat is one point of make bench-latency: a server held at a fixed rate,
// open loop, its latency counted from each request's due time.
type Lat struct {
	Server string  `json:"server"`
	Label  string  `json:"point"` // "r=25000": the common ladder; "of=50%": a share of its own ceiling
	Rate   float64 `json:"rate"`  // asked, req/s
	Conns  int     `json:"connections"`
	Rounds int     `json:"rounds"`
	// ClientLimited and Short count the rounds left out: loadgen sent late
	// (its own rule), or the rate achieved was more than 1 % under the one
	// asked. The figures are over the rounds kept.
	ClientLimited int    `json:"client_limited_rounds"`
	Short         int    `json:"short_rounds"`
	ReqPerSec     Figure `json:"req_per_sec"`
	Samples       Figure `json:"samples"`
	P50           Figure `json:"p50_us"`
	P90           Figure `json:"p90_us"`
	P99           Figure `json:"p99_us"`
	P999          Figure `json:"p99_9_us"`
	P9999         Figure `json:"p99_99_us"`
	Max           Figure `json:"max_us"`
	// AllP999 is the p99.9 over every round, the left-out ones too: what
	// a client-limited point's lateness is set against.
	AllP999 Figure `json:"p99_9_us_all_rounds"`
	// LateP999 and LateMax are loadgen's own send lateness, over every
	// round.
	LateP999 Figure `json:"send_lateness_p99_9_us"`
	LateMax  Figure `json:"send_lateness_max_us"`
	// GCs and GCMax are the Go runtime's collections during the point and
	// the longest stop-the-world pause among them; nil where the server is
	// not a Go program the bench could trace.
	GCs   *Figure `json:"gcs,omitempty"`
	GCMax *Figure `json:"gc_max_pause_us,omitempty"`
	// FellOver counts rounds in which requests failed; Why is the first
	// failure. Such a point has no figures.
	FellOver int    `json:"fell_over,omitempty"`
	Why      string `json:"why,omitempty"`
}

// latRate is the ladder rate the tables and the chart use for every stack.
const latRate = 25000

// latPoint reads a BenchmarkLatency name, "server/r=25000/c=50", keeping
// the rounds in which loadgen kept its pace and the server its rate.
func latPoint(name string, s samples, why string) (Lat, bool) {
	rest, c, ok := cutLast(name, "/c=")
	n, err := strconv.Atoi(c)
	if !ok || err != nil {
		return Lat{}, false
	}
	server, label, ok := cutLast(rest, "/")
	if !ok || !strings.HasPrefix(label, "r=") && !strings.HasPrefix(label, "of=") {
		return Lat{}, false
	}
	l := Lat{Server: server, Label: label, Conns: n, Rounds: len(s["N"])}
	l.Rate = l.ladderRate()
	if f := s["fell-over"]; len(f) > 0 {
		l.FellOver, l.Why = len(f), why
		return l, true
	}
	l.Rate = s.figure("rate").Median
	keep := func(i int) bool {
		limited := i < len(s["client-limited"]) && s["client-limited"][i] == 1
		short := i < len(s["req/s"]) && i < len(s["rate"]) && s["req/s"][i] < 0.99*s["rate"][i]
		if limited {
			l.ClientLimited++
		} else if short {
			l.Short++
		}
		return !limited && !short
	}
	kept := samples{}
	for i := range l.Rounds {
		if !keep(i) {
			continue
		}
		for unit, v := range s {
			if i < len(v) {
				kept[unit] = append(kept[unit], v[i])
			}
		}
	}
	l.ReqPerSec, l.Samples = kept.figure("req/s"), kept.figure("samples")
	l.P50, l.P90, l.P99 = kept.figure("p50-us"), kept.figure("p90-us"), kept.figure("p99-us")
	l.P999, l.P9999, l.Max = kept.figure("p99.9-us"), kept.figure("p99.99-us"), kept.figure("max-us")
	l.LateP999, l.LateMax, l.AllP999 = s.figure("late-p99.9-us"), s.figure("late-max-us"), s.figure("p99.9-us")
	if _, ok := s["gcs"]; ok {
		g, m := kept.figure("gcs"), kept.figure("gc-max-us")
		l.GCs, l.GCMax = &g, &m
	}
	return l, true
}

// share is a point's share of its server's ceiling, 0 for the ladder.
func (l Lat) share() float64 {
	v, ok := strings.CutPrefix(l.Label, "of=")
	if !ok {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	return f
}

// title heads a point's table.
func (l Lat) title() string {
	if s := l.share(); s > 0 {
		return fmt.Sprintf("%g %% of each server's own keep-alive ceiling, %d connections", s, l.Conns)
	}
	return fmt.Sprintf("%s req/s, %d connections", num(l.ladderRate(), 0), l.Conns)
}

// ladderRate is a ladder point's rate, from its label; 0 for a share.
func (l Lat) ladderRate() float64 {
	v, ok := strings.CutPrefix(l.Label, "r=")
	if !ok {
		return 0
	}
	f, _ := strconv.ParseFloat(v, 64)
	return f
}

// sortLat puts the ladder first, by connections and rate, then the
// shares, each point's servers in table order.
func sortLat(ls []Lat) {
	sort.Slice(ls, func(i, j int) bool {
		a, b := ls[i], ls[j]
		switch {
		case a.share() != b.share():
			return a.share() < b.share()
		case a.Conns != b.Conns:
			return a.Conns < b.Conns
		case a.ladderRate() != b.ladderRate():
			return a.ladderRate() < b.ladderRate()
		}
		return rank(a.Server) < rank(b.Server)
	})
}

// latGroups splits the points by table: one per label and connections.
func latGroups(ls []Lat) [][]Lat {
	var groups [][]Lat
	for _, l := range ls {
		if n := len(groups); n > 0 && groups[n-1][0].Label == l.Label && groups[n-1][0].Conns == l.Conns {
			groups[n-1] = append(groups[n-1], l)
			continue
		}
		groups = append(groups, []Lat{l})
	}
	return groups
}

// latServers are the servers the run held at any rate, in table order.
func latServers(ls []Lat) []string {
	var out []string
	for _, s := range order() {
		if slices.ContainsFunc(ls, func(l Lat) bool { return l.Server == s }) {
			out = append(out, s)
		}
	}
	return out
}

// findLat returns a server's point by label and connections.
func findLat(ls []Lat, server, label string, conns int) (Lat, bool) {
	for _, l := range ls {
		if l.Server == server && l.Label == label && l.Conns == conns {
			return l, true
		}
	}
	return Lat{}, false
}

// gcCell is a point's collections: their count and the longest pause.
func gcCell(l Lat) string {
	if l.GCs == nil {
		return "not traced"
	}
	if l.GCs.Median == 0 && l.GCs.Hi == 0 {
		return "none"
	}
	return fmt.Sprintf("%s (longest %s µs)", spread(*l.GCs, 0), spread(*l.GCMax, 0))
}

// latCols is a latency table's columns after the server (and the rate asked).
const latCols = 9

// latRow is one server's row: its figures, or why it has none.
func latRow(l Lat, withRate bool) string {
	lead := "| " + l.Server + " |"
	if withRate {
		lead += " " + num(l.Rate, 0) + " |"
	}
	switch {
	case l.FellOver > 0:
		return lead + " fell over: " + l.Why + strings.Repeat(" |", latCols) + "\n"
	case l.P99.N == 0:
		return lead + fmt.Sprintf(" no round kept: %d of %d client-limited (loadgen's send lateness p99.9 %s µs, the latency p99.9 %s µs), %d short of the rate",
			l.ClientLimited, l.Rounds, spread(l.LateP999, 0), spread(l.AllP999, 0), l.Short) + strings.Repeat(" |", latCols) + "\n"
	}
	cells := []string{spread(l.ReqPerSec, 0), spread(l.P50, 0), spread(l.P90, 0), spread(l.P99, 0), spread(l.P999, 0),
		spread(l.P9999, 0), spread(l.Max, 0), gcCell(l), spread(l.LateP999, 0)}
	return lead + " " + strings.Join(cells, " | ") + " |\n"
}

// latTable is one point's table, every server held at it in a row.
func latTable(group []Lat, all []Lat) string {
	var b strings.Builder
	first := group[0]
	withRate := first.share() > 0
	fmt.Fprintf(&b, "### %s\n\n| server |", first.title())
	if withRate {
		b.WriteString(" rate asked, req/s |")
	}
	b.WriteString(" achieved req/s | p50 µs | p90 µs | p99 µs | p99.9 µs | p99.99 µs | max µs | collections (longest pause) | loadgen's send lateness p99.9 µs |\n|---|")
	if withRate {
		b.WriteString("--:|")
	}
	b.WriteString(strings.Repeat("--:|", latCols) + "\n")
	for _, l := range group {
		b.WriteString(latRow(l, withRate))
	}
	var skipped []string
	for _, s := range latServers(all) {
		if !slices.ContainsFunc(group, func(l Lat) bool { return l.Server == s }) {
			skipped = append(skipped, s)
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "\nNot held at this rate, above 90 %% of its ceiling: %s.\n", strings.Join(skipped, ", "))
	}
	var left []string
	for _, l := range group {
		if l.ClientLimited+l.Short > 0 && l.P99.N > 0 {
			left = append(left, fmt.Sprintf("%s %d of %d", l.Server, l.ClientLimited+l.Short, l.Rounds))
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(&b, "\nRounds left out (loadgen client-limited, or the rate achieved more than 1 %% short): %s.\n", strings.Join(left, ", "))
	}
	return b.String()
}

// latencySection is REPORT.md's part for make bench-latency.
func latencySection(rep Report) string {
	if len(rep.Latency) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(latIntro(rep) + "\n")
	b.WriteString("![Latency against percentile at " + num(latRate, 0) + " req/s](latency.svg)\n\n")
	for _, g := range latGroups(rep.Latency) {
		b.WriteString(latTable(g, rep.Latency) + "\n")
	}
	b.WriteString(source(rep, "latency") + "\n")
	return b.String()
}

// latIntro says how the points were measured.
func latIntro(rep Report) string {
	s := rep.Sections["latency"]
	return fmt.Sprintf("Each server, pinned as for the ceilings, held by loadgen at fixed rates on keep-alive connections, open loop: "+
		"each request is due at its time whatever the server does, and its latency counts from then, so a stall is charged to every request it delayed "+
		"(coordinated omission corrected). %s, each running every server once in its own order, and each server's points in an order that changes from round to round; "+
		"each point is a warm-up on its connections, then a measured run (its HdrHistogram interval log is in latency/). "+
		"A round counts only if loadgen kept its pace (send lateness p99.9 within the larger of 10 %% of the latency p99.9 and 50 µs) "+
		"and the server its rate (within 1 %%). Collections are the Go runtime's (GODEBUG=gctrace=1) that began during the measured run, "+
		"with the longest stop-the-world pause among them.\n\n%s\n",
		plural(s.Rounds, "round"), lateLine(rep.Latency))
}

// lateLine is loadgen's own send lateness at the top of the ladder,
// against nginx: how much of a tail the client itself could add.
func lateLine(ls []Lat) string {
	var top Lat
	for _, l := range ls {
		if l.Server == "nginx" && l.share() == 0 && l.Rate > top.Rate && l.FellOver == 0 {
			top = l
		}
	}
	if top.LateP999.N == 0 {
		return ""
	}
	return fmt.Sprintf("loadgen's own send lateness against nginx at %s req/s on %d connections: p99.9 %s µs, max %s µs (over %s).",
		num(top.Rate, 0), top.Conns, spread(top.LateP999, 0), spread(top.LateMax, 0), plural(top.LateP999.N, "round"))
}

// readmeLatency is the README's section: the table at the common rate.
func readmeLatency(rep Report) string {
	for _, g := range latGroups(rep.Latency) {
		if g[0].Label == "r="+strconv.Itoa(latRate) && g[0].Conns == conns {
			return latTable(g, rep.Latency) + "\n" + lateLine(rep.Latency) + "\n\n" + source(rep, "latency") + "\n"
		}
	}
	return ""
}

// nines is where a percentile goes on the chart's axis: 1 / (1 - q), so
// that on a log axis each nine is one step.
var nines = []struct {
	q     float64
	label string
	val   func(Lat) Figure
}{
	{0.5, "50 %", func(l Lat) Figure { return l.P50 }},
	{0.9, "90 %", func(l Lat) Figure { return l.P90 }},
	{0.99, "99 %", func(l Lat) Figure { return l.P99 }},
	{0.999, "99.9 %", func(l Lat) Figure { return l.P999 }},
	{0.9999, "99.99 %", func(l Lat) Figure { return l.P9999 }},
}

// latencySVG draws each stack's latency against percentile at the common
// rate, HdrHistogram's plot: one line per server.
func latencySVG(rep Report) string {
	var ps []Point
	var missing []string
	for _, l := range rep.Latency {
		if l.Label != "r="+strconv.Itoa(latRate) || l.Conns != conns {
			continue
		}
		if l.P99.N == 0 {
			missing = append(missing, l.Server)
			continue
		}
		// The line chart draws Points: each percentile is one, its figure
		// in P50 and its place on the nines axis in Wait.
		for _, n := range nines {
			ps = append(ps, Point{Server: l.Server, Mode: "keepalive", Conns: l.Conns, P50: n.val(l), Wait: 1 / (1 - n.q)})
		}
	}
	if len(ps) == 0 {
		return ""
	}
	s := &svg{}
	s.heading(fmt.Sprintf("Latency against percentile at a steady %s req/s, keep-alive, %d connections", num(latRate, 0), conns),
		"marker: median of the rounds; whisker: their range; latency from each request's due time")
	y := s.sweepPanel(ps, chartPanel{ytitle: "latency, µs (log scale)", log: true,
		val:    func(p Point) Figure { return p.P50 },
		tick:   countTick,
		tip:    func(v float64) string { return num(v, 0) + " µs" },
		x:      func(p Point) float64 { return p.Wait },
		xtick:  nineOf,
		xtitle: "percentile (each step one more nine)",
		at: func(p Point) string {
			return fmt.Sprintf("p%s", strings.TrimSuffix(nineOf(p.Wait), " %"))
		},
	}, 64)
	if len(missing) > 0 {
		s.text(10, y+10, dim, "not shown, no round kept (the client fell behind, or the server short of the rate): "+strings.Join(missing, ", "))
		y += 18
	}
	return s.finishSweep(ps, y)
}

// nineOf labels an axis position.
func nineOf(x float64) string {
	for _, n := range nines {
		if math.Abs(1/(1-n.q)-x) < 1e-6*x {
			return n.label
		}
	}
	return plainTick(x)
}

package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"hellobench/bench"
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
	// CPU is the server's CPU time per request over loadgen's measured
	// span and Busy its core's busy share there, in percent, over every
	// round (the server served what it was sent, however late the client
	// sent it), so that they pair round by round with another server's;
	// nil in a run from before they were measured.
	CPU  *Figure `json:"cpu_us_per_req,omitempty"`
	Busy *Figure `json:"server_cpu_pct,omitempty"`
	// HostP99, HostP999 and HostMax are the host's own stalls during the
	// point (package stall: how late a thread sleeping 1 ms woke, the worse
	// of the server's and the client's CPUs), over the rounds kept; nil
	// without the meter. HostRealTime says its sleepers ran real-time.
	HostP99      *Figure `json:"host_stall_p99_us,omitempty"`
	HostP999     *Figure `json:"host_stall_p99_9_us,omitempty"`
	HostMax      *Figure `json:"host_stall_max_us,omitempty"`
	HostRealTime bool    `json:"host_stall_realtime,omitempty"`
	// FellOver counts rounds in which requests failed; Why is the first
	// failure. Such a point has no figures.
	FellOver int    `json:"fell_over,omitempty"`
	Why      string `json:"why,omitempty"`
}

// optional is unit's figure, nil where no round has it.
func optional(s Samples, unit string) *Figure {
	if len(s[unit]) == 0 {
		return nil
	}
	f := s.figure(unit)
	return &f
}

// LatRate is the ladder rate the tables and the chart use for every stack.
const LatRate = 25000

// LatPoint reads a BenchmarkLatency name, "server/r=25000/c=50", keeping
// the rounds in which loadgen kept its pace and the server its rate.
func LatPoint(name string, s Samples, why string) (Lat, bool) {
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
		// A client late by no more than the host's own stall p99.9 in the
		// same round (the meter on its CPU and the server's) was held up
		// by the host, as the server was: its round counts, and the table
		// marks the percentiles the host's stalls reach.
		byHost := i < len(s["host-p99.9-us"]) && i < len(s["late-p99.9-us"]) && s["late-p99.9-us"][i] <= s["host-p99.9-us"][i]
		limited := i < len(s["client-limited"]) && s["client-limited"][i] == 1 && !byHost
		short := i < len(s["req/s"]) && i < len(s["rate"]) && s["req/s"][i] < 0.99*s["rate"][i]
		if limited {
			l.ClientLimited++
		} else if short {
			l.Short++
		}
		return !limited && !short
	}
	kept := Samples{}
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
	l.CPU, l.Busy = optional(s, "cpu-us/req"), optional(s, "cpu-%")
	l.HostP99, l.HostP999, l.HostMax = optional(kept, "host-p99-us"), optional(kept, "host-p99.9-us"), optional(kept, "host-max-us")
	l.HostRealTime = l.HostMax != nil && !slices.Contains(s["host-rt"], 0)
	if _, ok := s["gcs"]; ok {
		g, m := kept.figure("gcs"), kept.figure("gc-max-us")
		l.GCs, l.GCMax = &g, &m
	}
	return l, true
}

// Share is a point's share of its server's ceiling, 0 for the ladder.
func (l Lat) Share() float64 {
	v, ok := strings.CutPrefix(l.Label, "of=")
	if !ok {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	return f
}

// Title heads a point's table.
func (l Lat) Title() string {
	if s := l.Share(); s > 0 {
		return fmt.Sprintf("%g %% of each server's own keep-alive ceiling, %d connections", s, l.Conns)
	}
	return fmt.Sprintf("%s req/s, %d connections", bench.Num(l.ladderRate(), 0), l.Conns)
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

// SortLat puts the ladder first, by connections and rate, then the
// shares, each point's servers in table order.
func SortLat(ls []Lat) {
	sort.Slice(ls, func(i, j int) bool {
		a, b := ls[i], ls[j]
		switch {
		case a.Share() != b.Share():
			return a.Share() < b.Share()
		case a.Conns != b.Conns:
			return a.Conns < b.Conns
		case a.ladderRate() != b.ladderRate():
			return a.ladderRate() < b.ladderRate()
		case Rank(a.Server) != Rank(b.Server):
			return Rank(a.Server) < Rank(b.Server)
		}
		return a.Server < b.Server
	})
}

// LatGroups splits the points by table: one per label and connections.
func LatGroups(ls []Lat) [][]Lat {
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

// LatServers are the servers the run held at any rate, in table order.
func LatServers(ls []Lat) []string {
	var out []string
	for _, l := range ls {
		if !slices.Contains(out, l.Server) {
			out = append(out, l.Server)
		}
	}
	slices.SortFunc(out, CompareServers)
	return out
}

// CompareServers orders servers as the tables do: by Rank, then by name
// (nginx before its second instances).
func CompareServers(a, b string) int {
	if Rank(a) != Rank(b) {
		return Rank(a) - Rank(b)
	}
	return strings.Compare(a, b)
}

// FindLat returns a server's point by label and connections.
func FindLat(ls []Lat, server, label string, conns int) (Lat, bool) {
	for _, l := range ls {
		if l.Server == server && l.Label == label && l.Conns == conns {
			return l, true
		}
	}
	return Lat{}, false
}

package bench

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hellobench/bench/stall"
	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

var (
	flagRates     = flag.String("rates", "10000,25000,40000,55000", "BenchmarkLatency's ladder of rates in req/s, common to every server")
	flagOf        = flag.String("of", "0.1,0.25,0.5,0.75,0.9", "BenchmarkLatency's rates as shares of each server's own ceiling (-ceilings)")
	flagCeilings  = flag.String("ceilings", "", "BenchmarkLatency's keep-alive ceiling of each server, name=req/s,...: a rate above 90 % of it is skipped")
	flagManyConns = flag.Int("many-conns", 1000, "BenchmarkLatency's point on many connections: this many (0: none)")
	flagManyRate  = flag.Float64("many-rate", 25000, "the rate of the point on many connections, req/s")
	// Three rounds of 3.5 s give each point over 10 s, 35 000 requests a
	// round at the ladder's lowest rate, in about twenty minutes.
	flagLatFor     = flag.Duration("lat-for", 3500*time.Millisecond, "how long each BenchmarkLatency point is measured, after -lat-warmup")
	flagLatWarmup  = flag.Duration("lat-warmup", 500*time.Millisecond, "the warm-up of each BenchmarkLatency point, at its rate on its connections")
	flagLatLogs    = flag.String("lat-logs", "", "a directory for each BenchmarkLatency point's HdrHistogram interval log, gzip-compressed (\"\": none)")
	flagLatLogsOf  = flag.String("lat-logs-of", "", "the one BenchmarkLatency point whose logs -lat-logs keeps, as its benchmark names it: r=25000/c=50 (\"\": every point)")
	flagLatServers = flag.String("lat-servers", "", "BenchmarkLatency's servers (default: every server and reference, and nginx's A/A twin)")
	// A 1 ms sleep, jHiccup's default: a thousand wake-ups a second on each
	// CPU, a fraction of a percent of it.
	flagStall = flag.Duration("stall", time.Millisecond, "BenchmarkLatency's host stall meter: the sleep of its thread on the server's and the client's CPUs (0: no meter)")
)

// usagePeriod is how often a latency point samples the server's CPU time:
// the measured span's ends are found to within it, a few parts in a
// thousand of a point's seconds.
const usagePeriod = 20 * time.Millisecond

// maxShare is the share of a server's ceiling above which a rate of the
// ladder is skipped: nearer the ceiling, latency measures the queue.
const maxShare = 0.9

// A ratePoint is one fixed rate a server is held at.
type ratePoint struct {
	label string // "r=25000" (the ladder) or "of=50%" (a share of its ceiling)
	rate  float64
	conns int
}

// BenchmarkLatency holds each server at fixed rates, open loop, and
// reports its latency curve from each request's due time (coordinated
// omission corrected), loadgen's own send lateness, and for a Go runtime
// its collections over the point. The points: the -rates ladder, the -of
// shares of its own -ceilings, and -many-rate on -many-conns connections;
// a rate above 90 % of the server's ceiling is skipped. With -block, the
// servers and the points run in that block's order. b.N is not used.
func BenchmarkLatency(b *testing.B) { holdAll(b, latencyServers()) }

// holdAll holds each of names at its points, in the block's order.
func holdAll(b *testing.B, names []string) {
	cfg, client := setup(b)
	withCeilings(b, names, *flagLatServers != "", func(name string, ceil float64) {
		points := ratePoints(b, ceil)
		if *flagBlock >= 0 {
			points = permute(points, *flagBlock)
		}
		b.Run(name, func(b *testing.B) {
			held(b, cfg, client, name, points)
		})
	})
}

// withCeilings calls f for each of names, in the block's order (-block),
// with the keep-alive ceiling -ceilings gives its table name. A server
// without one fails the benchmark when required (names were asked for),
// and is otherwise left out, and said so: a target newer than the
// ceilings' run.
func withCeilings(b *testing.B, names []string, required bool, f func(name string, ceiling float64)) {
	ceilings := parseCeilings(b, *flagCeilings)
	if *flagBlock >= 0 {
		names = permute(names, *flagBlock)
	}
	for _, name := range names {
		ceil, ok := ceilings[baseName(name)]
		switch {
		case !ok && !required:
			b.Logf("-ceilings has no ceiling for %s, newer than their run: left out (make bench measures it)", name)
			continue
		case !ok:
			b.Fatalf("-ceilings has no ceiling for %s: run make bench first", name)
		}
		f(name, ceil)
	}
}

// held starts the server once and measures each point on it.
func held(b *testing.B, cfg Config, client Client, name string, points []ratePoint) {
	t, err := targets.Lookup(baseName(name))
	if err != nil {
		b.Fatal(err)
	}
	if t.GoRuntime {
		cfg.Vars = append(cfg.Vars, GCTrace)
	}
	began := time.Now() // the runtime starts a few ms later: well inside a point's warm-up
	s := start(b, cfg, name)
	for _, p := range points {
		b.Run(fmt.Sprintf("%s/c=%d", p.label, p.conns), func(b *testing.B) {
			atRate(b, cfg, client, s, p, t.GoRuntime, began)
		})
	}
}

// atRate measures one point: -lat-warmup, then -lat-for at p.rate.
func atRate(b *testing.B, cfg Config, client Client, s *Server, p ratePoint, traced bool, began time.Time) {
	// The client polls between sends: sleeping, it wakes tens of µs late
	// on this kind of machine, and each late wake-up is latency the server
	// did not cause.
	l := Load{URL: s.URL(), Mode: KeepAlive, Connections: p.conns, Duration: *flagLatFor, Rate: p.rate, Warmup: *flagLatWarmup, Spin: true}
	if *flagLatLogs != "" && (*flagLatLogsOf == "" || *flagLatLogsOf == fmt.Sprintf("%s/c=%d", p.label, p.conns)) {
		l.Log = filepath.Join(*flagLatLogs, fmt.Sprintf("%s_%s_c%d_b%d.hlog.gz", strings.ReplaceAll(s.Name, "/", "-"),
			strings.NewReplacer("=", "", "%", "pc").Replace(p.label), p.conns, max(*flagBlock, 0)))
		if err := os.MkdirAll(*flagLatLogs, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	var meter *stall.Meter
	if !strings.HasSuffix(s.Name, QuietSuffix) {
		meter = startMeter(b, cfg)
	}
	usage := logUsage(s, usagePeriod)
	st, err := client.Run(l)
	usageErr := usage.Stop()
	var host []stall.Result
	if meter != nil {
		host = meter.Stop()
	}
	if err != nil {
		fellOver(b, err)
		return
	}
	if usageErr != nil {
		b.Fatal(usageErr)
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(p.rate, "rate")
	b.ReportMetric(st.ReqPerSec, "req/s")
	b.ReportMetric(float64(st.Requests), "samples")
	b.ReportMetric(us(st.P50), "p50-us")
	b.ReportMetric(us(st.Tail.P90), "p90-us")
	b.ReportMetric(us(st.P99), "p99-us")
	b.ReportMetric(us(st.Tail.P999), "p99.9-us")
	b.ReportMetric(us(st.Tail.P9999), "p99.99-us")
	b.ReportMetric(us(st.Tail.Max), "max-us")
	b.ReportMetric(us(st.Tail.LateP999), "late-p99.9-us")
	b.ReportMetric(us(st.Tail.LateMax), "late-max-us")
	b.ReportMetric(b2f(st.ClientLimited), "client-limited")
	// The server's CPU over loadgen's measured span alone: the warm-up ran
	// on the same connections at the same rate, but its requests are not
	// counted.
	if cpu, busy, ok := usage.perRequest(st); ok {
		b.ReportMetric(cpu, "cpu-us/req")
		usage.perRequestSplit(st).report(b)
		b.ReportMetric(busy, "cpu-%")
	}
	if host != nil {
		w := stall.Worst(host)
		b.ReportMetric(us(w.P99), "host-p99-us")
		b.ReportMetric(us(w.P999), "host-p99.9-us")
		b.ReportMetric(us(w.Max), "host-max-us")
		b.ReportMetric(b2f(w.RealTime), "host-rt")
	}
	if traced {
		g := GCsIn(s.Proc.Output().String(), began, st.Start, st.Start.Add(st.Elapsed))
		b.ReportMetric(float64(g.Count), "gcs")
		b.ReportMetric(us(g.MaxPause), "gc-max-us")
	}
}

// startMeter starts the host's stall meter on the server's and the
// client's CPUs (none with -stall 0, or where they are not pinned).
func startMeter(b *testing.B, cfg Config) *stall.Meter {
	if *flagStall <= 0 || cfg.ServerCPUs == "" || cfg.ClientCPUs == "" {
		return nil
	}
	var cpus []int
	for _, list := range []string{cfg.ServerCPUs, cfg.ClientCPUs} {
		c, err := proc.ParseCPUs(list)
		if err != nil {
			b.Fatal(err)
		}
		cpus = append(cpus, c...)
	}
	slices.Sort(cpus)
	m, err := stall.Start(slices.Compact(cpus), *flagStall)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// ratePoints are a server's points given its ceiling: the ladder's rates
// up to 90 % of it, the shares of it, and the point on many connections.
func ratePoints(b *testing.B, ceiling float64) []ratePoint {
	var ps []ratePoint
	for _, f := range strings.Split(*flagRates, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || r <= 0 {
			b.Fatalf("-rates: bad rate %q", f)
		}
		if r <= maxShare*ceiling {
			ps = append(ps, ratePoint{fmt.Sprintf("r=%g", r), r, *flagConns})
		}
	}
	if *flagOf != "" {
		for _, f := range strings.Split(*flagOf, ",") {
			s, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || s <= 0 || s > maxShare {
				b.Fatalf("-of: bad share %q (above 0 and at most %g)", f, maxShare)
			}
			ps = append(ps, ratePoint{fmt.Sprintf("of=%g%%", 100*s), s * ceiling, *flagConns})
		}
	}
	if *flagManyConns > 0 && *flagManyRate <= maxShare*ceiling {
		ps = append(ps, ratePoint{fmt.Sprintf("r=%g", *flagManyRate), *flagManyRate, *flagManyConns})
	}
	return ps
}

// parseCeilings reads -ceilings: name=req/s,...
func parseCeilings(b *testing.B, list string) map[string]float64 {
	m := map[string]float64{}
	if list == "" {
		return m
	}
	for _, f := range strings.Split(list, ",") {
		name, v, ok := strings.Cut(strings.TrimSpace(f), "=")
		r, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || r <= 0 {
			b.Fatalf("-ceilings: bad entry %q (want name=req/s)", f)
		}
		m[name] = r
	}
	return m
}

// baseName is a target's name in the table, without the suffix of a
// second instance (TwinSuffix, QuietSuffix).
func baseName(name string) string {
	name, _ = strings.CutSuffix(name, TwinSuffix)
	name, _ = strings.CutSuffix(name, QuietSuffix)
	return name
}

// latencyServers are BenchmarkLatency's servers: every server and
// reference of the table, and nginx's A/A twin beside nginx, the row that
// says how far two runs of one server differ at a rate.
func latencyServers() []string {
	if *flagLatServers != "" {
		return strings.Split(*flagLatServers, ",")
	}
	var names []string
	for _, n := range targets.Names() {
		names = append(names, n)
		if n == "nginx" {
			names = append(names, n+TwinSuffix)
		}
	}
	return names
}

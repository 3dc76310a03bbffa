package bench

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

var (
	flagServers = flag.String("servers", "", "comma-separated servers to measure (default: every Go server and reference)")
	flagModes   = flag.String("modes", "", "comma-separated modes: keepalive, close, pipeline, json, conn10 (default: all)")
	flagConns   = flag.Int("conns", 50, "connections of the ceiling benchmarks")
	flagSweep   = flag.String("sweep", "1,10,50,100,1000,5000,10000", "connection counts of BenchmarkSweep")
	flagIdle    = flag.String("idle", "1000,10000", "connection counts of BenchmarkIdle")
	flagQuiet   = flag.Duration("quiet", 3*time.Second, "how long BenchmarkIdle's connections stay quiet")
	flagCores   = flag.String("cores", "1,2", "core counts of BenchmarkScale, each at most the CPUs in SERVER_CPUS")
	flagWarmup  = flag.Int("warmup", 5000, "requests sent before each measured run, not counted")
	flagBlock   = flag.Int("block", -1, "the block this run is: BenchmarkCeiling runs the servers in the block's order (bench.Order); -1: table order")
	flagFor     = flag.Duration("for", 0, "measure each ceiling run for this long instead of -benchtime's count of requests (run with -benchtime 1x)")
)

// BenchmarkCeiling measures each server on one core: b.N requests from
// loadgen per run (or -for a duration), in each mode. Run it with
// -benchtime Nx (a count): each call starts the server afresh. With -block,
// the servers run in that block's order, so that a run of many blocks
// alternates them without any always following the same one. The servers
// include nginx's A/A twin, a second nginx measured like any other target:
// its ratio to nginx is the run's noise floor.
func BenchmarkCeiling(b *testing.B) {
	cfg, client := setup(b)
	names := ceilingServers()
	if *flagBlock >= 0 {
		names = permute(names, *flagBlock)
	}
	for _, mode := range modes(b) {
		l := Load{Mode: mode, Connections: *flagConns}
		ref := startReference(b, cfg, client, l)
		for _, name := range names {
			if mode == JSON && !servesJSON(name) {
				continue
			}
			b.Run(name+"/"+string(mode), func(b *testing.B) {
				ceiling(b, cfg, client, name, Work{}, l, ref)
			})
		}
	}
}

// ceilingServers are the servers of the ceilings: every target, and
// nginx's A/A twin beside nginx, unless -servers says otherwise.
func ceilingServers() []string {
	if *flagServers != "" {
		return servers()
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

// servesJSON says whether the target answers page.JSONPath: every
// server, and nginx with a fixed string; the floors and lighttpd's static
// file serve the page alone.
func servesJSON(name string) bool {
	name = strings.TrimSuffix(name, TwinSuffix)
	t, err := targets.Lookup(name)
	return err == nil && (t.Kind == targets.Server || name == "nginx")
}

// BenchmarkSweep measures each server keep-alive at several concurrencies.
func BenchmarkSweep(b *testing.B) {
	cfg, client := setup(b)
	for _, name := range servers() {
		for _, c := range counts(b, "sweep", *flagSweep) {
			b.Run(name+"/c="+strconv.Itoa(c), func(b *testing.B) {
				if err := measure(b, cfg, client, name, Load{Mode: KeepAlive, Connections: c}); err != nil {
					fellOver(b, err)
				}
			})
		}
	}
}

// BenchmarkIdle opens each count of -idle connections to each server, one
// request on each, and reports the memory each idle connection holds and
// the CPU the server spends while they idle. b.N is not used: one pass per
// call.
func BenchmarkIdle(b *testing.B) {
	cfg, err := DefaultConfig()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range servers() {
		for _, c := range counts(b, "idle", *flagIdle) {
			b.Run(name+"/c="+strconv.Itoa(c), func(b *testing.B) {
				s := start(b, cfg, name)
				r, err := Idle(s, c, *flagQuiet)
				if err != nil {
					b.Fatal(err)
				}
				reportIdle(b, r)
			})
		}
	}
}

// reportIdle reports an idle run's connections held, memory per
// connection and CPU while quiet, and why connections were lost if any
// were.
func reportIdle(b *testing.B, r IdleResult) {
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(r.Held), "held")
	b.ReportMetric(r.PerConn, "rss-B/conn")
	b.ReportMetric(r.IdleCPU, "idle-cpu-ms/s")
	if r.Err != nil {
		b.Logf("%d of %d connections held; the first lost: %v", r.Held, r.Conns, r.Err)
	}
}

// BenchmarkScale measures each server keep-alive on 1, 2, … cores: the
// first k CPUs of the server's CPU set with GOMAXPROCS=k and each stack's
// multi-core form (nginx's and lighttpd's workers; the Go runtime's Ps).
// Where the server's and the client's CPU sets overlap, they share cores:
// the report says so.
func BenchmarkScale(b *testing.B) {
	cfg, client := setup(b)
	cpus, err := proc.ParseCPUs(cfg.ServerCPUs)
	if err != nil {
		b.Fatalf("SERVER_CPUS: %v", err)
	}
	for _, name := range servers() {
		for _, k := range counts(b, "cores", *flagCores) {
			if k > len(cpus) {
				b.Fatalf("-cores %d: SERVER_CPUS=%s has only %d CPUs", k, cfg.ServerCPUs, len(cpus))
			}
			b.Run(name+"/cores="+strconv.Itoa(k), func(b *testing.B) {
				c := cfg
				c.ServerCPUs, c.Procs = cpuList(cpus[:k]), k
				ceiling(b, c, client, name, Work{}, Load{Mode: KeepAlive, Connections: *flagConns}, nil)
			})
		}
	}
}

// cpuList writes CPUs as a taskset list.
func cpuList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// counts reads a comma-separated list of connection counts.
func counts(b *testing.B, name, list string) []int {
	var cs []int
	for _, f := range strings.Split(list, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || c <= 0 {
			b.Fatalf("-%s: bad connection count %q", name, f)
		}
		cs = append(cs, c)
	}
	return cs
}

// start starts the named server for b and stops it when b ends; a server
// that is not installed skips b.
func start(b *testing.B, cfg Config, name string) *Server {
	return startWith(b, cfg, name, Work{})
}

// startWith is start with handler work.
func startWith(b *testing.B, cfg Config, name string, w Work) *Server {
	s, err := cfg.StartWith(name, "", w)
	if errors.Is(err, ErrMissing) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := s.Stop(); err != nil {
			b.Error(err)
		}
	})
	return s
}

func setup(b *testing.B) (Config, Client) {
	return loadgenSetup(b)
}

// loadgenSetup is the default configuration and loadgen on the client's
// CPUs; it skips b where loadgen is not built.
func loadgenSetup(b *testing.B) (Config, Loadgen) {
	cfg, err := DefaultConfig()
	if err != nil {
		b.Fatal(err)
	}
	bin, err := cfg.Binary("loadgen")
	if errors.Is(err, ErrMissing) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	return cfg, Loadgen{Bin: bin, CPUs: cfg.ClientCPUs}
}

// ceiling measures one ceiling run, raising the connections until the
// server is saturated (Saturate); a run that never saturates it is
// reported with saturated=0: it is then no ceiling. With a reference, the
// reference rounds right before and after it are reported as ref-us/req.
func ceiling(b *testing.B, cfg Config, client Client, name string, w Work, l Load, ref *reference) {
	if !measured(b) {
		return // testing's probe with N=1: nothing to saturate
	}
	before := ref.before(b)
	s, l, err := prepare(b, cfg, client, name, w, l)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	c, err := Saturate(s, client, l)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	Report(b, c.Result)
	ref.after(b, before)
	b.ReportMetric(float64(c.Connections), "conns")
	b.ReportMetric(b2f(c.Saturated), "saturated")
	if !c.Saturated {
		b.Logf("%s never saturated (%.1f %% busy at %d connections, the client %.0f %%): not a ceiling", name, c.Busy(), c.Connections, c.ClientBusy())
	}
}

// measured reports whether b is a measured run, not testing's probe with N=1
// before a -benchtime count (with -for, the one run is the measured one).
func measured(b *testing.B) bool { return b.N > 1 || *flagFor > 0 }

// prepare starts the server (with handler work w) and warms it up, and returns the load to measure
// it with: b.N requests, or -for a duration.
func prepare(b *testing.B, cfg Config, client Client, name string, w Work, l Load) (*Server, Load, error) {
	s := startWith(b, cfg, name, w)
	l.URL = l.Mode.URL(s)
	if measured(b) {
		if err := warmed(client, l); err != nil {
			return s, l, fmt.Errorf("warm-up: %v", err)
		}
	}
	l.Requests = b.N
	if *flagFor > 0 {
		l.Requests, l.Duration = 0, *flagFor
	}
	return s, l, nil
}

// warmed sends -warmup requests as l would, not counted.
func warmed(client Client, l Load) error {
	if *flagWarmup <= 0 {
		return nil
	}
	l.Requests = *flagWarmup
	_, err := client.Run(l)
	return err
}

// measure starts the server, warms it up and measures one run into b's
// figures, or returns why it could not.
func measure(b *testing.B, cfg Config, client Client, name string, l Load) error {
	s, l, err := prepare(b, cfg, client, name, Work{}, l)
	if err != nil {
		return err
	}
	b.ResetTimer()
	r, err := Measure(s, client, l)
	b.StopTimer()
	if err != nil {
		return err
	}
	Report(b, r)
	return nil
}

// fellOver records, in the sweep, a server that failed requests at a
// concurrency: where a stack falls over is a result, with its reason.
func fellOver(b *testing.B, err error) {
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(1, "fell-over")
	b.Logf("%s%v", fellOverPrefix, err)
}

// b2f is 1 for true: a benchmark metric's yes.
func b2f(v bool) float64 {
	if v {
		return 1
	}
	return 0
}

// fellOverPrefix starts the log line that says why; the report reads it.
const fellOverPrefix = "fell over: "

// report adds the split's user-us/req and sys-us/req beside a
// benchmark's cpu-us/req, where the CPU source splits it.
func (s Split) report(b *testing.B) {
	if s.OK {
		b.ReportMetric(s.User, "user-us/req")
		b.ReportMetric(s.Sys, "sys-us/req")
	}
}

// Report adds r's figures to the benchmark line. The units are the report
// writer's keys.
func Report(b *testing.B, r Result) {
	b.ReportMetric(0, "ns/op") // wall time per request is req/s again, less precisely
	b.ReportMetric(r.ReqPerSec, "req/s")
	b.ReportMetric(float64(r.P50)/float64(time.Microsecond), "p50-us")
	b.ReportMetric(float64(r.P99)/float64(time.Microsecond), "p99-us")
	b.ReportMetric(r.Busy(), "cpu-%")
	b.ReportMetric(r.ClientBusy(), "client-cpu-%")
	b.ReportMetric(r.ClientCPUPerRequest(), "client-us/req")
	b.ReportMetric(r.CPUPerRequest(), "cpu-us/req")
	r.CPUSplit().report(b)
	if r.AppCPU > 0 {
		b.ReportMetric(float64(r.AppCPU)/float64(time.Microsecond)/float64(r.Requests), "app-us/req")
	}
	b.ReportMetric(float64(r.PeakRSS)/(1<<20), "rss-MB")
	if measured(b) && r.Busy() < Saturated {
		b.Logf("%s's core was %.0f%% busy, under %.0f%% (the client's %.0f%%): req/s is not its ceiling", r.Server, r.Busy(), Saturated, r.ClientBusy())
	}
}

func servers() []string {
	if *flagServers != "" {
		return strings.Split(*flagServers, ",")
	}
	return targets.Names()
}

func modes(b *testing.B) []Mode {
	if *flagModes == "" {
		return Modes
	}
	var ms []Mode
	for _, m := range strings.Split(*flagModes, ",") {
		switch Mode(m) {
		case KeepAlive, Close, Pipeline, JSON, Conn10:
			ms = append(ms, Mode(m))
		default:
			b.Fatalf("-modes: unknown mode %q (keepalive, close, pipeline, json, conn10)", m)
		}
	}
	return ms
}

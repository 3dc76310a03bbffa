package bench

import (
	"errors"
	"flag"
	"strconv"
	"strings"
	"testing"
	"time"

	"hellobench/internal/targets"
)

var (
	flagServers = flag.String("servers", "", "comma-separated servers to measure (default: every Go server and reference)")
	flagModes   = flag.String("modes", "", "comma-separated modes: keepalive, close, pipeline (default: all)")
	flagConns   = flag.Int("conns", 50, "connections of the ceiling benchmarks")
	flagSweep   = flag.String("sweep", "1,10,50,200,1000", "connection counts of BenchmarkSweep")
	flagWarmup  = flag.Int("warmup", 5000, "requests sent before each measured run, not counted")
)

// BenchmarkCeiling measures each server on one core: b.N requests from
// loadgen per run, in each mode. Run it with -benchtime Nx (a count): each
// call starts the server afresh.
func BenchmarkCeiling(b *testing.B) {
	cfg, client := setup(b)
	for _, name := range servers() {
		for _, mode := range modes(b) {
			b.Run(name+"/"+string(mode), func(b *testing.B) {
				ceiling(b, cfg, client, name, Load{Mode: mode, Connections: *flagConns})
			})
		}
	}
}

// BenchmarkSweep measures each server keep-alive at several concurrencies.
func BenchmarkSweep(b *testing.B) {
	cfg, client := setup(b)
	for _, name := range servers() {
		for _, f := range strings.Split(*flagSweep, ",") {
			c, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || c <= 0 {
				b.Fatalf("-sweep: bad connection count %q", f)
			}
			b.Run(name+"/c="+strconv.Itoa(c), func(b *testing.B) {
				ceiling(b, cfg, client, name, Load{Mode: KeepAlive, Connections: c})
			})
		}
	}
}

func setup(b *testing.B) (Config, Client) {
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

func ceiling(b *testing.B, cfg Config, client Client, name string, l Load) {
	s, err := cfg.Start(name, "")
	if errors.Is(err, ErrMissing) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := s.Stop(); err != nil {
			b.Error(err)
		}
	}()
	l.URL = s.URL()
	if b.N > 1 && *flagWarmup > 0 {
		w := l
		w.Requests = *flagWarmup
		if _, err := client.Run(w); err != nil {
			b.Fatalf("warm-up: %v", err)
		}
	}
	l.Requests = b.N
	b.ResetTimer()
	r, err := Measure(s, client, l)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	Report(b, r)
}

// Report adds r's figures to the benchmark line. The units are the report
// writer's keys.
func Report(b *testing.B, r Result) {
	b.ReportMetric(0, "ns/op") // wall time per request is req/s again, less precisely
	b.ReportMetric(r.ReqPerSec, "req/s")
	b.ReportMetric(float64(r.P50)/float64(time.Microsecond), "p50-us")
	b.ReportMetric(float64(r.P99)/float64(time.Microsecond), "p99-us")
	b.ReportMetric(r.Busy(), "cpu-%")
	b.ReportMetric(r.CPUPerRequest(), "cpu-us/req")
	if r.AppCPU > 0 {
		b.ReportMetric(float64(r.AppCPU)/float64(time.Microsecond)/float64(r.Requests), "app-us/req")
	}
	b.ReportMetric(float64(r.PeakRSS)/(1<<20), "rss-MB")
	if b.N > 1 && r.ClientBound() {
		b.Logf("client-bound: %s's core was %.0f%% busy, under %.0f%%: req/s is not its ceiling", r.Server, r.Busy(), Saturated)
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
		case KeepAlive, Close, Pipeline:
			ms = append(ms, Mode(m))
		default:
			b.Fatalf("-modes: unknown mode %q (keepalive, close, pipeline)", m)
		}
	}
	return ms
}

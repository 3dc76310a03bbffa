package bench

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"hellobench/internal/targets"
	"hellobench/page"
)

var (
	flagMinWaits    = flag.String("min-waits", "0,25us,50us,100us,200us", "BenchmarkMinWait's minimum waits for uring's io_uring waits (its -min-wait), whole µs, each run once in every block")
	flagMinWaitRate = flag.Float64("min-wait-rate", 0, "BenchmarkMinWait's rate, req/s; 0: -at of uring's keep-alive ceiling (-ceilings)")
)

// BenchmarkMinWait measures what io_uring's minimum wait buys below the
// ceiling: uring, started with each of -min-waits in turn (its -min-wait:
// a wait that has one completion returns only after that long, unless
// more arrive), held open loop at -at of its keep-alive ceiling (or at
// -min-wait-rate) on -conns connections, warmed up for -lat-warmup, then
// measured for -for: the server's CPU per request and the latency of each
// request from its due time. Each block runs every wait once, in the
// block's order (bench.Order), so that the host's drift falls on every
// wait alike and a wait is set against no wait in the same block. A run
// counts (held=1) when the server kept its rate within 1 %.
func BenchmarkMinWait(b *testing.B) {
	cfg, client := setup(b)
	waits, err := parseMinWaits(*flagMinWaits)
	if err != nil {
		b.Fatal(err)
	}
	if *flagFor <= 0 {
		b.Fatalf("-for %v: want a duration", *flagFor)
	}
	rate, level := *flagMinWaitRate, fmt.Sprintf("r=%g", *flagMinWaitRate)
	if rate <= 0 {
		if *flagAt <= 0 || *flagAt > maxShare {
			b.Fatalf("-at %g: want a share in (0, %g]", *flagAt, maxShare)
		}
		ceil, ok := parseCeilings(b, *flagCeilings)["uring"]
		if !ok {
			b.Fatal("-ceilings has no ceiling for uring: run make bench first, or give -min-wait-rate")
		}
		rate, level = *flagAt*ceil, fmt.Sprintf("of=%g%%", 100**flagAt)
	}
	if *flagBlock >= 0 {
		waits = permute(waits, *flagBlock)
	}
	for _, w := range waits {
		b.Run(fmt.Sprintf("uring/%s/min-wait=%dus", level, w.Microseconds()), func(b *testing.B) {
			s := startMinWait(b, cfg, w)
			l := Load{URL: s.URL(), Mode: KeepAlive, Connections: *flagConns, Duration: *flagFor, Rate: rate, Warmup: *flagLatWarmup, Spin: true}
			r := reportHeld(b, s, client, l)
			us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
			b.ReportMetric(us(r.Stats.P50), "p50-us")
			b.ReportMetric(us(r.Stats.P99), "p99-us")
		})
	}
}

// parseMinWaits reads -min-waits: durations, each a whole number of µs
// (the kernel's unit) from 0 to 1 s, none twice.
func parseMinWaits(list string) ([]time.Duration, error) {
	var waits []time.Duration
	for _, f := range strings.Split(list, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		switch {
		case err != nil:
			return nil, fmt.Errorf("-min-waits: %q is no duration (0, 25us, 1ms)", f)
		case d < 0 || d > time.Second || d%time.Microsecond != 0:
			return nil, fmt.Errorf("-min-waits: %v: want whole µs from 0 to 1s", d)
		case slices.Contains(waits, d):
			return nil, fmt.Errorf("-min-waits: %v twice", d)
		}
		waits = append(waits, d)
	}
	return waits, nil
}

// startMinWait starts uring with -min-wait wait (minWaitServer) and stops
// it when b ends.
func startMinWait(b *testing.B, cfg Config, wait time.Duration) *Server {
	s, err := minWaitServer(cfg, wait)
	if errors.Is(err, ErrMissing) {
		b.Skip(err) // io_uring refused here
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

// minWaitServer starts uring with -min-wait wait, placed as Config.Start
// places a target.
func minWaitServer(cfg Config, wait time.Duration) (*Server, error) {
	t, err := targets.Lookup("uring")
	if err != nil {
		return nil, err
	}
	if _, err := cfg.Binary(t.Name); err != nil {
		return nil, err
	}
	t.Args = append(slices.Clone(t.Args), "-min-wait", wait.String())
	in, err := t.Start(targets.Env{Root: cfg.Root, CPUs: cfg.ServerCPUs, Procs: cfg.Procs, StartTimeout: cfg.StartTimeout, Vars: cfg.Vars})
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	return &Server{in}, nil
}

// TestParseMinWaits: -min-waits takes whole µs from 0 to 1 s, once each,
// in the order given, and says what is wrong with anything else.
func TestParseMinWaits(t *testing.T) {
	got, err := parseMinWaits("0, 25us,50us,100us,200us,1ms")
	want := []time.Duration{0, 25 * time.Microsecond, 50 * time.Microsecond, 100 * time.Microsecond, 200 * time.Microsecond, time.Millisecond}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("parseMinWaits: %v, %v; want %v", got, err, want)
	}
	for list, msg := range map[string]string{
		"0,25":        `-min-waits: "25" is no duration (0, 25us, 1ms)`,
		"0,1500ns":    "-min-waits: 1.5µs: want whole µs from 0 to 1s",
		"-25us":       "-min-waits: -25µs: want whole µs from 0 to 1s",
		"2s":          "-min-waits: 2s: want whole µs from 0 to 1s",
		"25us,25us":   "-min-waits: 25µs twice",
		"0,,50us":     `-min-waits: "" is no duration (0, 25us, 1ms)`,
		"0.1ms,100us": "-min-waits: 100µs twice",
	} {
		if _, err := parseMinWaits(list); err == nil || err.Error() != msg {
			t.Errorf("parseMinWaits(%q): %v, want %q", list, err, msg)
		}
	}
}

// TestMinWaitServer: the server BenchmarkMinWait starts is uring, run
// with -min-wait as asked, and it answers.
func TestMinWaitServer(t *testing.T) {
	cfg, err := DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.ServerCPUs = "" // not pinned: a test, not a measurement
	s, err := minWaitServer(cfg, 50*time.Microsecond)
	if errors.Is(err, ErrMissing) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", s.PID()))
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
	if i := slices.Index(args, "-min-wait"); i < 0 || i+1 == len(args) || args[i+1] != "50µs" || !strings.HasSuffix(args[0], "uring") {
		t.Errorf("started as %q, want uring with -min-wait 50µs", args)
	}
	resp, err := http.Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(body, page.HTML) {
		t.Errorf("GET %s: %d, %d bytes; want 200 and the page", s.URL(), resp.StatusCode, len(body))
	}
}

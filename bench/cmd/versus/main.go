// Command versus compares servers side by side on one core: each target in
// turn is started pinned to CPU 0 with GOMAXPROCS=1 and driven by a client
// pinned to CPU 1, round after round (A B C A B C ...), and the medians of
// the rounds are printed with each target's CPU time per request as a ratio
// to the first target's, and the first target's to each other's.
//
// Usage:
//
//	versus [-client wrk|loadgen] [-c 50] [-d 5s] [-rounds 3] target...
//
// Targets: nethttp, gin, fasthttp, fiber, gnet, fcgi (lighttpd and the
// application's CPU are shown apart), nginx, lighttpd-static, floor.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"hellobench/bench"
	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("versus: ")
	clientName := flag.String("client", "loadgen", "load generator: `wrk` (keep-alive only) or loadgen")
	conns := flag.Int("c", 50, "connections")
	dur := flag.Duration("d", 5*time.Second, "duration of each measured run (wrk: whole seconds)")
	rounds := flag.Int("rounds", 3, "rounds; each runs every target once, in order")
	mode := flag.String("mode", "keepalive", "loadgen's mode: keepalive, close or pipeline")
	pairs := flag.Bool("pairs", false, "compare the targets in pairs (1st/2nd, 3rd/4th, …) rather than each with the first")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: versus [-client wrk|loadgen] [-c 50] [-d 5s] [-rounds 3] target...\ntargets: %s\n", strings.Join(targets.Names(), ", "))
		flag.PrintDefaults()
	}
	force := flag.Bool("force", false, "run even when another process is busy on the pinned CPUs")
	flag.Parse()
	names := flag.Args()
	if len(names) == 0 {
		flag.Usage()
		os.Exit(2)
	}
	for _, n := range names {
		base, bare := strings.CutSuffix(n, bench.BareSuffix)
		t, err := targets.Lookup(base)
		if err != nil {
			log.Fatal(err)
		}
		if bare && !t.Bare {
			log.Fatalf("%s: %s has no -bare (those that do: %s)", n, base, strings.Join(targets.Guarded(), ", "))
		}
	}
	if *pairs && len(names)%2 != 0 {
		log.Fatalf("-pairs needs an even number of targets, not %d", len(names))
	}
	if *rounds < 1 || *conns < 1 || *dur <= 0 {
		log.Fatal("-rounds, -c and -d must be positive")
	}
	if !slices.Contains([]bench.Mode{bench.KeepAlive, bench.Close, bench.Pipeline}, bench.Mode(*mode)) {
		log.Fatalf("unknown -mode %q", *mode)
	}

	cfg, err := bench.DefaultConfig()
	if err != nil {
		log.Fatal(err)
	}
	// Interrupted: stop every server and client started, print nothing more.
	proc.Handle("versus", 5*time.Second, nil)
	if forced, err := cfg.CheckQuiet(*force); err != nil {
		log.Fatal(err)
	} else if forced != "" {
		log.Printf("-force: %s", forced)
	}
	var client bench.Client
	switch *clientName {
	case "wrk":
		if *mode != string(bench.KeepAlive) {
			log.Fatal("wrk runs keep-alive only")
		}
		bin, err := exec.LookPath("wrk")
		if err != nil {
			log.Fatal("wrk is not installed (Debian package wrk)")
		}
		client = bench.Wrk{Bin: bin, CPUs: cfg.ClientCPUs}
	case "loadgen":
		bin, err := cfg.Binary("loadgen")
		if err != nil {
			log.Fatal(err)
		}
		client = bench.Loadgen{Bin: bin, CPUs: cfg.ClientCPUs}
	default:
		log.Fatalf("unknown -client %q: wrk or loadgen", *clientName)
	}

	results := make(map[string][]bench.Result)
	for r := 1; r <= *rounds; r++ {
		// Each round is a block in its own order: no target always runs
		// first, or after the same one.
		for _, i := range bench.Order(len(names), r-1) {
			t := names[i]
			res, err := once(cfg, client, t, bench.Load{Mode: bench.Mode(*mode), Connections: *conns, Duration: *dur})
			if err != nil {
				log.Fatal(err)
			}
			fmt.Fprintf(os.Stderr, "round %d %-16s %9.0f req/s %7.2f µs/req %4.0f%% busy %s\n", r, t, res.ReqPerSec, res.CPUPerRequest(), res.Busy(), label(res.Busy(), res.ClientBusy()))
			results[t] = append(results[t], res)
		}
	}
	fmt.Printf("%s, %d connections, %v per run, %s, %d rounds in changing orders; server on CPUs %q (GOMAXPROCS=1), client on CPUs %q; CPU from %s\n",
		client.Name(), *conns, *dur, *mode, *rounds, cfg.ServerCPUs, cfg.ClientCPUs, proc.CPUSource())
	fmt.Printf("medians with %s\n\n", bench.IntervalName(*rounds))
	writeTable(names, results, *pairs)
}

// once starts target, warms it up, measures one run and stops it.
func once(cfg bench.Config, client bench.Client, target string, l bench.Load) (bench.Result, error) {
	s, err := cfg.Start(target, "")
	if err != nil {
		return bench.Result{}, err
	}
	defer func() {
		if err := s.Stop(); err != nil {
			log.Print(err)
		}
	}()
	l.URL = s.URL()
	warm := l
	warm.Duration = time.Second
	if _, ok := client.(bench.Loadgen); ok {
		warm.Duration, warm.Requests = 0, 5000
	}
	if _, err := client.Run(warm); err != nil {
		return bench.Result{}, fmt.Errorf("%s: warm-up: %v", target, err)
	}
	return bench.Measure(s, client, l)
}

// writeTable prints the medians of each target, with their interval, and
// the ratios of CPU per request, taken round by round: each target against
// the first, or with -pairs each odd target against the one after it.
func writeTable(names []string, results map[string][]bench.Result, pairs bool) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "target\treq/s\tCPU µs/req (interval)\t(server + app)\tserver busy %\tclient busy %\tceiling req/s\t\t")
	for _, t := range names {
		rs := results[t]
		cpu := bench.Of(rs, bench.Result.CPUPerRequest)
		split := ""
		if rs[0].AppCPU > 0 {
			split = fmt.Sprintf("%.2f + %.2f", bench.Median(rs, bench.Result.ServerCPUPerRequest), bench.Median(rs, bench.Result.AppCPUPerRequest))
		}
		busy, clientBusy := bench.Median(rs, bench.Result.Busy), bench.Median(rs, bench.Result.ClientBusy)
		fmt.Fprintf(w, "%s\t%.0f\t%.2f (%.2f–%.2f)\t%s\t%.0f\t%.0f\t%.0f\t%s\t\n", t,
			bench.Median(rs, func(r bench.Result) float64 { return r.ReqPerSec }), cpu.Median, cpu.Lo, cpu.Hi, split,
			busy, clientBusy, 1e6/cpu.Median, label(busy, clientBusy))
	}
	w.Flush()
	fmt.Println()
	step, first := 1, func(i int) string { return names[0] }
	if pairs {
		step, first = 2, func(i int) string { return names[i] }
	}
	for i := 1; i < len(names); i += step {
		a, b := first(i-1), names[i]
		r := bench.Ratio(bench.Of(results[a], bench.Result.CPUPerRequest), bench.Of(results[b], bench.Result.CPUPerRequest))
		verdict := ""
		if r.N > 1 && r.Straddles(1) {
			verdict = ": a tie, the interval contains 1"
		}
		fmt.Printf("CPU per request, %s/%s, round by round: %.3f (%.3f–%.3f over %d rounds, ±%.1f %%)%s\n", a, b, r.Median, r.Lo, r.Hi, r.N, 100*r.HalfWidth(), verdict)
	}
}

// label says what bounded a run whose server core was under 90 % busy.
func label(busy, clientBusy float64) string {
	switch {
	case busy >= bench.Saturated:
		return ""
	case clientBusy >= bench.Saturated:
		return "client-bound"
	}
	return "unsaturated"
}

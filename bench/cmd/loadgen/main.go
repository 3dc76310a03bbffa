// Command loadgen is an HTTP/1.x load generator with ab's options and report.
//
//	loadgen [options] http://host[:port]/path
//
// Where ab has an option, the letter and meaning are ab's: -n requests, -c
// concurrency, -k keep-alive, -t time limit in seconds, -s timeout in
// seconds, -H header (repeatable), -m method. Beyond ab: -d duration (wrk's
// -d), -pipeline N requests per connection written together, -rate R
// requests/s in total (open loop, latency from the intended send), -warmup (a
// duration or a count, run first and not recorded), -repeat N runs (prints
// the median run and the spread), -json (one JSON object instead of the
// report), -engine io_uring|epoll (the I/O engine; by default io_uring from
// 16 connections, when the kernel has it). As with ab, a value may follow its letter directly: -c50.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"hellobench/bench/loadgen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type headers []string

func (h *headers) String() string     { return strings.Join(*h, ", ") }
func (h *headers) Set(v string) error { *h = append(*h, v); return nil }

const usageLine = "usage: loadgen [options] http://host[:port]/path (loadgen -h lists the options)"

// run is the command; it returns the exit status: 0, 1 for a failed run, 2
// for a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		n        = fs.Int("n", 1, "number of requests to perform")
		c        = fs.Int("c", 1, "number of requests to make at a time (connections)")
		k        = fs.Bool("k", false, "use HTTP KeepAlive")
		t        = fs.Float64("t", 0, "seconds to max. spend on benchmarking (implies -n 50000 unless -n is given)")
		s        = fs.Float64("s", 30, "seconds to max. wait for each response")
		m        = fs.String("m", "GET", "HTTP method")
		d        = fs.String("d", "", "duration of the run, as wrk's -d (10s, 1m; a plain number is seconds)")
		pipeline = fs.Int("pipeline", 1, "requests in flight per connection, written in one write (needs -k)")
		rate     = fs.Float64("rate", 0, "requests per second in total, open loop; latency from each intended send")
		warmup   = fs.String("warmup", "", "run first and not recorded: a duration (2s) or a number of requests")
		repeat   = fs.Int("repeat", 1, "runs; prints the median run by requests per second and the spread")
		jsonOut  = fs.Bool("json", false, "print one JSON object instead of the report")
		engine   = fs.String("engine", "", "I/O engine, io_uring or epoll (default: io_uring from 16 connections, when the kernel has it)")
		hdrs     headers
	)
	fs.Var(&hdrs, "H", "add a header, as \"Accept-Encoding: gzip\" (repeatable)")

	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "loadgen: "+format+"\n", a...)
		return 2
	}
	args = splitJoined(fs, args)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, usageLine)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		return usage("%v", err)
	}
	// Options may also follow the URL.
	var target string
	for fs.NArg() > 0 {
		if target != "" {
			return usage("more than one URL: %q and %q", target, fs.Arg(0))
		}
		target = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return usage("%v", err)
		}
	}
	if target == "" {
		return usage("no URL; %s", usageLine)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	cfg := loadgen.Config{
		URL:         target,
		Requests:    *n,
		Concurrency: *c,
		KeepAlive:   *k,
		Pipeline:    *pipeline,
		Rate:        *rate,
		Method:      *m,
		Headers:     hdrs,
		Engine:      *engine,
		Solo:        true,
	}
	switch {
	case *n < 1:
		return usage("invalid number of requests -n %d", *n)
	case *c < 1:
		return usage("invalid concurrency -c %d", *c)
	case *pipeline < 1 || *pipeline > 1024:
		return usage("invalid pipeline depth %d (1 to 1024)", *pipeline)
	case *pipeline > 1 && !*k:
		return usage("-pipeline needs -k: without keep-alive a connection carries one request")
	case *rate < 0 || math.IsNaN(*rate) || math.IsInf(*rate, 0):
		return usage("invalid rate %v", *rate)
	case *engine != "" && *engine != loadgen.EngineURing && *engine != loadgen.EngineEpoll:
		return usage("invalid -engine %q (%s or %s)", *engine, loadgen.EngineURing, loadgen.EngineEpoll)
	case *repeat < 1:
		return usage("invalid -repeat %d", *repeat)
	case *s < 0 || math.IsNaN(*s) || *s > 1e6:
		return usage("invalid timeout -s %v", *s)
	case *t < 0 || math.IsNaN(*t) || *t > 1e8:
		return usage("invalid time limit -t %v", *t)
	case *t > 0 && *d != "":
		return usage("-t and -d both limit the time; give one")
	}
	cfg.Timeout = time.Duration(*s * float64(time.Second))
	if *t > 0 {
		cfg.Duration = time.Duration(*t * float64(time.Second))
		if !set["n"] {
			cfg.Requests = 50000 // as ab -t
		}
	}
	if *d != "" {
		dur, err := parseDuration(*d)
		if err != nil {
			return usage("invalid duration -d %q", *d)
		}
		cfg.Duration = dur
		if !set["n"] {
			cfg.Requests = 0
		}
	}
	if cfg.Requests > 0 && cfg.Concurrency > cfg.Requests {
		return usage("cannot use concurrency level %d greater than total number of requests %d",
			cfg.Concurrency, cfg.Requests)
	}
	var warm *loadgen.Config
	if *warmup != "" {
		w := cfg
		w.Requests, w.Duration = 0, 0
		if v, err := strconv.Atoi(*warmup); err == nil && v > 0 {
			w.Requests = max(v, w.Concurrency)
		} else if dur, err := parseDuration(*warmup); err == nil && dur > 0 {
			w.Duration = dur
		} else {
			return usage("invalid -warmup %q: want a duration (2s) or a number of requests", *warmup)
		}
		warm = &w
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, unix.SIGTERM)
	defer stop()
	fail := func(err error) int {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return 1
	}

	if warm != nil {
		if _, err := loadgen.Run(ctx, *warm); err != nil {
			return fail(fmt.Errorf("warm-up: %w", err))
		}
	}
	var runs []*loadgen.Result
	for range *repeat {
		if ctx.Err() != nil {
			break
		}
		pr := newProgress(stderr, cfg.Requests, cfg.Duration)
		cfg.Progress = pr.update
		r, err := loadgen.Run(ctx, cfg)
		if err != nil {
			return fail(err)
		}
		pr.finish(r.Complete + r.Failed)
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return fail(errors.New("interrupted before the first run"))
	}
	med := median(runs)
	if *jsonOut {
		if err := loadgen.WriteJSON(stdout, med, runs); err != nil {
			return fail(err)
		}
		return 0
	}
	if err := loadgen.WriteReport(stdout, med); err != nil {
		return fail(err)
	}
	if len(runs) > 1 {
		writeRuns(stdout, runs, med)
	}
	return 0
}

// parseDuration reads a Go duration, or a plain number of seconds.
func parseDuration(s string) (time.Duration, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if v <= 0 || v > 1e8 {
			return 0, errors.New("out of range")
		}
		return time.Duration(v * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err == nil && d <= 0 {
		err = errors.New("not positive")
	}
	return d, err
}

// median returns the run with the median requests per second (the lower
// middle one for an even count).
func median(runs []*loadgen.Result) *loadgen.Result {
	s := slices.Clone(runs)
	slices.SortStableFunc(s, func(a, b *loadgen.Result) int {
		x, y := a.RequestsPerSec(), b.RequestsPerSec()
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return s[(len(s)-1)/2]
}

// writeRuns prints each run's rate and tail latency and the spread.
func writeRuns(w io.Writer, runs []*loadgen.Result, med *loadgen.Result) {
	fmt.Fprintf(w, "\nRuns (the report above is the median run by requests per second)\n")
	fmt.Fprintf(w, "  run   requests/s     p50 µs     p99 µs   failed\n")
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, r := range runs {
		rps := r.RequestsPerSec()
		lo, hi = min(lo, rps), max(hi, rps)
		mark := ""
		if r == med {
			mark = "  (median)"
		}
		fmt.Fprintf(w, "  %3d %12.2f %10d %10d %8d%s\n", i+1, rps,
			(r.Latency.ValueAtQuantile(50)+500)/1000, (r.Latency.ValueAtQuantile(99)+500)/1000, r.Failed, mark)
	}
	spread := 0.0
	if m := med.RequestsPerSec(); m > 0 {
		spread = (hi - lo) / m * 100
	}
	fmt.Fprintf(w, "Spread:                 %.2f to %.2f [#/sec], %.1f%% of the median\n", lo, hi, spread)
}

// splitJoined splits ab's joined form of a one-letter option and its value,
// -c50, into -c 50, which package flag would reject. Arguments after "--"
// are left alone.
func splitJoined(fs *flag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' && !strings.Contains(a, "=") && fs.Lookup(a[1:]) == nil {
			if f := fs.Lookup(a[1:2]); f != nil {
				if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
					out = append(out, a[:2], a[2:])
					continue
				}
			}
		}
		out = append(out, a)
	}
	return out
}

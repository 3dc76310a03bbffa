// Command loadgen is an HTTP/1.x load generator with ab's options and report.
//
//	loadgen [options] http://host[:port]/path
//
// Where ab has an option, the letter and meaning are ab's: -n requests, -c
// concurrency, -k keep-alive, -t time limit in seconds, -s timeout in
// seconds, -H header (repeatable), -m method, -i HEAD, -l accept variable
// document length, -r don't stop at a socket receive error, -q no progress.
// Beyond ab: -d duration (wrk's -d), -pipeline N requests per connection
// written together, -rate R requests/s in total (open loop, latency from the
// intended send), -warmup (a duration or a count, run first and not
// recorded), -repeat N runs (prints the median run and the spread), -json
// (one JSON object instead of the report), -units ms (ab's own units and
// format; µs by default), -engine io_uring|epoll (the I/O engine; by default
// io_uring from 16 connections, when the kernel has it), -o FILE (write the
// run's latency histograms and exact counts as an HdrHistogram interval
// log), -start-at TIME (start then, for runs on several hosts). As with ab,
// a value may follow its letter directly: -c50.
//
// Load from several hosts: run loadgen on each with one -start-at and its
// own -o FILE, then
//
//	loadgen merge [-json] [-units ms] FILE...
//
// prints the report of all of them as one run.
//
// The exit status is 0 when every request got a complete 2xx response, 1
// when any failed or got another status (the report still prints), when the
// run stopped at a socket error (without -r) or was interrupted, or when it
// could not run at all; 2 for a usage error. loadgen -h defines each field
// of the report; loadgen merge -h tells how logs add up.
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

// help follows the options in -h: what each field of the report means, and
// the exit status.
const help = `
The report has ab's fields, in ab's order; times are in µs (-units ms: ab's
milliseconds and format, for scripts that read ab's report).
  Concurrency Level       connections (-c)
  Pipeline Depth          requests in flight per connection (-pipeline, when above 1)
  Request Rate            the rate asked for (-rate)
  Time taken for tests    from the start to the last request counted; with -t or -d,
                          that time (requests still in flight then are not counted)
  Complete requests       requests whose whole response was read and, unless -l, whose
                          body had the first response's length
  Failed requests         the others, by kind: Connect (no connection), Receive (a socket
                          error, or the connection closed before the response ended),
                          Length (another body length than the first; never with -l),
                          Exceptions (a malformed response), Timeout (silent for -s)
  Non-2xx responses       complete responses whose status was not 2xx
  Keep-Alive requests     responses after which the connection stayed open (-k)
  Total transferred       response bytes, headers included
  HTML transferred        response body bytes
  Requests per second     complete requests / time taken (loadgen merge: all logs' complete
                          requests / the span from the earliest start to the latest end)
  Time per request (mean) the mean time a request took, as its sender saw it: as ab,
                          concurrency × time taken / complete requests, with the requests
                          pipelined on a connection counted as that many senders
                          (× -pipeline); with -rate, the mean of Total
  Time per request (mean, across all concurrent requests)
                          time taken / complete requests
  Transfer rate           Total transferred / time taken, in KiB per second
  Connection Times        of complete requests, min, mean, standard deviation, median
                          and max of: Connect, opening the connection, for the request
                          that opened it (0 for the others); Processing, Total less
                          Connect; Waiting, from the send to the response's first byte;
                          Total, from the request's start to its response's last byte.
                          The start is the send, the connect for the request that opened
                          the connection, or with -rate the time the request was due.
  Percentage of the requests served within a certain time
                          percentiles of Total; 100% is the longest

Several hosts: when one host cannot load the server enough, run loadgen on
several with the same -start-at and each its own -o FILE, gather the files,
and loadgen merge FILE... prints one report of them all (loadgen merge -h).
-start-at takes an RFC 3339 time (2026-01-02T15:04:05Z) or Unix seconds;
loadgen resolves the host and prepares, waits until then, then connects. A
time more than a second past is an error: this host's clock is out of sync,
or it started late. -o writes an HdrHistogram interval log, which
HdrHistogram's own tools read too: the untagged histogram is Total, in ns;
Tag=connect, processing and waiting the others; a "#[loadgen: {...}]"
comment holds the exact counts.

Exit status: 0 when every request got a complete 2xx response; 1 when any
failed or got another status (the report still prints), when the run stopped
at a socket error (without -r) or was interrupted, or when it could not run
(a refused connection, an -o FILE that cannot be written); 2 for a usage
error.
`

// options are the command's flags, checked.
type options struct {
	cfg     loadgen.Config
	warm    *loadgen.Config // the warm-up run, if any
	repeat  int
	json    bool
	quiet   bool // no progress
	ms      bool // -units ms
	out     string
	startAt time.Time
}

// run is the command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return merge(args[1:], stdout, stderr)
	}
	o, code := parse(args, stdout, stderr, time.Now())
	if o == nil {
		return code
	}
	cfg := o.cfg

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, unix.SIGTERM)
	defer stop()
	fail := func(err error) int {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return 1
	}
	note := func(format string, a ...any) {
		if !o.quiet {
			fmt.Fprintf(stderr, format, a...)
		}
	}

	// The log's file is made before the run, so that a path that cannot be
	// written fails before the load, and removed if no log is written.
	var log *os.File
	if o.out != "" {
		f, err := os.Create(o.out)
		if err != nil {
			return fail(err)
		}
		log = f
		defer func() {
			if log != nil {
				log.Close()
				os.Remove(o.out)
			}
		}()
	}

	if !o.startAt.IsZero() {
		note("Starting at %s\n", o.startAt.Format(time.RFC3339Nano))
		if o.warm != nil {
			o.warm.StartAt = o.startAt
		} else {
			cfg.StartAt = o.startAt
		}
	}
	if o.warm != nil {
		if o.warm.Requests > 0 {
			note("Warming up: %d requests, not recorded\n", o.warm.Requests)
		} else {
			note("Warming up: %v, not recorded\n", o.warm.Duration)
		}
		if _, err := loadgen.Run(ctx, *o.warm); err != nil {
			return fail(fmt.Errorf("warm-up: %w", err))
		}
	}
	var runs []*loadgen.Result
	for i := range o.repeat {
		if ctx.Err() != nil {
			break
		}
		if o.repeat > 1 {
			note("Run %d of %d\n", i+1, o.repeat)
		}
		cfg.Progress = nil
		var pr *progress
		if !o.quiet {
			pr = newProgress(stderr, cfg.Requests, cfg.Duration)
			if cfg.StartAt.After(pr.start) {
				pr.start = cfg.StartAt
			}
			cfg.Progress = pr.update
		}
		r, err := loadgen.Run(ctx, cfg)
		if err != nil {
			return fail(err)
		}
		cfg.StartAt = time.Time{}
		if pr != nil {
			pr.finish(r.Complete + r.Failed)
		}
		runs = append(runs, r)
		if r.Aborted != nil {
			break
		}
	}
	if len(runs) == 0 {
		return fail(errors.New("interrupted before the first run"))
	}
	if log != nil {
		err := loadgen.WriteLog(log, runs[0])
		if cerr := log.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(o.out)
			log = nil
			return fail(fmt.Errorf("writing %s: %w", o.out, err))
		}
		log = nil
	}
	med := median(runs)
	var err error
	switch {
	case o.json:
		err = loadgen.WriteJSON(stdout, med, runs)
	case o.ms:
		err = loadgen.WriteABReport(stdout, med)
	default:
		err = loadgen.WriteReport(stdout, med)
	}
	if err != nil {
		return fail(err)
	}
	if len(runs) > 1 && !o.json {
		writeRuns(stdout, runs, med, o.ms)
	}
	return status(stderr, runs, ctx.Err() != nil)
}

// parse reads the command's arguments at time now. It returns nil and the
// exit status for -h (0, the help on stdout) or a usage error (2, one line
// on stderr).
func parse(args []string, stdout, stderr io.Writer, now time.Time) (*options, int) {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		n        = fs.Int("n", 1, "number of requests to perform")
		c        = fs.Int("c", 1, "number of requests to make at a time (connections)")
		k        = fs.Bool("k", false, "use HTTP KeepAlive")
		t        = fs.Float64("t", 0, "seconds to max. spend on benchmarking (implies -n 50000 unless -n is given)")
		s        = fs.Float64("s", 30, "seconds to max. wait for each response")
		m        = fs.String("m", "GET", "HTTP method")
		i        = fs.Bool("i", false, "use HEAD instead of GET")
		l        = fs.Bool("l", false, "accept variable document length (no Length failures)")
		r        = fs.Bool("r", false, "don't stop at a socket receive error (count it as a failed request and go on)")
		q        = fs.Bool("q", false, "do not show progress")
		d        = fs.String("d", "", "duration of the run, as wrk's -d (10s, 1m; a plain number is seconds)")
		pipeline = fs.Int("pipeline", 1, "requests in flight per connection, written in one write and, without -rate, read back together (needs -k)")
		rate     = fs.Float64("rate", 0, "requests per second in total, open loop; latency from each intended send")
		warmup   = fs.String("warmup", "", "run first and not recorded: a duration (2s) or a number of requests")
		repeat   = fs.Int("repeat", 1, "runs; prints the median run by requests per second and the spread")
		jsonOut  = fs.Bool("json", false, "print one JSON object instead of the report (and no progress)")
		units    = fs.String("units", "µs", "report times in µs, or ms: ab's own units and format")
		engine   = fs.String("engine", "", "I/O engine, io_uring or epoll (default: io_uring from 16 connections, when the kernel has it)")
		out      = fs.String("o", "", "write the run's latency histograms and exact counts to `FILE`, an HdrHistogram interval log, for loadgen merge")
		startAt  = fs.String("start-at", "", "start at `TIME`, RFC 3339 or Unix seconds, as runs on other hosts do (connect after the wait)")
		hdrs     headers
	)
	fs.Var(&hdrs, "H", "add a header, as \"Accept-Encoding: gzip\" (repeatable)")

	usage := func(format string, a ...any) (*options, int) {
		fmt.Fprintf(stderr, "loadgen: "+format+"\n", a...)
		return nil, 2
	}
	args = splitJoined(fs, args)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, usageLine)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			fmt.Fprint(stdout, help)
			return nil, 0
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

	// The flags map to a Config; Validate checks it. What is checked here
	// is the flags' own: their syntax, and zero values that would mean a
	// default in a Config.
	cfg := loadgen.Config{
		URL:                target,
		Requests:           *n,
		Concurrency:        *c,
		KeepAlive:          *k,
		Pipeline:           *pipeline,
		Rate:               *rate,
		Method:             *m,
		Headers:            hdrs,
		Engine:             *engine,
		AnyLength:          *l,
		StopOnReceiveError: !*r,
		Solo:               true,
	}
	switch {
	case set["n"] && *n < 1:
		return usage("invalid number of requests -n %d", *n)
	case *c < 1:
		return usage("invalid concurrency -c %d", *c)
	case *pipeline < 1:
		return usage("invalid pipeline depth -pipeline %d", *pipeline)
	case *repeat < 1:
		return usage("invalid -repeat %d", *repeat)
	case *i && set["m"]:
		return usage("-i and -m both set the method; give one")
	case *t > 0 && *d != "":
		return usage("-t and -d both limit the time; give one")
	case *units != "µs" && *units != "us" && *units != "ms":
		return usage("invalid -units %q (µs or ms)", *units)
	case set["o"] && *out == "":
		return usage("invalid -o \"\": want a file name")
	case *out != "" && *repeat > 1:
		return usage("-o writes the log of one run: give -repeat 1")
	}
	if *i {
		cfg.Method = "HEAD"
	}
	var err error
	if cfg.Timeout, err = seconds(*s); err != nil {
		return usage("invalid timeout -s %v", *s)
	}
	if *t != 0 {
		if cfg.Duration, err = seconds(*t); err != nil || cfg.Duration <= 0 {
			return usage("invalid time limit -t %v", *t)
		}
		if !set["n"] {
			cfg.Requests = 50000 // as ab -t
		}
	}
	if *d != "" {
		if cfg.Duration, err = parseDuration(*d); err != nil {
			return usage("invalid duration -d %q", *d)
		}
		if !set["n"] {
			cfg.Requests = 0
		}
	}
	if err := cfg.Validate(); err != nil {
		return usage("%v", err)
	}
	o := &options{cfg: cfg, repeat: *repeat, json: *jsonOut, quiet: *q || *jsonOut, ms: *units == "ms", out: *out}
	if set["start-at"] {
		if o.startAt, err = parseStartAt(*startAt, now); err != nil {
			return usage("%v", err)
		}
	}
	if *warmup != "" {
		w := cfg
		w.Requests, w.Duration = 0, 0
		w.StopOnReceiveError = false // not recorded: its failures do not matter
		if v, err := strconv.Atoi(*warmup); err == nil && v > 0 {
			w.Requests = max(v, w.Concurrency)
		} else if dur, err := parseDuration(*warmup); err == nil {
			w.Duration = dur
		} else {
			return usage("invalid -warmup %q: want a duration (2s) or a number of requests", *warmup)
		}
		o.warm = &w
	}
	return o, 0
}

// parseStartAt reads -start-at, an RFC 3339 time or Unix seconds, at time
// now. More than a second past is an error: the runs that it should start
// together would not.
func parseStartAt(s string, now time.Time) (time.Time, error) {
	var t time.Time
	if v, err := strconv.ParseFloat(s, 64); err == nil && v >= 0 && v < 1e11 {
		sec, frac := math.Modf(v)
		t = time.Unix(int64(sec), int64(frac*1e9))
	} else if t, err = time.Parse(time.RFC3339Nano, s); err != nil {
		return time.Time{}, fmt.Errorf("invalid -start-at %q: want an RFC 3339 time (2026-01-02T15:04:05Z) or Unix seconds", s)
	}
	switch ahead := t.Sub(now); {
	case ahead < -time.Second:
		return time.Time{}, fmt.Errorf("-start-at %s is %.1f s in the past: is this host's clock in sync with the others', and did it start in time?",
			s, -ahead.Seconds())
	case ahead > 24*time.Hour:
		return time.Time{}, fmt.Errorf("-start-at %s is more than 24 hours ahead", s)
	}
	return t, nil
}

// status says on stderr, in one line, why the runs did not all succeed, and
// returns the exit status: 1 for a run stopped early (a socket error,
// interrupted) or any failed or non-2xx request, else 0.
func status(stderr io.Writer, runs []*loadgen.Result, interrupted bool) int {
	var f loadgen.Failures
	var failed, non2xx, total int64
	for _, r := range runs {
		f.Connect += r.Failures.Connect
		f.Receive += r.Failures.Receive
		f.Length += r.Failures.Length
		f.Exceptions += r.Failures.Exceptions
		f.Timeout += r.Failures.Timeout
		failed += r.Failed
		non2xx += r.Non2xx
		total += r.Complete + r.Failed
		if r.Aborted != nil {
			fmt.Fprintf(stderr, "loadgen: stopped at a socket error (-r goes on): %v; %d failed requests (connect %d, receive %d, length %d, exceptions %d, timeout %d) and %d non-2xx responses of %d\n",
				r.Aborted, r.Failed, r.Failures.Connect, r.Failures.Receive, r.Failures.Length, r.Failures.Exceptions, r.Failures.Timeout, r.Non2xx, r.Complete+r.Failed)
			return 1
		}
	}
	switch {
	case failed > 0 || non2xx > 0:
		fmt.Fprintf(stderr, "loadgen: %d failed requests (connect %d, receive %d, length %d, exceptions %d, timeout %d) and %d non-2xx responses of %d\n",
			failed, f.Connect, f.Receive, f.Length, f.Exceptions, f.Timeout, non2xx, total)
		return 1
	case interrupted:
		fmt.Fprintln(stderr, "loadgen: interrupted")
		return 1
	}
	return 0
}

// seconds converts a number of seconds to a Duration.
func seconds(v float64) (time.Duration, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e8 {
		return 0, errors.New("out of range")
	}
	return time.Duration(v * float64(time.Second)), nil
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
func writeRuns(w io.Writer, runs []*loadgen.Result, med *loadgen.Result, ms bool) {
	unit, div := "µs", 1e3
	if ms {
		unit, div = "ms", 1e6
	}
	fmt.Fprintf(w, "\nRuns (the report above is the median run by requests per second)\n")
	fmt.Fprintf(w, "  run   requests/s     p50 %s     p99 %s   failed\n", unit, unit)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, r := range runs {
		rps := r.RequestsPerSec()
		lo, hi = min(lo, rps), max(hi, rps)
		mark := ""
		if r == med {
			mark = "  (median)"
		}
		p50, p99 := float64(r.Latency.ValueAtQuantile(50))/div, float64(r.Latency.ValueAtQuantile(99))/div
		if ms {
			fmt.Fprintf(w, "  %3d %12.2f %10.3f %10.3f %8d%s\n", i+1, rps, p50, p99, r.Failed, mark)
		} else {
			fmt.Fprintf(w, "  %3d %12.2f %10.0f %10.0f %8d%s\n", i+1, rps, p50, p99, r.Failed, mark)
		}
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

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"hellobench/bench/loadgen"
)

// flags is the command line as read, before any check.
type flags struct {
	n, c, pipeline, perConn, repeat int
	streams                         int
	k, i, l, r, q, json             bool
	spin, resume                    bool
	h2, h3, zeroRTT                 bool
	t, s, rate                      float64
	m, d, warmup, units             string
	engine, out, startAt            string
	headers                         headers
	urls                            []string        // every argument that is not an option
	set                             map[string]bool // the flags given
}

type headers []string

func (h *headers) String() string     { return strings.Join(*h, ", ") }
func (h *headers) Set(v string) error { *h = append(*h, v); return nil }

// newFlagSet returns the command's flag set, reading into f.
func newFlagSet(f *flags) *flag.FlagSet {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&f.n, "n", 1, "number of requests to perform")
	fs.IntVar(&f.c, "c", 1, "number of requests to make at a time (connections)")
	fs.BoolVar(&f.k, "k", false, "use HTTP KeepAlive")
	fs.Float64Var(&f.t, "t", 0, "seconds to max. spend on benchmarking (implies -n 50000 unless -n is given)")
	fs.Float64Var(&f.s, "s", 30, "seconds to max. wait for each response")
	fs.StringVar(&f.m, "m", "GET", "HTTP method")
	fs.BoolVar(&f.i, "i", false, "use HEAD instead of GET")
	fs.BoolVar(&f.l, "l", false, "accept variable document length (no Length failures)")
	fs.BoolVar(&f.r, "r", false, "don't stop at a socket receive error (count it as a failed request and go on)")
	fs.BoolVar(&f.q, "q", false, "do not show progress")
	fs.StringVar(&f.d, "d", "", "duration of the run, as wrk's -d (10s, 1m; a plain number is seconds)")
	fs.IntVar(&f.pipeline, "pipeline", 1, "requests in flight per connection, written in one write and, without -rate, read back together (needs -k)")
	fs.IntVar(&f.perConn, "per-conn", 0, "requests each connection carries before the client closes it and opens another, as a browser or a pool does (needs -k); 0: no limit")
	fs.Float64Var(&f.rate, "rate", 0, "requests per second in total, open loop; latency from each intended send")
	fs.BoolVar(&f.spin, "spin", false, "with -rate, poll instead of sleeping until a request is due: no late wake-ups, at the cost of the whole client core")
	fs.StringVar(&f.warmup, "warmup", "", "run first and not recorded: a duration (2s) or a number of requests")
	fs.IntVar(&f.repeat, "repeat", 1, "runs; prints the median run by requests per second and the spread")
	fs.BoolVar(&f.resume, "resume", false, "with https://, resume each connection's last TLS session (a ticket) on its next: resumed handshakes; default full ones")
	fs.BoolVar(&f.h2, "h2", false, "speak HTTP/2 over TLS (net/http's client, on -h3's goroutines and pacer) to the https:// URL: each of -c connections is a TCP connection")
	fs.BoolVar(&f.h3, "h3", false, "speak HTTP/3 over QUIC (quic-go's client) to the https:// URL: each of -c connections is a QUIC connection")
	fs.IntVar(&f.streams, "streams", 1, "with -h3, requests in flight per connection, each on its own stream (needs -k)")
	fs.BoolVar(&f.zeroRTT, "0rtt", false, "with -h3 and -resume, send each new connection's request in 0-RTT, with the handshake, where the server accepts it")
	fs.BoolVar(&f.json, "json", false, "print one JSON object instead of the report (and no progress)")
	fs.StringVar(&f.units, "units", "µs", "report times in µs, or ms: ab's own units and format")
	fs.StringVar(&f.engine, "engine", "", "I/O engine, io_uring or epoll (default: io_uring from 16 connections, when the kernel has it)")
	fs.StringVar(&f.out, "o", "", "write the run's latency histograms and exact counts to `FILE`, an HdrHistogram interval log, for loadgen merge (gzip-compressed when FILE ends in .gz)")
	fs.StringVar(&f.startAt, "start-at", "", "start at `TIME`, RFC 3339 or Unix seconds, as runs on other hosts do (connect after the wait)")
	fs.Var(&f.headers, "H", "add a header, as \"Accept-Encoding: gzip\" (repeatable)")
	return fs
}

// readFlags reads the command line into flags. Its errors are the
// syntax's: an unknown flag, a value of the wrong type, and
// flag.ErrHelp for -h. Options may also follow the URL.
func readFlags(args []string) (flags, error) {
	var f flags
	fs := newFlagSet(&f)
	args = splitJoined(fs, args)
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	for fs.NArg() > 0 {
		f.urls = append(f.urls, fs.Arg(0))
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return f, err
		}
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	return f, nil
}

// check turns the flags into options at time now, or returns every
// problem at once, one a line, each naming its flag and value: each
// flag's own value (its syntax, its range, a zero value that would mean a
// default in a Config) and the flags that exclude each other. Only when
// they are all good does Config.Validate check the Config they make: the
// URL, the headers, the limits and how the values go together (its first
// finding), which a bad value above would only confuse.
func (f flags) check(now time.Time) (*options, error) {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	cfg := loadgen.Config{
		Requests:           f.n,
		Concurrency:        f.c,
		KeepAlive:          f.k,
		Pipeline:           f.pipeline,
		PerConn:            f.perConn,
		Rate:               f.rate,
		Spin:               f.spin,
		Resume:             f.resume,
		H3:                 f.h3,
		H2:                 f.h2,
		Streams:            f.streams,
		EarlyData:          f.zeroRTT,
		Method:             f.m,
		Headers:            f.headers,
		Engine:             f.engine,
		AnyLength:          f.l,
		StopOnReceiveError: !f.r,
		Solo:               true,
	}
	switch len(f.urls) {
	case 0:
		bad("no URL; %s", usageLine)
	case 1:
		cfg.URL = f.urls[0]
	default:
		bad("more than one URL: %q and %q", f.urls[0], f.urls[1])
	}
	if f.set["n"] && f.n < 1 {
		bad("invalid number of requests -n %d", f.n)
	}
	if f.c < 1 {
		bad("invalid concurrency -c %d", f.c)
	}
	if f.pipeline < 1 {
		bad("invalid pipeline depth -pipeline %d", f.pipeline)
	}
	if f.perConn < 0 {
		bad("invalid requests per connection -per-conn %d", f.perConn)
	}
	if f.repeat < 1 {
		bad("invalid -repeat %d", f.repeat)
	}
	if f.streams < 1 {
		bad("invalid number of streams -streams %d", f.streams)
	}
	if f.h2 && f.h3 {
		bad("-h2 and -h3: give one")
	}
	if f.h2 || f.h3 {
		name, https, not := "h3", "QUIC is always TLS", notH3
		if f.h2 {
			name, https, not = "h2", "this client speaks HTTP/2 over TLS only", notH2
		}
		if len(f.urls) == 1 && strings.HasPrefix(strings.ToLower(f.urls[0]), "http://") {
			bad("-%s needs an https:// URL, not %q: %s", name, f.urls[0], https)
		}
		for _, flag := range []string{"pipeline", "per-conn", "engine", "spin"} {
			if f.set[flag] {
				bad("-%s has no meaning with -%s: %s", flag, name, not[flag])
			}
		}
		switch {
		case f.h2 && f.zeroRTT:
			bad("-0rtt needs -h3: HTTP/2 over TCP has no 0-RTT here")
		case f.zeroRTT && !f.resume:
			bad("-0rtt needs -resume: only a resumed TLS session carries a request in 0-RTT")
		}
	} else {
		if f.set["streams"] {
			bad("-streams needs -h3 or -h2: over HTTP/1.1, -pipeline puts requests in flight on a connection")
		}
		if f.zeroRTT {
			bad("-0rtt needs -h3 and -resume")
		}
	}
	if f.i && f.set["m"] {
		bad("-i and -m both set the method; give one")
	}
	if f.i {
		cfg.Method = "HEAD"
	}
	if f.t > 0 && f.d != "" {
		bad("-t and -d both limit the time; give one")
	}
	if f.units != "µs" && f.units != "us" && f.units != "ms" {
		bad("invalid -units %q (µs or ms)", f.units)
	}
	if f.set["o"] && f.out == "" {
		bad("invalid -o \"\": want a file name")
	}
	if f.out != "" && f.repeat > 1 {
		bad("-o writes the log of one run: give -repeat 1")
	}
	if f.rate < 0 || math.IsNaN(f.rate) || math.IsInf(f.rate, 0) {
		bad("invalid rate %v: -rate wants requests per second, 0 for as fast as the connections go", f.rate)
	}
	if f.engine != "" && f.engine != loadgen.EngineURing && f.engine != loadgen.EngineEpoll {
		bad("invalid engine %q: -engine wants %s or %s", f.engine, loadgen.EngineURing, loadgen.EngineEpoll)
	}
	var err error
	if cfg.Timeout, err = seconds(f.s); err != nil {
		bad("invalid timeout -s %v", f.s)
	} else if cfg.Timeout < 0 {
		bad("invalid timeout %v: -s wants 0 or more seconds", cfg.Timeout)
	}
	if f.t != 0 {
		if cfg.Duration, err = seconds(f.t); err != nil || cfg.Duration <= 0 {
			bad("invalid time limit -t %v", f.t)
		} else if !f.set["n"] {
			cfg.Requests = 50000 // as ab -t
		}
	}
	if f.d != "" {
		if cfg.Duration, err = parseDuration(f.d); err != nil {
			bad("invalid duration -d %q", f.d)
		} else if !f.set["n"] {
			cfg.Requests = 0
		}
	}
	o := &options{repeat: f.repeat, json: f.json, quiet: f.q || f.json, ms: f.units == "ms", out: f.out}
	if f.set["start-at"] {
		if o.startAt, err = parseStartAt(f.startAt, now); err != nil {
			errs = append(errs, err)
		}
	}
	var warm *loadgen.Config
	if f.warmup != "" {
		w := cfg
		w.Requests, w.Duration = 0, 0
		w.StopOnReceiveError = false // not recorded: its failures do not matter
		if v, err := strconv.Atoi(f.warmup); err == nil && v > 0 {
			w.Requests = max(v, w.Concurrency)
		} else if dur, err := parseDuration(f.warmup); err == nil {
			w.Duration = dur
		} else {
			bad("invalid -warmup %q: want a duration (2s) or a number of requests", f.warmup)
		}
		warm = &w
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o.cfg, o.warm = cfg, warm
	return o, nil
}

// notH2 says why a flag has no meaning with -h2.
var notH2 = map[string]string{
	"pipeline": "HTTP/2 puts -streams requests in flight on a connection",
	"per-conn": "this client keeps its HTTP/2 connections",
	"engine":   "HTTP/2 runs on net/http's goroutines, not on an I/O engine of loadgen's",
	"spin":     "its goroutines sleep until a request is due",
}

// notH3 says why a flag has no meaning with -h3.
var notH3 = map[string]string{
	"pipeline": "HTTP/3 puts -streams requests in flight on a connection",
	"per-conn": "this client keeps its QUIC connections",
	"engine":   "HTTP/3 runs on quic-go's goroutines, not on an I/O engine of loadgen's",
	"spin":     "quic-go's goroutines sleep until a request is due",
}

// parse reads and checks the command's arguments at time now. It returns
// nil and the exit status for -h (0, the help on stdout) or a usage error
// (2, a line on stderr for each problem).
func parse(args []string, stdout, stderr io.Writer, now time.Time) (*options, int) {
	f, err := readFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stdout, usageLine)
		fs := newFlagSet(new(flags))
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fmt.Fprint(stdout, help)
		return nil, 0
	}
	if err == nil {
		var o *options
		if o, err = f.check(now); err == nil {
			return o, 0
		}
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(stderr, "loadgen: %s\n", line)
	}
	return nil, 2
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

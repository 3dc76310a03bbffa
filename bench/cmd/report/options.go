package main

import (
	"errors"
	"flag"
	"fmt"
	"time"
)

// options are report's flags. The parts' own flags (-run, -sweep, ...)
// come from the part table; docs/method.md ("Each part's defaults, and
// why") says why each count is what it is.
type options struct {
	fs   *flag.FlagSet
	want map[string]*bool // a part's flag: run it

	out, hosts, ceilingsFrom string
	docs, quick, force       bool
	inMemory                 bool
	modes, cores, minWaits   string
	each, tlsFor             time.Duration
	n, sweepN                int
	connRate                 float64

	rounds, blocks, sweepRounds, workBlocks, latencyRounds int
	loadRounds, capacityRounds, atLoadBlocks               int
	readinessRounds, h3Blocks, newConnBlocks               int
	minWaitBlocks, uringBlocks                             int
	tlsBlocks                                              int
	tlsKeepAliveBlocks, tlsKeepAliveKept, tlsKeepAliveMost int
	tlsHandshakeBlocks, tlsHandshakeKept, tlsHandshakeMost int
	pickBlocks, pickTLSBlocks, rate                        int

	make, again, part string // -make TARGET, its AGAIN and PART

	root string // the module root, once found
}

// newOptions defines the flags on fs.
func newOptions(fs *flag.FlagSet) *options {
	o := &options{fs: fs, want: map[string]*bool{}}
	for _, p := range parts {
		o.want[p.flag] = fs.Bool(p.flag, false, p.usage)
	}
	fs.StringVar(&o.out, "out", "results", "output `directory`")
	fs.BoolVar(&o.docs, "docs", false, "also write the generated sections of README.md, docs/ and bench/COSTS.md")
	fs.StringVar(&o.hosts, "hosts", "", "with -run: the results `directory` under whose hosts/ a full run is filed (default: -out)")
	fs.StringVar(&o.ceilingsFrom, "ceilings-from", "", "the `bench.txt` whose keep-alive ceilings the shares are of (default: the one in -out)")
	fs.BoolVar(&o.quick, "quick", false, "a smoke run of a few minutes: short runs, one round; keeps nothing worth publishing")
	fs.BoolVar(&o.force, "force", false, "run even when another process is busy on the pinned CPUs (the report says so)")
	fs.StringVar(&o.make, "make", "", "do what make `TARGET` does: its flags, its output directory and agreement page")
	fs.StringVar(&o.again, "again", "", "with -make: the re-run's number `N` (make's AGAIN), from 2 on")
	fs.StringVar(&o.part, "part", "", "with -make: only `PART` of the target (make's PART)")

	fs.BoolVar(&o.inMemory, "in-memory", true, "with -run: run the in-memory benchmarks of each server loop before the ceilings")
	fs.IntVar(&o.rounds, "rounds", 5, "rounds of the in-memory benchmarks and of -scale")
	// One whole Williams design for the 13 targets.
	fs.IntVar(&o.blocks, "blocks", 26, "with -run: blocks of the ceilings, each running every server once, in its own order")
	fs.StringVar(&o.modes, "modes", "", "with -run: the ceilings' modes alone, comma-separated (keepalive, close, pipeline, json; default: all)")
	// Short runs buy blocks; the reference rounds beside each cancel the drift.
	fs.DurationVar(&o.each, "for", 300*time.Millisecond, "how long each ceiling run (and each reference round beside it) lasts")
	fs.IntVar(&o.n, "n", 200000, "with -scale: requests per ceiling run")
	// The sweep is a shape, not a ratio: three keep make bench near half an hour.
	fs.IntVar(&o.sweepRounds, "sweep-rounds", 3, "with -sweep: rounds of the sweep and the idle connections")
	fs.IntVar(&o.sweepN, "sweep-n", 100000, "with -sweep: requests per sweep run (at least 20 per connection)")
	fs.StringVar(&o.cores, "cores", "1,2", "with -scale: the core counts")
	fs.IntVar(&o.workBlocks, "work-blocks", 6, "with -work: blocks, each running every server at every level of work once")
	fs.IntVar(&o.latencyRounds, "latency-rounds", 3, "with -latency: rounds, each holding every server at every rate once")
	// The fewest rounds whose order statistics give a 95 % interval.
	fs.IntVar(&o.loadRounds, "load-rounds", 6, "with -load: rounds of the points, each holding every server once")
	fs.IntVar(&o.capacityRounds, "capacity-rounds", 3, "with -load, -capacity or -why: rounds of the search and of the count")
	// About half the blocks count; 26 left a row too wide.
	fs.IntVar(&o.atLoadBlocks, "at-load-blocks", 40, "with -load or -at-load: blocks at a quarter of the ceilings")
	fs.IntVar(&o.readinessRounds, "readiness-rounds", 5, "with -readiness: rounds, each running every server once")
	// wrk runs whole seconds: six, the fewest with a 95 % interval.
	fs.IntVar(&o.tlsBlocks, "tls-blocks", 6, "with -tls: blocks, each running every server over TLS once in each mode")
	fs.DurationVar(&o.tlsFor, "tls-for", time.Second, "with -tls: how long each run lasts; wrk rounds it up to whole seconds")
	// Whole blocks, then the stopping rule for the rows short of kept blocks.
	fs.IntVar(&o.tlsKeepAliveBlocks, "tls-keepalive-blocks", 36, "with -tls or -tls-keepalive: whole blocks of keep-alive over TLS")
	// As many as the invocation that held every row within the tolerance kept.
	fs.IntVar(&o.tlsKeepAliveKept, "tls-keepalive-kept", 36, "then blocks of the rows resting on fewer kept blocks than this (0: none)")
	// Bounds the run when the host is rarely at its usual level.
	fs.IntVar(&o.tlsKeepAliveMost, "tls-keepalive-most", 120, "with -tls or -tls-keepalive: blocks at most in all")
	// Six left a cell on as few as two kept blocks.
	fs.IntVar(&o.tlsHandshakeBlocks, "tls-handshake-blocks", 12, "with -tls or -tls-handshakes: whole blocks of the handshakes")
	// nethttp's CPU per handshake wanders: half as many left its cell wide.
	fs.IntVar(&o.tlsHandshakeKept, "tls-handshake-kept", 24, "then blocks of the rows resting on fewer kept blocks than this (0: none)")
	// Blocks of some ten seconds: a quarter of an hour at most.
	fs.IntVar(&o.tlsHandshakeMost, "tls-handshake-most", 80, "with -tls or -tls-handshakes: blocks at most in all")
	// The median's 95 % interval is the 3rd to the 10th of 12, but all of 8.
	fs.IntVar(&o.h3Blocks, "h3-blocks", 12, "with -h3: blocks, each running every protocol at every rate once")
	// As the ceilings': only the host's usual level counts, about half.
	fs.IntVar(&o.newConnBlocks, "newconn-blocks", 26, "with -newconn: blocks, each running every server once")
	// A rate every server, nginx and the client hold on one core.
	fs.Float64Var(&o.connRate, "conn-rate", 5000, "with -newconn: new connections a second, one request each")
	// As many as the sweep's rounds: a range per row in a few minutes.
	fs.IntVar(&o.uringBlocks, "uring-blocks", 3, "with -uring: blocks, each running uring's waits and the idle connections once")
	// Two Williams designs of the five waits.
	fs.IntVar(&o.minWaitBlocks, "min-wait-blocks", 20, "with -min-wait: blocks, each running every wait once")
	// As the ceilings': one Williams design of the targets.
	fs.IntVar(&o.pickBlocks, "pick-blocks", 26, "with -pick: blocks of the keep-alive ceilings")
	// Twelve: the median's interval is then the 3rd to the 10th.
	fs.IntVar(&o.pickTLSBlocks, "pick-tls-blocks", 12, "with -pick: blocks of keep-alive over TLS and of full handshakes")
	fs.IntVar(&o.rate, "rate", 10000, "with -pick: the steady rate, req/s, the cores column is measured at (make's RATE)")
	fs.StringVar(&o.minWaits, "min-waits", "0,25us,50us,100us,200us", "with -min-wait: io_uring's minimum waits uring is run with")
	return o
}

// positive are the flags that must be above zero.
var positive = []string{
	"rounds", "blocks", "for", "n", "sweep-rounds", "sweep-n", "work-blocks", "latency-rounds",
	"load-rounds", "capacity-rounds", "at-load-blocks", "readiness-rounds", "tls-blocks", "tls-for",
	"tls-keepalive-blocks", "tls-handshake-blocks", "h3-blocks", "newconn-blocks", "conn-rate",
	"uring-blocks", "min-wait-blocks", "pick-blocks", "pick-tls-blocks", "rate",
}

// parse parses args; with -make, the target's flags go first, so that
// args can still set any of them.
func (o *options) parse(args []string) error {
	if err := o.fs.Parse(args); err != nil {
		return err
	}
	if r, ok := o.makeRun(); ok {
		if err := o.fs.Parse(append(r.args(o.again, resultsDir), args...)); err != nil {
			return err
		}
	}
	return o.check()
}

// check returns every problem with the options, one line each.
func (o *options) check() error {
	var errs []error
	if o.fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q (the comparisons are subcommands: report agree DIR,DIR...)", o.fs.Args()))
	}
	for _, name := range positive {
		switch v := o.fs.Lookup(name).Value.(flag.Getter).Get().(type) {
		case int:
			if v < 1 {
				errs = append(errs, fmt.Errorf("-%s must be positive, not %d", name, v))
			}
		case float64:
			if v <= 0 {
				errs = append(errs, fmt.Errorf("-%s must be positive, not %g", name, v))
			}
		case time.Duration:
			if v <= 0 {
				errs = append(errs, fmt.Errorf("-%s must be positive, not %v", name, v))
			}
		}
	}
	for _, r := range []struct {
		name             string
		blocks, kept, at int
	}{
		{"tls-keepalive", o.tlsKeepAliveBlocks, o.tlsKeepAliveKept, o.tlsKeepAliveMost},
		{"tls-handshake", o.tlsHandshakeBlocks, o.tlsHandshakeKept, o.tlsHandshakeMost},
	} {
		if r.kept < 0 {
			errs = append(errs, fmt.Errorf("-%s-kept must not be negative, not %d", r.name, r.kept))
		}
		if r.at < r.blocks {
			errs = append(errs, fmt.Errorf("-%s-most (%d) must not be below -%s-blocks (%d)", r.name, r.at, r.name, r.blocks))
		}
	}
	if o.docs && o.quick {
		errs = append(errs, errors.New("-docs takes a full run's figures, not -quick's"))
	}
	errs = append(errs, o.checkMake()...)
	return errors.Join(errs...)
}

// Command report runs the bench (or reads its saved output) and writes the
// report: REPORT.md, results.json and the charts in the output directory,
// and, with -docs, the generated sections of README.md, the pages under
// docs/ and bench/COSTS.md.
//
// Usage:
//
//	report [-run] [-in-memory=false] [-sweep] [-work] [-latency] [-load] [-at-load] [-capacity] [-why] [-tls] [-tls-keepalive] [-newconn] [-h3] [-min-wait] [-uring] [-quick] [-blocks 26] [-for 300ms] [-work-blocks 6] [-sweep-rounds 3] [-n 200000] [-out results] [-hosts results] [-docs] [-compare dir]
//
// The results model and its rules are package report, the markdown and
// SVG package render, the commands of each run package plan; this command
// runs them and writes the files.
//
// With -run it runs the in-memory benchmarks of every server package,
// -rounds times (unless -in-memory=false), and the ceiling benchmarks in
// -blocks blocks (each block runs every target once, in an order that
// changes from block to block, with a reference nginx measured right
// before and after each), into bench.txt; with -sweep the concurrency sweep and the idle
// connections, -sweep-rounds times in turn, into sweep.txt; with -work the
// handler-work benchmarks in -work-blocks blocks, into work.txt; with
// -latency the servers at fixed rates in -latency-rounds rounds, into
// latency.txt and their HdrHistogram logs into latency/; with -load the
// servers at shares of their ceilings for their CPU per request, in
// -load-rounds rounds, and the search for the rate each holds within a
// p99 bound, in -capacity-rounds, into load.txt, and (as with -at-load)
// at a quarter of their ceilings beside a reference nginx at a quarter of
// its own, in -at-load-blocks blocks, into atload.txt (-capacity runs the
// search alone, into capacity.txt, which replaces load.txt's); with -tls
// the servers
// over TLS and HTTP/2 beside a reference nginx over TLS, in -tls-blocks
// blocks, into tls.txt, and keep-alive over TLS in -tls-keepalive-blocks
// short blocks, then blocks of the rows short of -tls-keepalive-kept kept
// blocks, into tls-keepalive.txt (-tls-keepalive runs only those); with
// -newconn every server and nginx on a new connection per request at
// -conn-rate beside a reference nginx at the same rate, in
// -newconn-blocks blocks, into newconn.txt; with -min-wait uring at a
// quarter of its ceiling with each of io_uring's -min-waits, in
// -min-wait-blocks blocks, into minwait.txt; with -uring uring's waits
// and its and the io_uring floor's idle connections, in -uring-blocks
// blocks, into uring.txt, whose rows replace theirs in work.txt and
// sweep.txt (when those are older).
// Without
// them it renders what those files hold. Both files are standard `go test
// -bench` output, with the date and conditions of the run in comment lines:
// benchstat compares two of them.
package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"hellobench/bench"
	"hellobench/bench/report"
	"hellobench/bench/report/plan"
	"hellobench/bench/report/render"
	"hellobench/internal/proc"
)

// fatal ends the report with err, unless an interrupt is already ending
// it (then its processes were stopped on purpose).
func fatal(err error) {
	if !proc.Stopping() {
		log.Print(err)
	}
	proc.Exit(1)
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("report: ")
	run := flag.Bool("run", false, "run the in-memory and ceiling benchmarks into bench.txt first")
	sweep := flag.Bool("sweep", false, "run the concurrency sweep and the idle connections into sweep.txt first")
	scaleRun := flag.Bool("scale", false, "run the ceilings on several core counts into scale.txt first (SERVER_CPUS, CLIENT_CPUS)")
	workRun := flag.Bool("work", false, "run the handler-work benchmarks (CPU work at the ceiling, waits at Little's-law connections) into work.txt first")
	latencyRun := flag.Bool("latency", false, "run the servers at fixed rates (the ladder, shares of each one's keep-alive ceiling from the ceilings in -out) into latency.txt first, their HdrHistogram logs into latency/")
	ceilingsFrom := flag.String("ceilings-from", "", "with -latency or -load: the bench.txt whose keep-alive ceilings the shares are of (default: the one in -out)")
	loadRun := flag.Bool("load", false, "run the servers at shares of their keep-alive ceilings and the ladder for their CPU per request, and the search for the rate each holds within a p99 bound, into load.txt first (ceilings as -latency takes them), and -at-load's blocks")
	whyRun := flag.Bool("why", false, "run make bench-load's count of what every server asks of the kernel per request (system calls by kind, context switches) at a quarter of its ceiling and saturated alone, in -capacity-rounds rounds, into why.txt first; it replaces load.txt's")
	capacityRun := flag.Bool("capacity", false, "run make bench-load's search for the rate each server holds within the p99 bound alone, in -capacity-rounds rounds, into capacity.txt first (ceilings as -latency takes them); it replaces load.txt's")
	atLoadRun := flag.Bool("at-load", false, "run the servers at a quarter of their keep-alive ceilings beside a reference nginx at a quarter of its own, in -at-load-blocks blocks, into atload.txt first (ceilings as -latency takes them)")
	// As the ceilings: only the host's usual level counts, and it holds
	// about half the blocks; 26 left io_uring's row at ±5.4 %, so 40.
	atLoadBlocks := flag.Int("at-load-blocks", 40, "with -load or -at-load: blocks at a quarter of the ceilings, each holding every server once, in its own order")
	// Six rounds are the fewest whose order statistics give a 95 % interval.
	loadRounds := flag.Int("load-rounds", 6, "with -load: rounds of the points, each holding every server once in its own order")
	readinessRun := flag.Bool("readiness", false, "count what the floors on epoll and io_uring, gnet and nginx ask of the kernel per request, saturated, into readiness.txt first (-readiness-rounds rounds)")
	readinessRounds := flag.Int("readiness-rounds", 5, "with -readiness: rounds, each running every server once in its own order")
	capacityRounds := flag.Int("capacity-rounds", 3, "with -load: rounds of the search for the rate within the p99 bound (the first rounds' tails)")
	latencyRounds := flag.Int("latency-rounds", 3, "with -latency: rounds, each holding every server at every rate once, in its own order")
	workBlocks := flag.Int("work-blocks", 6, "with -work: blocks, each running every server at every level of work once, in its own order")
	tlsRun := flag.Bool("tls", false, "run keep-alive over TLS into tls-keepalive.txt (as -tls-keepalive does), nethttp's and nginx's handshakes into tls-handshake.txt (as -tls-handshakes does), then pipelined, resumed and full handshakes over TLS, and HTTP/2 over TLS and h2c, beside a reference nginx over TLS, into tls.txt first (-tls-blocks blocks)")
	tlsKeepAliveRun := flag.Bool("tls-keepalive", false, "run keep-alive over TLS beside a reference nginx over TLS, in -tls-keepalive-blocks blocks of -for runs and then blocks of the rows short of -tls-keepalive-kept, into tls-keepalive.txt first")
	// Only the host's usual level counts, and it holds a third to a half
	// of the blocks, varying between invocations: 72 whole blocks kept
	// 21 to 41 per row, and the row that kept 21 was ±5.1 %. So a stopping
	// rule: whole blocks, then blocks of the rows short of -tls-keepalive-kept.
	tlsKeepAliveBlocks := flag.Int("tls-keepalive-blocks", 36, "with -tls or -tls-keepalive: whole blocks of keep-alive over TLS, each running every server once, in its own order")
	// The invocation of 72 whole blocks that kept 35 to 41 per row held
	// every row within ±5 %: 36 asks as much of every invocation.
	tlsKeepAliveKept := flag.Int("tls-keepalive-kept", 36, "with -tls or -tls-keepalive: after the whole blocks, blocks of only the rows whose ratio to nginx rests on fewer kept blocks than this, until none does (0: whole blocks only)")
	// The cap bounds the run (120 whole blocks would be about 40 minutes)
	// when the host is rarely at its usual level.
	tlsKeepAliveMost := flag.Int("tls-keepalive-most", 120, "with -tls or -tls-keepalive: blocks at most in all, whole and short-row ones")
	tlsHandshakeRun := flag.Bool("tls-handshakes", false, "run nethttp's and nginx's full and resumed handshakes beside a reference nginx over TLS, in -tls-handshake-blocks blocks of -for runs and then blocks of the rows short of -tls-handshake-kept, into tls-handshake.txt first")
	// Six 1 s blocks of every mode left a handshake cell at ±17 %, on as
	// few as 2 kept blocks; 12 kept left nethttp's at ±10.5 % (its CPU
	// per handshake wanders from block to block), so 24.
	tlsHandshakeBlocks := flag.Int("tls-handshake-blocks", 12, "with -tls or -tls-handshakes: whole blocks of nethttp's and nginx's handshakes")
	tlsHandshakeKept := flag.Int("tls-handshake-kept", 24, "with -tls or -tls-handshakes: after the whole blocks, blocks of only the rows resting on fewer kept blocks than this, until none does (0: whole blocks only)")
	// A block is some ten seconds: the cap keeps the run near a quarter of an hour at most.
	tlsHandshakeMost := flag.Int("tls-handshake-most", 80, "with -tls or -tls-handshakes: blocks at most in all")
	// wrk runs whole seconds, so a TLS run lasts at least one: six blocks,
	// the fewest with a 95 % interval, keep this part near forty minutes.
	tlsBlocks := flag.Int("tls-blocks", 6, "with -tls: blocks, each running every server with TLS once in each mode, in its own order")
	tlsFor := flag.Duration("tls-for", time.Second, "with -tls: how long each run (and each reference round beside it) lasts; wrk rounds it up to whole seconds")
	cores := flag.String("cores", "1,2", "with -scale: the core counts")
	quick := flag.Bool("quick", false, "with -run: a smoke run of about a minute (keep-alive only, short runs, one round)")
	rounds := flag.Int("rounds", 5, "rounds of the in-memory benchmarks and bench-scale, taken as medians with their range")
	// The sweep is a shape (where each stack bends), not a ratio to
	// resolve: three rounds keep make bench near half an hour.
	sweepRounds := flag.Int("sweep-rounds", 3, "with -sweep: rounds of the sweep and the idle connections")
	// 26 blocks are one whole Williams design for the 13 targets (an odd
	// count needs 2n rows), and only the host's usual level counts of them.
	blocks := flag.Int("blocks", 26, "with -run: blocks of the ceilings, each running every server once, in an order that changes from block to block")
	// Short runs buy blocks: the reference rounds beside each run cancel the
	// host's drift, so the interval narrows with the blocks, not the length.
	modes := flag.String("modes", "", "with -run: the ceilings' modes alone, comma-separated (keepalive, close, pipeline, json; default: all); a run without keepalive is filed under no host")
	each := flag.Duration("for", 300*time.Millisecond, "with -run: how long each ceiling run (and each reference round beside it) lasts")
	inMemory := flag.Bool("in-memory", true, "with -run: run the in-memory benchmarks of each server loop before the ceilings")
	n := flag.Int("n", 200000, "with -run: requests per ceiling run")
	sweepN := flag.Int("sweep-n", 100000, "with -sweep: requests per sweep run (at least 20 per connection)")
	out := flag.String("out", "results", "output `directory`")
	docs := flag.Bool("docs", false, "also write the generated sections of README.md, docs/ and bench/COSTS.md")
	agreeDirs := flag.String("agree", "", "compare the ceilings of several runs' output `directories` (comma-separated) and print the comparison; nothing is run")
	agreeLoadDirs := flag.String("agree-load", "", "compare make bench-load's figures in several runs' output `directories` (comma-separated) and print it; nothing is run")
	agreeTLSDirs := flag.String("agree-tls", "", "compare make bench-tls's ratios to nginx over TLS and handshake costs in several runs' output `directories` (comma-separated) and print them; nothing is run")
	agreeH3Dirs := flag.String("agree-h3", "", "compare make bench-tls PART=h3's ratios to HTTP/2, CPU per new connection and idle memory in several runs' output `directories` (comma-separated) and print them; nothing is run")
	agreeLatencyDirs := flag.String("agree-latency", "", "compare make bench-latency's p99 at the common rate in several runs' output `directories` (comma-separated) and print it; nothing is run")
	newConnRun := flag.Bool("newconn", false, "run every server and nginx on a new connection per request at -conn-rate, beside a reference nginx at the same rate, in -newconn-blocks blocks, into newconn.txt first")
	// As the ceilings': only the host's usual level counts, about half the blocks.
	h3Run := flag.Bool("h3", false, "run nethttp over HTTP/1.1 with TLS, HTTP/2 and HTTP/3 at fixed rates, in -h3-blocks blocks, into protocols.txt first")
	// 12 blocks, not 8: the median's 95 % interval from the order
	// statistics is the 3rd to the 10th of 12, but all of 8, min to max.
	h3Blocks := flag.Int("h3-blocks", 12, "with -h3: blocks, each running every protocol at every rate once, in its own order")
	newConnBlocks := flag.Int("newconn-blocks", 26, "with -newconn: blocks, each running every server once, in its own order")
	minWaitRun := flag.Bool("min-wait", false, "run uring at a quarter of its keep-alive ceiling (ceilings as -latency takes them) with each of -min-waits, in -min-wait-blocks blocks, into minwait.txt first")
	// Two Williams designs of the five waits: each wait in every position
	// of a block, and after every other, twice.
	minWaitBlocks := flag.Int("min-wait-blocks", 20, "with -min-wait: blocks, each running every wait once, in its own order")
	uringRun := flag.Bool("uring", false, "run uring's waits (as -work) and its and the io_uring floor's idle connections (as -sweep), in -uring-blocks blocks, into uring.txt first; its rows replace theirs in work.txt and sweep.txt")
	// As many as the sweep's rounds: a range for each row in a few minutes.
	uringBlocks := flag.Int("uring-blocks", 3, "with -uring: blocks, each running uring's waits and the idle connections once")
	minWaits := flag.String("min-waits", "0,25us,50us,100us,200us", "with -min-wait: io_uring's minimum waits uring is run with (its -min-wait)")
	// A rate every server and nginx hold on one core (fcgi's new
	// connections cost about 80 µs: 40 % of its core), and the client too.
	connRate := flag.Float64("conn-rate", 5000, "with -newconn: new connections a second, one request each")
	hostsDir := flag.String("hosts", "", "with -run: the results `directory` under whose hosts/ a full run is filed (default: -out), so that a re-run into results/again files its host record beside the first run's")
	compareDir := flag.String("compare", "", "print the keep-alive ratios to nginx of the run in `directory` (its bench.txt) beside every host recorded under -out's hosts/; nothing is run")
	force := flag.Bool("force", false, "run even when another process is busy on the pinned CPUs (the report says so)")
	flag.Parse()
	if flag.NArg() > 0 {
		log.Fatalf("unexpected arguments %q", flag.Args())
	}
	if *rounds < 1 || *sweepRounds < 1 || *n < 1 || *sweepN < 1 || *blocks < 1 || *workBlocks < 1 || *latencyRounds < 1 || *loadRounds < 1 || *readinessRounds < 1 || *capacityRounds < 1 || *each <= 0 || *tlsBlocks < 1 || *tlsKeepAliveBlocks < 1 || *atLoadBlocks < 1 || *tlsFor <= 0 || *newConnBlocks < 1 || *h3Blocks < 1 || *uringBlocks < 1 || *connRate <= 0 {
		log.Fatal("-rounds, -sweep-rounds, -blocks, -work-blocks, -latency-rounds, -load-rounds, -readiness-rounds, -capacity-rounds, -tls-blocks, -tls-keepalive-blocks, -at-load-blocks, -newconn-blocks, -uring-blocks, -conn-rate, -for, -tls-for, -n and -sweep-n must be positive")
	}
	if *tlsKeepAliveKept < 0 || *tlsKeepAliveMost < *tlsKeepAliveBlocks {
		log.Fatalf("-tls-keepalive-kept must not be negative (it is %d), nor -tls-keepalive-most (%d) below -tls-keepalive-blocks (%d)", *tlsKeepAliveKept, *tlsKeepAliveMost, *tlsKeepAliveBlocks)
	}
	if *tlsHandshakeBlocks < 1 || *tlsHandshakeKept < 0 || *tlsHandshakeMost < *tlsHandshakeBlocks {
		log.Fatalf("-tls-handshake-blocks must be positive (it is %d), -tls-handshake-kept not negative (%d), and -tls-handshake-most (%d) not below -tls-handshake-blocks", *tlsHandshakeBlocks, *tlsHandshakeKept, *tlsHandshakeMost)
	}
	if *docs && *quick {
		log.Fatal("-docs takes a full run's figures, not -quick's")
	}
	if *agreeLoadDirs != "" {
		printed(render.AgreeLoad(strings.Split(*agreeLoadDirs, ",")))
		return
	}
	if *agreeTLSDirs != "" {
		printed(render.AgreeTLS(strings.Split(*agreeTLSDirs, ",")))
		return
	}
	if *agreeH3Dirs != "" {
		printed(render.AgreeH3(strings.Split(*agreeH3Dirs, ",")))
		return
	}
	if *agreeLatencyDirs != "" {
		printed(render.AgreeLatency(strings.Split(*agreeLatencyDirs, ",")))
		return
	}
	if *compareDir != "" {
		printed(render.CompareDir(*compareDir, *out))
		return
	}
	if *agreeDirs != "" {
		printed(render.Agree(strings.Split(*agreeDirs, ",")))
		return
	}
	root, err := bench.FindRoot()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	// Interrupted: stop the benchmarks and the servers they started, and
	// keep no partial output.
	proc.Handle("report", 5*time.Second, removePartial)
	var forced string
	if *run || *sweep || *scaleRun || *workRun || *latencyRun || *loadRun || *atLoadRun || *capacityRun || *whyRun || *tlsRun || *tlsKeepAliveRun || *tlsHandshakeRun || *newConnRun || *h3Run || *minWaitRun || *uringRun {
		cfg, err := bench.DefaultConfig()
		if err != nil {
			log.Fatal(err)
		}
		if forced, err = cfg.CheckQuiet(*force); err != nil {
			log.Fatal(err)
		}
		if forced != "" {
			log.Printf("-force: %s", forced)
		}
	}
	benchFile := filepath.Join(*out, "bench.txt")
	sweepFile := filepath.Join(*out, "sweep.txt")
	scaleFile := filepath.Join(*out, "scale.txt")
	workFile := filepath.Join(*out, "work.txt")
	latencyFile := filepath.Join(*out, "latency.txt")
	loadFile := filepath.Join(*out, "load.txt")
	atLoadFile := filepath.Join(*out, "atload.txt")
	capacityFile := filepath.Join(*out, "capacity.txt")
	whyFile := filepath.Join(*out, "why.txt")
	readinessFile := filepath.Join(*out, "readiness.txt")
	tlsFile := filepath.Join(*out, "tls.txt")
	tlsKeepAliveFile := filepath.Join(*out, "tls-keepalive.txt")
	tlsHandshakeFile := filepath.Join(*out, "tls-handshake.txt")
	newConnFile := filepath.Join(*out, "newconn.txt")
	protocolsFile := filepath.Join(*out, report.ProtocolsSection+".txt")
	uringFile := filepath.Join(*out, report.UringSection+".txt")
	if *run {
		if err := runAll(root, benchFile, *quick, forced, plan.Blocks(*quick, *blocks), plan.Ceilings(*quick, *inMemory, *rounds, *blocks, *each, *modes)); err != nil {
			fatal(err)
		}
		// A full run joins its host's record; a smoke run, or one without
		// the keep-alive ceilings the record holds, does not.
		if !*quick && (*modes == "" || slices.Contains(strings.Split(*modes, ","), string(bench.KeepAlive))) {
			into := cmp.Or(*hostsDir, *out)
			key, err := report.FileHostRun(into, benchFile)
			if err != nil {
				log.Fatal(err)
			}
			log.Printf("filed under %s", filepath.Join(into, "hosts", key))
		}
	}
	if *sweep {
		if err := runAll(root, sweepFile, false, forced, *sweepRounds, plan.Sweep(*sweepRounds, *sweepN)); err != nil {
			fatal(err)
		}
	}
	if *scaleRun {
		if err := runAll(root, scaleFile, false, forced, *rounds, plan.Scale(*rounds, *n, *cores)); err != nil {
			fatal(err)
		}
	}

	if *workRun {
		if err := runAll(root, workFile, *quick, forced, plan.Blocks(*quick, *workBlocks), plan.Work(*quick, *workBlocks, *each)); err != nil {
			fatal(err)
		}
	}

	if *loadRun || *atLoadRun || *capacityRun || *whyRun {
		from := benchFile
		if *ceilingsFrom != "" {
			from = *ceilingsFrom
		}
		ceilings, err := plan.KeepAliveCeilings(from)
		if err != nil {
			fatal(err)
		}
		if *loadRun {
			rounds := plan.Blocks(*quick, *loadRounds)
			if err := runAll(root, loadFile, *quick, forced, rounds, plan.Load(*quick, rounds, min(rounds, *capacityRounds), ceilings)); err != nil {
				fatal(err)
			}
		}
		if *capacityRun {
			rounds := plan.Blocks(*quick, *capacityRounds)
			if err := runAll(root, capacityFile, *quick, forced, rounds, plan.Capacity(*quick, rounds, ceilings)); err != nil {
				fatal(err)
			}
		}
		if *whyRun {
			rounds := plan.Blocks(*quick, *capacityRounds)
			if err := runAll(root, whyFile, *quick, forced, rounds, plan.Why(*quick, rounds, ceilings)); err != nil {
				fatal(err)
			}
		}
		if *loadRun || *atLoadRun {
			blocks := plan.Blocks(*quick, *atLoadBlocks)
			if err := runAll(root, atLoadFile, *quick, forced, blocks, plan.AtLoad(*quick, blocks, ceilings)); err != nil {
				fatal(err)
			}
		}
	}

	if *readinessRun {
		rounds := plan.Blocks(*quick, *readinessRounds)
		if err := runAll(root, readinessFile, *quick, forced, rounds, plan.Readiness(*quick, rounds)); err != nil {
			fatal(err)
		}
	}

	if *tlsRun || *tlsKeepAliveRun {
		rounds := plan.Blocks(*quick, *tlsKeepAliveBlocks)
		rule := plan.KeepAliveRule(*quick, *tlsKeepAliveKept, *tlsKeepAliveMost, *each)
		if err := runUntil(root, tlsKeepAliveFile, *quick, forced, rounds, plan.TLSKeepAlive(*quick, rounds, *each), rule); err != nil {
			fatal(err)
		}
	}
	if *tlsRun || *tlsHandshakeRun {
		rounds := plan.Blocks(*quick, *tlsHandshakeBlocks)
		rule := plan.HandshakeRule(*quick, *tlsHandshakeKept, *tlsHandshakeMost, *each)
		if err := runUntil(root, tlsHandshakeFile, *quick, forced, rounds, plan.TLSHandshakes(*quick, rounds, *each), rule); err != nil {
			fatal(err)
		}
	}
	if *tlsRun {
		rounds := plan.Blocks(*quick, *tlsBlocks)
		if err := runAll(root, tlsFile, *quick, forced, rounds, plan.TLS(*quick, rounds, *tlsFor)); err != nil {
			fatal(err)
		}
	}

	if *h3Run {
		// quic-go asks for 7 MiB UDP buffers; the run records those it had.
		if err := proc.RaiseUDPBuffers(); err != nil {
			log.Printf("HTTP/3: %v", err)
		}
		blocks := plan.Blocks(*quick, *h3Blocks)
		if err := runAll(root, protocolsFile, *quick, forced, blocks, plan.Protocols(*quick, blocks)); err != nil {
			fatal(err)
		}
	}
	if *newConnRun {
		blocks := plan.Blocks(*quick, *newConnBlocks)
		if err := runAll(root, newConnFile, *quick, forced, blocks, plan.NewConn(*quick, blocks, *connRate)); err != nil {
			fatal(err)
		}
	}

	if *uringRun {
		blocks := plan.Blocks(*quick, *uringBlocks)
		if err := runAll(root, uringFile, *quick, forced, blocks, plan.Uring(*quick, blocks)); err != nil {
			fatal(err)
		}
	}

	if *minWaitRun {
		from := benchFile
		if *ceilingsFrom != "" {
			from = *ceilingsFrom
		}
		if *minWaitBlocks < 1 {
			log.Fatal("-min-wait-blocks must be positive")
		}
		if err := runMinWait(root, filepath.Join(*out, "minwait.txt"), from, *quick, forced, *minWaitBlocks, *minWaits); err != nil {
			fatal(err)
		}
	}

	if *latencyRun {
		from := benchFile
		if *ceilingsFrom != "" {
			from = *ceilingsFrom
		}
		if err := runLatency(root, *out, from, latencyFile, *quick, forced, *latencyRounds); err != nil {
			fatal(err)
		}
	}

	rep, err := report.Read(map[string]string{"ceilings": benchFile, "sweep": sweepFile, "scale": scaleFile, "work": workFile, "latency": latencyFile, "load": loadFile, "readiness": readinessFile, "tls": tlsFile, "tls-keepalive": tlsKeepAliveFile, "tls-handshake": tlsHandshakeFile, "atload": atLoadFile, "capacity": capacityFile, "why": whyFile, "newconn": newConnFile, report.ProtocolsSection: protocolsFile, report.UringSection: uringFile})
	minWaitFile := filepath.Join(*out, "minwait.txt")
	if _, statErr := os.Stat(minWaitFile); errors.Is(err, report.ErrNoResults) && statErr == nil {
		rep, err = report.Report{}, nil // a -min-wait run alone: its part only
	}
	if err != nil {
		log.Fatalf("%v: run with -run, -sweep, -scale, -work, -latency, -load, -at-load, -capacity, -readiness, -tls, -tls-keepalive, -tls-handshakes, -newconn or -uring", err)
	}
	if err := report.AddMinWait(&rep, minWaitFile); err != nil {
		log.Fatal(err)
	}
	// The hosts first: without a re-run beside it, Repeat reads them.
	if rep.Hosts, err = report.ReadHosts(*out); err != nil {
		log.Fatal(err)
	}
	if rep.Repeat, err = report.ReadRepeat(rep, *out); err != nil {
		log.Fatal(err)
	}
	if rep.Clients, err = report.ReadClients(filepath.Join(*out, "clients.json")); err != nil {
		log.Fatal(err)
	}
	if err := write(*out, rep); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "report: wrote %s\n", filepath.Join(*out, "REPORT.md"))
	if *docs {
		for _, d := range documents {
			if err := d.update(root, rep); err != nil {
				log.Fatal(err)
			}
			fmt.Fprintf(os.Stderr, "report: wrote the generated sections of %s\n", d.path)
		}
	}
}

// printed prints a comparison's text, or ends on its error.
func printed(text string, err error) {
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(text)
}

// partial is the output file being written, removed if the run is
// interrupted: a partial run leaves nothing in the output directory.
var partial struct {
	sync.Mutex
	file string
}

func removePartial() {
	partial.Lock()
	defer partial.Unlock()
	if partial.file != "" {
		os.Remove(partial.file)
	}
}

// runAll runs the commands in root, writing their output (and the date,
// the rounds and each command, as comment lines) to file and to stderr. A
// failing command ends the run: its figures would be incomplete. The
// output goes to a temporary file renamed to file only once every command
// has succeeded, so that a failed or interrupted run leaves the last
// complete one in place.
func runAll(root, file string, quick bool, forced string, rounds int, cmds [][]string) error {
	return runUntil(root, file, quick, forced, rounds, cmds, nil)
}

// runUntil is runAll, then, with a rule, the further commands the rule
// asks for given the output so far, until it asks for none.
func runUntil(root, file string, quick bool, forced string, rounds int, cmds [][]string, rule *plan.Rule) error {
	tmp := file + ".partial"
	partial.Lock()
	partial.file = tmp
	partial.Unlock()
	defer removePartial()
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer f.Close()
	w := io.MultiWriter(f, os.Stderr)
	fmt.Fprintf(w, "%s%s\n", report.DatePrefix, time.Now().UTC().Format(report.DateFormat))
	m, err := json.Marshal(machine())
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s%s\n", report.MachinePrefix, m)
	cfg, err := bench.DefaultConfig()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%sserver %s client %s\n", report.CpusPrefix, cfg.ServerCPUs, cfg.ClientCPUs)
	fmt.Fprintf(w, "%s%d\n", report.RoundsPrefix, rounds)
	if rule != nil {
		fmt.Fprintln(w, rule.Header())
	}
	fmt.Fprintf(w, "%s%s\n", report.SourcePrefix, proc.CPUSource())
	if quick {
		fmt.Fprintln(w, report.QuickLine)
	}
	if forced != "" {
		fmt.Fprintf(w, "%s%s\n", report.ForcedPrefix, forced)
	}
	run := func(c []string) error {
		fmt.Fprintf(w, "%s%s\n", report.CommandPrefix, quote(c))
		return runCommand(root, w, c)
	}
	for _, c := range cmds {
		if err := run(c); err != nil {
			return err
		}
	}
	for k := rounds; rule != nil; k++ {
		block, err := rule.Next(tmp, k)
		if err != nil {
			return err
		}
		if block == nil {
			break
		}
		for _, c := range block {
			if err := run(c); err != nil {
				return err
			}
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// runCommand runs one go test command in its own process group (an
// interrupted report stops the group: go test and the servers its test
// binary started), dying with the report, its output going to w.
func runCommand(root string, w io.Writer, c []string) error {
	// SIGTERM, should the report die: go test dies at once, and the test
	// binary, orphaned, stops its servers.
	p, err := proc.Start(proc.Spec{Name: "go test", Path: c[0], Args: c[1:], Dir: root, Echo: w, Stop: syscall.SIGTERM, DeathSig: syscall.SIGTERM})
	if err != nil {
		return err
	}
	code, err := p.ExitCode()
	if kerr := p.Kill(); kerr != nil && err == nil {
		err = kerr
	}
	if err != nil || code != 0 {
		return fmt.Errorf("%s: exit status %d %v", quote(c), code, err)
	}
	return nil
}

func quote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " $^*?'\"()|") {
			a = "'" + a + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}

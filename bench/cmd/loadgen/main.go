// Command loadgen is an HTTP/1.x load generator with ab's options and report,
// which speaks HTTP/3 too (-h3).
//
//	loadgen [options] http://host[:port]/path
//
// Where ab has an option, the letter and meaning are ab's: -n requests, -c
// concurrency, -k keep-alive, -t time limit in seconds, -s timeout in
// seconds, -H header (repeatable), -m method, -i HEAD, -l accept variable
// document length, -r don't stop at a socket receive error, -q no progress.
// Beyond ab: -d duration (wrk's -d), -pipeline N requests per connection
// written together, -rate R requests/s in total (open loop, latency from the
// intended send), -spin (with -rate, poll rather than sleep between sends),
// -warmup (a duration or a count, run first and not
// recorded), -repeat N runs (prints the median run and the spread), -json
// (one JSON object instead of the report), -units ms (ab's own units and
// format; µs by default), -engine io_uring|epoll (the I/O engine; by default
// io_uring from 16 connections, when the kernel has it), -o FILE (write the
// run's latency histograms and exact counts as an HdrHistogram interval
// log), -start-at TIME (start then, for runs on several hosts), -resume
// (resume TLS sessions), -h3 (HTTP/3 over QUIC through quic-go's client, to
// an https:// URL), -streams N (with -h3 -k, requests in flight per
// connection) and -0rtt (with -h3 -resume, a new connection's request in
// 0-RTT). As with ab, a value may follow its letter directly: -c50.
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
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"hellobench/bench/loadgen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usageLine = "usage: loadgen [options] http[s]://host[:port]/path (loadgen -h lists the options)"

// help follows the options in -h: what each field of the report means, and
// the exit status.
const help = `
The report has ab's fields, in ab's order; times are in µs (-units ms: ab's
milliseconds and format, for scripts that read ab's report).
  Concurrency Level       connections (-c)
  Pipeline Depth          requests in flight per connection (-pipeline, or -streams
                          with -h3, when above 1)
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
  Send lateness           with -rate, how late loadgen itself sent each request: when
                          the system call that sent it was issued, less its due time,
                          or less the time a connection freed when none could take it
                          then (waiting for the server is not the client's lateness);
                          not the kernel's time after the call
  Client-limited          with -rate: yes when the send lateness p99.9 exceeds the
                          larger of 10% of the latency p99.9 and 50 µs; such a run
                          measured the client as much as the server

Several hosts: when one host cannot load the server enough, run loadgen on
several with the same -start-at and each its own -o FILE, gather the files,
and loadgen merge FILE... prints one report of them all (loadgen merge -h).
-start-at takes an RFC 3339 time (2026-01-02T15:04:05Z) or Unix seconds;
loadgen resolves the host and prepares, waits until then, then connects. A
time more than a second past is an error: this host's clock is out of sync,
or it started late. -o writes an HdrHistogram interval log, which
HdrHistogram's own tools read too: the untagged histogram is Total, in ns;
Tag=connect, processing and waiting the others, and with -rate
Tag=send_lateness; a "#[loadgen: {...}]" comment holds the exact counts.
An -o FILE ending in .gz is written gzip-compressed (zcat gives its text);
loadgen merge reads a log either way.

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
	fail := func(err error) int {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, unix.SIGTERM)
	defer stop()
	log, err := createLog(o.out)
	if err != nil {
		return fail(err)
	}
	defer log.discard()
	runs, err := o.load(ctx, stderr)
	if err != nil {
		return fail(err)
	}
	if err := log.write(runs[0]); err != nil {
		return fail(err)
	}
	med := median(runs)
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

// load waits for -start-at, runs the warm-up and then the runs, with
// progress on stderr unless quiet. It stops after a run stopped at a
// socket error, or when ctx is done; at least one run is returned, or an
// error.
func (o *options) load(ctx context.Context, stderr io.Writer) ([]*loadgen.Result, error) {
	note := func(format string, a ...any) {
		if !o.quiet {
			fmt.Fprintf(stderr, format, a...)
		}
	}
	cfg := o.cfg
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
			return nil, fmt.Errorf("warm-up: %w", err)
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
			return nil, err
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
		return nil, errors.New("interrupted before the first run")
	}
	return runs, nil
}

// A logFile is -o's file. It is made before the run, so that a path that
// cannot be written fails before the load, and removed unless a log was
// written to it. A nil *logFile (no -o) does nothing.
type logFile struct {
	f    *os.File
	path string
}

// createLog creates path, or returns nil for "".
func createLog(path string) (*logFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &logFile{f, path}, nil
}

// write writes the log of r, gzip-compressed when the file's name ends in
// .gz, and closes the file; on an error the file is removed.
func (l *logFile) write(r *loadgen.Result) error {
	if l == nil {
		return nil
	}
	var err error
	if strings.HasSuffix(l.path, ".gz") {
		zw := gzip.NewWriter(l.f)
		err = loadgen.WriteLog(zw, r)
		if zerr := zw.Close(); err == nil {
			err = zerr
		}
	} else {
		err = loadgen.WriteLog(l.f, r)
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err != nil {
		os.Remove(l.path)
		return fmt.Errorf("writing %s: %w", l.path, err)
	}
	return nil
}

// discard closes and removes a file that write did not finish.
func (l *logFile) discard() {
	if l == nil || l.f == nil {
		return
	}
	l.f.Close()
	os.Remove(l.path)
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

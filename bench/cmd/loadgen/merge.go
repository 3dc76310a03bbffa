package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"hellobench/bench/loadgen"
)

const mergeUsageLine = "usage: loadgen merge [-json] [-units ms] FILE... (loadgen merge -h explains)"

// mergeHelp follows the options in loadgen merge -h.
const mergeHelp = `
loadgen merge reads the logs that loadgen -o wrote (as they are, or
gzip-compressed), one per host of a test run from several hosts at once,
and prints them as one run, in the report (or -json) that a run prints,
and below it each log's own figures.
  Counts and bytes    summed exactly: complete and failed requests by kind,
                      status codes, non-2xx, keep-alive requests, connections,
                      bytes
  Connection Times    and percentiles: of the hosts' histograms added bucket
                      by bucket, so each is that of one histogram holding every
                      request
  Send lateness       likewise, when every log has it (-rate)
  Concurrency Level   the connections of all hosts; -rate, their sum
  Time taken for tests
                      from the earliest start to the latest end (start + time
                      taken), by each host's own clock: keep the clocks in
                      sync (NTP), as -start-at needs anyway
  Requests per second all complete requests / that span; less than the sum of
                      the hosts' own rates when they did not run at once

Exit status: 0 when every request of every log got a complete 2xx response;
1 when any failed or got another status; 2 for a usage error, or a FILE that
cannot be read, is not a loadgen log, or is not of the same test as the
others (another URL, keep-alive, pipeline depth, open or closed loop,
document length), or is the same run twice.
`

// merge is loadgen merge: it returns the exit status.
func merge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	jsonOut := fs.Bool("json", false, "print one JSON object instead of the report, each log's own under \"sources\"")
	units := fs.String("units", "µs", "report times in µs, or ms: ab's own units and format")
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "loadgen merge: "+format+"\n", a...)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, mergeUsageLine)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			fmt.Fprint(stdout, mergeHelp)
			return 0
		}
		return usage("%v", err)
	}
	// Options may also follow the files.
	var files []string
	for fs.NArg() > 0 {
		files = append(files, fs.Arg(0))
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return usage("%v", err)
		}
	}
	switch {
	case len(files) == 0:
		return usage("no log files; %s", mergeUsageLine)
	case *units != "µs" && *units != "us" && *units != "ms":
		return usage("invalid -units %q (µs or ms)", *units)
	}

	runs := make([]*loadgen.Result, len(files))
	for i, name := range files {
		r, err := readLog(name)
		if err != nil {
			return usage("%v", err)
		}
		runs[i] = r
	}
	for i, a := range runs {
		for j := i + 1; j < len(runs); j++ {
			if err := loadgen.Mergeable(a, runs[j]); err != nil {
				return usage("%s and %s: %v", files[i], files[j], err)
			}
		}
	}
	m, err := loadgen.Merge(runs)
	if err != nil {
		return usage("%v", err)
	}

	switch {
	case *jsonOut:
		err = loadgen.WriteMergedJSON(stdout, m, runs, files)
	case *units == "ms":
		err = loadgen.WriteABReport(stdout, m)
	default:
		err = loadgen.WriteReport(stdout, m)
	}
	if err == nil && !*jsonOut {
		writeSources(stdout, m, runs, files, *units == "ms")
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadgen merge: %v\n", err)
		return 1
	}
	return status(stderr, []*loadgen.Result{m}, false)
}

// readLog reads the loadgen log in the file name.
func readLog(name string) (*loadgen.Result, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := loadgen.ReadLog(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return r, nil
}

// writeSources prints each log's own rate, tail latency and failures, and
// when it started after the earliest.
func writeSources(w io.Writer, m *loadgen.Result, runs []*loadgen.Result, files []string, ms bool) {
	unit, div := "µs", 1e3
	if ms {
		unit, div = "ms", 1e6
	}
	fmt.Fprintf(w, "\nLogs (the report above is of them all)\n")
	fmt.Fprintf(w, "  log   requests/s     p50 %s     p99 %s   failed    start +s  file\n", unit, unit)
	for i, r := range runs {
		p50, p99 := float64(r.Latency.ValueAtQuantile(50))/div, float64(r.Latency.ValueAtQuantile(99))/div
		prec := 0
		if ms {
			prec = 3
		}
		fmt.Fprintf(w, "  %3d %12.2f %10.*f %10.*f %8d %11.3f  %s\n", i+1, r.RequestsPerSec(), prec, p50, prec, p99,
			r.Failed, r.Start.Sub(m.Start).Seconds(), files[i])
	}
}

// Command guards answers what the framing guards cost on a plain GET, for
// each server of the target table that accepts -bare (targets.Guarded),
// three ways, each side by side:
//
//   - over the network: each server against itself -bare, in pairs,
//     alternating round by round, CPU per request (bench.Versus);
//   - in memory: each server's BenchmarkGuard with the guard on and off,
//     each run in a process of its own pinned to the server's CPU, on and
//     off in turns, A B A B, so that neither is always second;
//   - the guards' scanners alone: BenchmarkScan under servers/internal.
//
// benchstat compares the in-memory runs. It writes OUT/guards.txt (the
// network table and benchstat's) and OUT/guards-bench.txt (the raw
// benchmark output). -quick runs each part for seconds only: a check that
// the command works, not a measure.
//
// Usage:
//
//	guards [-quick] [-force] [-out results] [-benchstat bin/benchstat] [NAME...]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"hellobench/bench"
	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

// A config is the command line.
type config struct {
	quick     bool
	force     bool
	out       string   // directory of guards.txt and guards-bench.txt
	benchstat string   // the benchstat binary; "": ROOT/bin/benchstat
	servers   []string // guarded servers; none: all of them
}

// sizes are how long each part measures.
type sizes struct {
	versus    bench.VersusConfig
	rounds    int    // of BenchmarkGuard, on and off once each per round
	benchtime string // of each benchmark run
	scanCount int    // runs of BenchmarkScan
}

// full is make compare WHAT=guards; quick only proves that every part runs.
var (
	full = sizes{
		versus:    bench.VersusConfig{Client: "loadgen", Mode: bench.KeepAlive, Connections: 50, Duration: 3 * time.Second, Rounds: 7, Pairs: true},
		rounds:    10,
		benchtime: "0.5s",
		scanCount: 10,
	}
	quick = sizes{
		versus:    bench.VersusConfig{Client: "loadgen", Mode: bench.KeepAlive, Connections: 50, Duration: 500 * time.Millisecond, Rounds: 1, Pairs: true},
		rounds:    2,
		benchtime: "1000x",
		scanCount: 1,
	}
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("guards: ")
	var c config
	flag.BoolVar(&c.quick, "quick", false, "run each part for seconds: a check that the command works, not a measure")
	flag.BoolVar(&c.force, "force", false, "run even when another process is busy on the pinned CPUs")
	flag.StringVar(&c.out, "out", "results", "`directory` to write guards.txt and guards-bench.txt in")
	flag.StringVar(&c.benchstat, "benchstat", "", "the benchstat `binary` (default bin/benchstat under the module root; make bin/benchstat installs it)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: guards [-quick] [-force] [-out results] [NAME...]\nNAME: a server with -bare, one of %s (default all)\n", strings.Join(targets.Guarded(), ", "))
		flag.PrintDefaults()
	}
	flag.Parse()
	c.servers = flag.Args()
	if err := c.check(); err != nil {
		fmt.Fprintf(os.Stderr, "guards: %v\n", err)
		flag.Usage()
		os.Exit(2)
	}
	cfg, err := bench.DefaultConfig()
	if err != nil {
		log.Fatal(err)
	}
	// Interrupted: stop every server, client and benchmark started.
	proc.Handle("guards", 5*time.Second, nil)
	if err := run(cfg, c, os.Stdout, os.Stderr); err != nil {
		log.Fatal(err)
	}
}

// check returns every problem with the command line at once.
func (c config) check() error {
	var errs []error
	for _, s := range c.servers {
		if !slices.Contains(targets.Guarded(), s) {
			errs = append(errs, fmt.Errorf("%s has no -bare to compare with: not one of %s", s, strings.Join(targets.Guarded(), ", ")))
		}
	}
	if c.out == "" {
		errs = append(errs, errors.New("-out is empty"))
	}
	return errors.Join(errs...)
}

// run measures the servers as c says, writing the tables to stdout and to
// c.out, and what it does to progress.
func run(cfg bench.Config, c config, stdout, progress io.Writer) (err error) {
	names := c.servers
	if len(names) == 0 {
		names = targets.Guarded()
	}
	size := full
	if c.quick {
		size = quick
	}
	benchstat := c.benchstat
	if benchstat == "" {
		benchstat = filepath.Join(cfg.Root, "bin", "benchstat")
	}
	benchstat, err = exec.LookPath(benchstat)
	if err != nil {
		return fmt.Errorf("no benchstat: %v (make bin/benchstat installs it)", err)
	}
	// Absolute: it runs in c.out.
	if benchstat, err = filepath.Abs(benchstat); err != nil {
		return err
	}
	if forced, err := cfg.CheckQuiet(c.force); err != nil {
		return err
	} else if forced != "" {
		fmt.Fprintf(progress, "guards: -force: %s\n", forced)
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	table, err := os.Create(filepath.Join(c.out, "guards.txt"))
	if err != nil {
		return err
	}
	defer func() {
		if cerr := table.Close(); err == nil {
			err = cerr
		}
	}()
	w := io.MultiWriter(stdout, table)

	// Over the network.
	v := size.versus
	for _, n := range names {
		v.Targets = append(v.Targets, n, n+bench.BareSuffix)
	}
	vr, err := bench.Versus(cfg, v, progress)
	if err != nil {
		return err
	}
	if err := vr.WriteTable(w); err != nil {
		return err
	}

	// In memory.
	const raw = "guards-bench.txt"
	if err := benchmarks(cfg, names, size, filepath.Join(c.out, raw), progress); err != nil {
		return err
	}
	// Run in c.out, so that a column named after the file says only its name.
	for _, args := range [][]string{
		{"-col", "/guard", "-filter", ".name:Guard .unit:sec/op", raw},
		{"-filter", ".name:Scan .unit:sec/op", raw},
	} {
		out, _, err := proc.Run(proc.Spec{Name: "benchstat", Path: benchstat, Args: args, Dir: c.out})
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "\n%s", out); err != nil {
			return err
		}
	}
	return nil
}

// benchmarks builds the test binaries of the servers and of the scanners'
// packages, runs them pinned to the server's CPUs as size says and writes
// their output to path.
func benchmarks(cfg bench.Config, names []string, size sizes, path string, progress io.Writer) error {
	dir, err := os.MkdirTemp("", "hellobench-guards-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// The scanners' packages: those under servers/internal with tests.
	out, _, err := proc.Run(proc.Spec{Name: "go list", Path: "go", Dir: cfg.Root,
		Args: []string{"list", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.Dir}}{{end}}", "./servers/internal/..."}})
	if err != nil {
		return err
	}
	scanners := strings.Fields(string(out))
	pkgs := slices.Clone(scanners)
	for _, n := range names {
		t, err := targets.Lookup(n)
		if err != nil {
			return err
		}
		pkgs = append(pkgs, filepath.Join(cfg.Root, t.Package))
	}
	// One build; each binary is named after its package's folder.
	fmt.Fprintf(progress, "guards: building the test binaries of %s\n", strings.Join(names, ", "))
	if _, _, err := proc.Run(proc.Spec{Name: "go test -c", Path: "go", Dir: cfg.Root, Args: append([]string{"test", "-c", "-o", dir + "/"}, pkgs...)}); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// runBench runs one test binary in its package's folder, as go test does.
	runBench := func(pkgDir, pattern string, args ...string) error {
		bin := filepath.Join(dir, filepath.Base(pkgDir)+".test")
		args = append([]string{"-test.run", "^$", "-test.bench", pattern, "-test.benchtime", size.benchtime}, args...)
		out, _, err := proc.Run(proc.Spec{Name: filepath.Base(bin), Path: bin, Args: args, Dir: pkgDir, CPUs: cfg.ServerCPUs})
		if err != nil {
			return err
		}
		_, err = f.Write(out)
		return err
	}
	for i := range size.rounds {
		fmt.Fprintf(progress, "guards: BenchmarkGuard, round %d/%d\n", i+1, size.rounds)
		for _, n := range names {
			t, _ := targets.Lookup(n)
			for _, g := range []string{"on", "off"} {
				if err := runBench(filepath.Join(cfg.Root, t.Package), "^BenchmarkGuard$/^guard="+g+"$"); err != nil {
					return err
				}
			}
		}
	}
	fmt.Fprintf(progress, "guards: BenchmarkScan in %d packages\n", len(scanners))
	for _, d := range scanners {
		if err := runBench(d, "^BenchmarkScan$", "-test.count", fmt.Sprint(size.scanCount)); err != nil {
			return err
		}
	}
	return f.Close()
}

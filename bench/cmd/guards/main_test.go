package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"hellobench/bench"
	"hellobench/internal/proc"
)

// TestMain stops every server and benchmark the tests started when the run
// is interrupted, or when go test, its parent, dies.
func TestMain(m *testing.M) {
	proc.Handle("guards tests", 2*time.Second, nil)
	proc.Exit(m.Run())
}

// TestQuick runs the quick variant for real on one server: the network
// pair, the in-memory benchmarks alternating on and off, the scanners and
// benchstat, and checks what it wrote.
func TestQuick(t *testing.T) {
	cfg, err := bench.DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	benchstat := filepath.Join(cfg.Root, "bin", "benchstat")
	if _, err := os.Stat(benchstat); err != nil {
		msg := "no bin/benchstat (make bin/benchstat installs it)"
		if os.Getenv("HELLOBENCH_REQUIRE_TOOLS") == "1" {
			t.Fatal(msg + ", but HELLOBENCH_REQUIRE_TOOLS=1")
		}
		t.Skip(msg)
	}
	out := t.TempDir()
	var stdout, progress strings.Builder
	// Forced: a smoke run, on a machine whose CPUs other tests keep busy.
	c := config{quick: true, force: true, out: out, servers: []string{"nethttp"}}
	if err := run(cfg, c, &stdout, &progress); err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}

	table, err := os.ReadFile(filepath.Join(out, "guards.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(table) != stdout.String() {
		t.Errorf("guards.txt differs from what was printed:\n%s\nprinted:\n%s", table, stdout.String())
	}
	for _, want := range []string{
		`(?m)^ +nethttp/bare +\d+ `,                                 // the bare server measured
		`CPU per request, nethttp/nethttp/bare, round by round: \d`, // in a pair
		`(?m)│ +on +│ +off +│$`,                                     // benchstat, guard on against off
		`(?m)^Guard +[\d.]+\S* ± .* [\d.]+\S* ± `,                   // for the server, on and off
		`(?m)^Scan +[\d.]+\S* ± `,                                   // and the scanners alone
	} {
		if !regexp.MustCompile(want).Match(table) {
			t.Errorf("guards.txt does not match %s:\n%s", want, table)
		}
	}

	raw, err := os.ReadFile(filepath.Join(out, "guards-bench.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// Two rounds, on and off in turns, each run a process of its own.
	runs := regexp.MustCompile(`(?m)^BenchmarkGuard/guard=(on|off)\S*\s+1000\s`).FindAllSubmatch(raw, -1)
	var order []string
	for _, r := range runs {
		order = append(order, string(r[1]))
	}
	if got := strings.Join(order, " "); got != "on off on off" {
		t.Errorf("BenchmarkGuard ran %q, want on off on off:\n%s", got, raw)
	}
	if n := strings.Count(string(raw), "\npkg: hellobench/servers/nethttp\n"); n != 4 {
		t.Errorf("%d BenchmarkGuard processes, want 4:\n%s", n, raw)
	}
	if !regexp.MustCompile(`(?m)^BenchmarkScan\S*\s+1000\s`).Match(raw) {
		t.Errorf("no BenchmarkScan run:\n%s", raw)
	}
}

func TestCheck(t *testing.T) {
	err := config{servers: []string{"gnet", "nope"}}.check()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"gnet has no -bare", "nope has no -bare", "nethttp, fasthttp", "-out is empty"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if err := (config{out: "results", servers: []string{"gin", "fiber"}}).check(); err != nil {
		t.Errorf("gin fiber: %v", err)
	}
}

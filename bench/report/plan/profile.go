package plan

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"hellobench/internal/targets"
)

// Profile are bin/report -profile's commands: every server's CPU profile
// saturated and at a quarter of its keep-alive ceiling (BenchmarkProfile),
// in one pass, the folded stacks into dir (relative to the module root,
// where go test runs, or absolute); then each Go stack's allocations per
// request (Allocs). One pass, not rounds: a profile's resolution is its
// samples', and a second pass would be a second profile, not a narrower
// one. -quick profiles two servers for a third of a second each.
func Profile(quick bool, ceilings, dir string) [][]string {
	args := []string{"-bench", "^BenchmarkProfile$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args", "-ceilings", ceilings, "-profile-dir", inBench(dir)}
	if quick {
		args = append(args, "-profile-servers", quickServers(ceilings), "-profile-for", "300ms")
	}
	return append([][]string{GoTest(args...)}, Allocs(quick, dir)...)
}

// AllocRuns are the two lengths each in-memory benchmark is run for with
// every allocation recorded: what one request allocates is the difference
// of their profiles over the difference of their lengths, so that what
// the benchmark allocates once (its server, its connection) drops out.
var AllocRuns = [2]int{2000, 6000}

// quickAllocRuns are -quick's lengths.
var quickAllocRuns = [2]int{200, 600}

// Allocs are the in-memory keep-alive benchmark of every Go stack, run
// at each of AllocRuns' lengths with every allocation recorded
// (-memprofilerate=1), the profiles into dir as NAME_alloc_N.pprof;
// -quick net/http and fasthttp, shorter.
func Allocs(quick bool, dir string) [][]string {
	runs, names := AllocRuns, targets.Names(targets.Server)
	if quick {
		runs, names = quickAllocRuns, []string{"nethttp", "fasthttp"}
	}
	var cmds [][]string
	for _, name := range names {
		t, err := targets.Lookup(name)
		if err != nil || !strings.HasPrefix(t.Package, "./servers/") || slices.Contains(noLoop, name) {
			continue
		}
		for _, n := range runs {
			// -trimpath: the profile names source files by module, not by
			// where the build machine keeps them.
			cmds = append(cmds, GoTest("-bench", "^"+InMemoryBenchmark(name)+"$", "-benchtime", fmt.Sprintf("%dx", n), "-benchmem", "-cpu", "1", "-trimpath",
				"-memprofile", filepath.Join(dir, AllocFile(name, n)), "-memprofilerate", "1", t.Package))
		}
	}
	return cmds
}

// noLoop are the Go stacks whose loop cannot run over an in-memory
// connection (their transports read a file descriptor): their benchmark
// skips, so a profile of it would list no allocation.
var noLoop = []string{"hertz", "nbio"}

// InMemoryBenchmark is the in-memory keep-alive benchmark of a server
// package: a request on a kept connection through the stack's own loop.
func InMemoryBenchmark(name string) string {
	if name == "fcgi" {
		return "BenchmarkKeepConn" // lighttpd's kept FastCGI connection
	}
	return "BenchmarkServeKeepAlive"
}

// AllocFile is the name of a server's allocation profile of n requests.
func AllocFile(name string, n int) string { return fmt.Sprintf("%s_alloc_%d.pprof", name, n) }

// Trace is bin/report -trace's command: a few requests on one
// keep-alive connection to each of nethttp, fasthttp, gnet and uring
// while strace records their system calls (BenchmarkTrace), the traces
// into dir (an absolute path). It is one short run, quick or not.
func Trace(dir string) [][]string {
	return [][]string{GoTest("-bench", "^BenchmarkTrace$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args", "-trace-dir", inBench(dir))}
}

// inBench is dir, relative to the module root, as the test binary of
// ./bench sees it: go test runs it in bench/. An absolute dir is itself.
func inBench(dir string) string {
	if filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join("..", dir)
}

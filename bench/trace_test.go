package bench

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hellobench/internal/deps"
	"hellobench/internal/proc"
)

var (
	flagTraceServers = flag.String("trace-servers", "nethttp,fasthttp,gnet,uring", "BenchmarkTrace's servers")
	flagTraceDir     = flag.String("trace-dir", "", "the directory BenchmarkTrace writes its traces into, NAME.strace (required)")
	// A few requests, far apart: each one alone, so that its system
	// calls and wake-ups are its own.
	flagTraceRate = flag.Float64("trace-rate", 20, "BenchmarkTrace's rate, req/s on one keep-alive connection")
	flagTraceFor  = flag.Duration("trace-for", 500*time.Millisecond, "how long BenchmarkTrace traces each server")
)

// BenchmarkTrace records, for each of -trace-servers, every system call
// of every thread of the server (strace -f, with the time of each and
// its duration) while loadgen sends a few requests on one keep-alive
// connection at -trace-rate: the life of a request, call by call. strace
// stops the server at every call, so the times are strace's, slower than
// the server's own; the order of the calls and which thread makes them
// are what the trace is for.
func BenchmarkTrace(b *testing.B) {
	cfg, client := setup(b)
	strace, err := exec.LookPath("strace")
	if err != nil {
		b.Skip(deps.NotInstalled("strace"))
	}
	if *flagTraceDir == "" || *flagTraceRate <= 0 || *flagTraceFor <= 0 {
		b.Fatalf("-trace-dir %q, -trace-rate %g, -trace-for %v: want a directory, a rate and a duration", *flagTraceDir, *flagTraceRate, *flagTraceFor)
	}
	if err := os.MkdirAll(*flagTraceDir, 0o755); err != nil {
		b.Fatal(err)
	}
	for _, name := range strings.Split(*flagTraceServers, ",") {
		b.Run(name, func(b *testing.B) {
			s := start(b, cfg, name)
			traced(b, strace, client, s, filepath.Join(*flagTraceDir, name+".strace"))
		})
	}
}

// traced runs a few requests on s while strace records its calls into
// file.
func traced(b *testing.B, strace string, client Client, s *Server, file string) {
	var args []string
	for _, p := range proc.Group(s.PID()) {
		args = append(args, "-p", strconv.Itoa(p.PID))
	}
	// -f: every thread; -tt: the time of day to the µs; -T: each call's
	// duration; -qq: no attach and exit messages.
	cmd := exec.Command(strace, append([]string{"-f", "-tt", "-T", "-qq", "-o", file}, args...)...)
	cmd.Stderr = &bytes.Buffer{}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Process.Kill()
	time.Sleep(500 * time.Millisecond) // strace attaches to every thread
	st, err := client.Run(Load{URL: s.URL(), Mode: KeepAlive, Connections: 1, Duration: *flagTraceFor, Rate: *flagTraceRate})
	if err != nil {
		fellOver(b, err)
		return
	}
	cmd.Process.Signal(syscall.SIGINT)
	var exit *exec.ExitError
	if err := cmd.Wait(); err != nil && !(errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGINT) {
		b.Fatalf("strace: %v: %s", err, cmd.Stderr)
	}
	if st.Requests == 0 {
		b.Fatal("no request answered")
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(st.Requests), "requests")
}

package robust

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"hellobench/internal/deps"
	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

var (
	full     = flag.Bool("full", false, "run the full sizes (make robust); without it, a quick variant of each test")
	reportTo = flag.String("report", "", "write this run's results as markdown to `file`")
	soakFor  = flag.Duration("soak", 0, "run TestSoak for this `duration` (make soak); 0 skips it")
)

// binDir holds what TestMain builds: the servers and loadgen.
var binDir string

// cpu is the CPU every server is pinned to, with GOMAXPROCS=1.
const cpu = "0"

// A sizes says how big each test is.
type sizes struct {
	slowloris      int           // slow-header connections
	lorisTimeout   time.Duration // the servers' header timeout against them
	headerTimeout  time.Duration // the servers' header timeout against slow bodies
	slowRead       int           // slow-read connections
	slowReadFor    time.Duration // how long a bystander is served beside them
	slowBody       int           // slow-body connections
	keepAliveBody  int           // kept connections whose second request's body drips
	pipelined      int           // requests pipelined on one connection never read
	pipeliners     int           // connections pipelining at once, never reading
	pipelinersHold time.Duration // how long a bystander is served beside them
	idle           int           // keep-alive connections answered once, then idle
	flood          int           // connections against an open-file limit of 256
	floodHold      time.Duration // how long the flood is held; CPU is measured over it
	resets         int           // connections reset, of each kind
	load           time.Duration // loadgen's run when SIGTERM comes, a third of the way in
	h3Load         time.Duration // each hostile UDP load against a server serving HTTP/3
}

// The quick variant keeps the whole suite well under a minute; full is
// the sizes.
var (
	quick = sizes{
		// Every server's slowloris runs at once: 2 200 connections opened
		// on two cores beside make test's other packages took more than 2 s
		// in CI, and a 2 s timeout closed the first before the last opened.
		slowloris: 200, lorisTimeout: 5 * time.Second, headerTimeout: 2 * time.Second,
		slowRead: 200, slowReadFor: time.Second,
		slowBody: 200, keepAliveBody: 50,
		pipelined: 10_000, pipeliners: 100, pipelinersHold: 2 * time.Second, idle: 1_000,
		flood: 1_000, floodHold: time.Second / 2,
		resets: 200, load: 2 * time.Second,
		// The servers take the UDP loads one after another: they share CPU 0.
		h3Load: time.Second,
	}
	fullSizes = sizes{
		slowloris: 1_000, lorisTimeout: 5 * time.Second, headerTimeout: 5 * time.Second,
		slowRead: 1_000, slowReadFor: 10 * time.Second,
		slowBody: 1_000, keepAliveBody: 200,
		pipelined: 100_000, pipeliners: 1_000, pipelinersHold: 10 * time.Second, idle: 10_000,
		flood: 1_000, floodHold: 5 * time.Second,
		resets: 2_000, load: 9 * time.Second,
		h3Load: 2 * time.Second,
	}
)

func size() sizes {
	if *full {
		return fullSizes
	}
	return quick
}

// TestMain builds every server and loadgen once into a temporary
// directory, runs the tests and writes the report.
func TestMain(m *testing.M) {
	flag.Parse()
	parallel()
	dir, err := os.MkdirTemp("", "hellobench-robust-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	// Interrupted, or orphaned by go test: stop every server started and
	// leave no report.
	proc.Handle("robustness tests", 2*time.Second, func() { os.RemoveAll(dir) })
	began := time.Now()
	code := 1
	lg := targets.Target{Name: "loadgen", Package: "./bench/cmd/loadgen"}
	if err := targets.Build("..", dir, append(targets.Servers(), lg)...); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
		if err := writeReport(*reportTo, began); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.RemoveAll(dir)
	proc.Exit(code)
}

// parallel lets every server of a test run at once, unless -test.parallel
// says otherwise: the tests mostly wait on timeouts, and the default
// (GOMAXPROCS, 2 here) would serialise them.
func parallel() {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(len(targets.Servers())))
	}
}

// forEach runs fn as a subtest per server, side by side when parallel,
// each recording its row of the report as test at size.
func forEach(t *testing.T, name, size string, parallel bool, fn func(*test, targets.Target)) {
	for _, tg := range targets.Servers() {
		t.Run(tg.Name, func(tt *testing.T) {
			if parallel {
				tt.Parallel()
			}
			fn(&test{T: tt, row: newRow(tt, tg.Name, name, size)}, tg)
		})
	}
}

// A test is one server's run of one test: a testing.T whose failures and
// skips are also noted in the report's row. Use Errorf, Fatalf and Skipf.
type test struct {
	*testing.T
	row *row
}

func (t *test) Errorf(format string, args ...any) {
	t.Helper()
	t.row.note(fmt.Sprintf(format, args...))
	t.T.Errorf(format, args...)
}

func (t *test) Fatalf(format string, args ...any) {
	t.Helper()
	t.row.note(fmt.Sprintf(format, args...))
	t.T.Fatalf(format, args...)
}

func (t *test) Skipf(format string, args ...any) {
	t.Helper()
	t.row.note(fmt.Sprintf(format, args...))
	t.T.Skipf(format, args...)
}

// lenient records a documented shortfall of the target (its Lenient entry)
// and fails when it is no longer there: still reports whether it is, and
// a shortfall that is gone must leave the table.
func (t *test) lenient(why string, still func() bool) {
	t.Helper()
	if !still() {
		t.Errorf("the documented shortfall is gone (%s): remove it from the target's Lenient entry", why)
		return
	}
	t.Logf("deviation: %s", why)
	t.row.mu.Lock()
	t.row.lenient = why
	t.row.mu.Unlock()
}

// missing skips for a tool that is not installed, or fails when every tool
// is required (HELLOBENCH_REQUIRE_TOOLS=1, as in CI).
func (t *test) missing(err error) {
	t.Helper()
	if os.Getenv("HELLOBENCH_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%v, but HELLOBENCH_REQUIRE_TOOLS=1", err)
	}
	t.Skipf("%v", err)
}

// tool returns the path of the program name, or marks it missing.
func (t *test) tool(name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.missing(errors.New(deps.NotInstalled(name)))
	}
	return p
}

// start starts tg pinned with GOMAXPROCS=1, as e says otherwise, and
// stops it when the test ends: gracefully, leaving nothing behind.
func (t *test) start(tg targets.Target, e targets.Env) *targets.Instance {
	t.Helper()
	t.tool("taskset")
	if e.NoFile > 0 {
		t.tool("prlimit")
	}
	e.Root, e.Bin, e.CPUs, e.Procs = "..", binDir, cpu, 1
	in, err := tg.Start(e)
	if errors.Is(err, targets.ErrMissing) {
		t.missing(err)
	}
	if err != nil {
		t.Fatalf("start %s: %v", tg.Name, err)
	}
	t.Cleanup(func() {
		if err := in.Stop(); err != nil {
			t.Errorf("stop %s: %v", tg.Name, err)
		}
	})
	return in
}

// httpPID returns the PID of the instance's process that speaks HTTP:
// the server itself, or lighttpd in front of the fcgi application.
func (t *test) httpPID(in *targets.Instance) int {
	t.Helper()
	for _, s := range proc.Group(in.Proc.PID()) {
		if s.Comm == in.Counted[0] {
			return s.PID
		}
	}
	t.Fatalf("no process %s in the group of %s", in.Counted[0], in.Name)
	return 0
}

// files counts the descriptors pid has open.
func (t *test) files(pid int) int {
	t.Helper()
	n, err := proc.OpenFiles(pid)
	if err != nil {
		t.Fatalf("open files of %d: %v", pid, err)
	}
	return n
}

// waitFiles polls pid's open descriptors every 20 ms until ok holds for
// their count, for at most d. It returns when ok first held, or false with
// the last count.
func (t *test) waitFiles(pid int, d time.Duration, ok func(n int) bool) (at time.Time, n int, held bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		at, n = time.Now(), t.files(pid)
		if ok(n) {
			return at, n, true
		}
		if at.After(deadline) {
			return at, n, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// usage returns the CPU time and memory of the instance's counted
// processes.
func (t *test) usage(in *targets.Instance) proc.Usage {
	t.Helper()
	u, err := in.Usage()
	if err != nil {
		t.Fatalf("%v", err)
	}
	return u
}

// alive fails when the instance has exited, with its status and output.
func (t *test) alive(in *targets.Instance, when string) {
	t.Helper()
	select {
	case <-in.Proc.Exited():
	default:
		return
	}
	status := "with status "
	if code, err := in.Proc.ExitCode(); err != nil {
		status += err.Error()
	} else {
		status += strconv.Itoa(code)
	}
	out := in.Proc.Output().String()
	t.Fatalf("%s exited %s %s; it logged first %q\nits output:\n%s", in.Name, when, status, firstLog(in.Target, out), out)
}

// firstLog returns the first line out has after the target's ready line,
// which is usually why it failed, or the last line.
func firstLog(tg targets.Target, out string) string {
	l := lines(out)
	for i, s := range l {
		if tg.Ready != nil && tg.Ready.MatchString(s) && i+1 < len(l) {
			return l[i+1]
		}
	}
	if len(l) == 0 {
		return ""
	}
	return l[len(l)-1]
}

// serves fails unless a new connection gets the page within d.
func (t *test) serves(in *targets.Instance, d time.Duration, when string) {
	t.Helper()
	t.alive(in, when)
	if err := get(in.Addr, d); err != nil {
		t.Fatalf("%s: %v", when, err)
	}
}

// mib formats bytes as MiB.
func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// secs formats a duration in seconds, to the millisecond.
func secs(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

// lines returns the non-empty lines of s.
func lines(s string) []string {
	var l []string
	for _, x := range strings.Split(s, "\n") {
		if strings.TrimSpace(x) != "" {
			l = append(l, x)
		}
	}
	return l
}

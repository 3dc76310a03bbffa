package conformance

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

// A target is one server under test: a row of the one target table.
type target struct {
	targets.Target
}

// servers lists every hellobench server the suite checks, in the table's
// order.
var servers = func() []target {
	var ts []target
	for _, t := range targets.Servers() {
		ts = append(ts, target{t})
	}
	return ts
}()

// binDir holds the server binaries that TestMain builds.
var binDir string

// A process is a started server. Its output is kept for failure messages.
type process struct {
	in     *targets.Instance
	addr   string
	stderr *proc.Output
}

// start starts the server unpinned on addr (a free loopback port when
// empty) with the contract's two timeouts, waits until it serves and
// registers its graceful stop, which must leave no process and no
// temporary file behind.
func (tg target) start(t *testing.T, addr string, headerTimeout, idleTimeout time.Duration) *process {
	t.Helper()
	return tg.startEnv(t, targets.Env{Addr: addr, HeaderTimeout: headerTimeout, IdleTimeout: idleTimeout})
}

// startEnv starts the server as e says, with the suite's binaries.
func (tg target) startEnv(t *testing.T, e targets.Env) *process {
	t.Helper()
	e.Root, e.Bin = "..", binDir
	in, err := tg.Start(e)
	if err != nil {
		requireInstalled(t, err)
		t.Fatalf("start %s: %v", tg.Name, err)
	}
	t.Cleanup(func() {
		if err := in.Stop(); err != nil {
			t.Errorf("stop %s: %v", tg.Name, err)
		}
	})
	return &process{in: in, addr: in.Addr, stderr: in.Proc.Output()}
}

// signal sends sig to the server process (not its group).
func (p *process) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.in.Proc.Signal(sig); err != nil {
		t.Fatalf("signal %s: %v", p.in.Name, err)
	}
}

// wait waits up to d for the process to exit and returns its exit code.
func (p *process) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.in.Proc.Exited():
	case <-time.After(d):
		t.Fatalf("%s still running %v after the signal\n%s", p.in.Name, d, p.stderr)
	}
	code, err := p.in.Proc.ExitCode()
	if err != nil {
		t.Fatalf("%s: %v", p.in.Name, err)
	}
	return code
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := targets.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// TestMain builds every server once into a temporary directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hellobench-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	// Interrupted, or orphaned by go test: stop every server started and
	// leave no report.
	proc.Handle("conformance tests", 2*time.Second, func() { os.RemoveAll(dir) })
	code := 0
	if err := targets.Build("..", dir, targets.Servers()...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	if certDir != "" {
		os.RemoveAll(certDir)
	}
	proc.Exit(code)
}

package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A target is one server under test.
type target struct {
	name string
	// serverHeader is the expected prefix of the Server header.
	serverHeader string
	// start starts the server on addr with the contract's two timeouts,
	// waits until it accepts connections and registers its cleanup.
	start func(t *testing.T, addr string, headerTimeout, idleTimeout time.Duration) *process
	// deviations replaces the contract's status for a named case where the
	// stack legitimately answers otherwise; the suite asserts the
	// replacement and logs why.
	deviations map[string]deviation
	// logAllowed matches the lines the server (or the HTTP server in front
	// of it) may log while serving; nil: none.
	logAllowed *regexp.Regexp
}

// A deviation is a documented, asserted departure from the contract.
type deviation struct {
	status int
	why    string
}

var targets = []target{
	{name: "nethttp", serverHeader: "nethttp", start: startBinary("nethttp")},
	{name: "fasthttp", serverHeader: "fasthttp", start: startBinary("fasthttp")},
	{name: "fiber", serverHeader: "fiber", start: startBinary("fiber"), deviations: map[string]deviation{
		"extension-method": {400, "fiber answers a method outside its configured RequestMethods with 400 before routing"},
	}},
	{name: "gin", serverHeader: "gin", start: startBinary("gin")},
	{name: "gnet", serverHeader: "gnet", start: startBinary("gnet")},
	{name: "fcgi", serverHeader: "lighttpd", start: startFcgi, deviations: map[string]deviation{
		"extension-method": {501, "lighttpd answers 501 Not Implemented to a method it does not know, before any module sees the request"},
	}, logAllowed: regexp.MustCompile(`oversized request-header -> sending Status 431$`)}, // lighttpd logs every 431; no setting turns it off
}

// binDir holds the server binaries that TestMain builds.
var binDir string

// binary returns the path of the built servers/<name> binary.
func binary(name string) string { return filepath.Join(binDir, name) }

// A process is a started server. Its stderr is kept for failure messages.
type process struct {
	name   string
	addr   string
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan struct{} // closed when the process has exited
	err    error         // the exit status, once exited is closed
}

// startBinary returns a start function for a Go server binary that takes the
// contract's flags.
func startBinary(name string) func(*testing.T, string, time.Duration, time.Duration) *process {
	return func(t *testing.T, addr string, headerTimeout, idleTimeout time.Duration) *process {
		t.Helper()
		cmd := exec.Command(binary(name), "-addr", addr,
			"-header-timeout", headerTimeout.String(), "-idle-timeout", idleTimeout.String())
		cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
		p := startProcess(t, name, addr, cmd)
		// The servers log their start line just after they listen.
		for deadline := time.Now().Add(5 * time.Second); !logLine.MatchString(p.stderr.String()); {
			if time.Now().After(deadline) {
				t.Fatalf("%s: no start line after 5s:\n%s", name, p.stderr)
			}
			time.Sleep(5 * time.Millisecond)
		}
		return p
	}
}

// startProcess starts cmd in its own process group, waits until addr accepts
// connections and registers a cleanup that kills the group.
func startProcess(t *testing.T, name, addr string, cmd *exec.Cmd) *process {
	t.Helper()
	p := &process{name: name, addr: addr, cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	cmd.Stdout = p.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return p
		}
		select {
		case <-p.exited:
			t.Fatalf("%s exited before listening on %s: %v\n%s", name, addr, p.err, p.stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not listening on %s after 15s: %v\n%s", name, addr, err, p.stderr)
		}
	}
}

// signal sends sig to the server process (not its group).
func (p *process) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %s: %v", p.name, err)
	}
}

// wait waits up to d for the process to exit and returns its exit code.
func (p *process) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(d):
		t.Fatalf("%s still running %v after the signal\n%s", p.name, d, p.stderr)
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &ee):
		return ee.ExitCode()
	default:
		t.Fatalf("%s: %v", p.name, p.err)
		return -1
	}
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// syncBuffer is a bytes.Buffer safe for a process writing and a test reading.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestMain builds every Go server once into a temporary directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hellobench-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := build(dir)
	if code == 0 {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// build builds servers/<name> for every target.
func build(dir string) int {
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, tg := range targets {
		args = append(args, "./servers/"+tg.name)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go %s: %v\n%s", strings.Join(args, " "), err, out)
		return 1
	}
	return 0
}

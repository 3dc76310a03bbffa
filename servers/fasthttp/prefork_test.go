package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hellobench/internal/proc"
	"hellobench/page"
)

// build builds this command into a temporary directory, under its own name:
// the children's command name must be the parent's.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fasthttp")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// freePort returns a loopback address whose port was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startPrefork starts bin with -prefork at GOMAXPROCS=2 on a free loopback
// port and waits for its start line; exited receives its exit status, and
// the test's end kills what is left of its group. The parent binds the
// port plainly, to find it taken, before its children bind it with
// SO_REUSEPORT, so the test cannot hold the port for them
// (internal/testnet), and another process may take it first: a start that
// finds its port in use is retried on another, as targets.Start does.
func startPrefork(t *testing.T, bin string) (cmd *exec.Cmd, addr string, out *proc.Output, exited <-chan error) {
	t.Helper()
tries:
	for try := 1; ; try++ {
		addr, out = freePort(t), new(proc.Output)
		cmd = exec.Command(bin, "-prefork", "-addr", addr)
		cmd.Env = append(os.Environ(), "GOMAXPROCS=2")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid, status, gone := cmd.Process.Pid, make(chan error, 1), make(chan struct{})
		go func() {
			status <- cmd.Wait()
			close(gone)
		}()
		t.Cleanup(func() {
			syscall.Kill(-pid, syscall.SIGKILL) // on failure: the whole group
			select {
			case <-gone:
			case <-time.After(5 * time.Second):
			}
		})

		startLine := regexp.MustCompile(`(?m)^.*fasthttp: listening on ` + regexp.QuoteMeta(addr) + ` \(GOMAXPROCS=2\)\n`)
		for deadline := time.Now().Add(10 * time.Second); !startLine.MatchString(out.String()); {
			select {
			case err := <-status:
				if try < 3 && strings.Contains(out.String(), "address already in use") {
					t.Logf("%s; again on another port", strings.TrimSpace(out.String()))
					continue tries
				}
				t.Fatalf("exited before its start line: %v\n%s", err, out.String())
			case <-time.After(10 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("no start line in 10 s:\n%s", out.String())
			}
		}
		return cmd, addr, out, status
	}
}

func fetch(t *testing.T, addr string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	io.WriteString(c, "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n")
	r, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r.Body); r.StatusCode != 200 || string(b) != string(page.HTML) {
		t.Fatalf("GET: %s, %q", r.Status, b)
	}
}

// TestPrefork runs the binary with -prefork at GOMAXPROCS=2: a parent and
// two children named as it is, each child with a listening socket of its
// own on the port; the page served; and on SIGTERM to the parent alone, new
// connections refused, a request in flight answered and its connection
// closed, exit 0 within 5 s, and no process of the group left.
func TestPrefork(t *testing.T) {
	bin := build(t)
	cmd, addr, out, exited := startPrefork(t, bin)
	pid := cmd.Process.Pid

	var children []proc.Stat
	for _, p := range proc.Group(pid) {
		if p.PID == pid {
			continue
		}
		if p.PPID != pid || p.Comm != "fasthttp" {
			t.Errorf("process %d in the group: parent %d, name %q; want a child of %d named fasthttp", p.PID, p.PPID, p.Comm, pid)
		}
		children = append(children, p)
	}
	if len(children) != 2 {
		t.Fatalf("%d children, want 2:\n%v", len(children), children)
	}
	// Each child accepts on a socket of its own: SO_REUSEPORT, not one
	// shared listener.
	_, portStr, _ := net.SplitHostPort(addr)
	portNum, _ := strconv.Atoi(portStr)
	lns, err := proc.Listening(portNum)
	if err != nil {
		t.Fatal(err)
	}
	if len(lns) != 2 {
		t.Errorf("%d sockets listening on %s, want 2", len(lns), addr)
	}
	for _, c := range children {
		n := 0
		socks, err := proc.Sockets(c.PID)
		if err != nil {
			t.Fatal(err)
		}
		for inode := range socks {
			if lns[inode] {
				n++
				delete(lns, inode)
			}
		}
		if n != 1 {
			t.Errorf("child %d holds %d of the listening sockets, want 1", c.PID, n)
		}
	}
	for range 6 {
		fetch(t, addr)
	}

	// A request in flight when the signal comes.
	busy, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	io.WriteString(busy, "GET /hello/world HTTP/1.1\r\nHo")
	time.Sleep(100 * time.Millisecond)

	signalled := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if c != nil {
			c.Close()
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			break
		}
		if time.Since(signalled) > time.Second {
			t.Fatalf("dial 1 s after SIGTERM: %v, want connection refused", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Answered in full, then closed.
	io.WriteString(busy, "st: h\r\n\r\n")
	busy.SetReadDeadline(time.Now().Add(2 * time.Second))
	br := bufio.NewReader(busy)
	r, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("request in flight: %v", err)
	}
	if b, _ := io.ReadAll(r.Body); r.StatusCode != 200 || string(b) != string(page.HTML) {
		t.Errorf("request in flight: %s, %q", r.Status, b)
	}
	if b, err := io.ReadAll(br); err != nil || len(b) > 0 {
		t.Errorf("after the request in flight: %q, %v; want EOF", b, err)
	}

	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v, want 0\n%s", err, out.String())
		}
		if d := time.Since(signalled); d > 5*time.Second {
			t.Errorf("exited %v after SIGTERM, want 5 s at most", d)
		}
	case <-time.After(6 * time.Second):
		t.Fatalf("still running 6 s after SIGTERM:\n%s", out.String())
	}
	// The parent waits for its children: none may be left, even a moment
	// after.
	if left := proc.Group(pid); len(left) > 0 {
		t.Errorf("processes left in the group after the parent exited: %v", left)
	}
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 1 {
		t.Errorf("output beyond the start line:\n%s", out.String())
	}
}

// TestPreforkPortTaken runs -prefork on a port in use: a one-line error and
// exit 1, with no child started.
func TestPreforkPortTaken(t *testing.T) {
	bin := build(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cmd := exec.Command(bin, "-prefork", "-addr", ln.Addr().String())
	cmd.Env = append(os.Environ(), "GOMAXPROCS=2")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1\n%s", err, out)
	}
	if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "address already in use") {
		t.Errorf("output: %q, want one line saying the address is in use", out)
	}
	if left := proc.Group(cmd.Process.Pid); len(left) > 0 {
		t.Errorf("processes left: %v", left)
	}
}

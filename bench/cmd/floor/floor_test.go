//go:build linux

package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"hellobench/internal/targets"
	"hellobench/internal/uring"
	"hellobench/internal/uring/uringtest"
	"hellobench/page"
)

// build builds the floor into a temporary directory.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "floor")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// start runs the floor with the given flags and returns its address and
// process.
func start(t *testing.T, bin string, flags ...string) (string, *exec.Cmd) {
	t.Helper()
	addr, cmd, _ := startLog(t, nil, bin, flags...)
	return addr, cmd
}

// A floorLog gathers what the floor writes to stderr after its first line.
type floorLog struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	done chan struct{} // closed at the end of the output: the floor has exited
}

func (f *floorLog) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.String()
}

// startLog runs the floor with the given flags, through the command wrap
// if any (its arguments end with the floor's), and returns its address,
// its process and its log.
func startLog(t *testing.T, wrap []string, bin string, flags ...string) (string, *exec.Cmd, *floorLog) {
	t.Helper()
	addr, err := targets.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	args := append(append(wrap, bin, "-addr", addr), flags...)
	cmd := exec.Command(args[0], args[1:]...)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	br := bufio.NewReader(r)
	line, err := br.ReadString('\n')
	if err != nil || !strings.Contains(line, "floor: listening on") {
		t.Fatalf("floor did not start: %q %v", line, err)
	}
	f := &floorLog{done: make(chan struct{})}
	go func() {
		defer close(f.done)
		defer r.Close()
		b := make([]byte, 4096)
		for {
			n, err := br.Read(b)
			f.mu.Lock()
			f.buf.Write(b[:n])
			f.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return addr, cmd, f
}

// engines lists each engine's flags; io_uring's are skipped where the
// kernel has none.
func engines(t *testing.T) [][]string {
	all := [][]string{{"-engine", "epoll"}, {"-engine", "io_uring", "-multishot=false"}, {"-engine", "io_uring", "-multishot"}}
	r, err := uring.New(8)
	if err != nil {
		t.Logf("io_uring: %v: epoll only", err)
		return all[:1]
	}
	r.Close()
	return all
}

// TestEngines: both loops answer pipelined and split requests in order,
// close after HTTP/1.0 and Connection: close, and stop on SIGTERM with
// status 0.
func TestEngines(t *testing.T) {
	bin := build(t)
	for _, flags := range engines(t) {
		t.Run(strings.Join(flags[1:], ""), func(t *testing.T) {
			addr, cmd := start(t, bin, flags...)
			get := "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"
			for _, tc := range []struct {
				name  string
				parts []string
				n     int  // answers
				close bool // the floor closes after them
			}{
				{"pipelined", []string{get + get + get}, 3, false},
				{"split", []string{"GET /hello/wor", "ld HTTP/1.1\r\nHost: h\r", "\n\r\n"}, 1, false},
				{"HTTP/1.0", []string{"GET / HTTP/1.0\r\n\r\n" + get}, 1, true},
				{"close", []string{get + "GET / HTTP/1.1\r\nConnection: close\r\n\r\n" + get}, 2, true},
			} {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range tc.parts {
					io.WriteString(c, p)
					time.Sleep(10 * time.Millisecond)
				}
				c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
				br := bufio.NewReader(c)
				got := 0
				for ; ; got++ {
					r, err := http.ReadResponse(br, nil)
					if err != nil {
						closed := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
						if got != tc.n || closed != tc.close {
							t.Errorf("%s: %d answers, closed %v (%v); want %d, closed %v", tc.name, got, closed, err, tc.n, tc.close)
						}
						break
					}
					body, _ := io.ReadAll(r.Body)
					if r.StatusCode != 200 || !bytes.Equal(body, page.HTML) {
						t.Fatalf("%s: answer %d: %d, %d bytes", tc.name, got, r.StatusCode, len(body))
					}
				}
				c.Close()
			}
			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Errorf("after SIGTERM: %v, want exit status 0", err)
			}
		})
	}
}

// TestURingRefused: where a seccomp profile refuses io_uring, as Docker's
// default does, the io_uring floor exits 1 with one line that says so.
func TestURingRefused(t *testing.T) {
	if os.Getenv("FLOOR_FORBID_URING") != "1" {
		t.Setenv("FLOOR_BIN", build(t)) // for the child
	}
	if !uringtest.InChild(t, "FLOOR_FORBID_URING") {
		return
	}
	bin := os.Getenv("FLOOR_BIN")
	if err := uringtest.Forbid(unix.SYS_IO_URING_SETUP, unix.EPERM); err != nil {
		t.Skipf("cannot install a seccomp filter: %v", err)
	}
	addr, err := targets.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "-addr", addr, "-engine", "io_uring")
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || len(lines) != 1 || !strings.Contains(lines[0], "io_uring") {
		t.Errorf("floor under the filter: %v, stderr %q; want exit status 1 and one line about io_uring", err, stderr.String())
	}
}

package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fdServerEnv, set, makes TestFDServer the server side of TestFDExhaustion.
const fdServerEnv = "HELLOBENCH_FD_SERVER"

// fdLimit is the open-file limit the server runs under, as in the issue.
const fdLimit = 256

// TestFDServer serves, in a process of its own, with an open-file limit of
// fdLimit, and prints its address.
func TestFDServer(t *testing.T) {
	if os.Getenv(fdServerEnv) == "" {
		t.Skip("the server side of TestFDExhaustion")
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	rl.Cur = fdLimit
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	_, addr := start(t, 10*time.Second, 10*time.Second)
	fmt.Println(addr)
	time.Sleep(time.Hour) // until killed
}

// TestFDExhaustion floods a server limited to fdLimit descriptors with
// five times as many connections: it must keep running (limit.go), log the
// connections it closes a line a second at most, and serve again at once
// when the flood ends. It does so with one event loop and with two, each
// accepting on its own listener.
func TestFDExhaustion(t *testing.T) {
	if os.Getenv(fdServerEnv) != "" {
		t.Skip("in the server process")
	}
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) { fdExhaustion(t, procs) })
	}
}

func fdExhaustion(t *testing.T, procs int) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestFDServer$", "-test.v")
	cmd.Env = append(os.Environ(), fdServerEnv+"=1", fmt.Sprintf("GOMAXPROCS=%d", procs))
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{}) // closed when the server exits, with waitErr
	var waitErr error
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	lines := bufio.NewScanner(out)
	var addr string
	for addr == "" && lines.Scan() {
		if _, err := net.ResolveTCPAddr("tcp", lines.Text()); err == nil {
			addr = lines.Text()
		}
	}
	go io.Copy(io.Discard, out)
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	if addr == "" {
		t.Fatalf("no address from the server: %s", stderr.String())
	}

	// The flood's client side needs as many descriptors of its own.
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur < 6*fdLimit {
		t.Skipf("the test process may open %d files, too few for the flood", rl.Cur)
	}
	flood := make([]net.Conn, 5*fdLimit)
	var wg sync.WaitGroup
	for i := range flood {
		wg.Go(func() {
			if c, err := net.DialTimeout("tcp", addr, 2*time.Second); err == nil {
				flood[i] = c
			}
		})
	}
	wg.Wait()
	start := time.Now()
	time.Sleep(2 * time.Second) // exhausted
	select {
	case <-exited:
		t.Fatalf("the server exited during the flood: %v\n%s", waitErr, stderr.String())
	default:
	}
	for _, c := range flood {
		if c != nil {
			c.Close()
		}
	}
	elapsed := time.Since(start)
	n := strings.Count(stderr.String(), "at the open-file limit")
	if n == 0 || float64(n) > elapsed.Seconds()+1 {
		t.Errorf("%d log lines on connections closed in %v, want 1 a second at most:\n%s", n, elapsed, stderr.String())
	}
	if strings.Contains(stderr.String(), "too many open files") {
		t.Errorf("accept failed:\n%s", stderr.String())
	}

	// A new connection is served within a second.
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	io.WriteString(c, "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n")
	r, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("after the flood: %v, %v\n%s", r, err, stderr.String())
	}
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

package main

import (
	"bufio"
	"fmt"
	"hellobench/servers/internal/fasthttpguard"
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

// TestFDServer serves, in a process of its own, as main does, with an
// open-file limit of fdLimit, and prints its address.
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(ln.Addr())
	app := newApp(10*time.Second, 10*time.Second)
	t.Fatal(app.Listener(fasthttpguard.Listener{Listener: &fasthttpguard.RetryListener{Listener: ln}}))
}

// TestFDExhaustion floods a server limited to fdLimit descriptors with
// five times as many connections: it must keep running, log the failed
// accepts a line a second at most, and serve again at once when the flood
// ends.
func TestFDExhaustion(t *testing.T) {
	if os.Getenv(fdServerEnv) != "" {
		t.Skip("in the server process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFDServer$", "-test.v")
	cmd.Env = append(os.Environ(), fdServerEnv+"=1")
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
	n := strings.Count(stderr.String(), "too many open files")
	if n == 0 || float64(n) > elapsed.Seconds()+1 {
		t.Errorf("%d log lines on failed accepts in %v, want 1 a second at most:\n%s", n, elapsed, stderr.String())
	}

	// The flood's connections still queued are accepted and closed; a new
	// one is served within a second.
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

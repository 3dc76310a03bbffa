// Package fdflood is the descriptor-exhaustion test that the servers which
// guard against it share (fasthttp, fiber, gnet), as httptest is the one
// helper their tests would share: a server started by the test binary in a
// process of its own, limited to Limit open files, flooded with five times
// as many connections. It is for tests only.
//
// A server's test file has two tests:
//
//	func TestFDServer(t *testing.T) {
//		if !fdflood.InServer() {
//			t.Skip("the server side of TestFDExhaustion")
//		}
//		fdflood.LimitFiles(t)
//		// listen, fmt.Println(the address), serve as main does
//	}
//
//	func TestFDExhaustion(t *testing.T) {
//		if fdflood.InServer() {
//			t.Skip("in the server process")
//		}
//		fdflood.Run(t, nil, "too many open files")
//	}
package fdflood

import (
	"bufio"
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

	"hellobench/internal/proc"
)

// env, set, makes TestFDServer the server side of the flood.
const env = "HELLOBENCH_FD_SERVER"

// Limit is the open-file limit the server runs under.
const Limit = 256

// InServer reports whether this test process is the flood's server side.
func InServer() bool { return os.Getenv(env) != "" }

// LimitFiles lowers this process's open-file limit to Limit.
func LimitFiles(t *testing.T) {
	t.Helper()
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	rl.Cur = Limit
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
}

// Run starts TestFDServer of this test binary in a child process, with
// extra environment variables, and floods it with 5×Limit connections for
// two seconds: it must keep running, log its line (a line containing
// logLine) at most once a second, and serve a new connection within a
// second once the flood ends. It returns the server's log.
func Run(t *testing.T, extraEnv []string, logLine string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFDServer$", "-test.v")
	cmd.Env = append(append(os.Environ(), env+"=1"), extraEnv...)
	var stderr proc.Output
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
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur < 6*Limit {
		t.Skipf("the test process may open %d files, too few for the flood", rl.Cur)
	}
	flood := make([]net.Conn, 5*Limit)
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
	if n := strings.Count(stderr.String(), logLine); n == 0 || float64(n) > elapsed.Seconds()+1 {
		t.Errorf("%d log lines %q in %v, want 1 a second at most:\n%s", n, logLine, elapsed, stderr.String())
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
	return stderr.String()
}

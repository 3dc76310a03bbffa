//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hellobench/internal/proc"
	"hellobench/page"
)

// TestChurn: a new connection per request at full speed, closed in turn
// by the floor (Connection: close), by the client after the answer, and
// by the client with a reset before it, reuses descriptors while the
// completions for their previous connections may still be on the way.
// Every answer is whole; once the churn stops, the floor holds no
// descriptor beyond its own; and SIGTERM in the middle of more churn ends
// it within a second, status 0, the io_uring floor with every connection
// slot given back. HELLOBENCH_CHURN sets how long the first churn lasts
// (2s unless told; 10s for issue 44's target).
func TestChurn(t *testing.T) {
	d := 2 * time.Second
	if v := os.Getenv("HELLOBENCH_CHURN"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatalf("HELLOBENCH_CHURN=%q: %v", v, err)
		}
	}
	bin := build(t)
	for _, flags := range engines(t) {
		t.Run(strings.Join(flags[1:], ""), func(t *testing.T) {
			addr, cmd, flog := startLog(t, nil, bin, flags...)
			base := fds(t, cmd.Process.Pid)

			answered := churn(t, addr, d, nil)
			if answered < 100 {
				t.Fatalf("%d answers in %v of churn", answered, d)
			}
			t.Logf("%d answers in %v of churn", answered, d)
			// Connections the client closed are closed by the floor
			// once it reads their end.
			n := 0
			for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
				if n = fds(t, cmd.Process.Pid); n == base {
					break
				}
			}
			if n != base {
				t.Errorf("after the churn, the floor holds %d descriptors; %d before it", n, base)
			}

			var sent time.Time
			churn(t, addr, time.Second, func() {
				cmd.Process.Signal(syscall.SIGTERM)
				sent = time.Now()
			})
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if d := time.Since(sent); d > time.Second {
					t.Errorf("exited %v after SIGTERM, want within 1s", d.Round(time.Millisecond))
				}
				if err != nil {
					t.Errorf("after SIGTERM: %v, want exit status 0", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("still running 5 s after SIGTERM; log:\n%s", flog)
			}
			<-flog.done
			if flags[1] != "io_uring" {
				return
			}
			m := regexp.MustCompile(`floor: stopped: (\d+) connection slots held`).FindStringSubmatch(flog.String())
			if m == nil {
				t.Fatalf("no slot count at exit; log:\n%s", flog)
			}
			if held, _ := strconv.Atoi(m[1]); held != 0 {
				t.Errorf("%d connection slots held at exit, want 0; log:\n%s", held, flog)
			}
			if strings.Contains(flog.String(), "which holds none") {
				t.Errorf("a completion for a slot that did not hold its operation; log:\n%s", flog)
			}
		})
	}
}

// churn opens connections to addr from 8 clients at full speed for d, one
// request each, and returns the answers read. halfway, if not nil, is
// called half-way through; after it, connections may fail.
func churn(t *testing.T, addr string, d time.Duration, halfway func()) int64 {
	t.Helper()
	var answered atomic.Int64
	var stopped atomic.Bool
	var wg sync.WaitGroup
	end := time.Now().Add(d)
	for w := range 8 {
		wg.Go(func() {
			for i := w; time.Now().Before(end); i++ {
				err := once(addr, i%3)
				if err == nil {
					answered.Add(1)
				} else if !stopped.Load() {
					t.Errorf("connection %d (kind %d): %v", i, i%3, err)
					return
				}
			}
		})
	}
	if halfway != nil {
		time.Sleep(d / 2)
		stopped.Store(true)
		halfway()
	}
	wg.Wait()
	return answered.Load()
}

// once makes one connection to addr with one request. kind 0 asks the
// floor to close after the answer, and reads to the end; kind 1 keeps it
// alive and closes after the answer; kind 2 resets the connection right
// after the request.
func once(addr string, kind int) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	req := "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"
	if kind == 0 {
		req = "GET /hello/world HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
	}
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		return err
	}
	if kind == 2 {
		c.(*net.TCPConn).SetLinger(0)
		return nil
	}
	br := bufio.NewReader(c)
	r, err := http.ReadResponse(br, nil)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(r.Body)
	if err != nil || r.StatusCode != 200 || !bytes.Equal(body, page.HTML) {
		return fmt.Errorf("answer %d, %d bytes, %v", r.StatusCode, len(body), err)
	}
	if kind == 0 {
		if n, err := br.Read(make([]byte, 1)); n != 0 || err != io.EOF {
			return fmt.Errorf("after Connection: close: %d bytes, %v; want the end", n, err)
		}
	}
	return nil
}

// fds counts process pid's open descriptors.
func fds(t *testing.T, pid int) int {
	t.Helper()
	n, err := proc.OpenFiles(pid)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOutOfDescriptors: with more connections waiting than the floor has
// descriptors for, accept fails with EMFILE. The floor says so once and
// pauses accepting instead of spinning (it uses a fraction of a core, not
// all of it), answers the connections it has, and once they close it
// accepts and answers the ones that waited.
func TestOutOfDescriptors(t *testing.T) {
	bin := build(t)
	for _, flags := range engines(t) {
		t.Run(strings.Join(flags[1:], ""), func(t *testing.T) {
			wrap := []string{"sh", "-c", `ulimit -n 32 && exec "$@"`, "sh"}
			addr, cmd, flog := startLog(t, wrap, bin, flags...)
			const n = 48 // past 32 descriptors, the floor's own among them
			conns := make([]net.Conn, n)
			for i := range conns {
				c, err := net.Dial("tcp", addr) // the kernel completes the handshake: the backlog
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				io.WriteString(c, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
				conns[i] = c
			}
			for end := time.Now().Add(2 * time.Second); !strings.Contains(flog.String(), "too many open files"); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatalf("no word of EMFILE; log:\n%s", flog)
				}
			}
			// A spinning loop would use about a second of CPU in this one.
			before := cpu(t, cmd.Process.Pid)
			time.Sleep(time.Second)
			used := cpu(t, cmd.Process.Pid) - before
			if used > 100*time.Millisecond {
				t.Errorf("paused on EMFILE, the floor used %v of CPU in 1 s", used)
			}
			t.Logf("paused on EMFILE: %v of CPU in 1 s", used)
			// The first connections have their answers; the others wait.
			var first []int
			for i, c := range conns {
				c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
				if err := readAnswer(c); err == nil {
					first = append(first, i)
				}
			}
			if len(first) == 0 || len(first) == n {
				t.Fatalf("%d of %d connections answered at the limit", len(first), n)
			}
			for _, i := range first {
				conns[i].Close()
			}
			for i, c := range conns {
				if slices.Contains(first, i) {
					continue
				}
				c.SetReadDeadline(time.Now().Add(2 * time.Second))
				if err := readAnswer(c); err != nil {
					t.Errorf("connection %d, after %d closed: %v", i, len(first), err)
				}
				c.Close() // its descriptor for those behind
			}
			if k := strings.Count(flog.String(), "too many open files"); k != 1 {
				t.Errorf("EMFILE said %d times, want once; log:\n%s", k, flog)
			}
		})
	}
}

// readAnswer reads one answer from c: 200 and the page.
func readAnswer(c net.Conn) error {
	r, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(r.Body)
	if err != nil || r.StatusCode != 200 || !bytes.Equal(body, page.HTML) {
		return fmt.Errorf("answer %d, %d bytes, %v", r.StatusCode, len(body), err)
	}
	return nil
}

// cpu is the CPU time process pid has used, user and system.
func cpu(t *testing.T, pid int) time.Duration {
	t.Helper()
	s, err := proc.ReadStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	return s.CPU()
}

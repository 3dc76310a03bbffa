//go:build linux

package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"hellobench/page"
)

// startWork starts a server on one event loop (GOMAXPROCS=1, as served)
// whose handler does w, waiting on the loop if inline, with a pool of size
// goroutines. When the test ends the pool must have no goroutine left.
func startWork(t *testing.T, w page.Work, inline bool, size int, headerTimeout, idleTimeout time.Duration) (*server, string) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // one loop; the engine keeps its count
	saved, savedInline, savedSize := work, waitInline, poolSize
	work, waitInline, poolSize = w, inline, size
	t.Cleanup(func() { work, waitInline, poolSize = saved, savedInline, savedSize })
	s, addr := start(t, headerTimeout, idleTimeout)
	t.Cleanup(func() {
		for deadline := time.Now().Add(5 * time.Second); s.pool.Busy(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Error("pool goroutines still running 5 s after the test")
				return
			}
		}
	})
	return s, addr
}

const get = "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"

// checkPage reads one response from br and checks it is the page (without
// its body for HEAD).
func checkPage(br *bufio.Reader, method string) error {
	r, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		return fmt.Errorf("%s: %v", method, err)
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return fmt.Errorf("%s: body: %v", method, err)
	}
	want := string(page.HTML)
	if method == "HEAD" {
		want = ""
	}
	if r.StatusCode != 200 || string(b) != want || r.Header.Get("Content-Length") != "257" || r.Header.Get("Server") != "gnet" {
		return fmt.Errorf("%s: %s, Content-Length %q, Server %q, body %q", method, r.Status, r.Header.Get("Content-Length"), r.Header.Get("Server"), b)
	}
	if _, err := http.ParseTime(r.Header.Get("Date")); err != nil {
		return fmt.Errorf("%s: Date %q: %v", method, r.Header.Get("Date"), err)
	}
	return nil
}

// pages opens n connections, then sends a GET on each at once, and returns
// how long until every one had the page.
func pages(t *testing.T, addr string, n int) time.Duration {
	t.Helper()
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		conns[i] = c
	}
	errs := make(chan error, n)
	start := time.Now()
	for i, c := range conns {
		go func() {
			if _, err := io.WriteString(c, get); err != nil {
				errs <- fmt.Errorf("connection %d: %v", i, err)
				return
			}
			if err := checkPage(bufio.NewReader(c), "GET"); err != nil {
				errs <- fmt.Errorf("connection %d: %v", i, err)
				return
			}
			errs <- nil
		}()
	}
	for range conns {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	d := time.Since(start)
	t.Logf("%d connections answered in %v", n, d)
	return d
}

// The bounds below check what happens, not how fast: waits that overlap
// end in about one wait, waits in turn take the sum of them.
const (
	wait  = 50 * time.Millisecond
	conns = 20
)

// TestWorkWaitOffLoop: waits run off the loop, so the connections wait at
// the same time, each gets the page, and the pool is empty after.
func TestWorkWaitOffLoop(t *testing.T) {
	_, addr := startWork(t, page.Work{Wait: wait}, false, 4096, 10*time.Second, 10*time.Second)
	if d := pages(t, addr, conns); d < wait || d >= conns*wait/2 {
		t.Errorf("%d requests waiting %v each, on %d connections: all answered after %v, want from %v to under %v",
			conns, wait, conns, d, wait, conns*wait/2)
	}
}

// TestWorkWaitInline: waits on the loop block it, so the same requests are
// answered one after the other.
func TestWorkWaitInline(t *testing.T) {
	_, addr := startWork(t, page.Work{Wait: wait}, true, 4096, 10*time.Second, 10*time.Second)
	if d := pages(t, addr, conns); d < conns*wait {
		t.Errorf("%d requests waiting %v each on the loop: all answered after %v, want at least %v", conns, wait, d, conns*wait)
	}
}

// TestWorkPoolFull: with 4 goroutines, 20 waits queue and go 4 at a time,
// in 5 rounds, and every one is answered.
func TestWorkPoolFull(t *testing.T) {
	const size = 4
	_, addr := startWork(t, page.Work{Wait: wait}, false, size, 10*time.Second, 10*time.Second)
	if d := pages(t, addr, conns); d < conns/size*wait {
		t.Errorf("%d requests waiting %v each, %d at a time: all answered after %v, want at least %v", conns, wait, size, d, conns/size*wait)
	}
}

// TestWorkCPUOnLoop: CPU work alone is burnt on the loop before the answer.
func TestWorkCPUOnLoop(t *testing.T) {
	const cpu = 30 * time.Millisecond
	s, addr := startWork(t, page.Work{CPU: cpu}, false, 4096, 10*time.Second, 10*time.Second)
	if d := pages(t, addr, 1); d < cpu*3/4 {
		t.Errorf("a request burning %v answered after %v", cpu, d)
	}
	if s.pool.Busy() {
		t.Error("CPU work alone went to the pool")
	}
}

// TestWorkPipelined: pipelined requests on one connection, some waiting and
// some not, come back in order, each after the one before; a request that
// comes in pieces while one waits, and one that comes whole while one
// waits, are answered after it; the last says close, and the connection
// closes after its answer.
func TestWorkPipelined(t *testing.T) {
	_, addr := startWork(t, page.Work{Wait: wait}, false, 4096, 10*time.Second, 10*time.Second)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	start := time.Now()
	// GET, HEAD, a 404 (no work), GET, HEAD, then half a GET.
	head := "HEAD /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"
	io.WriteString(c, get+head+"GET /nope HTTP/1.1\r\nHost: h\r\n\r\n"+get+head+get[:10])
	time.Sleep(wait / 5) // while the first waits
	io.WriteString(c, get[10:])
	time.Sleep(wait / 5)
	io.WriteString(c, "GET /hello/world HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
	for i, m := range []string{"GET", "HEAD", "404", "GET", "HEAD", "GET", "GET"} {
		if m == "404" {
			r, err := http.ReadResponse(br, nil)
			if err != nil || r.StatusCode != 404 {
				t.Fatalf("response %d: want 404: %v", i, err)
			}
			io.Copy(io.Discard, r.Body)
			continue
		}
		if err := checkPage(br, m); err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
	}
	if b, err := io.ReadAll(br); err != nil || len(b) > 0 {
		t.Errorf("after the last answer: %q, %v; want EOF", b, err)
	}
	// Six requests waited, one after the other.
	if d := time.Since(start); d < 6*wait {
		t.Errorf("6 waiting requests on one connection answered after %v, want at least %v", d, 6*wait)
	}
}

// TestWorkClosedWhileWaiting: connections closed while their answer waits,
// one with pipelined requests queued behind it and one reset, leave no
// goroutine and no connection behind, and others are still served.
func TestWorkClosedWhileWaiting(t *testing.T) {
	const long = 300 * time.Millisecond
	s, addr := startWork(t, page.Work{Wait: long}, false, 4096, 10*time.Second, 10*time.Second)
	for _, tc := range []struct {
		name string
		send string
		rst  bool
	}{
		{"closed", get, false},
		{"closed with requests queued", get + get + get, false},
		{"reset", get, true},
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, tc.send)
		time.Sleep(20 * time.Millisecond) // read and waiting
		if !s.pool.Busy() {
			t.Errorf("%s: no wait in the pool", tc.name)
		}
		if tc.rst {
			c.(*net.TCPConn).SetLinger(0)
		}
		c.Close()
	}
	// While those wait, and after.
	if d := pages(t, addr, 3); d < long {
		t.Errorf("answered after %v, want at least %v", d, long)
	}
	for deadline := time.Now().Add(2 * time.Second); s.pool.Busy() || s.limit.Open() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("2 s after: pool busy %v, %d connections open", s.pool.Busy(), s.limit.Open())
		}
	}
	if d := pages(t, addr, 1); d < long {
		t.Errorf("answered after %v, want at least %v", d, long)
	}
}

// TestWorkWaitOutlivesTimeouts: a wait longer than the header and idle
// timeouts does not cut the connection; the idle timeout starts after the
// answer.
func TestWorkWaitOutlivesTimeouts(t *testing.T) {
	const timeout, long = 200 * time.Millisecond, 800 * time.Millisecond
	_, addr := startWork(t, page.Work{Wait: long}, false, 4096, timeout, timeout)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, get)
	if err := checkPage(bufio.NewReader(c), "GET"); err != nil {
		t.Fatal(err)
	}
	if d := eofWithin(t, c, 3*time.Second); d < timeout-50*time.Millisecond {
		t.Errorf("idle connection closed %v after the answer, want about %v", d, timeout)
	}
}

// TestWorkShutdown: a request waiting when the drain starts is answered in
// full before the server stops.
func TestWorkShutdown(t *testing.T) {
	const long = 500 * time.Millisecond
	s, addr := startWork(t, page.Work{Wait: long}, false, 4096, 10*time.Second, 10*time.Second)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, get)
	time.Sleep(50 * time.Millisecond)
	stopped := make(chan struct{})
	go func() {
		s.shutdown(3 * time.Second)
		close(stopped)
	}()
	br := bufio.NewReader(c)
	if err := checkPage(br, "GET"); err != nil {
		t.Fatalf("request waiting at the drain: %v", err)
	}
	if b, err := io.ReadAll(br); err != nil || len(b) > 0 {
		t.Errorf("after the answer, while draining: %q, %v; want EOF", b, err)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("shutdown did not return")
	}
}

// TestWorkOff: with no work, the page handler never holds a request.
func TestWorkOff(t *testing.T) {
	var cs conn
	var ck clock
	ck.update(time.Now())
	in := strings.Repeat(get, 3)
	out, n, closing, served := cs.serve(nil, []byte(in), ck.date[:], false)
	if n != len(in) || closing || served != 3 || cs.held {
		t.Errorf("served %d of %d bytes, %d requests, closing %v, held %v", n, len(in), served, closing, cs.held)
	}
	if !strings.Contains(string(out), string(page.HTML)) {
		t.Errorf("no page in %q", out)
	}
}

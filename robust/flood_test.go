package robust

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

// TestIdleKeepAlive opens keep-alive connections that each send one request
// and then idle: every one must be answered. It reports the server's memory
// per connection held.
func TestIdleKeepAlive(t *testing.T) {
	n := size().idle
	// At full size one server at a time: this process may open about
	// 20 000 descriptors.
	forEach(t, "idle keep-alive", fmt.Sprintf("%d connections", n), !*full, func(t *test, tg targets.Target) {
		in := t.start(tg, targets.Env{NoFile: 20_000, IdleTimeout: 5 * time.Minute})
		t.serves(in, 5*time.Second, "before the connections")
		pid := t.httpPID(in)
		base := t.files(pid)
		before := t.usage(in).RSS
		conns, answered := openIdle(in.Addr, n, 10*time.Second+time.Duration(n)*2*time.Millisecond)
		defer closeAll(conns)
		t.alive(in, "holding them")
		after := t.usage(in).RSS
		held := t.files(pid) - base
		t.row.add(t, "answered", "%d of %d", answered, n)
		t.row.add(t, "held by the server", "%d connections", held)
		if held > 0 {
			t.row.add(t, "RSS", "%s, %.1f KiB per connection held", mib(after), float64(after-before)/float64(held)/1024)
		}
		if answered != n {
			t.Errorf("%d of %d keep-alive connections answered", answered, n)
		}
	})
}

// openIdle opens n connections to addr, 100 at a time, each sending one
// request and reading its answer, all within d. It returns the
// connections and how many were answered with the page.
func openIdle(addr string, n int, d time.Duration) ([]net.Conn, int) {
	deadline := time.Now().Add(d)
	conns := make([]net.Conn, n)
	var answered atomic.Int64
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range 100 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				c, err := net.DialTimeout("tcp", addr, time.Until(deadline))
				if err != nil {
					continue
				}
				conns[i] = c
				c.SetDeadline(deadline)
				if _, err := io.WriteString(c, request); err == nil && readPage(bufio.NewReaderSize(c, 1024)) == nil {
					answered.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return conns, int(answered.Load())
}

func closeAll(conns []net.Conn) {
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
}

// The bounds of the fd exhaustion test.
const (
	maxSpin    = 0.2                                // share of a core a server may use while exhausted
	recoverIn  = time.Second + 500*time.Millisecond // the second, and slack for a loaded machine
	exhaustFds = 256                                // the server's open-file limit
)

// TestFDExhaustion starts each server with an open-file limit of 256 and
// holds more connections than that. The server must not exit, not spin,
// not log a line per failed accept, and must serve again within a second
// once the connections close. One server at a time: CPU is measured.
func TestFDExhaustion(t *testing.T) {
	n, hold := size().flood, size().floodHold
	forEach(t, "fd exhaustion", fmt.Sprintf("nofile %d, %d connections held %v", exhaustFds, n, hold), false, func(t *test, tg targets.Target) {
		in := t.start(tg, targets.Env{NoFile: exhaustFds})
		t.serves(in, 5*time.Second, "before the flood")
		pid := t.httpPID(in)
		base := t.files(pid)
		mark := len(in.Proc.Output().String())
		f := newFlood(in.Addr, n)
		defer f.close()
		t.settle(pid)
		t.alive(in, "as the connections came")
		t.row.add(t, "held at the limit", "%d connections, %d of them answered", t.files(pid)-base, f.answered.Load())
		u0 := t.usage(in)
		time.Sleep(hold)
		t.alive(in, "while out of descriptors")
		u1 := t.usage(in)
		share := float64(u1.CPU-u0.CPU) / float64(hold)
		t.row.add(t, "CPU while exhausted", "%.0f%% of a core", share*100)
		if share > maxSpin {
			t.Errorf("used %.0f%% of a core while out of descriptors, more than %.0f%%: it spins", share*100, maxSpin*100)
		}
		ended := f.close()
		t.recovers(in, ended)
		t.checkLog(in, mark, time.Since(f.began))
		if r, err := loadgen("-k", "-c", "20", "-n", "2000", in.URL()); err != nil {
			t.Errorf("loadgen after the flood: %v", err)
		} else if err := r.served(); err != nil {
			t.Errorf("after the flood: %v", err)
		}
		t.alive(in, "after the flood")
	})
}

// settle waits until pid's descriptors have not changed for 200 ms, 3 s
// at most: the server has taken what it could.
func (t *test) settle(pid int) {
	t.Helper()
	last, since := -1, time.Now()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		n, err := proc.OpenFiles(pid)
		if err != nil {
			return // exited: the caller says so
		}
		if n != last {
			last, since = n, time.Now()
		} else if time.Since(since) >= 200*time.Millisecond {
			return
		}
	}
}

// recovers fails unless the server answers a new connection within
// recoverIn of ended, when the flood closed.
func (t *test) recovers(in *targets.Instance, ended time.Time) {
	t.Helper()
	var err error
	for time.Since(ended) < 3*time.Second {
		if err = get(in.Addr, 3*time.Second-time.Since(ended)); err == nil {
			took := time.Since(ended)
			t.row.add(t, "serving again", "%s after the connections closed", secs(took))
			if took > recoverIn {
				t.Errorf("served again %s after the connections closed, later than %v", secs(took), recoverIn)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.alive(in, "after the flood")
	t.Fatalf("not serving 3 s after the connections closed: %v", err)
}

// checkLog fails when the server logged more than one line per second of
// exhaustion, plus one, since mark.
func (t *test) checkLog(in *targets.Instance, mark int, exhausted time.Duration) {
	t.Helper()
	var logged []string
	for _, l := range lines(in.Proc.Output().String()[mark:]) {
		if in.LogAllowed == nil || !in.LogAllowed.MatchString(l) {
			logged = append(logged, l)
		}
	}
	t.row.add(t, "log lines", "%d in %s", len(logged), secs(exhausted))
	limit := 1 + int(math.Ceil(exhausted.Seconds()))
	if why, ok := in.Lenient["fd exhaustion"]; ok {
		t.lenient(why, func() bool { return len(logged) > limit })
		return
	}
	if len(logged) > limit {
		t.Errorf("logged %d lines in %s of exhaustion, more than %d (one a second, plus one); the first: %q", len(logged), secs(exhausted), limit, logged[0])
	}
}

// A flood is n connections opened at once, each sending one request and
// reading whatever answer comes, until closed.
type flood struct {
	began    time.Time
	answered atomic.Int64
	mu       sync.Mutex
	conns    []net.Conn
	wg       sync.WaitGroup
}

func newFlood(addr string, n int) *flood {
	f := &flood{began: time.Now()}
	var dialed sync.WaitGroup
	for range n {
		dialed.Add(1)
		f.wg.Go(func() {
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err == nil {
				f.mu.Lock()
				f.conns = append(f.conns, c)
				f.mu.Unlock()
			}
			dialed.Done()
			if err != nil {
				return
			}
			if _, err := io.WriteString(c, request); err == nil && readPage(bufio.NewReaderSize(c, 1024)) == nil {
				f.answered.Add(1)
			}
			io.Copy(io.Discard, c) // until closed
		})
	}
	dialed.Wait()
	return f
}

// close closes every connection, waits for their readers and returns
// when the last one closed.
func (f *flood) close() time.Time {
	f.mu.Lock()
	for _, c := range f.conns {
		c.Close()
	}
	f.conns = nil
	f.mu.Unlock()
	at := time.Now()
	f.wg.Wait()
	return at
}

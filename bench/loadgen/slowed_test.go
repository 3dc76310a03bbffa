//go:build linux

package loadgen

import (
	"bytes"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// pauseServer answers each request at once with a small keep-alive
// response, but pauses once: from reading request number at, it reads and
// answers nothing on any connection for pause, then goes on, as a server
// in a garbage-collection pause or descheduled would.
type pauseServer struct {
	ln       net.Listener
	at       int64
	pause    time.Duration
	n        atomic.Int64
	gate     atomic.Pointer[chan struct{}] // closed when the pause ends; nil before it
	from, to time.Time                     // the pause as the server saw it
	wg       sync.WaitGroup
}

func newPauseServer(t *testing.T, at int64, pause time.Duration) *pauseServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &pauseServer{ln: ln, at: at, pause: pause}
	var mu sync.Mutex
	var conns []net.Conn
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			s.wg.Go(func() { s.handle(c) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *pauseServer) url() string { return "http://" + s.ln.Addr().String() + "/hello/world" }

func (s *pauseServer) handle(c net.Conn) {
	defer c.Close()
	resp := []byte("HTTP/1.1 200 OK\r\nServer: pause\r\nContent-Length: 5\r\n\r\nhello")
	var buf, out []byte
	tmp := make([]byte, 16<<10)
	for {
		n, err := c.Read(tmp)
		if err != nil {
			return
		}
		buf = append(buf, tmp[:n]...)
		out = out[:0]
		for {
			i := bytes.Index(buf, []byte("\r\n\r\n"))
			if i < 0 {
				break
			}
			buf = buf[:copy(buf, buf[i+4:])]
			if s.n.Add(1) == s.at {
				s.begin()
			}
			out = append(out, resp...)
		}
		if g := s.gate.Load(); g != nil {
			<-*g // paused: neither answer nor read
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// begin starts the pause. The gate is shut before the pause's start is
// taken: a request sent after it waits.
func (s *pauseServer) begin() {
	g := make(chan struct{})
	s.gate.Store(&g)
	s.from = time.Now()
	go func() {
		time.Sleep(s.pause)
		s.to = time.Now()
		close(g)
	}()
}

// measured returns the pause as the server saw it, once it is over.
func (s *pauseServer) measured() time.Duration {
	<-*s.gate.Load()
	return s.to.Sub(s.from)
}

// atLeast counts the values of h of v or more.
func atLeast(h *hdrhistogram.Histogram, v time.Duration) int64 {
	var n int64
	for _, b := range h.Distribution() {
		if b.From >= int64(v) {
			n += b.Count
		}
	}
	return n
}

// A server that pauses 50 ms once, driven at a fixed rate: every request
// due during the pause carries its wait in its latency (no coordinated
// omission), and the client's own send lateness does not: while the server
// is paused the connections are all taken, and the requests due wait for
// one, which is the server's doing.
//
// What the pause implies is checked on every run. What bounds it from
// above also depends on the host: a client descheduled for tens of ms (a
// busy VM) makes more requests slow and late, as it should. Such a run is
// tried again, a second apart, up to six in all: beside the rest of make
// test on two cores, three in a row have met the client descheduled for
// 100 ms; a fault of loadgen's fails all six.
func TestSlowedServer(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		tryRuns(t, 6, time.Second, func() string { return strings.Join(slowedRun(t, engine), "; ") })
	})
}

// slowedRun runs TestSlowedServer's test once. It fails t where the pause
// is not in the latencies, and returns what else was out of bounds.
func slowedRun(t *testing.T, engine string) (noise []string) {
	const (
		rate  = 2000 // a request every 500 µs
		n     = 2000 // 1 s
		pause = 50 * time.Millisecond
		conns = 32 // fewer than the 100 requests due in the pause: they must wait for a connection
	)
	// The pause starts as the server reads request 700, 350 ms in, so that
	// request waits all of it.
	s := newPauseServer(t, 700, pause)
	r := run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: conns, KeepAlive: true, Rate: rate, Loops: 1})
	checkCounts(t, r, n)
	if r.Complete != n {
		t.Fatalf("complete %d of %d; failures %+v", r.Complete, n, r.Failures)
	}
	d := s.measured() // at least pause: a sleep may overrun
	h, late := r.Latency, r.SendLateness
	if late.TotalCount() != n {
		t.Errorf("send lateness of %d requests, want %d", late.TotalCount(), n)
	}
	// What may delay an answer past the pause's end: the server's wake-up
	// and the backlog's drain (up to 10 ms on a loaded VM), and the
	// client's own lateness, part of every latency.
	slack := 10*time.Millisecond + time.Duration(late.Max())
	t.Logf("pause %v from %v into the run; latency max %v; send lateness p50 %v, p99 %v, p99.9 %v, max %v", d, s.from.Sub(r.Start),
		time.Duration(h.Max()), time.Duration(late.ValueAtQuantile(50)), time.Duration(late.ValueAtQuantile(99)),
		time.Duration(late.ValueAtQuantile(99.9)), time.Duration(late.Max()))

	m := time.Duration(h.Max())
	if m < pause {
		t.Errorf("latency max %v, want the pause, %v or more", m, pause)
	}
	if m > d+slack {
		noise = append(noise, fmt.Sprintf("latency max %v, over the pause %v + %v", m, d, slack))
	}
	// A request due t into the pause is answered at its end: its latency
	// is d - t and more. So the requests of latency x or more are those due
	// in the pause's first d - x: rate × (d - x) of them, at least (less
	// one for where the schedule's steps fall, one for the histogram's
	// bucket at x), and at most rate × slack more. (Not below 10 ms: on a
	// loaded VM, a few ms' stall of the server is common at any time.)
	for _, x := range []time.Duration{pause / 5, pause / 2, pause - 5*time.Millisecond} {
		want := rate * (d - x).Seconds()
		got := float64(atLeast(h, x))
		t.Logf("latency ≥ %v: %v requests, the schedule says %.1f", x, got, want)
		if got < want-2 {
			t.Errorf("%v requests of latency %v or more, want %.1f or more: requests due in the pause did not carry their wait", got, x, want-2)
		}
		if up := want + 2 + rate*slack.Seconds(); got > up {
			noise = append(noise, fmt.Sprintf("%v requests of latency %v or more, over %.1f", got, x, up))
		}
	}
	// Had the lateness counted the wait for a connection, the 68 requests
	// due after the 32 connections were taken would be up to 34 ms late,
	// 48 of them more than 10 ms: p99 would be.
	if p := time.Duration(late.ValueAtQuantile(99)); p >= pause/5 {
		noise = append(noise, fmt.Sprintf("send lateness p99 %v, not under %v: the server's pause counted as the client's, or the client stalled", p, pause/5))
	}
	return noise
}

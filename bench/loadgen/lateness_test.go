//go:build linux

package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sys/unix"

	"hellobench/internal/uring/uringtest"
)

// The client-limited rule on fixed numbers: the bound is the larger of 10 %
// of the latency's p99.9 and 50 µs, and only a lateness above it counts.
func TestClientLimited(t *testing.T) {
	const us, ms = time.Microsecond, time.Millisecond
	for _, tc := range []struct {
		late, p999, bound time.Duration
		limited           bool
	}{
		{0, 0, 50 * us, false},
		{10 * us, 100 * us, 50 * us, false}, // 10 % is 10 µs: the floor holds
		{50 * us, 100 * us, 50 * us, false}, // at the bound is not above it
		{51 * us, 100 * us, 50 * us, true},  //
		{51 * us, 499 * us, 50 * us, true},  // 10 % is 49.9 µs
		{51 * us, 510 * us, 51 * us, false}, // 10 % is 51 µs
		{99 * us, 1 * ms, 100 * us, false},  //
		{101 * us, 1 * ms, 100 * us, true},  //
		{2 * ms, 30 * ms, 3 * ms, false},    // a slow server's tail leaves room
		{4 * ms, 30 * ms, 3 * ms, true},     //
		{60 * us, 0, 50 * us, true},         // no latency measured: the floor
		{1 * ms, 10 * time.Second, 1 * time.Second, false},
	} {
		limited, bound := ClientLimited(tc.late, tc.p999)
		if limited != tc.limited || bound != tc.bound {
			t.Errorf("ClientLimited(%v, %v) = %v, %v; want %v, %v", tc.late, tc.p999, limited, bound, tc.limited, tc.bound)
		}
	}
}

// countAt counts the values of h equivalent to v.
func countAt(h *hdrhistogram.Histogram, v time.Duration) int64 {
	for _, b := range h.Distribution() {
		if b.From <= int64(v) && int64(v) <= b.To {
			return b.Count
		}
	}
	return 0
}

// nopEngine takes sends and does nothing: the test calls issue itself, as
// io_uring's wait does before it enters.
type nopEngine struct{ sends int }

func (e *nopEngine) connect(c *conn) error                    { return nil }
func (e *nopEngine) send(c *conn, b []byte) (bool, error)     { e.sends++; return true, nil }
func (e *nopEngine) receive(c *conn)                          {}
func (e *nopEngine) close(c *conn)                            {}
func (e *nopEngine) wait(d time.Duration, awaiting int) error { return nil }
func (e *nopEngine) shutdown()                                {}

// Requests written together each count their own lateness: the send's
// issue less their own due time, or, when they waited for a connection
// (none could take them when due), less the time one could.
func TestLatenessBatch(t *testing.T) {
	const ms = time.Millisecond
	cfg := Config{URL: "http://127.0.0.1/", Requests: 10, Concurrency: 1, KeepAlive: true, Pipeline: 8, Rate: 1000}
	cfg = cfg.withDefaults()
	tg, _ := parseURL(cfg.URL)
	req, _ := buildRequest(&cfg, tg)
	l := newLoop(&cfg, tg, req, &shared{}, 1, -1, newPacer(cfg.Rate, 0), EngineEpoll)
	e := &nopEngine{}
	l.eng = e
	c := &l.conns[0]
	c.state = open

	// Due at 0, 1 and 2 ms, taken at 2.5 ms and issued in one send at 3 ms.
	l.send(c, 2500*time.Microsecond)
	l.issue(3 * ms)
	if e.sends != 1 || c.inflight != 3 {
		t.Fatalf("%d sends, %d in flight; want 1 send of 3", e.sends, c.inflight)
	}
	for _, v := range []time.Duration{3 * ms, 2 * ms, 1 * ms} {
		if n := countAt(l.s.late, v); n != 1 {
			t.Errorf("%d requests %v late, want 1", n, v)
		}
	}

	// Due at 3 to 7 ms, when no connection could take them; one frees at
	// 7 ms, takes the five, and they go at 7.2 ms: 0.2 ms late each, not
	// 4.2 to 0.2.
	l.starved = true
	l.send(c, 7*ms)
	l.issue(7200 * time.Microsecond)
	if n := countAt(l.s.late, 200*time.Microsecond); n != 5 || c.inflight != 8 {
		t.Errorf("%d requests 0.2 ms late, want 5; %d in flight, want 8", n, c.inflight)
	}
	// Sent again after their connection was lost, they count no more.
	c.unsent = c.inflight
	l.flush(c, 8*ms)
	l.issue(9 * ms)
	if n := l.s.late.TotalCount(); n != 8 || e.sends != 3 {
		t.Errorf("%d values after %d sends, want 8 after 3", n, e.sends)
	}
}

// With a rate, every request sent has one send lateness, in both engines,
// written one by one or pipelined; a closed loop has none.
func TestLatenessCounts(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, nil)
		for _, p := range []int{1, 4} {
			const n = 400
			r := run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: 4, KeepAlive: true, Pipeline: p, Rate: 20000})
			checkCounts(t, r, n)
			if r.SendLateness == nil || r.SendLateness.TotalCount() != n {
				t.Fatalf("pipeline %d: send lateness %v, want %d values", p, r.SendLateness, n)
			}
			if m := time.Duration(r.SendLateness.Max()); m > time.Duration(r.Latency.Max()) {
				t.Errorf("pipeline %d: a send %v late, later than the longest latency %v, which counts from the due time", p, m, time.Duration(r.Latency.Max()))
			}
		}
		r := run(t, engine, Config{URL: s.url(), Requests: 100, Concurrency: 4, KeepAlive: true})
		if r.SendLateness != nil {
			t.Errorf("a closed loop has send lateness")
		}
		if l, b := r.ClientLimited(); l || b != 0 {
			t.Errorf("a closed loop: ClientLimited %v, %v", l, b)
		}
	})
}

// The report and the JSON show the send lateness and the verdict with a
// rate, and neither without.
func TestLatenessReport(t *testing.T) {
	s := newTestServer(t, nil)
	for _, rate := range []float64{0, 2000} {
		r := run(t, "", Config{URL: s.url(), Requests: 200, Concurrency: 2, KeepAlive: true, Rate: rate})
		for _, ms := range []bool{false, true} {
			var b strings.Builder
			if err := writeReport(&b, r, ms); err != nil {
				t.Fatal(err)
			}
			unit := "(µs)"
			if ms {
				unit = "(ms)"
			}
			for _, want := range []string{"\nSend lateness " + unit + ": p50 ", ", p99 ", ", p99.9 ", ", max ", "\nClient-limited:         "} {
				if got := strings.Contains(b.String(), want); got != (rate > 0) {
					t.Errorf("rate %v: report has %q: %v\n%s", rate, want, got, b.String())
				}
			}
		}
		var b bytes.Buffer
		if err := WriteJSON(&b, r, nil); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"send_lateness_us", "client_limited", "client_bound_us"} {
			if _, ok := m[k]; ok != (rate > 0) {
				t.Errorf("rate %v: JSON has %q: %v", rate, k, ok)
			}
		}
		if rate == 0 {
			continue
		}
		late := m["send_lateness_us"].(map[string]any)
		if got, want := late["max"], float64(r.SendLateness.Max())/1e3; got != want {
			t.Errorf("send_lateness_us max %v, want %v", got, want)
		}
		limited, bound := r.ClientLimited()
		if m["client_limited"] != limited || m["client_bound_us"] != float64(bound)/1e3 || bound < MinClientBound {
			t.Errorf("client_limited %v, client_bound_us %v; want %v, %v", m["client_limited"], m["client_bound_us"], limited, float64(bound)/1e3)
		}
	}
}

// At a rate, an epoll loop sleeps until the next request is due, to the
// µs (epoll_pwait2, no timer slack): in epoll_wait's whole milliseconds a
// request every 500 µs went about 500 µs late on the median.
func TestEpollOnTime(t *testing.T) {
	s := newTestServer(t, nil)
	r := run(t, EngineEpoll, Config{URL: s.url(), Requests: 1000, Concurrency: 4, KeepAlive: true, Rate: 2000, Loops: 1})
	checkCounts(t, r, 1000)
	if p := time.Duration(r.SendLateness.ValueAtQuantile(50)); p > 250*time.Microsecond {
		t.Errorf("send lateness p50 %v, want 250µs or less", p)
	}
}

// Where epoll_pwait2 is refused (Linux before 5.11, or a seccomp filter
// that does not know it), the epoll loop waits in whole milliseconds
// instead, and runs as before.
func TestEpollPwait2Refused(t *testing.T) {
	if !uringtest.InChild(t, "LOADGEN_FORBID_PWAIT2") {
		return
	}
	if err := uringtest.Forbid(unix.SYS_EPOLL_PWAIT2, unix.ENOSYS); err != nil {
		t.Skipf("cannot install a seccomp filter: %v", err)
	}
	s := newTestServer(t, nil)
	cfg := Config{URL: s.url(), Requests: 200, Concurrency: 4, KeepAlive: true, Rate: 2000, Engine: EngineEpoll, Loops: 1, Timeout: 5 * time.Second}
	p, err := build(cfg.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := p.merge()
	checkCounts(t, r, 200)
	if r.Complete != 200 || !p.loops[0].eng.(*epoll).ms {
		t.Errorf("complete %d, whole ms %v; want 200, true", r.Complete, p.loops[0].eng.(*epoll).ms)
	}
}

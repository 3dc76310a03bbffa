//go:build linux

package loadgen

import (
	"context"
	"errors"
	"math"
	"os"
	"syscall"
	"testing"
	"time"

	"hellobench/internal/testnet"
	"hellobench/internal/uring"
)

// eachEngine runs f as a subtest per I/O engine, so both are held to the
// same counts. A kernel without io_uring skips its subtest, unless
// HELLOBENCH_REQUIRE_TOOLS=1 asks for every component.
func eachEngine(t *testing.T, f func(t *testing.T, engine string)) {
	for _, e := range []string{EngineEpoll, EngineURing} {
		t.Run(e, func(t *testing.T) {
			if e == EngineURing {
				needURing(t)
			}
			f(t, e)
		})
	}
}

// needURing skips t on a kernel without io_uring, or fails it when every
// component is required.
func needURing(t testing.TB) {
	t.Helper()
	r, err := uring.New(64)
	if err == nil {
		r.Close()
		return
	}
	if os.Getenv("HELLOBENCH_REQUIRE_TOOLS") == "1" {
		t.Fatal(err)
	}
	t.Skip(err)
}

func run(t *testing.T, engine string, cfg Config) *Result {
	t.Helper()
	cfg.Engine = engine
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	r, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("run did not finish")
	}
	return r
}

// checkCounts checks that every request was counted exactly once.
func checkCounts(t *testing.T, r *Result, n int) {
	t.Helper()
	if got := r.Complete + r.Failed; got != int64(n) {
		t.Errorf("complete %d + failed %d = %d, want %d", r.Complete, r.Failed, got, n)
	}
	if r.Failed != r.Failures.total() {
		t.Errorf("failed %d, but failures by kind %+v", r.Failed, r.Failures)
	}
	if got := r.Latency.TotalCount(); got != r.Complete {
		t.Errorf("latency histogram holds %d, want %d", got, r.Complete)
	}
}

func TestExactCount(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		for _, tc := range []struct {
			n, c, pipeline int
			keepAlive      bool
		}{
			{1, 1, 1, false},
			{200, 10, 1, false},
			{1, 1, 1, true},
			{1000, 50, 1, true},
			{997, 7, 16, true},
			{1000, 3, 400, true},
		} {
			s := newTestServer(t, nil)
			r := run(t, engine, Config{URL: s.url(), Requests: tc.n, Concurrency: tc.c, KeepAlive: tc.keepAlive, Pipeline: tc.pipeline, Loops: 2})
			checkCounts(t, r, tc.n)
			if r.Complete != int64(tc.n) || r.Failed != 0 {
				t.Errorf("%+v: complete %d failed %d %+v", tc, r.Complete, r.Failed, r.Failures)
			}
			if got := s.received.Load(); got != int64(tc.n) {
				t.Errorf("%+v: server received %d requests, want %d", tc, got, tc.n)
			}
			wantConns := int64(tc.c)
			if !tc.keepAlive {
				wantConns = int64(tc.n)
			}
			if r.Connections != wantConns || s.conns.Load() != wantConns {
				t.Errorf("%+v: connections %d, server accepted %d, want %d", tc, r.Connections, s.conns.Load(), wantConns)
			}
			if r.HTMLBytes != int64(tc.n*257) || r.DocumentLength != 257 || r.Status[200] != int64(tc.n) {
				t.Errorf("%+v: html %d, doc length %d, status %v", tc, r.HTMLBytes, r.DocumentLength, r.Status)
			}
			wantKA := int64(0)
			if tc.keepAlive {
				wantKA = int64(tc.n)
			}
			if r.KeepAliveRequests != wantKA {
				t.Errorf("%+v: keep-alive requests %d, want %d", tc, r.KeepAliveRequests, wantKA)
			}
			if r.ServerSoftware != "test" || r.Engine != engine {
				t.Errorf("server software %q, engine %s", r.ServerSoftware, r.Engine)
			}
		}
	})
}

// With PerConn, the client closes each connection once it has carried
// that many requests and opens another, whatever the pipeline depth: n
// requests at 10 a connection on one connection at a time take n/10
// connections, each carrying 10, and with several at a time every one
// carries 10 but those the run's end cut short, at most one a connection
// slot.
func TestPerConn(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		for _, tc := range []struct{ n, c, pipeline, loops int }{
			{1000, 1, 1, 1},
			{1000, 1, 3, 1},
			{1000, 1, 10, 1},
			{995, 1, 4, 1},
			{1000, 8, 1, 2},
			{1000, 8, 4, 2},
		} {
			s := newTestServer(t, nil)
			r := run(t, engine, Config{URL: s.url(), Requests: tc.n, Concurrency: tc.c, KeepAlive: true,
				Pipeline: tc.pipeline, PerConn: 10, Loops: tc.loops})
			checkCounts(t, r, tc.n)
			if r.Complete != int64(tc.n) || r.Failed != 0 || s.received.Load() != int64(tc.n) {
				t.Errorf("%+v: complete %d failed %d %+v, server received %d", tc, r.Complete, r.Failed, r.Failures, s.received.Load())
			}
			// Every response kept its connection: the client closed them.
			if r.KeepAliveRequests != int64(tc.n) {
				t.Errorf("%+v: keep-alive requests %d, want %d", tc, r.KeepAliveRequests, tc.n)
			}
			carried := s.carried(t)
			if int64(len(carried)) != r.Connections || r.Connections != s.conns.Load() {
				t.Errorf("%+v: %d connections closed, client opened %d, server accepted %d", tc, len(carried), r.Connections, s.conns.Load())
			}
			short, sum := 0, 0
			for _, k := range carried {
				sum += k
				if k > 10 || k < 1 {
					t.Errorf("%+v: a connection carried %d requests, want 1 to 10", tc, k)
				}
				if k < 10 {
					short++
				}
			}
			if sum != tc.n {
				t.Errorf("%+v: the connections carried %d requests, want %d", tc, sum, tc.n)
			}
			if want := (tc.n + 9) / 10; tc.c == 1 && len(carried) != want {
				t.Errorf("%+v: %d connections, want %d (carried %v)", tc, len(carried), want, carried)
			}
			if short > tc.c {
				t.Errorf("%+v: %d connections carried fewer than 10, want at most %d", tc, short, tc.c)
			}
		}
	})
}

// A server that closes keep-alive connections after K requests, as nginx's
// keepalive_requests: the requests are re-sent, never lost or counted twice.
func TestKeepAliveLimit(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		for _, pipeline := range []int{1, 5, 16} {
			s := newTestServer(t, func(s *testServer) { s.closeAfter = 7 })
			const n = 1000
			r := run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: 8, KeepAlive: true, Pipeline: pipeline})
			checkCounts(t, r, n)
			if r.Complete != n || s.answered.Load() != n {
				t.Errorf("pipeline %d: complete %d, server answered %d, want %d; failures %+v",
					pipeline, r.Complete, s.answered.Load(), n, r.Failures)
			}
			// Every 7th response on a connection says close.
			if r.Connections < n/7 || s.conns.Load() != r.Connections {
				t.Errorf("pipeline %d: connections %d, server accepted %d, want at least %d",
					pipeline, r.Connections, s.conns.Load(), n/7)
			}
			if r.KeepAliveRequests > n-n/7+8 || r.KeepAliveRequests < n-n/7-8 {
				t.Errorf("pipeline %d: keep-alive requests %d, want about %d", pipeline, r.KeepAliveRequests, n-n/7)
			}
		}
	})
}

// A server that resets keep-alive connections: the unanswered request is
// retried on a new connection.
func TestReset(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, func(s *testServer) { s.resetAfter = 5 })
		const n = 500
		r := run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: 4, KeepAlive: true})
		checkCounts(t, r, n)
		if r.Complete != n || s.answered.Load() != n {
			t.Errorf("complete %d, server answered %d, want %d; failures %+v", r.Complete, s.answered.Load(), n, r.Failures)
		}
		if resets := s.received.Load() - n; resets < n/6 {
			t.Errorf("server received %d requests: expected about %d resets", s.received.Load(), n/5)
		}
	})
}

// A server that closes new connections without a word: requests fail, each
// after one send.
func TestDropped(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, nil)
		r := run(t, engine, Config{URL: s.url(), Requests: 1, Concurrency: 1, KeepAlive: true})
		checkCounts(t, r, 1)
		s.dropAll.Store(true)
		const n = 50
		r = run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: 5, KeepAlive: true, Pipeline: 3})
		checkCounts(t, r, n)
		if r.Failures.Receive != n {
			t.Errorf("receive failures %d, want %d: %+v", r.Failures.Receive, n, r.Failures)
		}
	})
}

// A request lost without a response is sent again on a new connection when
// the server had answered on the old one, and again when the new one is
// dropped before answering: three sends in all, no more.
func TestRetries(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		// Connection 1 answers the first of two pipelined requests and
		// closes without a word; 2 closes at once; 3 answers.
		s := newTestServer(t, func(s *testServer) { s.answerOnly = []int{1, 0, 1} })
		r := run(t, engine, Config{URL: s.url(), Requests: 2, Concurrency: 1, KeepAlive: true, Pipeline: 2})
		checkCounts(t, r, 2)
		if r.Complete != 2 || s.answered.Load() != 2 || s.conns.Load() != 3 {
			t.Errorf("complete %d, server answered %d on %d connections; want 2 on 3; failures %+v",
				r.Complete, s.answered.Load(), s.conns.Load(), r.Failures)
		}

		// Lost a third time, on a fourth connection: it fails.
		s = newTestServer(t, func(s *testServer) { s.answerOnly = []int{1, 0, 0, 1} })
		r = run(t, engine, Config{URL: s.url(), Requests: 2, Concurrency: 1, KeepAlive: true, Pipeline: 2})
		checkCounts(t, r, 2)
		if r.Complete != 1 || r.Failures.Receive != 1 || s.conns.Load() != 3 {
			t.Errorf("complete %d, receive failures %d, %d connections; want 1, 1, 3", r.Complete, r.Failures.Receive, s.conns.Load())
		}
	})
}

func TestChunked(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, func(s *testServer) { s.chunked = true })
		const n = 300
		r := run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: 5, KeepAlive: true, Pipeline: 4})
		checkCounts(t, r, n)
		if r.Complete != n || r.HTMLBytes != n*257 || r.DocumentLength != 257 {
			t.Errorf("complete %d html %d doc %d failures %+v", r.Complete, r.HTMLBytes, r.DocumentLength, r.Failures)
		}
	})
}

// HTTP/1.0 responses without a length: the body ends with the connection.
func TestHTTP10Close(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, func(s *testServer) { s.http10 = true })
		const n = 200
		for _, ka := range []bool{false, true} {
			s.answered.Store(0)
			r := run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: 4, KeepAlive: ka})
			checkCounts(t, r, n)
			if r.Complete != n || r.HTMLBytes != n*257 || r.Connections != n || r.KeepAliveRequests != 0 {
				t.Errorf("keep-alive %v: complete %d html %d connections %d keep-alive %d failures %+v",
					ka, r.Complete, r.HTMLBytes, r.Connections, r.KeepAliveRequests, r.Failures)
			}
		}
	})
}

// A body of another length than the first response's is a Length failure,
// unless any length is accepted (ab -l).
func TestLengthFailure(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, func(s *testServer) { s.longEvery = 4 })
		const n = 400
		r := run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: 1, KeepAlive: true})
		checkCounts(t, r, n)
		if r.Failures.Length != n/4 || r.Complete != n-n/4 || r.Status[200] != n {
			t.Errorf("length failures %d, complete %d, status %v", r.Failures.Length, r.Complete, r.Status)
		}
		r = run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: 1, KeepAlive: true, AnyLength: true})
		checkCounts(t, r, n)
		if r.Failed != 0 || r.Complete != n || r.HTMLBytes != n*257+n/4 || !r.AnyLength {
			t.Errorf("any length: failed %d, complete %d, html %d", r.Failed, r.Complete, r.HTMLBytes)
		}
	})
}

func TestTimeout(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, func(s *testServer) { s.holdEvery = 2 })
		const n = 6
		r := run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: 1, KeepAlive: true, Timeout: 100 * time.Millisecond})
		checkCounts(t, r, n)
		if r.Failures.Timeout != n/2 || r.Complete != n/2 || r.Failed != n/2 {
			t.Errorf("timeouts %d complete %d failed %d %+v", r.Failures.Timeout, r.Complete, r.Failed, r.Failures)
		}
	})
}

// Timeouts under load: a loop awaiting many responses gathers them in
// batches (io_uring), and each timed-out connection is closed with its
// receive still posted, then opened again.
func TestTimeoutUnderLoad(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, func(s *testServer) { s.holdEvery = 10 })
		const n = 400
		r := run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: 40, KeepAlive: true, Loops: 1, Timeout: 100 * time.Millisecond})
		checkCounts(t, r, n)
		if r.Failures.Timeout != n/10 || r.Complete != n-n/10 {
			t.Errorf("timeouts %d complete %d, want %d and %d; %+v", r.Failures.Timeout, r.Complete, n/10, n-n/10, r.Failures)
		}
		if got := s.received.Load(); got != n {
			t.Errorf("server received %d requests, want %d", got, n)
		}
	})
}

// A refused connect before any succeeded ends the run, with ab's words and
// the errno to test for.
func TestConnectRefused(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		addr := testnet.Refusing(t)
		_, err := Run(context.Background(), Config{URL: "http://" + addr + "/", Requests: 10, Concurrency: 2, Engine: engine})
		if err == nil || err.Error() != "connect "+addr+": connection refused" {
			t.Errorf("error %v, want connect %s: connection refused", err, addr)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("error %v is not ECONNREFUSED", err)
		}
	})
}

// A socket error ends the run at once when asked (ab without -r), and says
// which; otherwise it is a Receive failure and the run goes on.
func TestStopOnReceiveError(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, func(s *testServer) { s.resetAll = true })
		const n = 100
		r := run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: 1, KeepAlive: true})
		checkCounts(t, r, n)
		if r.Failures.Receive != n || r.Aborted != nil {
			t.Errorf("receive failures %d (want %d), aborted %v", r.Failures.Receive, n, r.Aborted)
		}
		r = run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: 1, KeepAlive: true, StopOnReceiveError: true})
		if r.Failed != 1 || r.Failures.Receive != 1 || r.Complete != 0 {
			t.Errorf("failed %d, failures %+v, complete %d; want the run to stop at the first", r.Failed, r.Failures, r.Complete)
		}
		if !errors.Is(r.Aborted, syscall.ECONNRESET) {
			t.Errorf("aborted %v, want ECONNRESET", r.Aborted)
		}
	})
}

func TestBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{URL: "http://127.0.0.1:1/"},
		{URL: "http://127.0.0.1:1/", Requests: 2, Concurrency: 3},
		{URL: "127.0.0.1/", Requests: 1},
		{URL: "ftp://127.0.0.1/", Requests: 1},
		{URL: "http://127.0.0.1/", Requests: 1, Resume: true},
		{URL: "http://:80/", Requests: 1},
		{URL: "http://127.0.0.1:99999/", Requests: 1},
		{URL: "http://%zz/", Requests: 1},
		{URL: "http://127.0.0.1/", Requests: 1, Headers: []string{"no colon"}},
		{URL: "http://127.0.0.1/", Requests: 1, Method: "G T"},
		{URL: "http://127.0.0.1/", Requests: 1, Pipeline: -1},
		{URL: "http://127.0.0.1/", Requests: 2, Pipeline: 2},
		{URL: "http://127.0.0.1/", Requests: 1, Engine: "kqueue"},
		{URL: "http://127.0.0.1/", Requests: 1, Rate: math.NaN()},
		{URL: "http://127.0.0.1/", Requests: 1, Timeout: -1},
		{URL: "http://127.0.0.1/", Requests: 1, Loops: -1},
		{URL: "http://127.0.0.1/", Requests: 1, PerConn: -1, KeepAlive: true},
		{URL: "http://127.0.0.1/", Requests: 1, PerConn: 10},
	} {
		err := cfg.Validate()
		if err == nil {
			t.Errorf("%+v: no error", cfg)
			continue
		}
		if _, rerr := Run(context.Background(), cfg); rerr == nil || rerr.Error() != err.Error() {
			t.Errorf("%+v: Validate says %v, Run %v", cfg, err, rerr)
		}
	}
	if err := (Config{URL: "http://127.0.0.1/", Requests: 1}).Validate(); err != nil {
		t.Errorf("a valid Config: %v", err)
	}
}

// With a rate, requests follow the schedule: the last one is not sent before
// its intended time.
func TestRate(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, nil)
		const n = 100
		r := run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: 4, KeepAlive: true, Rate: 1000})
		checkCounts(t, r, n)
		if r.Complete != n || s.received.Load() != n {
			t.Errorf("complete %d received %d", r.Complete, s.received.Load())
		}
		if r.Elapsed < 99*time.Millisecond {
			t.Errorf("100 requests at 1000/s took %v, less than the schedule's 99 ms", r.Elapsed)
		}
	})
}

// Spinning, the loop polls instead of sleeping until a request is due:
// the same schedule, every request answered, and none sent early.
func TestRateSpin(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, nil)
		const n = 100
		r := run(t, engine, Config{URL: s.url(), Requests: n, Concurrency: 4, KeepAlive: true, Rate: 1000, Spin: true})
		checkCounts(t, r, n)
		if r.Complete != n || s.received.Load() != n {
			t.Errorf("complete %d received %d", r.Complete, s.received.Load())
		}
		if r.Elapsed < 99*time.Millisecond {
			t.Errorf("100 requests at 1000/s took %v, less than the schedule's 99 ms", r.Elapsed)
		}
		if r.SendLateness == nil || r.SendLateness.TotalCount() != n {
			t.Errorf("send lateness recorded for %v requests, want %d", r.SendLateness, n)
		}
	})
}

// With a rate, a stalled server shows in the latency of the requests it
// delayed, measured from their intended send.
func TestRateLatency(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, func(s *testServer) { s.delay = 50 * time.Millisecond })
		r := run(t, engine, Config{URL: s.url(), Requests: 20, Concurrency: 1, KeepAlive: true, Rate: 1000})
		checkCounts(t, r, 20)
		// One connection answering every 50 ms: the 20th request, meant for
		// 19 ms, completes near 1 s.
		if max := time.Duration(r.Latency.Max()); max < 900*time.Millisecond {
			t.Errorf("max latency %v, want about 1 s", max)
		}
	})
}

func TestDuration(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, nil)
		r := run(t, engine, Config{URL: s.url(), Duration: 200 * time.Millisecond, Concurrency: 4, KeepAlive: true, Pipeline: 2})
		if r.Complete == 0 || r.Failed != 0 {
			t.Fatalf("complete %d failed %d", r.Complete, r.Failed)
		}
		if r.Elapsed != 200*time.Millisecond {
			t.Errorf("elapsed %v", r.Elapsed)
		}
		// Requests in flight at the end were answered but are not counted.
		if d := s.answered.Load() - r.Complete; d < 0 || d > 8 {
			t.Errorf("server answered %d, complete %d", s.answered.Load(), r.Complete)
		}
	})
}

func TestHead(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, nil)
		// The test server sends a body to HEAD too; without keep-alive each
		// response has its own connection, and the bytes after the header,
		// which a HEAD response cannot have, are ignored.
		r := run(t, engine, Config{URL: s.url(), Requests: 3, Concurrency: 1, Method: "HEAD"})
		checkCounts(t, r, 3)
		if r.Complete != 3 || r.HTMLBytes != 0 || r.DocumentLength != 0 {
			t.Errorf("complete %d html %d doc %d", r.Complete, r.HTMLBytes, r.DocumentLength)
		}
	})
}

// Left to choose, a run takes io_uring for 16 connections a loop or more
// (where the kernel has it) and epoll below, and says which it used.
func TestEngineChoice(t *testing.T) {
	s := newTestServer(t, nil)
	ring := EngineURing
	if r, err := uring.New(64); err != nil {
		ring = EngineEpoll
	} else {
		r.Close()
	}
	for _, tc := range []struct {
		c, loops int
		want     string
	}{
		{4, 1, EngineEpoll},
		{15, 1, EngineEpoll},
		{16, 1, ring},
		{31, 2, EngineEpoll},
		{32, 2, ring},
	} {
		r := run(t, "", Config{URL: s.url(), Requests: 100, Concurrency: tc.c, KeepAlive: true, Loops: tc.loops})
		checkCounts(t, r, 100)
		if r.Engine != tc.want {
			t.Errorf("-c %d over %d loops: engine %s, want %s", tc.c, tc.loops, r.Engine, tc.want)
		}
	}
}

// tryRuns runs run up to tries times, a pause apart, until it reports
// nothing amiss: a run that meets the host's noise (a client descheduled
// beside the rest of make test on two cores) says why in a line and is
// tried again, and a fault of loadgen's misses in every run. A run that
// finds what noise cannot explain fails the test itself and returns "".
func tryRuns(t *testing.T, tries int, pause time.Duration, run func() string) {
	t.Helper()
	var why string
	for try := 1; try <= tries; try++ {
		if why = run(); why == "" {
			return
		}
		t.Logf("run %d: %s", try, why)
		time.Sleep(pause)
	}
	t.Errorf("%d runs amiss; the last: %s", tries, why)
}

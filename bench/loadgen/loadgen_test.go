package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// engine is the I/O engine of the current pass over the tests.
var engine string

// TestMain runs every test once per I/O engine, so both are held to the
// same counts. A kernel without io_uring runs the epoll pass only, unless
// HELLOBENCH_REQUIRE_TOOLS=1 asks for every component.
func TestMain(m *testing.M) {
	engines := []string{EngineEpoll, EngineURing}
	if r, err := newRing(64); err != nil {
		if os.Getenv("HELLOBENCH_REQUIRE_TOOLS") == "1" {
			fmt.Fprintf(os.Stderr, "loadgen tests: %v\n", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "loadgen tests: %v: testing the epoll engine only\n", err)
		engines = engines[:1]
	} else {
		r.close()
	}
	flag.Parse()
	for i, e := range engines {
		engine = e
		if i > 0 {
			// Benchmarks choose their engine themselves: run them once.
			flag.Set("test.bench", "")
		}
		if code := m.Run(); code != 0 {
			fmt.Fprintf(os.Stderr, "loadgen tests failed with the %s engine\n", e)
			os.Exit(code)
		}
	}
}

func run(t *testing.T, cfg Config) *Result {
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
		r := run(t, Config{URL: s.url(), Requests: tc.n, Concurrency: tc.c, KeepAlive: tc.keepAlive, Pipeline: tc.pipeline, Loops: 2})
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
		if r.ServerSoftware != "test" {
			t.Errorf("server software %q", r.ServerSoftware)
		}
	}
}

// A server that closes keep-alive connections after K requests, as nginx's
// keepalive_requests: the requests are re-sent, never lost or counted twice.
func TestKeepAliveLimit(t *testing.T) {
	for _, pipeline := range []int{1, 5, 16} {
		s := newTestServer(t, func(s *testServer) { s.closeAfter = 7 })
		const n = 1000
		r := run(t, Config{URL: s.url(), Requests: n, Concurrency: 8, KeepAlive: true, Pipeline: pipeline})
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
}

// A server that resets keep-alive connections: the unanswered request is
// retried on a new connection.
func TestReset(t *testing.T) {
	s := newTestServer(t, func(s *testServer) { s.resetAfter = 5 })
	const n = 500
	r := run(t, Config{URL: s.url(), Requests: n, Concurrency: 4, KeepAlive: true})
	checkCounts(t, r, n)
	if r.Complete != n || s.answered.Load() != n {
		t.Errorf("complete %d, server answered %d, want %d; failures %+v", r.Complete, s.answered.Load(), n, r.Failures)
	}
	if resets := s.received.Load() - n; resets < n/6 {
		t.Errorf("server received %d requests: expected about %d resets", s.received.Load(), n/5)
	}
}

// A server that closes new connections without a word: requests fail, once.
func TestDropped(t *testing.T) {
	s := newTestServer(t, nil)
	r := run(t, Config{URL: s.url(), Requests: 1, Concurrency: 1, KeepAlive: true})
	checkCounts(t, r, 1)
	s.dropAll.Store(true)
	const n = 50
	r = run(t, Config{URL: s.url(), Requests: n, Concurrency: 5, KeepAlive: true, Pipeline: 3})
	checkCounts(t, r, n)
	if r.Failures.Receive != n {
		t.Errorf("receive failures %d, want %d: %+v", r.Failures.Receive, n, r.Failures)
	}
}

func TestChunked(t *testing.T) {
	s := newTestServer(t, func(s *testServer) { s.chunked = true })
	const n = 300
	r := run(t, Config{URL: s.url(), Requests: n, Concurrency: 5, KeepAlive: true, Pipeline: 4})
	checkCounts(t, r, n)
	if r.Complete != n || r.HTMLBytes != n*257 || r.DocumentLength != 257 {
		t.Errorf("complete %d html %d doc %d failures %+v", r.Complete, r.HTMLBytes, r.DocumentLength, r.Failures)
	}
}

// HTTP/1.0 responses without a length: the body ends with the connection.
func TestHTTP10Close(t *testing.T) {
	s := newTestServer(t, func(s *testServer) { s.http10 = true })
	const n = 200
	for _, ka := range []bool{false, true} {
		s.answered.Store(0)
		r := run(t, Config{URL: s.url(), Requests: n, Concurrency: 4, KeepAlive: ka})
		checkCounts(t, r, n)
		if r.Complete != n || r.HTMLBytes != n*257 || r.Connections != n || r.KeepAliveRequests != 0 {
			t.Errorf("keep-alive %v: complete %d html %d connections %d keep-alive %d failures %+v",
				ka, r.Complete, r.HTMLBytes, r.Connections, r.KeepAliveRequests, r.Failures)
		}
	}
}

// A body of another length than the first response's is a Length failure.
func TestLengthFailure(t *testing.T) {
	s := newTestServer(t, func(s *testServer) { s.longEvery = 4 })
	const n = 400
	r := run(t, Config{URL: s.url(), Requests: n, Concurrency: 1, KeepAlive: true})
	checkCounts(t, r, n)
	if r.Failures.Length != n/4 || r.Complete != n-n/4 || r.Status[200] != n {
		t.Errorf("length failures %d, complete %d, status %v", r.Failures.Length, r.Complete, r.Status)
	}
}

func TestTimeout(t *testing.T) {
	s := newTestServer(t, func(s *testServer) { s.holdEvery = 2 })
	const n = 6
	r := run(t, Config{URL: s.url(), Requests: n, Concurrency: 1, KeepAlive: true, Timeout: 100 * time.Millisecond})
	checkCounts(t, r, n)
	if r.Failures.Timeout != n/2 || r.Complete != n/2 || r.Failed != n/2 {
		t.Errorf("timeouts %d complete %d failed %d %+v", r.Failures.Timeout, r.Complete, r.Failed, r.Failures)
	}
}

// Timeouts under load: a loop awaiting many responses gathers them in
// batches (io_uring), and each timed-out connection is closed with its
// receive still posted, then opened again.
func TestTimeoutUnderLoad(t *testing.T) {
	s := newTestServer(t, func(s *testServer) { s.holdEvery = 10 })
	const n = 400
	r := run(t, Config{URL: s.url(), Requests: n, Concurrency: 40, KeepAlive: true, Loops: 1, Timeout: 100 * time.Millisecond})
	checkCounts(t, r, n)
	if r.Failures.Timeout != n/10 || r.Complete != n-n/10 {
		t.Errorf("timeouts %d complete %d, want %d and %d; %+v", r.Failures.Timeout, r.Complete, n/10, n-n/10, r.Failures)
	}
	if got := s.received.Load(); got != n {
		t.Errorf("server received %d requests, want %d", got, n)
	}
}

func TestConnectRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = Run(context.Background(), Config{URL: "http://" + addr + "/", Requests: 10, Concurrency: 2, Engine: engine})
	if err == nil || err.Error() != "connect "+addr+": connection refused" {
		t.Errorf("error %v, want connect %s: connection refused", err, addr)
	}
}

func TestBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{URL: "http://127.0.0.1:1/"},
		{URL: "http://127.0.0.1:1/", Requests: 2, Concurrency: 3},
		{URL: "127.0.0.1/", Requests: 1},
		{URL: "https://127.0.0.1/", Requests: 1},
		{URL: "http://:80/", Requests: 1},
		{URL: "http://127.0.0.1:99999/", Requests: 1},
		{URL: "http://%zz/", Requests: 1},
		{URL: "http://127.0.0.1/", Requests: 1, Headers: []string{"no colon"}},
		{URL: "http://127.0.0.1/", Requests: 1, Method: "G T"},
		{URL: "http://127.0.0.1/", Requests: 1, Pipeline: -1},
		{URL: "http://127.0.0.1/", Requests: 1, Engine: "kqueue"},
	} {
		if _, err := Run(context.Background(), cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

// With a rate, requests follow the schedule: the last one is not sent before
// its intended time.
func TestRate(t *testing.T) {
	s := newTestServer(t, nil)
	const n = 100
	r := run(t, Config{URL: s.url(), Requests: n, Concurrency: 4, KeepAlive: true, Rate: 1000})
	checkCounts(t, r, n)
	if r.Complete != n || s.received.Load() != n {
		t.Errorf("complete %d received %d", r.Complete, s.received.Load())
	}
	if r.Elapsed < 99*time.Millisecond {
		t.Errorf("100 requests at 1000/s took %v, less than the schedule's 99 ms", r.Elapsed)
	}
}

// With a rate, a stalled server shows in the latency of the requests it
// delayed, measured from their intended send.
func TestRateLatency(t *testing.T) {
	s := newTestServer(t, func(s *testServer) { s.delay = 50 * time.Millisecond })
	r := run(t, Config{URL: s.url(), Requests: 20, Concurrency: 1, KeepAlive: true, Rate: 1000})
	checkCounts(t, r, 20)
	// One connection answering every 50 ms: the 20th request, meant for
	// 19 ms, completes near 1 s.
	if max := time.Duration(r.Latency.Max()); max < 900*time.Millisecond {
		t.Errorf("max latency %v, want about 1 s", max)
	}
}

func TestDuration(t *testing.T) {
	s := newTestServer(t, nil)
	r := run(t, Config{URL: s.url(), Duration: 200 * time.Millisecond, Concurrency: 4, KeepAlive: true, Pipeline: 2})
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
}

func TestHead(t *testing.T) {
	s := newTestServer(t, nil)
	// The test server sends a body to HEAD too; without keep-alive each
	// response has its own connection, and the bytes after the header,
	// which a HEAD response cannot have, are ignored.
	r := run(t, Config{URL: s.url(), Requests: 3, Concurrency: 1, Method: "HEAD"})
	checkCounts(t, r, 3)
	if r.Complete != 3 || r.HTMLBytes != 0 || r.DocumentLength != 0 {
		t.Errorf("complete %d html %d doc %d", r.Complete, r.HTMLBytes, r.DocumentLength)
	}
}

var abSections = []string{
	"Server Software:", "Server Hostname:", "Server Port:", "Document Path:",
	"Document Length:", "Concurrency Level:", "Time taken for tests:",
	"Complete requests:", "Failed requests:", "Keep-Alive requests:",
	"Total transferred:", "HTML transferred:", "Requests per second:",
	"Time per request:", "Time per request:", "Transfer rate:",
	"Connection Times (µs)", "min  mean[+/-sd] median   max",
	"Connect:", "Processing:", "Waiting:", "Total:",
	"Percentage of the requests served within a certain time (µs)",
	"50%", "66%", "75%", "80%", "90%", "95%", "98%", "99%", "99.9%", "99.99%", "100%",
	"(longest request)",
}

func TestReport(t *testing.T) {
	s := newTestServer(t, func(s *testServer) { s.longEvery = 10 })
	r := run(t, Config{URL: s.url() + "?a=1", Requests: 100, Concurrency: 2, KeepAlive: true})
	var b bytes.Buffer
	if err := WriteReport(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	rest := strings.Join(strings.Fields(out), " ")
	for _, sec := range abSections {
		sec = strings.Join(strings.Fields(sec), " ")
		i := strings.Index(rest, sec)
		if i < 0 {
			t.Fatalf("report lacks %q (in order):\n%s", sec, out)
		}
		rest = rest[i+len(sec):]
	}
	for _, want := range []string{
		"Document Path:          /hello/world?a=1\n",
		"Document Length:        257 bytes\n",
		"Complete requests:      90\n",
		"Failed requests:        10\n",
		"   (Connect: 0, Receive: 0, Length: 10, Exceptions: 0)\n",
		"Keep-Alive requests:    100\n",
		"HTML transferred:       25710 bytes\n",
		"[µs] (mean)\n",
		"[µs] (mean, across all concurrent requests)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestJSON(t *testing.T) {
	s := newTestServer(t, nil)
	r := run(t, Config{URL: s.url(), Requests: 100, Concurrency: 2, KeepAlive: true})
	var b bytes.Buffer
	if err := WriteJSON(&b, r, []*Result{r, r}); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	keys := []string{"url", "server_software", "document_path", "document_length", "concurrency",
		"keepalive", "pipeline", "requests", "duration_s", "complete", "failed", "failures",
		"non_2xx", "status", "keepalive_requests", "connections", "total_bytes", "html_bytes",
		"requests_per_sec", "latency_us", "connect_us", "histogram", "runs"}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if m["complete"] != 100.0 || m["requests"] != 100.0 || m["document_length"] != 257.0 || m["keepalive"] != true {
		t.Errorf("JSON figures: %v", m)
	}
	if st := m["status"].(map[string]any); st["200"] != 100.0 {
		t.Errorf("status %v", st)
	}
	f := m["failures"].(map[string]any)
	for _, k := range []string{"connect", "receive", "length", "exceptions", "timeout"} {
		if _, ok := f[k]; !ok {
			t.Errorf("failures lack %q", k)
		}
	}
	lat := m["latency_us"].(map[string]any)
	for _, k := range []string{"min", "mean", "stddev", "p50", "p66", "p75", "p80", "p90", "p95", "p98", "p99", "p99_9", "p99_99", "max"} {
		if v, ok := lat[k].(float64); !ok || v <= 0 && k != "stddev" {
			t.Errorf("latency_us %q = %v", k, lat[k])
		}
	}
	var total float64
	for _, b := range m["histogram"].([]any) {
		total += b.(map[string]any)["count"].(float64)
	}
	if total != 100 {
		t.Errorf("histogram counts sum to %v, want 100", total)
	}
	if runs := m["runs"].([]any); len(runs) != 2 {
		t.Errorf("%d runs", len(runs))
	}
}

// Left to choose, a run takes io_uring for 16 connections a loop or more
// (where the kernel has it) and epoll below, and says which it used.
func TestEngineChoice(t *testing.T) {
	s := newTestServer(t, nil)
	uring := EngineURing
	if r, err := newRing(64); err != nil {
		uring = EngineEpoll
	} else {
		r.close()
	}
	for _, tc := range []struct {
		c, loops int
		want     string
	}{
		{4, 1, EngineEpoll},
		{15, 1, EngineEpoll},
		{16, 1, uring},
		{31, 2, EngineEpoll},
		{32, 2, uring},
	} {
		r, err := Run(context.Background(), Config{URL: s.url(), Requests: 100, Concurrency: tc.c, KeepAlive: true, Loops: tc.loops, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		checkCounts(t, r, 100)
		if r.Engine != tc.want {
			t.Errorf("-c %d over %d loops: engine %s, want %s", tc.c, tc.loops, r.Engine, tc.want)
		}
	}
}

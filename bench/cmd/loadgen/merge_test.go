package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"hellobench/bench/loadgen"
	"hellobench/internal/testnet"
)

// countingListener counts the connections it accepts and the bytes
// written to them.
type countingListener struct {
	net.Listener
	conns, written *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.conns.Add(1)
	return countingConn{c, l.written}, nil
}

type countingConn struct {
	net.Conn
	written *atomic.Int64
}

func (c countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.written.Add(int64(n))
	return n, err
}

// Three loadgen processes started together by -start-at against one
// server, each writing its log (-o), merged: every count is the server's
// exactly, and every percentile that of one histogram holding every
// request of the three.
func TestThreeHosts(t *testing.T) {
	var hits, ok, notFound, conns, written atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1)%7 == 0 {
			notFound.Add(1)
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte("nope!"))
			return
		}
		ok.Add(1)
		w.Write([]byte("hello"))
	}))
	srv.Listener = countingListener{srv.Listener, &conns, &written}
	srv.Start()
	defer srv.Close()

	dir := t.TempDir()
	at := time.Now().Add(time.Second)
	counts := []int{600, 800, 1000}
	var (
		files      []string
		cmds       []*exec.Cmd
		outs, errs [3]bytes.Buffer
	)
	for i, n := range counts {
		f := filepath.Join(dir, fmt.Sprintf("%d.hlog", i))
		files = append(files, f)
		cmd := exec.Command(os.Args[0], "-q", "-k", "-c", "2", "-n", strconv.Itoa(n),
			"-start-at", at.Format(time.RFC3339Nano), "-o", f, srv.URL+"/x")
		cmd.Env = append(os.Environ(), "LOADGEN_TEST_MAIN=1")
		cmd.Stdout, cmd.Stderr = &outs[i], &errs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		cmd.Wait()
		// Exit 1, for the 404s, which the one line counts.
		want := regexp.MustCompile(`^loadgen: 0 failed requests \(connect 0, receive 0, length 0, exceptions 0, timeout 0\) and \d+ non-2xx responses of ` +
			strconv.Itoa(counts[i]) + "\n$")
		if code := cmd.ProcessState.ExitCode(); code != 1 || !want.Match(errs[i].Bytes()) {
			t.Fatalf("loadgen %d: exit %d, stderr %q\n%s", i, code, errs[i].String(), outs[i].String())
		}
	}
	const total = 600 + 800 + 1000
	if hits.Load() != total {
		t.Fatalf("server got %d requests, want %d", hits.Load(), total)
	}

	// Each started at the time given, not before; the merged run spans
	// from the earliest start to the latest end.
	var first, last time.Time
	for i, f := range files {
		r, err := readLog(f)
		if err != nil {
			t.Fatal(err)
		}
		if r.Start.Before(at) {
			t.Errorf("loadgen %d started at %v, before %v", i, r.Start, at)
		}
		if i == 0 || r.Start.Before(first) {
			first = r.Start
		}
		if end := r.Start.Add(r.Elapsed); end.After(last) {
			last = end
		}
	}

	// One histogram holding every request: the three logs' Total, as
	// HdrHistogram's own reader reads them, added into a new one.
	one := hdrhistogram.New(1, int64(time.Hour), 3)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h, err := hdrhistogram.NewHistogramLogReader(bytes.NewReader(data)).NextIntervalHistogram()
		if err != nil || h == nil || h.Tag() != "" {
			t.Fatalf("%s: %v, %v", f, h, err)
		}
		one.Merge(h)
	}
	if one.TotalCount() != total {
		t.Fatalf("the logs' histograms hold %d requests, want %d", one.TotalCount(), total)
	}

	code, stdout, stderr := runCLI(append([]string{"merge", "-json"}, files...)...)
	if want := fmt.Sprintf("loadgen: 0 failed requests (connect 0, receive 0, length 0, exceptions 0, timeout 0) and %d non-2xx responses of %d\n",
		notFound.Load(), total); code != 1 || stderr != want {
		t.Errorf("merge -json: exit %d, stderr %q, want 1, %q", code, stderr, want)
	}
	var j loadgen.JSONResult
	if err := json.Unmarshal([]byte(stdout), &j); err != nil {
		t.Fatalf("%v: %q", err, stdout)
	}
	switch {
	case j.Complete != hits.Load() || j.Failed != 0 || j.Requests != total:
		t.Errorf("complete %d, failed %d, requests %d; the server got %d", j.Complete, j.Failed, j.Requests, hits.Load())
	case j.Status["200"] != ok.Load() || j.Status["404"] != notFound.Load() || len(j.Status) != 2 || j.Non2xx != notFound.Load():
		t.Errorf("status %v, non-2xx %d; the server sent %d 200s and %d 404s", j.Status, j.Non2xx, ok.Load(), notFound.Load())
	case j.TotalBytes != written.Load() || j.HTMLBytes != 5*total:
		t.Errorf("bytes %d, html %d; the server wrote %d, and %d of bodies", j.TotalBytes, j.HTMLBytes, written.Load(), 5*total)
	case j.Connections != conns.Load() || j.Concurrency != 6 || j.KeepAliveRequests != total:
		t.Errorf("connections %d, concurrency %d, keep-alive %d; the server accepted %d", j.Connections, j.Concurrency, j.KeepAliveRequests, conns.Load())
	case j.DurationS != last.Sub(first).Seconds() || j.RequestsPerSec != total/last.Sub(first).Seconds() || !j.Start.Equal(first):
		t.Errorf("duration %v s from %v, %v requests/s; want %v s from %v", j.DurationS, j.Start, j.RequestsPerSec, last.Sub(first).Seconds(), first)
	}
	q := func(p float64) float64 { return float64(one.ValueAtQuantile(p)) / 1e3 }
	want := loadgen.Summary{
		Min: float64(one.Min()) / 1e3, Mean: one.Mean() / 1e3, StdDev: one.StdDev() / 1e3,
		P50: q(50), P66: q(66), P75: q(75), P80: q(80), P90: q(90), P95: q(95), P98: q(98), P99: q(99),
		P99_9: q(99.9), P99_99: q(99.99), Max: float64(one.Max()) / 1e3,
	}
	if j.LatencyUS != want {
		t.Errorf("merged latency %+v\nwant %+v", j.LatencyUS, want)
	}
	var inBuckets int64
	for _, b := range j.Histogram {
		inBuckets += b.Count
	}
	if inBuckets != total {
		t.Errorf("histogram buckets hold %d, want %d", inBuckets, total)
	}
	if len(j.Sources) != 3 {
		t.Fatalf("%d sources", len(j.Sources))
	}
	for i, s := range j.Sources {
		if s.File != files[i] || s.Complete != int64(counts[i]) || s.Concurrency != 2 {
			t.Errorf("source %d: %s, complete %d, concurrency %d", i, s.File, s.Complete, s.Concurrency)
		}
	}

	// The report's percentiles, in µs and in ab's ms.
	code, stdout, _ = runCLI(append([]string{"merge"}, files...)...)
	if code != 1 || !strings.Contains(stdout, fmt.Sprintf("Complete requests:      %d\n", total)) ||
		!strings.Contains(stdout, fmt.Sprintf("Non-2xx responses:      %d\n", notFound.Load())) {
		t.Errorf("merge: exit %d\n%s", code, stdout)
	}
	for _, p := range loadgen.Percentiles {
		v := one.ValueAtQuantile(p)
		line := fmt.Sprintf("\n %6s %7d\n", fmt.Sprintf("%g%%", p), (v+500)/1000)
		if p == 100 {
			line = fmt.Sprintf("\n %6s %7d (longest request)\n", "100%", (one.Max()+500)/1000)
		}
		if !strings.Contains(stdout, line) {
			t.Errorf("merged report lacks %q:\n%s", line, stdout)
		}
	}
	for i, f := range files {
		if !regexp.MustCompile(fmt.Sprintf(`\n +%d +[\d.]+ +\d+ +\d+ +0 +[\d.]+  %s\n`, i+1, regexp.QuoteMeta(f))).MatchString(stdout) {
			t.Errorf("merged report lacks log %d, %s:\n%s", i+1, f, stdout)
		}
	}
	code, stdout, _ = runCLI(append([]string{"merge", "-units", "ms"}, files...)...)
	p99 := (one.ValueAtQuantile(99)/1000 + 500) / 1000
	if code != 1 || !strings.Contains(stdout, fmt.Sprintf("\n  99%%  %5d\n", p99)) || !strings.Contains(stdout, "p50 ms") {
		t.Errorf("merge -units ms: exit %d, want 99%% at %d ms\n%s", code, p99, stdout)
	}
}

// mkLog writes a loadgen log of n complete requests to dir/name.
func mkLog(t *testing.T, dir, name, url string, start time.Time, n int) string {
	t.Helper()
	r := &loadgen.Result{
		URL: url, Host: "127.0.0.1", Port: 80, Path: "/", DocumentLength: 5, Concurrency: 1, Pipeline: 1,
		Engine: loadgen.EngineEpoll, Start: start, Elapsed: time.Second, Complete: int64(n),
		Status: map[int]int64{200: int64(n)}, TotalBytes: int64(n) * 100, HTMLBytes: int64(n) * 5,
		Latency:    hdrhistogram.New(1, int64(time.Hour), 3),
		Connect:    hdrhistogram.New(1, int64(time.Hour), 3),
		Processing: hdrhistogram.New(1, int64(time.Hour), 3),
		Waiting:    hdrhistogram.New(1, int64(time.Hour), 3),
	}
	for i := range n {
		v := int64(1000 * (i + 1))
		r.Latency.RecordValue(v)
		r.Connect.RecordValue(0)
		r.Processing.RecordValue(v)
		r.Waiting.RecordValue(v / 2)
	}
	var b bytes.Buffer
	if err := loadgen.WriteLog(&b, r); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Unix(1767225600, 0)
	a := mkLog(t, dir, "a.hlog", "http://127.0.0.1/", t0, 10)
	b := mkLog(t, dir, "b.hlog", "http://127.0.0.2/", t0.Add(time.Millisecond), 10)
	c := mkLog(t, dir, "c.hlog", "http://127.0.0.1/", t0.Add(500*time.Millisecond), 20)
	old := mkLog(t, dir, "old.hlog", "http://127.0.0.1/", t0.Add(-time.Hour), 20)
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("hello\n"), 0o644)
	// An interval log from another tool: no loadgen comment.
	h := hdrhistogram.New(1, 1000, 3)
	h.RecordValue(5)
	var other bytes.Buffer
	w := hdrhistogram.NewHistogramLogWriter(&other)
	w.OutputLegend()
	w.OutputIntervalHistogram(h)
	foreign := filepath.Join(dir, "other.hlog")
	os.WriteFile(foreign, other.Bytes(), 0o644)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"merge"}, "loadgen merge: no log files; usage: loadgen merge"},
		{[]string{"merge", "-x", a}, "loadgen merge: flag provided but not defined: -x"},
		{[]string{"merge", "-units", "s", a}, `loadgen merge: invalid -units "s"`},
		{[]string{"merge", a, filepath.Join(dir, "none.hlog")}, "loadgen merge: open " + filepath.Join(dir, "none.hlog") + ": no such file or directory"},
		{[]string{"merge", text}, "loadgen merge: " + text + ": line 1: not an interval histogram"},
		{[]string{"merge", foreign}, "loadgen merge: " + foreign + ": not a loadgen log"},
		{[]string{"merge", a, c, b}, "loadgen merge: " + a + " and " + b + ": different URLs: http://127.0.0.1/ and http://127.0.0.2/"},
		{[]string{"merge", a, c, a}, "loadgen merge: " + a + " and " + a + ": the same run twice"},
		{[]string{"merge", a, c, old}, "loadgen merge: " + a + " and " + old + ": the runs did not overlap in time"},
	} {
		code, stdout, stderr := runCLI(tc.args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q, want 2 and one line %q…", tc.args, code, stderr, tc.want)
		}
	}

	// A clean merge, options after the files: exit 0, nothing on stderr.
	code, stdout, stderr := runCLI("merge", a, c, "-units", "ms")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "Complete requests:      30\n") ||
		!strings.Contains(stdout, "Concurrency Level:      2\n") || !strings.Contains(stdout, "Time taken for tests:   1.500 seconds\n") ||
		!strings.Contains(stdout, "Requests per second:    20.00 [#/sec] (mean)\n") {
		t.Errorf("merge: exit %d, stderr %q\n%s", code, stderr, stdout)
	}
	code, stdout, _ = runCLI("merge", "-h")
	if code != 0 || !strings.Contains(stdout, "Requests per second all complete requests / that span") {
		t.Errorf("merge -h: exit %d\n%s", code, stdout)
	}
}

// -start-at in either form waits, and says so only with progress on; -o
// leaves no file when the run could not run.
func TestStartAt(t *testing.T) {
	var first atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first.CompareAndSwap(0, time.Now().UnixNano())
		w.Write([]byte("hello"))
	}))
	defer srv.Close()

	at := time.Now().Add(300 * time.Millisecond)
	code, _, stderr := runChild(t, "-n", "20", "-start-at", at.Format(time.RFC3339Nano), srv.URL)
	if code != 0 || stderr != "Starting at "+at.Format(time.RFC3339Nano)+"\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if got := time.Unix(0, first.Load()); got.Before(at) {
		t.Errorf("first request at %v, before %v", got, at)
	}

	first.Store(0)
	at = time.Now().Add(300 * time.Millisecond)
	secs := strconv.FormatFloat(float64(at.UnixNano())/1e9, 'f', 3, 64)
	code, _, stderr = runChild(t, "-q", "-k", "-n", "20", "-warmup", "10", "-start-at", secs, srv.URL)
	if code != 0 || stderr != "" {
		t.Errorf("-q: exit %d, stderr %q", code, stderr)
	}
	if got := time.Unix(0, first.Load()); got.Before(at.Truncate(time.Millisecond)) {
		t.Errorf("first (warm-up) request at %v, before %v", got, secs)
	}

	closed := testnet.Refusing(t)
	out := filepath.Join(t.TempDir(), "x.hlog")
	code, _, stderr = runCLI("-q", "-o", out, "http://"+closed+"/")
	if _, err := os.Stat(out); code != 1 || !strings.Contains(stderr, "connection refused") || !os.IsNotExist(err) {
		t.Errorf("refused: exit %d, stderr %q, log %v", code, stderr, err)
	}
}

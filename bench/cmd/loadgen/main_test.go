package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hellobench/internal/testnet"
)

// TestMain runs the command itself when asked: a run against a server in
// this process is made from a child, because the command's event loop may
// hold the only P (Config.Solo) while the server needs it.
func TestMain(m *testing.M) {
	if os.Getenv("LOADGEN_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runChild runs the command in a child process.
func runChild(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "LOADGEN_TEST_MAIN=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), o.String(), e.String()
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// oneLine checks that stderr is one line starting with "loadgen: ".
func oneLine(t *testing.T, args []string, code int, stderr string, wantCode int, want string) {
	t.Helper()
	if code != wantCode {
		t.Errorf("%q: exit %d, want %d; stderr %q", args, code, wantCode, stderr)
	}
	if !strings.HasPrefix(stderr, "loadgen: ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
		t.Errorf("%q: stderr %q, want one line with %q", args, stderr, want)
	}
}

func TestErrors(t *testing.T) {
	closed := testnet.Refusing(t)
	now := time.Now()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, "no URL"},
		{[]string{"-x", "http://127.0.0.1/"}, 2, "flag provided but not defined: -x"},
		{[]string{"-n", "ten", "http://127.0.0.1/"}, 2, "invalid value"},
		{[]string{"-n", "0", "http://127.0.0.1/"}, 2, "invalid number of requests -n 0"},
		{[]string{"-c", "0", "http://127.0.0.1/"}, 2, "invalid concurrency -c 0"},
		{[]string{"-c", "5", "-n", "2", "http://127.0.0.1/"}, 2, "cannot use concurrency level 5 greater than total number of requests 2"},
		{[]string{"-pipeline", "4", "http://127.0.0.1/"}, 2, "pipelining needs keep-alive"},
		{[]string{"-k", "-pipeline", "2000", "http://127.0.0.1/"}, 2, "invalid pipeline depth 2000 (1 to 1024)"},
		{[]string{"-d", "soon", "http://127.0.0.1/"}, 2, "invalid duration"},
		{[]string{"-s", "-1", "http://127.0.0.1/"}, 2, "invalid timeout -1s"},
		{[]string{"-t", "NaN", "http://127.0.0.1/"}, 2, "invalid time limit"},
		{[]string{"-rate", "-5", "http://127.0.0.1/"}, 2, "invalid rate -5"},
		{[]string{"-warmup", "x", "http://127.0.0.1/"}, 2, "invalid -warmup"},
		{[]string{"-units", "s", "http://127.0.0.1/"}, 2, "invalid -units"},
		{[]string{"-i", "-m", "POST", "http://127.0.0.1/"}, 2, "-i and -m both set the method"},
		{[]string{"http://127.0.0.1/", "http://127.0.0.2/"}, 2, "more than one URL"},
		{[]string{"-engine", "kqueue", "http://127.0.0.1/"}, 2, "invalid engine \"kqueue\""},
		{[]string{"-H", "no colon", "http://127.0.0.1/"}, 2, "invalid header"},
		{[]string{"-c5", "-n2", "http://127.0.0.1/"}, 2, "greater than total number of requests"},
		{[]string{"-kx", "http://127.0.0.1/"}, 2, "flag provided but not defined: -kx"},
		{[]string{"not a url"}, 2, "invalid URL"},
		{[]string{"http://%zz/"}, 2, "invalid URL"},
		{[]string{"ftp://127.0.0.1/"}, 2, "want http://host[:port]/path or https://"},
		{[]string{"-resume", "http://127.0.0.1/"}, 2, "resuming TLS sessions needs an https:// URL"},
		{[]string{"https://127.0.0.1:1/"}, 1, "connect 127.0.0.1:1: connection refused"},
		{[]string{"http://127.0.0.1:1/"}, 1, "connect 127.0.0.1:1: connection refused"},
		{[]string{"-k", "-n", "10", "http://" + closed + "/"}, 1, "connect " + closed + ": connection refused"},
		{[]string{"-start-at", "tomorrow", "http://127.0.0.1/"}, 2, `invalid -start-at "tomorrow": want an RFC 3339 time`},
		{[]string{"-start-at", now.Add(-10 * time.Second).Format(time.RFC3339), "http://127.0.0.1/"}, 2, "s in the past: is this host's clock in sync"},
		{[]string{"-start-at", "1", "http://127.0.0.1/"}, 2, "-start-at 1 is "},
		{[]string{"-start-at", strconv.FormatInt(now.Add(48*time.Hour).Unix(), 10), "http://127.0.0.1/"}, 2, "is more than 24 hours ahead"},
		{[]string{"-o", "x.hlog", "-repeat", "2", "http://127.0.0.1/"}, 2, "-o writes the log of one run: give -repeat 1"},
		{[]string{"-o", "", "http://127.0.0.1/"}, 2, `invalid -o "": want a file name`},
		{[]string{"-o", filepath.Join(t.TempDir(), "none", "x.hlog"), "http://127.0.0.1/"}, 1, "x.hlog: no such file or directory"},
	} {
		code, stdout, stderr := runCLI(tc.args...)
		oneLine(t, tc.args, code, stderr, tc.code, tc.want)
		if stdout != "" {
			t.Errorf("%q: stdout %q", tc.args, stdout)
		}
	}
}

// -h lists the options and then defines every field of the report and the
// exit status.
func TestHelp(t *testing.T) {
	code, stdout, stderr := runCLI("-h")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"-q\tdo not show progress", "-r\tdon't stop at a socket receive error", "-l\taccept variable document length",
		"-i\tuse HEAD instead of GET", "-units string",
		"Concurrency Level", "Time taken for tests", "Complete requests", "Failed requests", "Non-2xx responses",
		"Keep-Alive requests", "Total transferred", "HTML transferred", "Requests per second",
		"Time per request (mean)", "Time per request (mean, across all concurrent requests)",
		"Transfer rate", "Connection Times", "Percentage of the requests served within a certain time",
		"Send lateness", "Client-limited", "Tag=send_lateness",
		"Exit status: 0 when every request got a complete 2xx response; 1 when any",
		"-o FILE\n", "-start-at TIME\n", "loadgen merge FILE... prints one report of them all",
		"the span from the earliest start to the latest end",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("-h lacks %q:\n%s", want, stdout)
		}
	}
}

func TestRun(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("hello"))
	}))
	defer srv.Close()

	// ab's joined form of an option and its value, -n300.
	code, stdout, stderr := runChild(t, "-n300", "-c", "3", "-k", srv.URL+"/x")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Complete requests:      300\n", "Document Length:        5 bytes\n", "Keep-Alive requests:    300\n", "(µs)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	// ab's progress: every 10% of the requests, at least 100 apart.
	if want := "Completed 100 requests\nCompleted 200 requests\nCompleted 300 requests\nFinished 300 requests\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	if hits.Load() != 300 {
		t.Errorf("server got %d requests, want 300", hits.Load())
	}

	// Warm-up, options after the URL, JSON of three runs: no progress.
	hits.Store(0)
	code, stdout, stderr = runChild(t, "-k", "-warmup", "50", srv.URL+"/x", "-n", "100", "-repeat", "3", "-json")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var j struct {
		Complete int64
		Runs     []struct{ Complete int64 }
	}
	if err := json.Unmarshal([]byte(stdout), &j); err != nil {
		t.Fatalf("%v: %q", err, stdout)
	}
	if j.Complete != 100 || len(j.Runs) != 3 {
		t.Errorf("JSON: %+v", j)
	}
	if hits.Load() != 50+300 {
		t.Errorf("server got %d requests, want 350", hits.Load())
	}

	// The text report of several runs ends with the spread; the progress
	// says it warms up and marks each run.
	code, stdout, stderr = runChild(t, "-k", "-n", "200", "-repeat", "2", "-warmup", "0.1s", srv.URL+"/x")
	if code != 0 || !strings.Contains(stdout, "Runs (the report above is the median run") || !strings.Contains(stdout, "Spread:") {
		t.Errorf("exit %d, report:\n%s", code, stdout)
	}
	if want := "Warming up: 100ms, not recorded\nRun 1 of 2\nCompleted 100 requests\nCompleted 200 requests\nFinished 200 requests\n" +
		"Run 2 of 2\nCompleted 100 requests\nCompleted 200 requests\nFinished 200 requests\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}

	// -q: no progress at all.
	code, _, stderr = runChild(t, "-q", "-k", "-n", "200", "-repeat", "2", srv.URL+"/x")
	if code != 0 || stderr != "" {
		t.Errorf("-q: exit %d, stderr %q", code, stderr)
	}
}

// ab's -i sends HEAD, and -l takes a body of any length as complete and
// says the length is variable.
func TestHeadAndVariableLength(t *testing.T) {
	var heads, n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "HEAD" {
			heads.Add(1)
		}
		w.Write(bytes.Repeat([]byte("x"), int(n.Add(1)%3)+1))
	}))
	defer srv.Close()

	code, stdout, stderr := runChild(t, "-q", "-i", "-n", "20", srv.URL)
	if code != 0 || heads.Load() != 20 || !strings.Contains(stdout, "Complete requests:      20\n") {
		t.Errorf("-i: exit %d, %d HEAD requests of 20, stderr %q\n%s", code, heads.Load(), stderr, stdout)
	}

	code, stdout, stderr = runChild(t, "-q", "-n", "30", srv.URL)
	if code != 1 || !strings.Contains(stdout, "Length: 20") || !strings.Contains(stderr, "20 failed requests (connect 0, receive 0, length 20") {
		t.Errorf("varying lengths: exit %d, stderr %q\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = runChild(t, "-q", "-l", "-n", "30", srv.URL)
	if code != 0 || !strings.Contains(stdout, "Document Length:        Variable\n") || !strings.Contains(stdout, "Complete requests:      30\n") {
		t.Errorf("-l: exit %d, stderr %q\n%s", code, stderr, stdout)
	}
}

// failingServer answers keep-alive requests until it has answered limit of
// them. Then, killed, it closes its listener and resets every connection,
// as a server killed mid-run; or else it resets every connection, as it
// reads a request on it, answering none.
func failingServer(t *testing.T, limit int64, killed bool) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		conns    []net.Conn
		answered atomic.Int64
		wg       sync.WaitGroup
	)
	kill := func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		}
		mu.Unlock()
	}
	resp := "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					if line != "\r\n" {
						continue
					}
					if answered.Add(1) > limit {
						if killed {
							kill()
						}
						c.(*net.TCPConn).SetLinger(0)
						return
					}
					if _, err := c.Write([]byte(resp)); err != nil {
						return
					}
				}
			})
		}
	})
	t.Cleanup(func() { kill(); wg.Wait() })
	return "http://" + ln.Addr().String() + "/"
}

// A run with failed requests or non-2xx responses prints its report and
// exits 1, saying why in one line; a clean run exits 0.
func TestExitStatus(t *testing.T) {
	url := failingServer(t, 200, true)
	code, stdout, stderr := runChild(t, "-q", "-r", "-k", "-n", "1000", "-c", "4", url)
	if code != 1 {
		t.Errorf("server killed mid-run: exit %d, want 1; stderr %q", code, stderr)
	}
	m := regexp.MustCompile(`Complete requests: +(\d+)\nFailed requests: +(\d+)\n`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no report:\n%s", stdout)
	}
	complete, _ := strconv.Atoi(m[1])
	failed, _ := strconv.Atoi(m[2])
	// The kill resets every connection at once: an answer another
	// connection had just been sent may be discarded with it, one each at
	// most, and is then a failed request.
	if complete < 197 || complete > 200 || complete+failed != 1000 {
		t.Errorf("complete %d, failed %d; want 197 to 200, and 1000 in all", complete, failed)
	}
	if want := "loadgen: " + m[2] + " failed requests (connect "; !strings.HasPrefix(stderr, want) || !strings.HasSuffix(stderr, " and 0 non-2xx responses of 1000\n") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr %q, want one line %q...", stderr, want)
	}

	// A server that resets requests: with -r, each is a failed request;
	// without, the run stops at the first, as ab does.
	url = failingServer(t, 200, false)
	code, stdout, stderr = runChild(t, "-q", "-r", "-k", "-n", "1000", "-c", "4", url)
	if code != 1 || !strings.Contains(stdout, "Complete requests:      200\nFailed requests:        800\n   (Connect: 0, Receive: 800,") {
		t.Errorf("resets, -r: exit %d, stderr %q\n%s", code, stderr, stdout)
	}
	url = failingServer(t, 200, false)
	code, stdout, stderr = runChild(t, "-q", "-k", "-n", "1000", "-c", "4", url)
	if code != 1 || !strings.HasPrefix(stderr, "loadgen: stopped at a socket error (-r goes on): ") || !strings.Contains(stderr, "connection reset by peer") {
		t.Errorf("resets: exit %d, stderr %q", code, stderr)
	}
	// Stopped at the first reset, the run may not have read the answers
	// the other three connections had in flight: one each at most.
	m = regexp.MustCompile(`Complete requests: +(\d+)\nFailed requests: +(\d+)\n`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("resets: no report:\n%s", stdout)
	}
	complete, _ = strconv.Atoi(m[1])
	failed, _ = strconv.Atoi(m[2])
	if complete < 197 || complete > 200 || failed < 1 || complete+failed >= 1000 {
		t.Errorf("resets: the run did not stop at the first failure (complete %d, failed %d; want 197 to 200, and a few):\n%s", complete, failed, stdout)
	}

	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	code, stdout, stderr = runChild(t, "-q", "-n", "10", notFound.URL)
	if code != 1 || !strings.Contains(stdout, "Non-2xx responses:      10\n") || stderr != "loadgen: 0 failed requests (connect 0, receive 0, length 0, exceptions 0, timeout 0) and 10 non-2xx responses of 10\n" {
		t.Errorf("404s: exit %d, stderr %q\n%s", code, stderr, stdout)
	}

	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
	defer ok.Close()
	if code, _, stderr := runChild(t, "-q", "-n", "10", ok.URL); code != 0 || stderr != "" {
		t.Errorf("clean run: exit %d, stderr %q", code, stderr)
	}
}

// -units ms prints ab's units: [ms], whole milliseconds in the tables and
// ab's percentiles only.
func TestUnitsMS(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
	defer srv.Close()
	code, stdout, stderr := runChild(t, "-q", "-k", "-n", "100", "-repeat", "2", "-units", "ms", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		" [ms] (mean)\n", " [ms] (mean, across all concurrent requests)\n", "\nConnection Times (ms)\n",
		"              min  mean[+/-sd] median   max\n", "\nPercentage of the requests served within a certain time (ms)\n",
		"\n  99%  ", "\n 100%  ", " (longest request)\n", "     p50 ms     p99 ms",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "µs") || strings.Contains(stdout, "99.9%") {
		t.Errorf("ms report with µs or a percentile ab lacks:\n%s", stdout)
	}
	if !regexp.MustCompile(`\nTotal:      +\d+ +\d+ +\d+\.\d +\d+ +\d+\n`).MatchString(stdout) {
		t.Errorf("Total row not in ab's form:\n%s", stdout)
	}
}

// -o FILE.gz writes the log gzip-compressed, the log itself once
// decompressed, and loadgen merge reads it as it is.
func TestGzipLog(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
	defer srv.Close()
	log := filepath.Join(t.TempDir(), "run.hlog.gz")
	code, _, stderr := runChild(t, "-q", "-k", "-c", "2", "-n", "100", "-o", log, srv.URL+"/x")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s is not gzip: %v", log, err)
	}
	text, err := io.ReadAll(zr)
	if err != nil || !bytes.HasPrefix(text, []byte("#[Logged with loadgen]\n")) {
		t.Fatalf("%s decompressed: %v, %.40q", log, err, text)
	}
	code, stdout, stderr := runChild(t, "merge", log)
	if code != 0 || !strings.Contains(stdout, "Complete requests:      100\n") {
		t.Errorf("merge: exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
}

// With -rate the report, the JSON and the log carry loadgen's own send
// lateness and the client-limited verdict; loadgen merge reads them back.
func TestRateLateness(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
	defer srv.Close()
	log := filepath.Join(t.TempDir(), "run.hlog")
	code, stdout, stderr := runChild(t, "-q", "-k", "-c", "2", "-n", "200", "-rate", "2000", "-o", log, srv.URL+"/x")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lateness := regexp.MustCompile(`\nSend lateness \(µs\): p50 [\d.]+, p99 [\d.]+, p99\.9 [\d.]+, max [\d.]+\nClient-limited:         (no|yes) \(lateness p99\.9 [\d.]+ [≤>] [\d.]+ µs, `)
	if !lateness.MatchString(stdout) {
		t.Errorf("report lacks the send lateness:\n%s", stdout)
	}
	code, stdout, stderr = runChild(t, "merge", log)
	if code != 0 || !lateness.MatchString(stdout) {
		t.Errorf("merge: exit %d, stderr %q, report lacks the send lateness:\n%s", code, stderr, stdout)
	}

	code, stdout, stderr = runChild(t, "-q", "-k", "-c", "2", "-n", "200", "-rate", "2000", "-json", srv.URL+"/x")
	var j struct {
		SendLateness  *struct{ P99_9, Max float64 } `json:"send_lateness_us"`
		ClientLimited *bool                         `json:"client_limited"`
		ClientBound   float64                       `json:"client_bound_us"`
	}
	if err := json.Unmarshal([]byte(stdout), &j); code != 0 || err != nil {
		t.Fatalf("exit %d, %v, stderr %q: %q", code, err, stderr, stdout)
	}
	if j.SendLateness == nil || j.SendLateness.Max <= 0 || j.ClientLimited == nil || j.ClientBound < 50 {
		t.Errorf("JSON lacks the send lateness: %s", stdout)
	}
	code, stdout, _ = runChild(t, "-q", "-k", "-c", "2", "-n", "200", srv.URL+"/x")
	if code != 0 || strings.Contains(stdout, "Send lateness") || strings.Contains(stdout, "Client-limited") {
		t.Errorf("a closed loop reports send lateness:\n%s", stdout)
	}
}

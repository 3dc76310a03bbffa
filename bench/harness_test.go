package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hellobench/internal/deps"
	"hellobench/internal/proc"
	"hellobench/internal/testnet"
	"hellobench/page"
)

// fakeRoot returns a Config whose bin/<name> is the shell script body, for
// servers and clients that misbehave on purpose.
func fakeRoot(t *testing.T, name, body string) Config {
	t.Helper()
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "bin"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "bin", name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return Config{Root: root, StartTimeout: time.Second}
}

// skipMissing skips a test whose server or tool is not installed, but
// fails it under HELLOBENCH_REQUIRE_TOOLS=1, as CI runs, where all must run.
func skipMissing(t *testing.T, err error) {
	t.Helper()
	if os.Getenv("HELLOBENCH_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%v, but HELLOBENCH_REQUIRE_TOOLS=1", err)
	}
	t.Skip(err)
}

// realConfig returns the configuration of the real tree, unpinned so that
// tests do not compete for one core.
func realConfig(t *testing.T) Config {
	t.Helper()
	c, err := DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	c.ServerCPUs, c.ClientCPUs = "", ""
	return c
}

// assertGone reads the PIDs a fake script wrote, and checks they are gone.
func assertGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the fake never ran: %v", err)
	}
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		if proc.Alive(pid) {
			t.Errorf("process %d left behind", pid)
		}
	}
}

func TestServerExitsAtOnce(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	// The server leaves a child behind as it dies: Start must end it too.
	c := fakeRoot(t, "nethttp", `sleep 300 & echo $$ $! > `+pids+`
echo "nethttp: listen tcp: lookup nowhere: no such host" >&2
exit 3
`)
	s, err := c.Start("nethttp", "")
	if err == nil {
		s.Stop()
		t.Fatal("Start succeeded with a server that exits at once")
	}
	for _, want := range []string{"nethttp exited before listening", "exit status 3", "no such host"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	assertGone(t, pids)
}

func TestServerNeverListens(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	c := fakeRoot(t, "gin", `echo $$ > `+pids+`
echo "gin: thinking" >&2
exec sleep 300
`)
	c.StartTimeout = 300 * time.Millisecond
	_, err := c.Start("gin", "")
	if err == nil {
		t.Fatal("Start succeeded with a server that never listens")
	}
	for _, want := range []string{"gin not listening on 127.0.0.1:", "after 300ms", "gin: thinking"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	assertGone(t, pids)
}

func TestPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	pids := filepath.Join(t.TempDir(), "pids")
	// Were it started, this server would look healthy: the occupied port
	// accepts connections.
	c := fakeRoot(t, "fasthttp", "echo $$ > "+pids+"\nexec sleep 300\n")
	_, err = c.Start("fasthttp", ln.Addr().String())
	if err == nil {
		t.Fatal("Start succeeded on a port in use")
	}
	want := "fasthttp: port " + ln.Addr().String() + " already in use"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
	if _, err := os.Stat(pids); err == nil {
		assertGone(t, pids)
		t.Error("the server was started although its port was in use")
	}
}

func TestUnknownServer(t *testing.T) {
	_, err := realConfig(t).Start("apache", "")
	if err == nil || !strings.Contains(err.Error(), `unknown target "apache"`) {
		t.Fatalf("got %v, want an unknown-server error", err)
	}
}

// startFloor starts the real floor responder and registers its stop, which
// must leave nothing behind.
func startFloor(t *testing.T) *Server {
	t.Helper()
	s, err := realConfig(t).Start("floor", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pid := s.PID()
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
		if proc.Alive(pid) || len(proc.Group(pid)) > 0 {
			t.Errorf("floor (%d) left behind", pid)
		}
	})
	return s
}

func TestLoadgenFails(t *testing.T) {
	s := startFloor(t)
	pids := filepath.Join(t.TempDir(), "pids")
	c := fakeRoot(t, "loadgen", "sleep 300 & echo $! > "+pids+"\necho 'loadgen: dial tcp: connection refused' >&2\nexit 2\n")
	_, err := Measure(s, Loadgen{Bin: filepath.Join(c.Root, "bin", "loadgen"), CPUs: ""}, Load{URL: s.URL(), Mode: KeepAlive, Connections: 2, Requests: 10})
	if err == nil {
		t.Fatal("Measure succeeded with a failing loadgen")
	}
	for _, want := range []string{"loadgen against " + s.URL(), "exited with status 2", "connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	assertGone(t, pids)
}

func TestLoadgenReportsFailures(t *testing.T) {
	s := startFloor(t)
	c := fakeRoot(t, "loadgen", `echo '{"complete":100,"failed":3,"failures":{"connect":0,"receive":3,"length":0,"exceptions":0,"timeout":0},"non_2xx":5,"duration_s":0.1,"requests_per_sec":1000,"latency_us":{"p50":10,"p99":20}}'`)
	_, err := Measure(s, Loadgen{Bin: filepath.Join(c.Root, "bin", "loadgen"), CPUs: ""}, Load{URL: s.URL(), Mode: KeepAlive, Connections: 2, Requests: 100})
	if err == nil {
		t.Fatal("a run with failed and non-2xx requests was taken as a result")
	}
	if want := "3 failed requests (connect 0, receive 3, length 0, exceptions 0, timeout 0) and 5 non-2xx responses of 100"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
}

func TestLoadgenUnreachable(t *testing.T) {
	c := realConfig(t)
	bin, err := c.Binary("loadgen")
	if errors.Is(err, ErrMissing) {
		skipMissing(t, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	addr := testnet.Refusing(t)
	_, err = Loadgen{Bin: bin, CPUs: ""}.Run(Load{URL: "http://" + addr + "/hello/world", Mode: KeepAlive, Connections: 1, Requests: 5})
	if err == nil {
		t.Fatal("loadgen against a closed port succeeded")
	}
	if !strings.Contains(err.Error(), "loadgen against http://"+addr) {
		t.Errorf("error %q does not name the URL", err)
	}
}

// TestPages checks that every reference server the bench starts answers
// the page byte for byte with a 200, and stops without leftovers.
func TestPages(t *testing.T) {
	c := realConfig(t)
	for _, name := range []string{"floor", "nginx", "lighttpd-static", "fcgi"} {
		t.Run(name, func(t *testing.T) {
			s, err := c.Start(name, "")
			if errors.Is(err, ErrMissing) {
				skipMissing(t, err)
			}
			if err != nil {
				t.Fatal(err)
			}
			pid := s.PID()
			for range 2 {
				resp, err := http.Get(s.URL())
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || !bytes.Equal(body, page.HTML) {
					t.Errorf("%d, %d bytes; want 200 and the %d-byte page", resp.StatusCode, len(body), page.Size)
				}
				if ct := resp.Header.Get("Content-Type"); ct != page.ContentType {
					t.Errorf("Content-Type %q", ct)
				}
			}
			if err := s.Stop(); err != nil {
				t.Fatal(err)
			}
			if left := proc.Group(pid); len(left) > 0 {
				t.Errorf("%s left processes behind: %+v", name, left)
			}
		})
	}
}

// TestMeasureWrk runs the whole measurement against the floor with wrk.
func TestMeasureWrk(t *testing.T) {
	if _, err := exec.LookPath("wrk"); err != nil {
		skipMissing(t, fmt.Errorf("%s: %v", deps.NotInstalled("wrk"), err))
	}
	s := startFloor(t)
	for _, mode := range []Mode{KeepAlive, Pipeline, Close} {
		r, err := Measure(s, Wrk{CPUs: ""}, Load{URL: s.URL(), Mode: mode, Connections: 4, Duration: 300 * time.Millisecond})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if r.Requests < 100 || r.ReqPerSec <= 0 || r.P50 <= 0 || r.PeakRSS <= 0 || r.Wall < 300*time.Millisecond || r.ClientCPU <= 0 {
			t.Errorf("%s: implausible result %+v", mode, r)
		}
	}
}

func TestParseWrk(t *testing.T) {
	out := `Running 5s test @ http://127.0.0.1:8080/hello/world
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   812.19us  160.21us   4.05ms   90.12%
    Req/Sec    61.94k     2.01k   65.29k    72.00%
  Latency Distribution
     50%  790.00us
     75%  840.00us
     90%    0.91ms
     99%    1.41ms
  308166 requests in 5.00s, 115.12MB read
Requests/sec:  61615.80
Transfer/sec:     23.02MB
`
	s, err := parseWrk([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 308166 || s.ReqPerSec != 61615.80 || s.P50 != 790*time.Microsecond || s.P99 != 1410*time.Microsecond || s.Elapsed != 5*time.Second {
		t.Errorf("parsed %+v", s)
	}
	bad := strings.Replace(out, "Requests/sec", "  Socket errors: connect 0, read 2, write 0, timeout 1\nRequests/sec", 1)
	if _, err := parseWrk([]byte(bad)); err == nil || !strings.Contains(err.Error(), "3 socket errors") {
		t.Errorf("socket errors: got %v", err)
	}
}

// TestMultiCoreForms starts the references in their N-core form: nginx with
// a master and two workers, lighttpd with two workers, each serving the
// page, and each process counted.
func TestMultiCoreForms(t *testing.T) {
	c := realConfig(t)
	c.Procs = 2
	for name, want := range map[string]int{"nginx": 3, "lighttpd-static": 3} {
		t.Run(name, func(t *testing.T) {
			s, err := c.Start(name, "")
			if errors.Is(err, ErrMissing) {
				skipMissing(t, err)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := s.Stop(); err != nil {
					t.Error(err)
				}
			}()
			resp, err := http.Get(s.URL())
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("status %d", resp.StatusCode)
			}
			var n int
			for deadline := time.Now().Add(3 * time.Second); n < want && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				n = len(proc.Group(s.PID()))
			}
			if n != want {
				t.Errorf("%d processes in the group, want %d", n, want)
			}
		})
	}
}

// TestSaturateNever runs the saturation rule against a server that cannot
// be saturated: Saturate doubles the connections twice (50, 100, 200) and
// reports the run as no ceiling.
func TestSaturateNever(t *testing.T) {
	lg, err := realConfig(t).Binary("loadgen")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	c := fakeRoot(t, "nethttp", "")
	if err := os.WriteFile(filepath.Join(c.Root, "bin", "nethttp"), self, 0o755); err != nil {
		t.Fatal(err)
	}
	c.StartTimeout = 10 * time.Second
	t.Setenv("HELLOBENCH_SLOW_SERVER", "1")
	s, err := c.Start("nethttp", "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	r, err := Saturate(s, Loadgen{Bin: lg}, Load{URL: s.URL(), Mode: KeepAlive, Connections: 50, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Saturated || r.Connections != 200 || r.Busy() >= SaturatedCeiling || r.Requests == 0 {
		t.Errorf("Saturate on a 1000 req/s server: saturated %v at %d connections, %.1f %% busy, %d requests; want unsaturated at 200",
			r.Saturated, r.Connections, r.Busy(), r.Requests)
	}
}

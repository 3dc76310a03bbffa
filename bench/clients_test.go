package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hellobench/internal/testnet"
	"hellobench/page"
)

func TestParseH2load(t *testing.T) {
	s, err := parseH2load([]byte(h2loadOK))
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 20975 || s.ReqPerSec != 69916.67 || s.Elapsed != 301620*time.Microsecond {
		t.Errorf("parsed %+v", s)
	}
	for _, c := range []struct{ name, out, want string }{
		{"404", h2load404, "6977 failed, 0 errored, 0 timed out and 6977 non-2xx (0 3xx, 6977 4xx, 0 5xx) of 6977 requests"},
		{"refused", h2loadRefused, "h2load: no complete request"},
		{"garbage", "h2load: unknown option -- x", "unreadable h2load output"},
	} {
		if _, err := parseH2load([]byte(c.out)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

func TestParseBombardier(t *testing.T) {
	s, err := parseBombardier([]byte(bombardierOK))
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 137 || s.ReqPerSec != 137/1.1913042329999999 || s.Elapsed != 1191304232*time.Nanosecond ||
		s.P50 != 1238*time.Microsecond || s.P99 != 1079933*time.Microsecond {
		t.Errorf("parsed %+v", s)
	}
	for _, c := range []struct{ name, out, want string }{
		{"404", bombardier404, "11381 non-2xx responses (0 1xx, 0 3xx, 11381 4xx, 0 5xx) and 0 failed requests [] besides 0 2xx"},
		{"drop", bombardierDrop, "0 non-2xx responses (0 1xx, 0 3xx, 0 4xx, 0 5xx) and 3 failed requests [3× the server closed connection before returning the first response byte."},
		{"refused", bombardierRefused, "9408 failed requests [9408× dial tcp 127.0.0.1:1: connect: connection refused] besides 0 2xx"},
		{"garbage", "Invalid test duration(must be >= 1s)\n", "unreadable bombardier output"},
		{"no result", `{"spec":{}}`, "unreadable bombardier output"},
	} {
		if _, err := parseBombardier([]byte(c.out)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

func TestParseHey(t *testing.T) {
	s, err := parseHey([]byte(heyOK))
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 6237 || s.ReqPerSec != 20557.8066 || s.Elapsed != 303400*time.Microsecond ||
		s.P50 != 200*time.Microsecond || s.P99 != 500*time.Microsecond {
		t.Errorf("parsed %+v", s)
	}
	for _, c := range []struct{ name, out, want string }{
		{"404", hey404, "hey: 916 non-2xx responses and 0 failed requests [] besides 0 2xx"},
		{"drop", heyDrop, `0 non-2xx responses and 93 failed requests [93× Get "http://127.0.0.1:18090/drop": EOF] besides 1070 2xx`},
		{"refused", heyRefused, "3816 failed requests [3816× Get \"http://127.0.0.1:1/\": dial tcp 127.0.0.1:1: connect: connection refused] besides 0 2xx"},
		{"garbage", "flag provided but not defined: -x\n", "unreadable hey output"},
	} {
		if _, err := parseHey([]byte(c.out)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// A counter is a net/http server that answers the page (404 at /missing)
// and counts the connections it accepted and the requests each carried.
type counter struct {
	*httptest.Server
	conns, requests, most atomic.Int64
}

type connKey struct{}

func startCounter(t *testing.T) *counter {
	c := new(counter)
	c.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.requests.Add(1)
		n := r.Context().Value(connKey{}).(*atomic.Int64).Add(1)
		for m := c.most.Load(); n > m && !c.most.CompareAndSwap(m, n); m = c.most.Load() {
		}
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", page.ContentType)
		w.Write(page.HTML)
	}))
	c.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		c.conns.Add(1)
		return context.WithValue(ctx, connKey{}, new(atomic.Int64))
	}
	c.Start()
	t.Cleanup(c.Close)
	return c
}

// TestClientsForReal runs each client in each mode it has against a server
// that counts connections: keep-alive and pipelining reuse them, close
// opens one per request. Against a 404 and against a closed port each
// client must fail. The runs go side by side: each lasts its duration
// however little CPU it gets.
func TestClientsForReal(t *testing.T) {
	type job struct {
		client Client
		mode   Mode
		srv    *counter
		url    string
		what   string // ok, 404 or closed-port
		stats  Stats
		err    error
	}
	var jobs []*job
	var wg sync.WaitGroup
	for _, name := range []string{"wrk", "h2load", "bombardier", "hey"} {
		c, why, err := clientFor(realConfig(t), name)
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			t.Run(name, func(t *testing.T) { skipMissing(t, errors.New(why)) })
			continue
		}
		closed := testnet.Refusing(t) // held, so refusing, until the test ends
		for _, m := range []Mode{KeepAlive, Pipeline, Close} {
			srv := startCounter(t)
			jobs = append(jobs, &job{client: c, mode: m, srv: srv, url: srv.URL + "/hello/world", what: "ok"})
			if m == KeepAlive {
				missing := startCounter(t)
				jobs = append(jobs, &job{client: c, mode: m, srv: missing, url: missing.URL + "/missing", what: "404"},
					&job{client: c, mode: m, url: "http://" + closed + "/", what: "closed-port"})
			}
		}
	}
	for _, j := range jobs {
		if lc, ok := j.client.(limited); ok && lc.Unsupported(j.mode) != "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// wrk and bombardier run whole seconds.
			d := 500 * time.Millisecond
			if name := j.client.Name(); name == "wrk" || name == "bombardier" {
				d = time.Second
			}
			j.stats, j.err = j.client.Run(Load{URL: j.url, Mode: j.mode, Connections: 4, Duration: d})
		}()
	}
	wg.Wait()

	for _, j := range jobs {
		t.Run(j.client.Name()+"/"+string(j.mode)+"/"+j.what, func(t *testing.T) {
			if lc, ok := j.client.(limited); ok && lc.Unsupported(j.mode) != "" {
				if _, err := j.client.Run(Load{URL: j.url, Mode: j.mode, Connections: 1, Duration: time.Second}); err == nil || !strings.Contains(err.Error(), "cannot run "+string(j.mode)) {
					t.Errorf("Run in a mode it lacks: got %v", err)
				}
				t.Skipf("%s cannot run %s: %s", j.client.Name(), j.mode, lc.Unsupported(j.mode))
			}
			switch j.what {
			case "closed-port":
				if j.err == nil {
					t.Fatal("against a closed port: no error")
				}
				return
			case "404":
				if j.err == nil || !strings.Contains(j.err.Error(), "non-2xx") {
					t.Fatalf("against a 404: got %v, want a non-2xx error", j.err)
				}
				return
			}
			s := j.stats
			if j.err != nil {
				t.Fatal(j.err)
			}
			conns, reqs, most := j.srv.conns.Load(), j.srv.requests.Load(), j.srv.most.Load()
			t.Logf("%d requests counted, %.0f/s; the server saw %d connections and %d requests, at most %d on one", s.Requests, s.ReqPerSec, conns, reqs, most)
			if s.Requests <= 0 || s.ReqPerSec <= 0 || s.Elapsed <= 0 || s.ClientCPU <= 0 {
				t.Errorf("implausible %+v", s)
			}
			if s.Requests > reqs {
				t.Errorf("%d requests counted, but the server answered %d", s.Requests, reqs)
			}
			if j.mode == Close {
				if most != 1 || conns < s.Requests {
					t.Errorf("close: %d connections for %d requests, at most %d on one; want one per request", conns, s.Requests, most)
				}
			} else if most < 2 || conns > 2*4 {
				t.Errorf("%s: %d connections of 4 clients for %d requests, at most %d on one; want them reused", j.mode, conns, s.Requests, most)
			}
		})
	}
}

func TestH2loadVersion(t *testing.T) {
	dir := t.TempDir()
	for v, closes := range map[string]bool{"1.52.0": false, "1.63.9": false, "1.64.0": true, "1.70.1": true} {
		bin := filepath.Join(dir, "h2load-"+v)
		if err := os.WriteFile(bin, []byte("#!/bin/sh\necho h2load nghttp2/"+v+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		h := H2load{Bin: bin}
		if why := h.Unsupported(Close); (why == "") != closes {
			t.Errorf("%s: Unsupported(close) = %q", v, why)
		}
		if why := h.Unsupported(Pipeline); why != "" {
			t.Errorf("%s: Unsupported(pipeline) = %q", v, why)
		}
	}
	if why := (H2load{Bin: filepath.Join(dir, "none")}).Unsupported(Close); !strings.Contains(why, "h2load --version") {
		t.Errorf("a missing h2load: %q", why)
	}
}

func TestClientsConfigCheck(t *testing.T) {
	good := ClientsConfig{Server: "nginx", Connections: 50, Duration: 3 * time.Second, Rounds: 5, Modes: []Mode{KeepAlive, Pipeline, Close}, Clients: ClientNames}
	if err := good.Check(); err != nil {
		t.Fatalf("the default: %v", err)
	}
	for _, c := range []struct {
		change func(*ClientsConfig)
		want   string
	}{
		{func(c *ClientsConfig) { c.Server = "apache" }, `-server: unknown target "apache"`},
		{func(c *ClientsConfig) { c.Connections = 0 }, "-c 0: want at least one connection"},
		{func(c *ClientsConfig) { c.Duration = 0 }, "-d 0s: want a positive duration"},
		{func(c *ClientsConfig) { c.Duration = 1500 * time.Millisecond }, "-d 1.5s: wrk runs whole seconds"},
		{func(c *ClientsConfig) { c.Duration, c.Clients = 500*time.Millisecond, []string{"bombardier"} }, "-d 500ms: bombardier runs at least 1s"},
		{func(c *ClientsConfig) { c.Rounds = 0 }, "-rounds 0: want at least one round"},
		{func(c *ClientsConfig) { c.Modes = nil }, "-modes: empty"},
		{func(c *ClientsConfig) { c.Modes = []Mode{"keep-alive"} }, `-modes: unknown "keep-alive"; want some of keepalive,close,pipeline`},
		{func(c *ClientsConfig) { c.Modes = []Mode{Close, Close} }, `-modes: "close" twice`},
		{func(c *ClientsConfig) { c.Clients = []string{"ab"} }, `-clients: unknown "ab"; want some of loadgen,wrk,h2load,bombardier,hey`},
		{func(c *ClientsConfig) { c.Clients = []string{""} }, `-clients: unknown ""`},
	} {
		cc := good
		c.change(&cc)
		if err := cc.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error with %q", err, c.want)
		}
	}
	// Without wrk and bombardier, any duration will do.
	sub := good
	sub.Duration, sub.Clients = 300*time.Millisecond, []string{"h2load", "hey", "loadgen"}
	if err := sub.Check(); err != nil {
		t.Error(err)
	}
}

// result makes a run of n requests whose client used cpu µs per request
// and whose server was busy for busy of wall.
func result(n int64, cpu, rate float64, busy float64) Result {
	wall := time.Second
	return Result{
		Stats:     Stats{Requests: n, ReqPerSec: rate, ClientCPU: time.Duration(cpu * float64(n) * float64(time.Microsecond))},
		Wall:      wall,
		ServerCPU: time.Duration(busy * float64(wall)),
	}
}

// TestClientsRatioByRound builds the rows of a hand-made run and checks
// that the ratios to wrk in the JSON are round-by-round quotients, not a
// quotient of medians.
func TestClientsRatioByRound(t *testing.T) {
	const n = 100000
	wrkCPU, heyCPU := []float64{2, 4, 3}, []float64{3, 5, 9}
	wrkRate, heyRate := []float64{1000, 2000, 1500}, []float64{900, 1000, 3000}
	results := make(map[cell][]Result)
	for i := range 3 {
		results[cell{KeepAlive, "wrk"}] = append(results[cell{KeepAlive, "wrk"}], result(n, wrkCPU[i], wrkRate[i], 0.95))
		results[cell{KeepAlive, "hey"}] = append(results[cell{KeepAlive, "hey"}], result(n, heyCPU[i], heyRate[i], 0.5))
		results[cell{Close, "hey"}] = append(results[cell{Close, "hey"}], result(n, heyCPU[i], heyRate[i], 0.5))
	}
	skipped := map[cell]string{
		{KeepAlive, "bombardier"}: "bombardier not installed",
		{Close, "wrk"}:            "failed in round 1: no",
		{Close, "bombardier"}:     "bombardier not installed",
	}
	run := ClientsRun{Server: "nginx", Connections: 50, Duration: 3, Rounds: 3,
		Rows: clientRows([]Mode{KeepAlive, Close}, []string{"wrk", "bombardier", "hey"}, results, skipped)}
	path := filepath.Join(t.TempDir(), "clients.json")
	if err := run.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back ClientsRun
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, run) {
		t.Errorf("the JSON does not read back as written:\n%s", b)
	}
	var order []string
	for _, r := range back.Rows {
		order = append(order, fmt.Sprintf("%s/%s", r.Mode, r.Client))
	}
	if want := "keepalive/wrk keepalive/bombardier keepalive/hey close/wrk close/bombardier close/hey"; strings.Join(order, " ") != want {
		t.Fatalf("rows %v, want %s", order, want)
	}
	wrk, bomb, hey, closeHey := back.Rows[0], back.Rows[1], back.Rows[2], back.Rows[5]
	if hey.CPUVsWrk == nil || hey.RateVsWrk == nil {
		t.Fatal("no ratio to wrk for hey")
	}
	for i := range 3 {
		if got, want := hey.CPUVsWrk.Rounds[i], heyCPU[i]/wrkCPU[i]; got != want {
			t.Errorf("round %d: CPU vs wrk %v, want %v", i+1, got, want)
		}
		if got, want := hey.RateVsWrk.Rounds[i], heyRate[i]/wrkRate[i]; got != want {
			t.Errorf("round %d: req/s vs wrk %v, want %v", i+1, got, want)
		}
	}
	// 3/2, 5/4, 9/3: median 1.5, while the medians' quotient is 5/3.
	if f := *hey.CPUVsWrk; f.Median != 1.5 || f.Min != 1.25 || f.Max != 3 || f.N != 3 {
		t.Errorf("CPU vs wrk %+v, want median 1.5 of 1.25–3", f)
	}
	// 0.9, 0.5, 2: a tie.
	if f := *hey.RateVsWrk; f.Median != 0.9 || !f.Straddles(1) {
		t.Errorf("req/s vs wrk %+v, want median 0.9 straddling 1", f)
	}
	if hey.ClientCPU.Median != 5 || hey.Busy.Median != 50 || hey.ReqPerSec.Rounds[2] != 3000 {
		t.Errorf("hey's own figures: %+v", hey)
	}
	if wrk.CPUVsWrk != nil || bomb.CPUVsWrk != nil || bomb.Skipped == "" || bomb.ClientCPU.N != 0 {
		t.Errorf("wrk %+v, bombardier %+v: want neither compared", wrk, bomb)
	}
	if closeHey.Skipped != "" || closeHey.CPUVsWrk != nil || closeHey.ClientCPU.N != 3 {
		t.Errorf("hey in close, with no wrk to compare: %+v", closeHey)
	}

	var table strings.Builder
	if err := back.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"nginx, 50 connections, 3s per run, 3 rounds",
		"bombardier skipped: bombardier not installed",
		"wrk skipped: failed in round 1: no",
		"1.50 (1.25–3.00)",
		"0.90 (0.50–2.00) [range of 3], tie",
		"client-bound in 1/3 rounds, unsaturated in 2/3 rounds",
	} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, table.String())
		}
	}
}

// TestCompareClients runs the whole comparison, briefly, against the
// floor: a client not installed gets rows that say so, one that lacks a
// mode gets rows that say why, and the others are measured, their ratios
// to wrk taken round by round.
func TestCompareClients(t *testing.T) {
	cfg := realConfig(t)
	// Built now, while go is on the PATH.
	for _, name := range []string{"loadgen", "floor"} {
		if _, err := cfg.Binary(name); err != nil {
			t.Fatal(err)
		}
	}
	// Only wrk and h2load on the PATH: hey is not installed.
	path := t.TempDir()
	for _, name := range []string{"wrk", "h2load"} {
		bin, err := exec.LookPath(name)
		if err != nil {
			skipMissing(t, fmt.Errorf("%s not installed: %v", name, err))
		}
		if err := os.Symlink(bin, filepath.Join(path, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", path)
	cc := ClientsConfig{Server: "floor", Connections: 4, Duration: time.Second, Rounds: 1, Modes: []Mode{Pipeline}, Clients: []string{"wrk", "loadgen", "hey", "h2load", "bombardier"}}
	var progress strings.Builder
	run, err := CompareClients(cfg, cc, &progress)
	t.Logf("progress:\n%s", progress.String())
	if err != nil {
		t.Fatal(err)
	}
	if run.Server != "floor" || run.Connections != 4 || run.Duration != 1 || run.Rounds != 1 || len(run.Rows) != 5 {
		t.Fatalf("run %+v", run)
	}
	if _, err := time.Parse("2006-01-02 15:04 MST", run.Date); err != nil {
		t.Errorf("date %q: %v", run.Date, err)
	}
	wrk, lg, hey, h2, bomb := run.Rows[0], run.Rows[1], run.Rows[2], run.Rows[3], run.Rows[4]
	if hey.Client != "hey" || hey.Skipped != "hey is not installed: apt-get install hey" {
		t.Errorf("hey: %+v", hey)
	}
	if bomb.Client != "bombardier" || bomb.Skipped == "" {
		t.Errorf("bombardier in pipeline: %+v", bomb)
	}
	for _, r := range []ClientsRow{wrk, lg, h2} {
		if r.Skipped != "" || r.Mode != Pipeline || r.ClientCPU.N != 1 || r.ClientCPU.Median <= 0 || r.ReqPerSec.Median <= 0 || r.Busy.N != 1 || r.ClientBusy.Median <= 0 {
			t.Errorf("%s: %+v", r.Client, r)
		}
	}
	for _, r := range []ClientsRow{lg, h2} {
		if r.CPUVsWrk == nil || r.CPUVsWrk.Rounds[0] != r.ClientCPU.Rounds[0]/wrk.ClientCPU.Rounds[0] ||
			r.RateVsWrk == nil || r.RateVsWrk.Rounds[0] != r.ReqPerSec.Rounds[0]/wrk.ReqPerSec.Rounds[0] {
			t.Errorf("%s: ratios to wrk %+v, %+v", r.Client, r.CPUVsWrk, r.RateVsWrk)
		}
	}
	if n := strings.Count(progress.String(), "pipeline  round 1/1"); n != 3 {
		t.Errorf("%d progress lines, want 3", n)
	}
}

// Output captured from real runs of h2load (nghttp2 1.52.0), bombardier
// v1.2.6 and hey 0.1.4.
const (
	// h2load --h1 -t1 -c4 -D 300ms -m16, against nginx.
	h2loadOK = `starting benchmark...
spawning thread #0: 4 total client(s). Timing-based test with 0s of warm-up time and 0.3s of main duration for measurements.
Warm-up started for thread #0.
progress: 25% of clients started
progress: 50% of clients started
progress: 75% of clients started
progress: 100% of clients started
Warm-up phase is over for thread #0.
Main benchmark duration is started for thread #0.
Application protocol: http/1.1
Main benchmark duration is over for thread #0. Stopping all clients.
Stopped all clients for thread #0

finished in 301.62ms, 69916.67 req/s, 28.00MB/s
requests: 20975 total, 21039 started, 20975 done, 20975 succeeded, 0 failed, 0 errored, 0 timeout
status codes: 20975 2xx, 0 3xx, 0 4xx, 0 5xx
traffic: 8.40MB (8809500) total, 2.49MB (2608836) headers (space savings 0.00%), 5.16MB (5407023) data
                     min         max         mean         sd        +/- sd
time for request:       94us     19.00ms       912us       996us    99.36%
time for connect:        8us        55us        37us        20us    75.00%
time to 1st byte:      589us      2.34ms      1.83ms       831us    75.00%
req/s           :   17432.36    17527.73    17463.53       43.46    75.00%
`

	// h2load --h1 -t1 -c2 -D 300ms, against a net/http server answering 404.
	h2load404 = `starting benchmark...
spawning thread #0: 2 total client(s). Timing-based test with 0s of warm-up time and 0.3s of main duration for measurements.
Warm-up started for thread #0.
progress: 50% of clients started
progress: 100% of clients started
Warm-up phase is over for thread #0.
Main benchmark duration is started for thread #0.
Application protocol: http/1.1
Main benchmark duration is over for thread #0. Stopping all clients.
Stopped all clients for thread #0

finished in 337.32ms, 23256.67 req/s, 3.90MB/s
requests: 6977 total, 6979 started, 6977 done, 0 succeeded, 6977 failed, 0 errored, 0 timeout
status codes: 0 2xx, 0 3xx, 6977 4xx, 0 5xx
traffic: 1.17MB (1227952) total, 783.77KB (802585) headers (space savings 0.00%), 129.49KB (132601) data
                     min         max         mean         sd        +/- sd
time for request:       29us      9.21ms        85us       250us    99.08%
time for connect:        8us        29us        19us        14us   100.00%
time to 1st byte:     9.16ms      9.23ms      9.19ms        51us   100.00%
req/s           :   11560.55    11678.08    11619.31       83.11   100.00%
`

	// h2load --h1 -t1 -c2 -D 1, against a port nobody listens on.
	h2loadRefused = `starting benchmark...
spawning thread #0: 2 total client(s). Timing-based test with 0s of warm-up time and 1s of main duration for measurements.
Warm-up started for thread #0.
progress: 50% of clients started
progress: 100% of clients started
Warm-up phase is over for thread #0.
Main benchmark duration is started for thread #0.
Main benchmark duration is over for thread #0. Stopping all clients.
Stopped all clients for thread #0

finished in 1.25s, 0.00 req/s, 0B/s
requests: 0 total, 0 started, 0 done, 0 succeeded, 0 failed, 0 errored, 0 timeout
status codes: 0 2xx, 0 3xx, 0 4xx, 0 5xx
traffic: 0B (0) total, 0B (0) headers (space savings 0.00%), 0B (0) data
                     min         max         mean         sd        +/- sd
time for request:        0us         0us         0us         0us     0.00%
time for connect:        0us         0us         0us         0us     0.00%
time to 1st byte:        0us         0us         0us         0us     0.00%
req/s           :       0.00        0.00        0.00        0.00   100.00%
`

	// bombardier -c 4 -d 1s -l -p r -o json -H "Connection: close", against nginx.
	bombardierOK = `{"spec":{"numberOfConnections":4,"testType":"timed","testDurationSeconds":1,"method":"GET","url":"http://127.0.0.1:18080/hello/world","headers":[{"key":"Connection","value":"close"}],"body":"","stream":false,"timeoutSeconds":2,"client":"fasthttp"},"result":{"bytesRead":56855,"bytesWritten":12741,"timeTakenSeconds":1.1913042329999999,"req1xx":0,"req2xx":137,"req3xx":0,"req4xx":0,"req5xx":0,"others":0,"latency":{"mean":34749.788321167885,"stddev":181388.56382353886,"max":1.084023e+06,"percentiles":{"50":1238,"75":4209,"90":13076,"95":19610,"99":1079933}},"rps":{"mean":128.651315821718,"stddev":387.2290976055673,"max":1908.5694769515123,"percentiles":{"50":0.000000,"75":0.000000,"90":341.855448,"95":785.165669,"99":1498.739888}}}}`

	// bombardier -c 2 -d 1s -l -p r -o json, against a net/http server answering 404.
	bombardier404 = `{"spec":{"numberOfConnections":2,"testType":"timed","testDurationSeconds":1,"method":"GET","url":"http://127.0.0.1:18090/missing","body":"","stream":false,"timeoutSeconds":2,"client":"fasthttp"},"result":{"bytesRead":2003056,"bytesWritten":796670,"timeTakenSeconds":1.000334186,"req1xx":0,"req2xx":0,"req3xx":0,"req4xx":11381,"req5xx":0,"others":0,"latency":{"mean":172.46357965029435,"stddev":293.9221697235693,"max":13894,"percentiles":{"50":112,"75":172,"90":296,"95":459,"99":1344}},"rps":{"mean":11373.575767763297,"stddev":4223.415056240854,"max":18381.90794360591,"percentiles":{"50":11368.976149,"75":14391.969281,"90":16647.094631,"95":17866.492287,"99":18381.907944}}}}`

	// bombardier -c 2 -d 1s -l -p r -o json, against a net/http server that closes
	// the connection instead of answering every third request.
	bombardierDrop = `{"spec":{"numberOfConnections":2,"testType":"timed","testDurationSeconds":1,"method":"GET","url":"http://127.0.0.1:18090/drop","body":"","stream":false,"timeoutSeconds":2,"client":"fasthttp"},"result":{"bytesRead":670582,"bytesWritten":556904,"timeTakenSeconds":1.000528715,"req1xx":0,"req2xx":5542,"req3xx":0,"req4xx":0,"req5xx":0,"others":3,"errors":[{"description":"the server closed connection before returning the first response byte. Make sure the server returns 'Connection: close' response header before closing the connection","count":3}],"latency":{"mean":356.7419296663661,"stddev":403.4380068404593,"max":8941,"percentiles":{"50":217,"75":496,"90":807,"95":998,"99":1865}},"rps":{"mean":5551.073080475144,"stddev":1200.2987275770392,"max":7004.07742367219,"percentiles":{"50":5899.271899,"75":6488.383523,"90":6902.300537,"95":6950.727452,"99":7004.077424}}}}`

	// bombardier -c 2 -d 1s -l -p r -o json, against a port nobody listens on.
	bombardierRefused = `{"spec":{"numberOfConnections":2,"testType":"timed","testDurationSeconds":1,"method":"GET","url":"http://127.0.0.1:1/","body":"","stream":false,"timeoutSeconds":2,"client":"fasthttp"},"result":{"bytesRead":0,"bytesWritten":0,"timeTakenSeconds":1.019491639,"req1xx":0,"req2xx":0,"req3xx":0,"req4xx":0,"req5xx":0,"others":9408,"errors":[{"description":"dial tcp 127.0.0.1:1: connect: connection refused","count":9408}],"latency":{"mean":207.81196853741497,"stddev":2612.7451346812823,"max":168961,"percentiles":{"50":33,"75":88,"90":106,"95":139,"99":3695}},"rps":{"mean":12157.517095120746,"stddev":8827.27787249393,"max":39357.682619647356,"percentiles":{"50":11241.267818,"75":14551.003292,"90":21504.572947,"95":35855.292446,"99":39357.682620}}}}`

	// hey -z 300ms -c 4 -cpus 1, against nginx.
	heyOK = `
Summary:
  Total:	0.3034 secs
  Slowest:	0.0085 secs
  Fastest:	0.0000 secs
  Average:	0.0002 secs
  Requests/sec:	20557.8066
  
  Total data:	1602909 bytes
  Size/request:	257 bytes

Response time histogram:
  0.000 [1]	|
  0.001 [6214]	|■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■
  0.002 [6]	|
  0.003 [8]	|
  0.003 [4]	|
  0.004 [0]	|
  0.005 [0]	|
  0.006 [0]	|
  0.007 [0]	|
  0.008 [0]	|
  0.009 [4]	|


Latency distribution:
  10% in 0.0000 secs
  25% in 0.0001 secs
  50% in 0.0002 secs
  75% in 0.0003 secs
  90% in 0.0003 secs
  95% in 0.0003 secs
  99% in 0.0005 secs

Details (average, fastest, slowest):
  DNS+dialup:	0.0000 secs, 0.0000 secs, 0.0085 secs
  DNS-lookup:	0.0000 secs, 0.0000 secs, 0.0000 secs
  req write:	0.0000 secs, 0.0000 secs, 0.0002 secs
  resp wait:	0.0002 secs, 0.0000 secs, 0.0085 secs
  resp read:	0.0000 secs, 0.0000 secs, 0.0001 secs

Status code distribution:
  [200]	6237 responses



`

	// hey -z 300ms -c 2 -cpus 1, against a net/http server answering 404.
	hey404 = `
Summary:
  Total:	0.3010 secs
  Slowest:	0.0402 secs
  Fastest:	0.0001 secs
  Average:	0.0006 secs
  Requests/sec:	3042.8477
  
  Total data:	17404 bytes
  Size/request:	19 bytes

Response time histogram:
  0.000 [1]	|
  0.004 [894]	|■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■
  0.008 [17]	|■
  0.012 [0]	|
  0.016 [0]	|
  0.020 [0]	|
  0.024 [2]	|
  0.028 [0]	|
  0.032 [0]	|
  0.036 [0]	|
  0.040 [2]	|


Latency distribution:
  10% in 0.0001 secs
  25% in 0.0001 secs
  50% in 0.0002 secs
  75% in 0.0003 secs
  90% in 0.0015 secs
  95% in 0.0032 secs
  99% in 0.0057 secs

Details (average, fastest, slowest):
  DNS+dialup:	0.0000 secs, 0.0001 secs, 0.0402 secs
  DNS-lookup:	0.0000 secs, 0.0000 secs, 0.0000 secs
  req write:	0.0000 secs, 0.0000 secs, 0.0044 secs
  resp wait:	0.0006 secs, 0.0000 secs, 0.0401 secs
  resp read:	0.0001 secs, 0.0000 secs, 0.0396 secs

Status code distribution:
  [404]	916 responses



`

	// hey -z 300ms -c 2 -cpus 1, against a net/http server that closes
	// the connection instead of answering every third request.
	heyDrop = `
Summary:
  Total:	0.3006 secs
  Slowest:	0.0031 secs
  Fastest:	0.0001 secs
  Average:	0.0005 secs
  Requests/sec:	3868.3543
  
  Total data:	5350 bytes
  Size/request:	5 bytes

Response time histogram:
  0.000 [1]	|
  0.000 [509]	|■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■
  0.001 [341]	|■■■■■■■■■■■■■■■■■■■■■■■■■■■
  0.001 [140]	|■■■■■■■■■■■
  0.001 [42]	|■■■
  0.002 [22]	|■■
  0.002 [7]	|■
  0.002 [1]	|
  0.003 [5]	|
  0.003 [1]	|
  0.003 [1]	|


Latency distribution:
  10% in 0.0002 secs
  25% in 0.0003 secs
  50% in 0.0004 secs
  75% in 0.0006 secs
  90% in 0.0009 secs
  95% in 0.0011 secs
  99% in 0.0018 secs

Details (average, fastest, slowest):
  DNS+dialup:	0.0000 secs, 0.0001 secs, 0.0031 secs
  DNS-lookup:	0.0000 secs, 0.0000 secs, 0.0000 secs
  req write:	0.0000 secs, 0.0000 secs, 0.0004 secs
  resp wait:	0.0002 secs, 0.0000 secs, 0.0023 secs
  resp read:	0.0000 secs, 0.0000 secs, 0.0019 secs

Status code distribution:
  [200]	1070 responses

Error distribution:
  [93]	Get "http://127.0.0.1:18090/drop": EOF

`

	// hey -z 300ms -c 2 -cpus 1, against a port nobody listens on.
	heyRefused = `
Summary:
  Total:	0.3049 secs
  Slowest:	0.0000 secs
  Fastest:	0.0000 secs
  Average:	 NaN secs
  Requests/sec:	12515.8892
  

Response time histogram:


Latency distribution:

Details (average, fastest, slowest):
  DNS+dialup:	 NaN secs, 0.0000 secs, 0.0000 secs
  DNS-lookup:	 NaN secs, 0.0000 secs, 0.0000 secs
  req write:	 NaN secs, 0.0000 secs, 0.0000 secs
  resp wait:	 NaN secs, 0.0000 secs, 0.0000 secs
  resp read:	 NaN secs, 0.0000 secs, 0.0000 secs

Status code distribution:

Error distribution:
  [3816]	Get "http://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused

`
)

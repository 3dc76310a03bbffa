package bench

// The load generators other than loadgen and wrk, and make compare-clients:
// every HTTP/1.1 load generator at hand against one server, round after
// round, to see what each costs per request and how its rate compares with
// wrk's.

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"hellobench/internal/targets"
)

// H2load runs h2load (nghttp2) over HTTP/1.1 with one thread for a
// duration: h2load --h1 -t1 -cC -D D.
type H2load struct {
	Bin  string // "": h2load on the PATH
	CPUs string // taskset CPU list to pin it to; "": not pinned
}

func (h H2load) Name() string { return "h2load" }

func (h H2load) bin() string { return cmp.Or(h.Bin, "h2load") }

// Unsupported says why h2load cannot run m, or "" when it can. h2load
// reconnects after a "Connection: close" response, but before nghttp2 1.64
// a timed run that does so never ends (nghttp2 pull request 2249).
func (h H2load) Unsupported(m Mode) string {
	if m != Close {
		return ""
	}
	out, err := exec.Command(h.bin(), "--version").Output()
	if err != nil {
		return fmt.Sprintf("h2load --version: %v", err)
	}
	v := strings.TrimSpace(string(out))
	major, minor, ok := h2loadVersion(v)
	if !ok {
		return fmt.Sprintf("unknown h2load version %.40q", v)
	}
	if major < 1 || major == 1 && minor < 64 {
		return fmt.Sprintf("%s never ends a timed run with Connection: close (fixed in nghttp2 1.64)", v)
	}
	return ""
}

var h2Version = regexp.MustCompile(`nghttp2/(\d+)\.(\d+)`)

// h2loadVersion reads "h2load nghttp2/1.52.0".
func h2loadVersion(s string) (major, minor int, ok bool) {
	m := h2Version.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, false
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return major, minor, true
}

// Args returns h2load's command-line arguments for l. In --h1 mode, -m is
// the number of requests pipelined on each connection.
func (h H2load) Args(l Load) []string {
	args := []string{"--h1", "-t1", "-c" + strconv.Itoa(l.Connections), "-D", strconv.FormatInt(l.Duration.Milliseconds(), 10) + "ms"}
	switch l.Mode {
	case Pipeline:
		args = append(args, "-m"+strconv.Itoa(PipelineDepth))
	case Close:
		args = append(args, "-H", "Connection: close")
	}
	return append(args, l.URL)
}

// Run runs h2load and fails on failed, errored or timed-out requests and on
// any response but a 2xx. In a timed run h2load neither reconnects after a
// connection the server closed unasked nor counts the request it lost: a
// server that drops connections shows as a low rate, not as errors.
func (h H2load) Run(l Load) (Stats, error) {
	if err := checkLoad(h, l); err != nil {
		return Stats{}, err
	}
	out, t, err := run(h.CPUs, h.bin(), h.Args(l)...)
	if err != nil {
		return Stats{}, fmt.Errorf("bench: h2load against %s: %v", l.URL, err)
	}
	st, err := parseH2load(string(out))
	st.ClientCPU, st.ClientUser = t.CPU(), t.User
	return st, err
}

var (
	h2Finished = regexp.MustCompile(`finished in ([0-9.]+)(us|ms|s), ([0-9.]+) req/s`)
	h2Requests = regexp.MustCompile(`requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout`)
	h2Status   = regexp.MustCompile(`status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx`)
)

func parseH2load(out string) (Stats, error) {
	var s Stats
	f, r, c := h2Finished.FindStringSubmatch(out), h2Requests.FindStringSubmatch(out), h2Status.FindStringSubmatch(out)
	if f == nil || r == nil || c == nil {
		return s, fmt.Errorf("bench: unreadable h2load output: %.300q", out)
	}
	s.Elapsed = parseUnit(f[1], f[2])
	s.ReqPerSec, _ = strconv.ParseFloat(f[3], 64)
	n := atois(r[1:])
	total, failed, errored, timeout := n[0], n[4], n[5], n[6]
	codes := atois(c[1:])
	s.Requests = codes[0]
	if other := codes[1] + codes[2] + codes[3]; failed+errored+timeout > 0 || other > 0 {
		return s, fmt.Errorf("bench: h2load: %d failed, %d errored, %d timed out and %d non-2xx (%d 3xx, %d 4xx, %d 5xx) of %d requests",
			failed, errored, timeout, other, codes[1], codes[2], codes[3], total)
	}
	if s.Requests == 0 {
		return s, errors.New("bench: h2load: no complete request (none connected?)")
	}
	return s, nil
}

// Bombardier runs bombardier (its default fasthttp client) for a duration:
// bombardier -cC -dD -l -p r -o json. It is a Go program; run pins it to
// one core with GOMAXPROCS=1.
type Bombardier struct {
	Bin  string
	CPUs string // taskset CPU list to pin it to; "": not pinned
}

func (b Bombardier) Name() string { return "bombardier" }

// Unsupported says why bombardier cannot run m, or "" when it can.
func (b Bombardier) Unsupported(m Mode) string {
	if m == Pipeline {
		return "bombardier waits for each response before sending the next request: no pipelining"
	}
	return ""
}

// Args returns bombardier's command-line arguments for l. For Close it asks
// for "Connection: close", which its fasthttp client obeys by dialling anew
// for the next request (its -a applies to the net/http client only).
func (b Bombardier) Args(l Load) []string {
	args := []string{"-c", strconv.Itoa(l.Connections), "-d", l.Duration.String(), "-l", "-p", "r", "-o", "json"}
	if l.Mode == Close {
		args = append(args, "-H", "Connection: close")
	}
	return append(args, l.URL)
}

// Run runs bombardier and fails on any error and on any response but a 2xx.
// Its fasthttp client retries a GET whose connection the server closed
// unanswered, so most such drops show as a lower rate, not as errors.
func (b Bombardier) Run(l Load) (Stats, error) {
	if err := checkLoad(b, l); err != nil {
		return Stats{}, err
	}
	if l.Duration < time.Second {
		return Stats{}, fmt.Errorf("bench: bombardier runs at least 1s, not %v", l.Duration)
	}
	out, t, err := run(b.CPUs, cmp.Or(b.Bin, "bombardier"), b.Args(l)...)
	if err != nil {
		return Stats{}, fmt.Errorf("bench: bombardier against %s: %v", l.URL, err)
	}
	st, err := parseBombardier(out)
	st.ClientCPU, st.ClientUser = t.CPU(), t.User
	return st, err
}

// bombardierJSON is the part of bombardier's -o json result read here.
type bombardierJSON struct {
	Result *struct {
		TimeTaken float64 `json:"timeTakenSeconds"`
		Req1xx    int64   `json:"req1xx"`
		Req2xx    int64   `json:"req2xx"`
		Req3xx    int64   `json:"req3xx"`
		Req4xx    int64   `json:"req4xx"`
		Req5xx    int64   `json:"req5xx"`
		Others    int64   `json:"others"` // requests that got no response
		Errors    []struct {
			Description string `json:"description"`
			Count       int64  `json:"count"`
		} `json:"errors"`
		Latency struct {
			Percentiles map[string]float64 `json:"percentiles"` // µs
		} `json:"latency"`
	} `json:"result"`
}

func parseBombardier(out []byte) (Stats, error) {
	var s Stats
	var j bombardierJSON
	if err := json.Unmarshal(out, &j); err != nil || j.Result == nil {
		return s, fmt.Errorf("bench: unreadable bombardier output (%v): %.300q", err, out)
	}
	r := j.Result
	s.Requests = r.Req2xx
	s.Elapsed = time.Duration(r.TimeTaken * float64(time.Second))
	if r.TimeTaken > 0 {
		s.ReqPerSec = float64(r.Req2xx) / r.TimeTaken
	}
	s.P50 = time.Duration(r.Latency.Percentiles["50"] * float64(time.Microsecond))
	s.P99 = time.Duration(r.Latency.Percentiles["99"] * float64(time.Microsecond))
	if other := r.Req1xx + r.Req3xx + r.Req4xx + r.Req5xx; other > 0 || r.Others > 0 || len(r.Errors) > 0 {
		var errs []string
		for _, e := range r.Errors {
			errs = append(errs, fmt.Sprintf("%d× %s", e.Count, e.Description))
		}
		return s, fmt.Errorf("bench: bombardier: %d non-2xx responses (%d 1xx, %d 3xx, %d 4xx, %d 5xx) and %d failed requests [%s] besides %d 2xx",
			other, r.Req1xx, r.Req3xx, r.Req4xx, r.Req5xx, r.Others, strings.Join(errs, "; "), r.Req2xx)
	}
	if s.Requests == 0 {
		return s, errors.New("bench: bombardier: no complete request")
	}
	return s, nil
}

// Hey runs hey for a duration: hey -z D -c C -cpus 1. It is a Go program;
// run pins it to one core with GOMAXPROCS=1.
type Hey struct {
	Bin  string // "": hey on the PATH
	CPUs string // taskset CPU list to pin it to; "": not pinned
}

func (h Hey) Name() string { return "hey" }

// Unsupported says why hey cannot run m, or "" when it can.
func (h Hey) Unsupported(m Mode) string {
	if m == Pipeline {
		return "hey (Go's net/http client) waits for each response before sending the next request: no pipelining"
	}
	return ""
}

// Args returns hey's command-line arguments for l.
func (h Hey) Args(l Load) []string {
	args := []string{"-z", l.Duration.String(), "-c", strconv.Itoa(l.Connections), "-cpus", "1"}
	if l.Mode == Close {
		args = append(args, "-disable-keepalive")
	}
	return append(args, l.URL)
}

// Run runs hey and fails on any error and on any response but a 2xx.
func (h Hey) Run(l Load) (Stats, error) {
	if err := checkLoad(h, l); err != nil {
		return Stats{}, err
	}
	out, t, err := run(h.CPUs, cmp.Or(h.Bin, "hey"), h.Args(l)...)
	if err != nil {
		return Stats{}, fmt.Errorf("bench: hey against %s: %v", l.URL, err)
	}
	st, err := parseHey(string(out))
	st.ClientCPU, st.ClientUser = t.CPU(), t.User
	return st, err
}

var (
	heyTotal   = regexp.MustCompile(`Total:\s+([0-9.]+) secs`)
	heyRate    = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	heyStatus  = regexp.MustCompile(`(?m)^\s+\[(\d{3})\]\s+(\d+) responses$`)
	heyError   = regexp.MustCompile(`(?m)^\s+\[(\d+)\]\s+(.+)$`)
	heyPercent = regexp.MustCompile(`(?m)^\s+(50|99)% in ([0-9.]+) secs`)
)

func parseHey(out string) (Stats, error) {
	var s Stats
	t, r := heyTotal.FindStringSubmatch(out), heyRate.FindStringSubmatch(out)
	_, codes, found := strings.Cut(out, "Status code distribution:")
	if t == nil || r == nil || !found {
		return s, fmt.Errorf("bench: unreadable hey output: %.300q", out)
	}
	s.Elapsed = parseUnit(t[1], "s")
	s.ReqPerSec, _ = strconv.ParseFloat(r[1], 64)
	for _, p := range heyPercent.FindAllStringSubmatch(out, -1) {
		if p[1] == "50" {
			s.P50 = parseUnit(p[2], "s")
		} else {
			s.P99 = parseUnit(p[2], "s")
		}
	}
	codes, errs, _ := strings.Cut(codes, "Error distribution:")
	var other int64
	for _, m := range heyStatus.FindAllStringSubmatch(codes, -1) {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		if m[1][0] == '2' {
			s.Requests += n
		} else {
			other += n
		}
	}
	var failed int64
	var why []string
	for _, m := range heyError.FindAllStringSubmatch(errs, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		failed += n
		why = append(why, fmt.Sprintf("%d× %s", n, m[2]))
	}
	if other > 0 || failed > 0 {
		return s, fmt.Errorf("bench: hey: %d non-2xx responses and %d failed requests [%s] besides %d 2xx",
			other, failed, strings.Join(why, "; "), s.Requests)
	}
	if s.Requests == 0 {
		return s, errors.New("bench: hey: no complete request")
	}
	return s, nil
}

// checkLoad refuses a load that c cannot run: a mode it lacks, or no
// duration (these clients run for a duration, not a request count).
func checkLoad(c Client, l Load) error {
	if lc, ok := c.(limited); ok {
		if why := lc.Unsupported(l.Mode); why != "" {
			return fmt.Errorf("bench: %s cannot run %s: %s", c.Name(), l.Mode, why)
		}
	}
	if l.Duration <= 0 {
		return fmt.Errorf("bench: %s runs for a duration; the load has none", c.Name())
	}
	return nil
}

// limited is a client that cannot run every mode.
type limited interface {
	Unsupported(m Mode) string // why not, or "" when it can
}

func atois(v []string) []int64 {
	n := make([]int64, len(v))
	for i, s := range v {
		n[i], _ = strconv.ParseInt(s, 10, 64)
	}
	return n
}

// ClientNames lists the load generators CompareClients knows, in the order
// each round runs them by default.
var ClientNames = []string{"loadgen", "wrk", "h2load", "bombardier", "hey"}

// A ClientsConfig says what CompareClients runs.
type ClientsConfig struct {
	Server      string        // the target every client loads
	Connections int           // each client's
	Duration    time.Duration // of each measured run
	Rounds      int
	Modes       []Mode   // in the order they run
	Clients     []string // from ClientNames, in the order each round runs them
}

// Check reports the first thing wrong with c, naming the flag of the
// clients command that sets it.
func (c ClientsConfig) Check() error {
	if _, err := targets.Lookup(c.Server); err != nil {
		return fmt.Errorf("-server: %v", err)
	}
	if c.Connections < 1 {
		return fmt.Errorf("-c %d: want at least one connection", c.Connections)
	}
	if c.Duration <= 0 {
		return fmt.Errorf("-d %v: want a positive duration", c.Duration)
	}
	if slices.Contains(c.Clients, "wrk") && c.Duration%time.Second != 0 {
		// Else wrk would run longer than the others.
		return fmt.Errorf("-d %v: wrk runs whole seconds; want 1s, 2s or more", c.Duration)
	}
	if slices.Contains(c.Clients, "bombardier") && c.Duration < time.Second {
		return fmt.Errorf("-d %v: bombardier runs at least 1s", c.Duration)
	}
	if c.Rounds < 1 {
		return fmt.Errorf("-rounds %d: want at least one round", c.Rounds)
	}
	modes := make([]string, len(Modes))
	for i, m := range Modes {
		modes[i] = string(m)
	}
	ms := make([]string, len(c.Modes))
	for i, m := range c.Modes {
		ms[i] = string(m)
	}
	if err := checkList("-modes", ms, modes); err != nil {
		return err
	}
	return checkList("-clients", c.Clients, ClientNames)
}

// checkList checks that list names at least one of known, each at most
// once.
func checkList(flag string, list, known []string) error {
	if len(list) == 0 {
		return fmt.Errorf("%s: empty; want some of %s", flag, strings.Join(known, ","))
	}
	for i, v := range list {
		if !slices.Contains(known, v) {
			return fmt.Errorf("%s: unknown %q; want some of %s", flag, v, strings.Join(known, ","))
		}
		if slices.Contains(list[:i], v) {
			return fmt.Errorf("%s: %q twice", flag, v)
		}
	}
	return nil
}

// A ClientsRun is one make compare-clients run.
type ClientsRun struct {
	Date        string       `json:"date"` // UTC, "2006-01-02 15:04 MST"
	Server      string       `json:"server"`
	Connections int          `json:"connections"`
	Duration    float64      `json:"duration_s"`
	Rounds      int          `json:"rounds"`
	Rows        []ClientsRow `json:"rows"`
}

// A ClientsRow is one client in one mode.
type ClientsRow struct {
	Client     string  `json:"client"`
	Mode       Mode    `json:"mode"`
	Skipped    string  `json:"skipped,omitempty"` // why the row was not measured
	ClientCPU  Figure  `json:"client_cpu_us_per_req"`
	ClientUser Figure  `json:"client_user_us_per_req"` // the part in user mode
	Segments   Figure  `json:"tcp_segments_per_req"`   // both ways
	ReqPerSec  Figure  `json:"req_per_sec"`
	ServerCPU  Figure  `json:"server_cpu_us_per_req"`
	Busy       Figure  `json:"server_cpu_pct"`
	ClientBusy Figure  `json:"client_cpu_pct"`
	CPUVsWrk   *Figure `json:"client_cpu_vs_wrk,omitempty"` // round by round
	RateVsWrk  *Figure `json:"req_per_sec_vs_wrk,omitempty"`
	// ServerVsLoadgen is the server's CPU per request under this client
	// over its CPU per request under loadgen, over the rounds in which the
	// server was saturated under both: near 1, the figure belongs to the
	// server, not to the client that loaded it.
	ServerVsLoadgen *Figure `json:"server_cpu_vs_loadgen,omitempty"`
}

// warmUp is how long the server is loaded, once, before the first
// measured run.
const warmUp = time.Second

// A cell is one client in one mode.
type cell struct {
	mode   Mode
	client string
}

// CompareClients starts cc.Server once, placed as cfg says, warms it up
// once, then for each mode runs every client in turn, round after round (A
// B C A B C ...), each run measured by Measure; progress gets a line per
// run. A client that is not installed, or lacks a mode, gets rows that say
// why. A client that fails is left out of the mode's later rounds and its
// row says why; the run is then returned with an error naming the
// failures. Any other error returns an empty run.
func CompareClients(cfg Config, cc ClientsConfig, progress io.Writer) (_ ClientsRun, err error) {
	if err := cc.Check(); err != nil {
		return ClientsRun{}, err
	}
	run := ClientsRun{
		Date:        time.Now().UTC().Format("2006-01-02 15:04 MST"),
		Server:      cc.Server,
		Connections: cc.Connections,
		Duration:    cc.Duration.Seconds(),
		Rounds:      cc.Rounds,
	}
	clients := make(map[string]Client)
	skipped := make(map[cell]string)
	for _, name := range cc.Clients {
		c, why, err := clientFor(cfg, name)
		if err != nil {
			return ClientsRun{}, err
		}
		for _, m := range cc.Modes {
			if lc, ok := c.(limited); ok {
				why = lc.Unsupported(m)
			}
			skipped[cell{m, name}] = why
		}
		clients[name] = c
	}

	s, err := cfg.Start(cc.Server, "")
	if err != nil {
		return ClientsRun{}, err
	}
	defer func() {
		if serr := s.Stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	load := Load{URL: s.URL(), Connections: cc.Connections, Duration: cc.Duration}
	fmt.Fprintf(progress, "%s on CPUs %q, clients on CPUs %q (GOMAXPROCS=1), %d connections, %v per run\n",
		cc.Server, cfg.ServerCPUs, cfg.ClientCPUs, cc.Connections, cc.Duration)
	if err := warm(clients, cc, skipped, load); err != nil {
		return ClientsRun{}, err
	}

	results := make(map[cell][]Result)
	var failures []string
	for _, m := range cc.Modes {
		load.Mode = m
		for i := range cc.Rounds {
			// Each round in its own order: no client always runs first,
			// or after the same one.
			for _, j := range Order(len(cc.Clients), i) {
				name := cc.Clients[j]
				k := cell{m, name}
				if skipped[k] != "" {
					continue
				}
				r, err := Measure(s, clients[name], load)
				if err != nil {
					select {
					case <-s.Proc.Exited():
						return ClientsRun{}, err
					default:
					}
					skipped[k] = fmt.Sprintf("failed in round %d: %v", i+1, err)
					failures = append(failures, fmt.Sprintf("%s %s: %s", name, m, skipped[k]))
					fmt.Fprintf(progress, "%-9s round %d/%d %-10s %s\n", m, i+1, cc.Rounds, name, skipped[k])
					continue
				}
				results[k] = append(results[k], r)
				fmt.Fprintf(progress, "%-9s round %d/%d %-10s %9.0f req/s  client %6.2f µs/req %4.0f%% busy  server %6.2f µs/req %4.0f%% busy  %s\n",
					m, i+1, cc.Rounds, name, r.ReqPerSec, r.ClientCPUPerRequest(), r.ClientBusy(), r.CPUPerRequest(), r.Busy(), roundLabel(r.Busy(), r.ClientBusy()))
			}
		}
	}
	run.Rows = clientRows(cc.Modes, cc.Clients, results, skipped)
	if len(failures) > 0 {
		return run, fmt.Errorf("%d of the runs failed:\n%s", len(failures), strings.Join(failures, "\n"))
	}
	return run, nil
}

// clientFor returns the named client pinned to cfg.ClientCPUs, or, when it
// is not installed, nil and why.
func clientFor(cfg Config, name string) (Client, string, error) {
	look := func(debian string) (string, string) {
		bin, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Sprintf("%s not installed (Debian package %s)", name, debian)
		}
		return bin, ""
	}
	var bin, why string
	switch name {
	case "loadgen":
		b, err := cfg.Binary("loadgen")
		if err != nil {
			return nil, "", err
		}
		return Loadgen{Bin: b, CPUs: cfg.ClientCPUs}, "", nil
	case "wrk":
		if bin, why = look("wrk"); why == "" {
			return Wrk{Bin: bin, CPUs: cfg.ClientCPUs}, "", nil
		}
	case "h2load":
		if bin, why = look("nghttp2-client"); why == "" {
			return H2load{Bin: bin, CPUs: cfg.ClientCPUs}, "", nil
		}
	case "hey":
		if bin, why = look("hey"); why == "" {
			return Hey{Bin: bin, CPUs: cfg.ClientCPUs}, "", nil
		}
	case "bombardier":
		// The version the Makefile pins, in bin/, not whatever is on the PATH.
		bin = filepath.Join(cfg.Root, "bin", "bombardier")
		if _, err := os.Stat(bin); err != nil {
			return nil, "bombardier not installed (make bin/bombardier installs v1.2.6 with the Go toolchain)", nil
		}
		return Bombardier{Bin: bin, CPUs: cfg.ClientCPUs}, "", nil
	default:
		return nil, "", fmt.Errorf("bench: unknown client %q", name)
	}
	return nil, why, nil
}

// warm loads the server for warmUp with the first client and mode that
// will run, so that the first measured run does not pay for its start.
func warm(clients map[string]Client, cc ClientsConfig, skipped map[cell]string, l Load) error {
	for _, m := range cc.Modes {
		for _, name := range cc.Clients {
			if skipped[cell{m, name}] != "" {
				continue
			}
			l.Mode, l.Duration = m, warmUp
			if _, err := clients[name].Run(l); err != nil {
				return fmt.Errorf("warm-up with %s, %s: %v", name, m, err)
			}
			return nil
		}
	}
	return nil
}

// clientRows makes a row of each client in each mode, in mode then client
// order, with each client's ratios to wrk in the same mode taken round by
// round: round i of both ran within the same round.
func clientRows(modes []Mode, names []string, results map[cell][]Result, skipped map[cell]string) []ClientsRow {
	var rows []ClientsRow
	for _, m := range modes {
		var wrk *ClientsRow
		start := len(rows)
		for _, name := range names {
			k := cell{m, name}
			row := ClientsRow{Client: name, Mode: m, Skipped: skipped[k]}
			if row.Skipped == "" {
				rs := results[k]
				row.ClientCPU = Of(rs, Result.ClientCPUPerRequest)
				row.ClientUser = Of(rs, Result.ClientUserPerRequest)
				row.Segments = Of(rs, Result.SegmentsPerRequest)
				row.ReqPerSec = Of(rs, func(r Result) float64 { return r.ReqPerSec })
				row.ServerCPU = Of(rs, Result.CPUPerRequest)
				row.Busy = Of(rs, Result.Busy)
				row.ClientBusy = Of(rs, Result.ClientBusy)
			}
			rows = append(rows, row)
		}
		var lg *ClientsRow
		for i := range rows[start:] {
			if r := &rows[start+i]; r.Client == "wrk" && r.Skipped == "" {
				wrk = r
			}
			if r := &rows[start+i]; r.Client == "loadgen" && r.Skipped == "" {
				lg = r
			}
		}
		if lg != nil {
			for i := range rows[start:] {
				if r := &rows[start+i]; r != lg && r.Skipped == "" {
					f := saturatedRatio(*r, *lg)
					r.ServerVsLoadgen = &f
				}
			}
		}
		if wrk == nil {
			continue
		}
		for i := range rows[start:] {
			r := &rows[start+i]
			if r == wrk || r.Skipped != "" {
				continue
			}
			cpu, rate := Ratio(r.ClientCPU, wrk.ClientCPU), Ratio(r.ReqPerSec, wrk.ReqPerSec)
			r.CPUVsWrk, r.RateVsWrk = &cpu, &rate
		}
	}
	return rows
}

// saturatedRatio is a's server CPU per request over b's, round by round,
// over the rounds in which the server was saturated (SaturatedCeiling)
// under both clients.
func saturatedRatio(a, b ClientsRow) Figure {
	saturated := func(r ClientsRow) Figure {
		return Only(r.ServerCPU, func(i int) bool { return i < len(r.Busy.Rounds) && r.Busy.Rounds[i] >= SaturatedCeiling })
	}
	return Ratio(saturated(a), saturated(b))
}

// roundLabel says what set the pace of a round whose server core was not
// kept busy: the client's saturated core, or neither.
func roundLabel(busy, clientBusy float64) string {
	switch {
	case busy >= Saturated:
		return ""
	case clientBusy >= Saturated:
		return "client-bound"
	}
	return "unsaturated"
}

// WriteTable writes the run as a table per mode: each client's medians
// over the rounds, with their range for the client's own figures and its
// ratios to wrk, then the clients skipped and why.
func (r ClientsRun) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s, %d connections, %gs per run, %d rounds in changing orders: medians with %s\n", r.Server, r.Connections, r.Duration, r.Rounds, IntervalName(r.Rounds))
	var modes []Mode
	for _, row := range r.Rows {
		if !slices.Contains(modes, row.Mode) {
			modes = append(modes, row.Mode)
		}
	}
	for _, m := range modes {
		fmt.Fprintf(w, "\n%s\n", m)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "client\tclient CPU µs/req\tof it user\tsegments/req\treq/s\tserver CPU µs/req\tserver busy %\tclient busy %\tclient CPU vs wrk\treq/s vs wrk\tserver CPU vs under loadgen\tnote")
		var skipped []string
		for _, row := range r.Rows {
			switch {
			case row.Mode != m:
			case row.Skipped != "":
				skipped = append(skipped, row.Client+" skipped: "+row.Skipped)
			default:
				fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%s\t%.2f\t%.0f\t%.0f\t%s\t%s\t%s\t%s\n", row.Client,
					spread(row.ClientCPU, "%.2f"), row.ClientUser.Median, row.Segments.Median, spread(row.ReqPerSec, "%.0f"), row.ServerCPU.Median, row.Busy.Median, row.ClientBusy.Median,
					ratio(row.CPUVsWrk), ratio(row.RateVsWrk), ratio(row.ServerVsLoadgen), note(row))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, s := range skipped {
			if _, err := fmt.Fprintln(w, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// spread formats a figure as its median and, over several rounds, its
// interval (Spread's Lo and Hi).
func spread(f Figure, format string) string {
	if f.N == 0 {
		return "-"
	}
	s := fmt.Sprintf(format, f.Median)
	if f.N > 1 {
		s += fmt.Sprintf(" ("+format+"–"+format+")", f.Lo, f.Hi)
	}
	return s
}

// ratio formats a ratio, "tie" when its interval contains 1.
func ratio(f *Figure) string {
	if f == nil || f.N == 0 {
		return "-"
	}
	s := spread(*f, "%.2f")
	if f.Straddles(1) {
		s += " tie"
	}
	return s
}

// note counts the rounds whose server core was not kept busy, by what set
// their pace.
func note(row ClientsRow) string {
	count := make(map[string]int)
	for i, b := range row.Busy.Rounds {
		if i < len(row.ClientBusy.Rounds) {
			if l := roundLabel(b, row.ClientBusy.Rounds[i]); l != "" {
				count[l]++
			}
		}
	}
	var notes []string
	for _, l := range []string{"client-bound", "unsaturated"} {
		if count[l] > 0 {
			notes = append(notes, fmt.Sprintf("%s in %d/%d rounds", l, count[l], len(row.Busy.Rounds)))
		}
	}
	return strings.Join(notes, ", ")
}

// Save writes r as indented JSON to path, making its directory.
func (r ClientsRun) Save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

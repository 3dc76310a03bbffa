package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"hellobench/bench/loadgen"
	"hellobench/internal/proc"
)

// A Mode is how the client uses its connections.
type Mode string

const (
	KeepAlive Mode = "keepalive" // requests reuse their connection
	Close     Mode = "close"     // one connection per request, as ab without -k
	Pipeline  Mode = "pipeline"  // keep-alive, PipelineDepth requests in flight per connection
)

// Modes lists the modes in report order.
var Modes = []Mode{KeepAlive, Close, Pipeline}

// PipelineDepth is the number of requests a pipelining client keeps in
// flight on each connection.
const PipelineDepth = 16

// A Load is one run of the client against a URL: Requests requests, or for
// a duration-based client (wrk), Duration.
type Load struct {
	URL         string
	Mode        Mode
	Connections int
	Requests    int
	Duration    time.Duration
}

// Stats is what the client measured.
type Stats struct {
	Requests   int64         // complete responses
	Elapsed    time.Duration // the client's own measure of the run
	ReqPerSec  float64
	P50, P99   time.Duration
	ClientCPU  time.Duration // the client's own user+system CPU time (rusage)
	ClientUser time.Duration // the part of it in user mode
}

// A Client runs a load generator process pinned to a core.
type Client interface {
	Name() string
	Run(l Load) (Stats, error)
}

// Loadgen runs the in-repo load generator (bin/loadgen -json).
type Loadgen struct {
	Bin  string
	CPUs string // taskset CPU list to pin it to; "": not pinned
}

func (g Loadgen) Name() string { return "loadgen" }

// Args returns loadgen's command-line arguments for l.
func (g Loadgen) Args(l Load) []string {
	args := []string{"-json", "-c", strconv.Itoa(l.Connections)}
	if l.Requests > 0 {
		args = append(args, "-n", strconv.Itoa(l.Requests))
	} else {
		args = append(args, "-d", l.Duration.String())
	}
	switch l.Mode {
	case KeepAlive:
		args = append(args, "-k")
	case Pipeline:
		args = append(args, "-k", "-pipeline", strconv.Itoa(PipelineDepth))
	}
	return append(args, l.URL)
}

// Run runs loadgen and fails on any failed or non-2xx request: such a run
// measures errors, not a server.
func (g Loadgen) Run(l Load) (Stats, error) {
	if l.Requests > 0 && l.Requests < l.Connections {
		l.Connections = l.Requests
	}
	out, t, runErr := run(g.CPUs, g.Bin, g.Args(l)...)
	var r loadgen.JSONResult
	if err := json.Unmarshal(out, &r); err != nil {
		if runErr != nil {
			return Stats{}, fmt.Errorf("bench: loadgen against %s: %v", l.URL, runErr)
		}
		return Stats{}, fmt.Errorf("bench: loadgen against %s: unreadable -json output (%v): %.200q", l.URL, err, out)
	}
	if r.Failed > 0 || r.Non2xx > 0 {
		f := r.Failures
		return Stats{}, fmt.Errorf("bench: loadgen against %s: %d failed requests (connect %d, receive %d, length %d, exceptions %d, timeout %d) and %d non-2xx responses of %d",
			l.URL, r.Failed, f.Connect, f.Receive, f.Length, f.Exceptions, f.Timeout, r.Non2xx, r.Complete)
	}
	if runErr != nil {
		return Stats{}, fmt.Errorf("bench: loadgen against %s: %v", l.URL, runErr)
	}
	if r.Complete == 0 {
		return Stats{}, fmt.Errorf("bench: loadgen against %s: no complete request", l.URL)
	}
	return Stats{
		Requests:   r.Complete,
		Elapsed:    time.Duration(r.DurationS * float64(time.Second)),
		ReqPerSec:  r.RequestsPerSec,
		P50:        time.Duration(r.LatencyUS.P50 * float64(time.Microsecond)),
		P99:        time.Duration(r.LatencyUS.P99 * float64(time.Microsecond)),
		ClientCPU:  t.CPU(),
		ClientUser: t.User,
	}, nil
}

// Wrk runs wrk with one thread (wrk -t1 -cC -dD --latency) for a duration.
// It keeps its connections alive; for Close it asks for "Connection: close",
// and wrk opens a new connection after each response.
type Wrk struct {
	Bin  string
	CPUs string // taskset CPU list to pin it to; "": not pinned
}

func (w Wrk) Name() string { return "wrk" }

var (
	wrkTotal   = regexp.MustCompile(`(\d+) requests in ([0-9.]+)(us|ms|s|m)`)
	wrkRate    = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkErrors  = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkNon2xx  = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	wrkPercent = regexp.MustCompile(`(?m)^\s+(50|99)(?:\.000)?%\s+([0-9.]+)(us|ms|s)`)
)

// Run runs wrk and fails on socket errors or non-2xx responses. For
// Pipeline it sends PipelineDepth requests per write through a Lua script,
// as TechEmpower's pipeline.lua does.
func (w Wrk) Run(l Load) (Stats, error) {
	// wrk takes whole seconds.
	secs := int((l.Duration + time.Second - 1) / time.Second)
	if secs <= 0 {
		secs = 5
	}
	bin := w.Bin
	if bin == "" {
		bin = "wrk"
	}
	args := []string{"-t1", "-c" + strconv.Itoa(l.Connections), "-d" + strconv.Itoa(secs) + "s", "--latency"}
	switch l.Mode {
	case Close:
		// The server answers "close" and closes (RFC 9112, section 9.6);
		// wrk reconnects when a response does not keep the connection.
		args = append(args, "-H", "Connection: close")
	case Pipeline:
		dir, err := os.MkdirTemp("", "hellobench-wrk-")
		if err != nil {
			return Stats{}, err
		}
		defer os.RemoveAll(dir)
		script := filepath.Join(dir, "pipeline.lua")
		if err := os.WriteFile(script, fmt.Appendf(nil, pipelineLua, PipelineDepth), 0o644); err != nil {
			return Stats{}, err
		}
		args = append(args, "-s", script)
	}
	out, t, err := run(w.CPUs, bin, append(args, l.URL)...)
	if err != nil {
		return Stats{}, fmt.Errorf("bench: wrk against %s: %v", l.URL, err)
	}
	st, err := parseWrk(string(out))
	st.ClientCPU, st.ClientUser = t.CPU(), t.User
	return st, err
}

// pipelineLua makes wrk write %d requests at once on each connection.
const pipelineLua = `init = function(args)
  local r = {}
  for i = 1, %d do r[i] = wrk.format() end
  req = table.concat(r)
end
request = function() return req end
`

func parseWrk(out string) (Stats, error) {
	var s Stats
	m := wrkTotal.FindStringSubmatch(out)
	r := wrkRate.FindStringSubmatch(out)
	if m == nil || r == nil {
		return s, fmt.Errorf("bench: unreadable wrk output: %.300q", out)
	}
	s.Requests, _ = strconv.ParseInt(m[1], 10, 64)
	s.Elapsed = parseUnit(m[2], m[3])
	s.ReqPerSec, _ = strconv.ParseFloat(r[1], 64)
	for _, p := range wrkPercent.FindAllStringSubmatch(out, -1) {
		if p[1] == "50" {
			s.P50 = parseUnit(p[2], p[3])
		} else {
			s.P99 = parseUnit(p[2], p[3])
		}
	}
	var failed int64
	if e := wrkErrors.FindStringSubmatch(out); e != nil {
		for _, v := range e[1:] {
			n, _ := strconv.ParseInt(v, 10, 64)
			failed += n
		}
	}
	if n := wrkNon2xx.FindStringSubmatch(out); n != nil {
		v, _ := strconv.ParseInt(n[1], 10, 64)
		failed += v
	}
	if failed > 0 {
		return s, fmt.Errorf("bench: wrk: %d socket errors or non-2xx responses in %d requests", failed, s.Requests)
	}
	if s.Requests == 0 {
		return s, errors.New("bench: wrk: no complete request")
	}
	return s, nil
}

func parseUnit(v, unit string) time.Duration {
	f, _ := strconv.ParseFloat(v, 64)
	switch unit {
	case "us":
		return time.Duration(f * float64(time.Microsecond))
	case "ms":
		return time.Duration(f * float64(time.Millisecond))
	case "m":
		return time.Duration(f * float64(time.Minute))
	}
	return time.Duration(f * float64(time.Second))
}

// run runs a client pinned to cpus, with GOMAXPROCS one per CPU of the
// set (so loadgen runs an event loop on each), in its own process group,
// and returns its stdout and the CPU time it used; a non-zero exit becomes
// an error with its stderr (the stdout is still returned).
func run(cpus, name string, args ...string) ([]byte, proc.Times, error) {
	procs := 1
	if list, err := proc.ParseCPUs(cpus); err == nil && cpus != "" {
		procs = len(list)
	}
	return proc.Run(proc.Spec{Name: filepath.Base(name), Path: name, Args: args, CPUs: cpus, Procs: procs})
}

package bench

// The load generators the bench runs: what they share here, and the
// clients table; each client's adapter and output parser is in a file of
// its own (client_NAME.go), and compare_clients.go sets them side by side.

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"hellobench/internal/deps"
	"hellobench/internal/proc"
	"hellobench/page"
)

// A Mode is how the client uses its connections.
type Mode string

const (
	KeepAlive Mode = "keepalive" // requests reuse their connection
	Close     Mode = "close"     // one connection per request, as ab without -k
	Pipeline  Mode = "pipeline"  // keep-alive, PipelineDepth requests in flight per connection
	JSON      Mode = "json"      // keep-alive, each request to the JSON endpoint (page.JSONPath)
	Conn10    Mode = "conn10"    // keep-alive, ConnRequests requests a connection, then the client closes it and opens another
)

// Modes lists the modes in report order.
var Modes = []Mode{KeepAlive, Close, Pipeline, JSON, Conn10}

// ConnRequests is the requests a connection carries in Conn10, as a
// browser's or a pooled client's connections do, and HttpArena's
// limited-connection profile: between a connection per request, which is
// the client's work as much as the server's, and one that never ends,
// which costs the server no setup at all.
const ConnRequests = 10

// noPerConn is why a client cannot run Conn10.
const noPerConn = "it has no limit on the requests a connection carries before the client closes it"

// URL is what a load in mode m asks s for: the JSON endpoint in JSON
// mode, the page in the others.
func (m Mode) URL(s *Server) string {
	if m == JSON {
		return strings.TrimSuffix(s.URL(), page.Path) + page.JSONPath
	}
	return s.URL()
}

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
	// Rate, when set, sends that many requests per second in total, open
	// loop, latency counted from each request's due time: loadgen only.
	Rate float64
	// Warmup runs first on the same connections, not recorded: loadgen only.
	Warmup time.Duration
	// Log, when set, is a file for the run's HdrHistogram interval log
	// (loadgen -o): loadgen only.
	Log string
	// Spin, with a Rate, keeps the client polling rather than sleeping
	// between sends (loadgen -spin): loadgen only.
	Spin bool
}

// Stats is what the client measured.
type Stats struct {
	Requests   int64         // complete responses
	Elapsed    time.Duration // the client's own measure of the run
	ReqPerSec  float64
	P50, P99   time.Duration
	ClientCPU  time.Duration // the client's own user+system CPU time (rusage)
	ClientUser time.Duration // the part of it in user mode
	// ClientLimited says a run at a Rate sent late enough that its latency
	// is the client's as much as the server's (loadgen's rule).
	ClientLimited bool
	// Start is when the measured part of the run began, by this host's
	// clock, and Tail the rest of its latency curve: loadgen only.
	Start time.Time
	Tail  Tail
	// Handshakes and Resumed count the TLS handshakes of an https:// run
	// and those that resumed a session, EarlyData the requests the server
	// took in 0-RTT: loadgen only.
	Handshakes, Resumed, EarlyData int64
}

// Tail is a run's latency beyond p50 and p99, and at a Rate how late the
// client itself sent (its send lateness): loadgen only.
type Tail struct {
	P90, P999, P9999, Max time.Duration
	LateP999, LateMax     time.Duration
}

// A Client runs a load generator process pinned to a core.
type Client interface {
	Name() string
	Run(l Load) (Stats, error)
}

// A ClientSpec is one row of the clients table.
type ClientSpec struct {
	Name string // as the clients command's -clients names it
	// Binary is the command. A client from a Debian package is looked up
	// on the PATH (internal/deps names its package); one the project
	// builds is in bin/.
	Binary string
	Built  string // how bin/Binary is built; "": a Debian package's
	// parse reads what the client printed into Stats, or says what
	// failed: its requests, or the reading.
	parse func(out []byte) (Stats, error)
}

// Clients is the clients table, in the order a make compare WHAT=clients round runs
// them by default.
var Clients = []ClientSpec{
	{Name: "loadgen", Binary: "loadgen", Built: "go build ./bench/cmd/loadgen (the harness builds it)", parse: parseLoadgen},
	{Name: "wrk", Binary: "wrk", parse: parseWrk},
	{Name: "h2load", Binary: "h2load", parse: parseH2load},
	{Name: "bombardier", Binary: "bombardier", Built: "make bin/bombardier (v1.2.6, with the Go toolchain)", parse: parseBombardier},
	{Name: "hey", Binary: "hey", parse: parseHey},
}

// ClientNames lists the names of the clients table, in its order.
var ClientNames = func() []string {
	v := make([]string, len(Clients))
	for i, c := range Clients {
		v[i] = c.Name
	}
	return v
}()

// Package returns the Debian package that installs c, or "" for a client
// the project builds.
func (c ClientSpec) Package() string {
	if c.Built != "" {
		return ""
	}
	return deps.Package(c.Binary)
}

// clientSpec returns the row of the clients table named name; the adapters
// name only rows that exist.
func clientSpec(name string) ClientSpec {
	i := slices.IndexFunc(Clients, func(c ClientSpec) bool { return c.Name == name })
	if i < 0 {
		panic("bench: no client " + name + " in the clients table")
	}
	return Clients[i]
}

// find returns the path of c's program as cfg places it, or, when it is
// not installed, "" and why. bin/loadgen is built when missing;
// bombardier is the version bin/ pins, not whatever is on the PATH.
func (c ClientSpec) find(cfg Config) (bin, why string, err error) {
	switch {
	case c.Name == "loadgen":
		bin, err := cfg.Binary("loadgen")
		return bin, "", err
	case c.Built != "":
		bin := filepath.Join(cfg.Root, "bin", c.Binary)
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Sprintf("%s is not installed: %s installs it", c.Binary, c.Built), nil
		}
		return bin, "", nil
	}
	bin, err = exec.LookPath(c.Binary)
	if err != nil {
		return "", deps.NotInstalled(c.Binary), nil
	}
	return bin, "", nil
}

// runTimed runs the client of the table named name (bin, or its Binary
// on the PATH) pinned to cpus, and reads its output with the table's
// parser; a non-zero exit is an error of its own. Stats carries the
// client's CPU time even with an error from the parser.
func runTimed(name, bin, cpus string, args []string, url string) (Stats, error) {
	return runTimedEnv(name, bin, cpus, nil, args, url)
}

// runTimedEnv is runTimed with more environment variables for the client
// (OPENSSL_CONF, for the TLS bench's protocol version and tickets).
func runTimedEnv(name, bin, cpus string, env, args []string, url string) (Stats, error) {
	c := clientSpec(name)
	out, t, err := runEnv(env, cpus, cmp.Or(bin, c.Binary), args...)
	if err != nil {
		return Stats{}, fmt.Errorf("bench: %s against %s: %v", name, url, err)
	}
	st, err := c.parse(out)
	st.ClientCPU, st.ClientUser = t.CPU(), t.User
	return st, err
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
	return closedLoop(c, l)
}

// closedLoop refuses what only loadgen does: a fixed rate, a warm-up on
// the measured connections, an HdrHistogram log.
func closedLoop(c Client, l Load) error {
	if l.Rate > 0 || l.Warmup > 0 || l.Log != "" || l.Spin {
		return fmt.Errorf("bench: %s cannot hold a fixed rate, warm up its connections or write an HdrHistogram log; loadgen can", c.Name())
	}
	return nil
}

// limited is a client that cannot run every mode.
type limited interface {
	Unsupported(m Mode) string // why not, or "" when it can
}

// atois reads decimal integers, 0 for any that is not one.
func atois(v []string) []int64 {
	n := make([]int64, len(v))
	for i, s := range v {
		n[i], _ = strconv.ParseInt(s, 10, 64)
	}
	return n
}

// parseUnit reads a duration printed as a number and a unit (us, ms, s,
// m).
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
	return runEnv(nil, cpus, name, args...)
}

// runEnv is run with more environment variables, NAME=value.
func runEnv(env []string, cpus, name string, args ...string) ([]byte, proc.Times, error) {
	procs := 1
	if list, err := proc.ParseCPUs(cpus); err == nil && cpus != "" {
		procs = len(list)
	}
	return proc.Run(proc.Spec{Name: filepath.Base(name), Path: name, Args: args, Env: env, CPUs: cpus, Procs: procs})
}

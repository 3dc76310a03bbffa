// Package bench measures each hellobench server's ceiling on one core: it
// starts a target from the table (internal/targets) pinned to the server's
// CPUs with GOMAXPROCS, drives it with a load generator pinned to other
// CPUs, and reads the target's CPU time and peak memory from /proc
// (internal/proc). The ceiling benchmarks (ceiling_test.go), the versus and
// clients commands and the report writer share this code.
package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"hellobench/internal/proc"
	"hellobench/internal/targets"
	"hellobench/page"
)

// Config says where things are and how to place them on the CPUs.
type Config struct {
	Root       string // the module root, holding bin/ and servers/
	ServerCPUs string // taskset CPU list the server is pinned to; "": not pinned
	ClientCPUs string // taskset CPU list the load generator is pinned to; "": not pinned
	Procs      int    // the server's GOMAXPROCS; 0: 1
	// StartTimeout bounds the wait for a server to serve.
	StartTimeout time.Duration
	// Vars are more environment variables for the servers, NAME=value.
	Vars []string
	// TLSCert and TLSKey (PEM files, internal/certs) make a target with
	// TLS serve HTTPS; H2C makes one with H2C serve HTTP/2 in cleartext
	// (BenchmarkTLS); NoTickets starts one serving HTTPS without session
	// tickets.
	TLSCert, TLSKey string
	// H3, with a certificate, serves HTTP/3 too on a target that has it.
	H3        bool
	NoTickets bool
	H2C       bool
}

// DefaultConfig finds the module root from the working directory and pins
// the server to CPU 0 with GOMAXPROCS=1 and the client to CPU 1, or as the
// environment says: SERVER_CPUS and CLIENT_CPUS (taskset CPU lists) and
// PROCS (the server's GOMAXPROCS), as the Makefile passes them.
func DefaultConfig() (Config, error) {
	root, err := FindRoot()
	if err != nil {
		return Config{}, err
	}
	c := Config{Root: root, ServerCPUs: "0", ClientCPUs: "1", Procs: 1, StartTimeout: 15 * time.Second}
	if runtime.NumCPU() < 2 {
		// One core cannot separate server and client: run unpinned (the
		// figures then measure both together; fine for a smoke run only).
		c.ServerCPUs, c.ClientCPUs = "", ""
	}
	for name, dst := range map[string]*string{"SERVER_CPUS": &c.ServerCPUs, "CLIENT_CPUS": &c.ClientCPUs} {
		if v := os.Getenv(name); v != "" {
			if _, err := proc.ParseCPUs(v); err != nil {
				return Config{}, fmt.Errorf("bench: %s=%s: %v", name, v, err)
			}
			*dst = v
		}
	}
	if v := os.Getenv("PROCS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return Config{}, fmt.Errorf("bench: PROCS=%s: want a positive number", v)
		}
		c.Procs = n
	}
	return c, nil
}

// FindRoot returns the nearest directory at or above the working directory
// whose go.mod declares module hellobench.
func FindRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module hellobench\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("bench: no hellobench go.mod at or above the working directory")
		}
		dir = parent
	}
}

// ErrMissing marks a server or tool that is not installed: the benchmarks
// skip it rather than fail.
var ErrMissing = targets.ErrMissing

// Binary returns the path of bin/<name> under the root for a target or a
// tool of bench/cmd, building it with go build when it is missing.
func (c Config) Binary(name string) (string, error) {
	bin := filepath.Join(c.Root, "bin")
	t, err := targets.Lookup(name)
	if err != nil {
		// Not a target: a tool.
		if _, serr := os.Stat(filepath.Join(c.Root, "bench", "cmd", name)); serr != nil {
			return "", fmt.Errorf("bench: %w", err)
		}
		t = targets.Target{Name: name, Package: "./bench/cmd/" + name}
	}
	path, err := t.Binary(c.Root, bin)
	if err != nil {
		return "", fmt.Errorf("bench: %v", err)
	}
	return path, nil
}

// A Server is a started target, serving on Addr.
type Server struct {
	*targets.Instance
}

// PID returns the PID of the process the target was started as.
func (s *Server) PID() int { return s.Proc.PID() }

// Stderr returns what the server has written so far.
func (s *Server) Stderr() string { return strings.TrimSpace(s.Proc.Output().String()) }

// BareSuffix, after a target's name, starts it bare: as its stack is out
// of the box, without the server's own framing guards ("fasthttp/bare").
const BareSuffix = "/bare"

// TwinSuffix, after a target's name, starts a second instance of it
// measured as a target of its own ("nginx/aa"): an A/A comparison, whose
// ratio to the first is the run's noise.
const TwinSuffix = "/aa"

// QuietSuffix, after a target's name, starts another instance of it that
// the latency benchmarks hold without the host's stall meter running
// ("nginx/quiet"): set beside the instance held with it, the meter's cost.
const QuietSuffix = "/quiet"

// InlineSuffix, after a target's name, starts it with its handler's wait
// on its event loop ("gnet/inline"): the naive form, which blocks the loop.
const InlineSuffix = "/inline"

// Work is the handler work a server is started with (-work-cpu and
// -work-wait); the zero Work is none.
type Work = page.Work

// Start starts the named target pinned to c.ServerCPUs with GOMAXPROCS
// c.Procs on addr (a free loopback port when empty) and waits until it
// serves. The error names the target and carries its output when it exits
// or never serves.
func (c Config) Start(name, addr string) (*Server, error) {
	return c.StartWith(name, addr, Work{})
}

// lookup returns the table's row for a target's base name.
func lookup(name string) (targets.Target, error) {
	t, err := targets.Lookup(name)
	if err != nil {
		return t, fmt.Errorf("bench: %v", err)
	}
	return t, nil
}

// StartWith is Start with the handler doing w before it answers.
func (c Config) StartWith(name, addr string, w Work) (*Server, error) {
	base, _ := strings.CutSuffix(name, TwinSuffix)
	base, _ = strings.CutSuffix(base, QuietSuffix)
	base, inline := strings.CutSuffix(base, InlineSuffix)
	base, bare := strings.CutSuffix(base, BareSuffix)
	t, err := lookup(base)
	if err != nil {
		return nil, err
	}
	env := targets.Env{Root: c.Root, Addr: addr, CPUs: c.ServerCPUs, Procs: c.Procs, StartTimeout: c.StartTimeout, Bare: bare,
		Work: w, WaitInline: inline, Vars: c.Vars, TLSCert: c.TLSCert, TLSKey: c.TLSKey, NoTickets: c.NoTickets, H2C: c.H2C, H3: c.H3}
	if t.Package != "" {
		if _, err := c.Binary(base); err != nil {
			return nil, err
		}
	}
	in, err := t.Start(env)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	s := &Server{in}
	s.Name = name
	return s, nil
}

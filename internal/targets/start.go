package targets

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"hellobench/internal/proc"
	"hellobench/page"
)

// An Env is where and how to start a target.
type Env struct {
	Root string // the module root, holding servers/ and the configs
	Bin  string // the directory holding the target's built binary
	Addr string // host:port to listen on; "": a free loopback port
	// HeaderTimeout and IdleTimeout are the contract's two timeouts; zero:
	// the target's defaults.
	HeaderTimeout, IdleTimeout time.Duration
	CPUs                       string // taskset CPU list the target is pinned to; "": not pinned
	Procs                      int    // GOMAXPROCS; 0: 1
	NoFile                     int    // the target's open-file limit; 0: inherited
	// Bare serves as the stack does out of the box, without the server's
	// own framing guards (for the robustness report).
	Bare bool
	// Work is the work the handler does before each answer (-work-cpu,
	// -work-wait); zero: none, and no flag is given.
	Work page.Work
	// WaitInline makes that wait block the server's event loop
	// (-work-wait-inline), where the target has one (Target.WaitInline).
	WaitInline bool
	// TLSCert and TLSKey, PEM files (package certs writes a pair), make
	// a target with TLS serve HTTPS; "": plain HTTP.
	TLSCert, TLSKey string
	// NoTickets makes a target serving HTTPS issue no session tickets,
	// so that every new connection is a full handshake, in TLS 1.3 too.
	NoTickets bool
	// H2C makes a target with H2C serve HTTP/2 over cleartext to clients
	// with prior knowledge too.
	H2C bool
	// H3 makes a target with H3 serving HTTPS serve HTTP/3 too, on the
	// same port over UDP.
	H3 bool
	// StartTimeout bounds the wait until it serves; 0: 15 s.
	StartTimeout time.Duration
	// Echo, when set, receives the target's output as it is written.
	Echo io.Writer
	// Vars are more environment variables, NAME=value (GODEBUG=gctrace=1
	// for a Go runtime's collections).
	Vars []string
}

// A launch is what a row's launch function returns: the program and how
// to call it; Start adds the pinning, GOMAXPROCS and the process group.
type launch struct {
	path string
	args []string
	env  []string
	dir  string
}

// ErrMissing marks a target whose program is not installed: callers skip
// it (or fail, when every tool is required).
var ErrMissing = errors.New("missing")

// An Instance is a started target, serving on Addr.
type Instance struct {
	Target
	Addr string
	Proc *proc.Process
	// HTTPS says it serves HTTPS, with Env's certificate.
	HTTPS bool
	dir   string // the target's private temporary files
}

// URL returns the page's URL on the instance.
func (in *Instance) URL() string {
	if in.HTTPS {
		return "https://" + in.Addr + "/hello/world"
	}
	return "http://" + in.Addr + "/hello/world"
}

// grace is how long a graceful stop may take; the contract gives 5 s.
const grace = 5 * time.Second

// Start starts t as e says, in its own process group, and waits until it
// serves. Its files (configs, sockets, TMPDIR) live in a private directory
// that Stop removes. When e.Addr is empty, Start picks a free loopback
// port, and picks again if another process takes it before t listens.
func (t Target) Start(e Env) (*Instance, error) {
	if e.Bare {
		if err := t.CheckBare(); err != nil {
			return nil, err
		}
	}
	if err := t.checkWork(e); err != nil {
		return nil, err
	}
	if err := t.checkTLS(e); err != nil {
		return nil, err
	}
	if e.Addr != "" {
		return t.startAt(e)
	}
	var err error
	for range 3 {
		var in *Instance
		if in, err = t.startAt(e); err == nil || !strings.Contains(err.Error(), "already in use") {
			return in, err
		}
	}
	return nil, err
}

// checkWork returns an error unless t takes the work e asks for, and the
// work is in range.
func (t Target) checkWork(e Env) error {
	if e.Work == (page.Work{}) && !e.WaitInline {
		return nil
	}
	if err := t.CheckWork(); err != nil {
		return err
	}
	if e.WaitInline {
		if err := t.CheckWaitInline(); err != nil {
			return err
		}
	}
	if err := e.Work.Check(); err != nil {
		return fmt.Errorf("%s: %v", t.Name, err)
	}
	return nil
}

// checkTLS returns an error unless t serves the HTTPS, h2c and HTTP/3 e
// asks for, with both files of a pair.
func (t Target) checkTLS(e Env) error {
	if (e.TLSCert == "") != (e.TLSKey == "") {
		return fmt.Errorf("%s: a TLS certificate and key go together: got certificate %q, key %q", t.Name, e.TLSCert, e.TLSKey)
	}
	if e.NoTickets && e.TLSCert == "" {
		return fmt.Errorf("%s: no session tickets is about HTTPS: give a TLS certificate and key", t.Name)
	}
	if e.TLSCert != "" {
		if err := t.CheckTLS(); err != nil {
			return err
		}
	}
	if e.H3 {
		if err := t.CheckH3(); err != nil {
			return err
		}
		if e.TLSCert == "" {
			return fmt.Errorf("%s: HTTP/3 runs over TLS 1.3: give a TLS certificate and key", t.Name)
		}
	}
	if e.H2C {
		return t.CheckH2C()
	}
	return nil
}

// startAt starts t on e.Addr, or a free port when it is empty.
func (t Target) startAt(e Env) (*Instance, error) {
	if err := freeAddr(&e.Addr); err != nil {
		return nil, fmt.Errorf("%s: %v", t.Name, err)
	}
	dir, err := os.MkdirTemp("", "hellobench-"+t.Name+"-")
	if err != nil {
		return nil, fmt.Errorf("%s: %v", t.Name, err)
	}
	// Servers started by root may run as nobody, which must reach it.
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	in, err := t.start(e, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return in, nil
}

func (t Target) start(e Env, dir string) (*Instance, error) {
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o1777); err != nil {
		return nil, err
	}
	os.Chmod(tmp, 0o1777) // the umask took the sticky and write bits
	if e.Bin == "" {
		e.Bin = filepath.Join(e.Root, "bin")
	}
	l, err := t.launch(t, e, dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	procs := e.Procs
	if procs <= 0 {
		procs = 1
	}
	p, err := proc.Start(proc.Spec{
		Name: t.Name, Path: l.path, Args: l.args, Env: append(append(l.env, e.Vars...), "TMPDIR="+tmp), Dir: l.dir,
		CPUs: e.CPUs, Procs: procs, NoFile: e.NoFile, Echo: e.Echo,
		Stop: t.Stop, DeathSig: t.DeathSig,
	})
	if err != nil {
		return nil, err
	}
	in := &Instance{Target: t, Addr: e.Addr, Proc: p, HTTPS: e.TLSCert != "", dir: dir}
	timeout := e.StartTimeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	if err := p.WaitListening(e.Addr, t.Ready, timeout); err != nil {
		p.Kill()
		return nil, err
	}
	return in, nil
}

// Stop stops the instance gracefully (its Stop signal), kills what is
// left after the grace period, proves nothing of it is left and removes
// its files. It reports what survived, and any temporary file the target
// left behind.
func (in *Instance) Stop() error {
	err := in.Proc.Stop(in.Target.Stop, grace)
	var left []string
	if in.dir != "" {
		left, _ = filepath.Glob(filepath.Join(in.dir, "tmp", "*"))
		os.RemoveAll(in.dir)
	}
	if err == nil && len(left) > 0 {
		err = fmt.Errorf("%s left temporary files behind: %v", in.Name, left)
	}
	return err
}

// Usage returns the CPU time and memory of the target's counted processes.
func (in *Instance) Usage() (proc.Usage, error) {
	return in.Proc.Usage(in.Counted...)
}

// freeAddr fills in a free loopback address when *addr is empty, and
// otherwise checks that *addr is free.
func freeAddr(addr *string) error {
	a := *addr
	if a == "" {
		a = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", a)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("port %s already in use by another process", a)
		}
		return fmt.Errorf("cannot listen on %s: %v", a, err)
	}
	if *addr == "" {
		*addr = ln.Addr().String()
	}
	return ln.Close()
}

// FreeAddr returns a loopback address whose port was free a moment ago,
// for a server to listen on: another process may take it first, which the
// server's start then reports as "already in use". For a port that must
// refuse connections, a test holds one (internal/testnet).
func FreeAddr() (string, error) {
	var a string
	err := freeAddr(&a)
	return a, err
}

// seconds rounds d up to whole seconds, lighttpd's unit for timeouts.
func seconds(d time.Duration) string {
	return strconv.Itoa(int((d + time.Second - 1) / time.Second))
}

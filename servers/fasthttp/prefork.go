package main

import (
	"errors"
	"flag"
	"log"
	"net"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/prefork"
)

// Prefork, fasthttp's multi-core form. With -prefork this process is the
// parent: github.com/valyala/fasthttp/prefork starts one child per P,
// running this command again, and each child serves at GOMAXPROCS=1 on a
// listener of its own, bound with SO_REUSEPORT so that the kernel spreads
// new connections over the children.
//
// The package restarts a child that exits, and has no way to stop: its
// supervisor returns only when starting a child fails or children exit too
// often. So the parent starts the children itself (CommandProducer). On a
// signal it refuses to start more, which ends the supervisor at the first
// child that exits, and sends each child SIGTERM, on which the child drains
// as the single-process server does. A child also gets a pipe on which it
// says that it listens, so that the start line means every child serves.

const (
	// childEnv marks a child, for prefork.IsChild; a CommandProducer must
	// set it, says the package.
	childEnv = "FASTHTTP_PREFORK_CHILD=1"
	// readyFD is a child's end of its ready pipe: the first ExtraFiles
	// entry. (With Reuseport the package passes no file of its own.)
	readyFD = 3
	// killAfter is how long after the signal the parent kills children
	// still running: they drain for up to 4 s, and the contract allows 5 s
	// from the signal to the exit.
	killAfter = 4500 * time.Millisecond
)

var errStopping = errors.New("stopping: no new child")

// preforkFlag registers -prefork.
func preforkFlag() *bool {
	return flag.Bool("prefork", false, "serve with fasthttp's prefork package: this process starts one child process per GOMAXPROCS core,\n"+
		"each running this command at GOMAXPROCS=1 on its own SO_REUSEPORT listener (tcp4, or tcp6 for an IPv6 address,\n"+
		"with TCP_DEFER_ACCEPT), logs the start line once all of them listen, and stops them gracefully on SIGINT or SIGTERM")
}

// network is the prefork network for addr: its reuseport listener takes
// tcp4 or tcp6 only.
func network(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err == nil && ip != nil && ip.To4() == nil {
		return "tcp6"
	}
	return "tcp4"
}

// child serves as one prefork child, on the listener the package opens.
func child(srv *fasthttp.Server, addr string, bare bool, sig chan os.Signal) {
	p := prefork.New(srv)
	p.Reuseport = true
	p.Network = network(addr)
	p.Logger = logger{}
	// A parent gone (killed) leaves no one to stop this child: drain.
	p.OnMasterDeath = func() {
		select {
		case sig <- syscall.SIGTERM:
		default: // a signal is pending already
		}
	}
	p.ServeFunc = func(ln net.Listener) error {
		// Only a pipe: a child started by hand has no readyFD, and the
		// descriptor may then be its listener.
		var st syscall.Stat_t
		if syscall.Fstat(readyFD, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO {
			ready := os.NewFile(readyFD, "ready")
			_, _ = ready.Write([]byte{1}) // fails only if the parent is gone
			ready.Close()
		}
		return serveUntil(srv, ln, bare, sig)
	}
	if err := p.ListenAndServe(addr); err != nil {
		log.Fatalf("fasthttp: %v", err)
	}
}

// parent starts and supervises the children until a signal, and returns the
// exit code: 0 when every child stopped in time.
func parent(srv *fasthttp.Server, addr string, sig <-chan os.Signal) int {
	// With SO_REUSEPORT, a child's bind succeeds even if another server
	// holds the port with that option too; a plain bind first makes a taken
	// port an error, as for the single-process server.
	ln, err := net.Listen(network(addr), addr)
	if err != nil {
		log.Printf("fasthttp: %v", err)
		return 1
	}
	bound := ln.Addr().String()
	ln.Close()

	s := &supervisor{addr: bound, procs: runtime.GOMAXPROCS(0)}
	p := prefork.New(srv)
	p.Reuseport = true
	p.Network = network(addr)
	p.Logger = s
	p.CommandProducer = s.start
	p.ShutdownGracePeriod = killAfter // s.stop kills first, from the signal on
	go func() {
		<-sig
		s.stop()
	}()
	err = p.ListenAndServe(addr)
	if !s.stopping.Load() {
		log.Printf("fasthttp: prefork: %v", err)
		return 1
	}
	// Every child has exited: the package waits for them. If the kill
	// timer fired, its callback holds mu until it has killed or found gone
	// each child.
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kill.Stop()
	if s.killed {
		return 1
	}
	return 0
}

// A supervisor starts the children and stops them.
type supervisor struct {
	addr      string // for the start line
	procs     int    // children to wait for before the start line
	listening atomic.Int64
	stopping  atomic.Bool

	mu       sync.Mutex
	children []*os.Process
	kill     *time.Timer // kills the children still running
	killed   bool
}

// start starts a child: this command again, with the child marker and a
// ready pipe. It is the prefork.CommandProducer.
func (s *supervisor) start([]*os.File) (*exec.Cmd, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping.Load() {
		return nil, errStopping
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), childEnv)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{w} // readyFD
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		return nil, err
	}
	s.children = append(s.children, cmd.Process)
	go s.await(r)
	return cmd, nil
}

// await reads a child's ready pipe, and logs the start line when the
// children all listen. A child that exits before it listens closes the
// pipe with nothing written.
func (s *supervisor) await(r *os.File) {
	defer r.Close()
	var b [1]byte
	if n, _ := r.Read(b[:]); n == 1 && s.listening.Add(1) == int64(s.procs) {
		log.Printf("fasthttp: listening on %s (GOMAXPROCS=%d)", s.addr, s.procs)
	}
}

// stop starts no child more, sends each child SIGTERM, and kills those
// still running after killAfter.
func (s *supervisor) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopping.Store(true)
	children := s.children
	for _, c := range children {
		_ = c.Signal(syscall.SIGTERM) // ErrProcessDone: gone already
	}
	s.kill = time.AfterFunc(killAfter, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range children {
			if c.Kill() == nil {
				log.Printf("fasthttp: child %d still running %v after the signal: killed", c.Pid, killAfter)
				s.killed = true
			}
		}
	})
}

// Printf logs the prefork package's reports (a child that exited, one that
// could not start) while serving; when stopping they are expected.
func (s *supervisor) Printf(format string, args ...any) {
	if !s.stopping.Load() {
		log.Printf("fasthttp: "+format, args...)
	}
}

// logger logs a prefork child's reports (its parent gone).
type logger struct{}

func (logger) Printf(format string, args ...any) { log.Printf("fasthttp: "+format, args...) }

// Package bench measures each hellobench server's ceiling on one core: it
// starts a server pinned to one CPU with GOMAXPROCS=1, drives it with a load
// generator pinned to another, and reads the server's CPU time and peak
// memory from /proc. The ceiling benchmarks (ceiling_test.go), the versus
// command and the report writer share this code.
package bench

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Go lists the Go servers, in report order. Each takes -addr.
var Go = []string{"nethttp", "gin", "fasthttp", "fiber", "gnet", "fcgi"}

// Refs lists the reference rows: the C servers and the floor.
var Refs = []string{"nginx", "lighttpd-static", "floor"}

// sources maps a binary of bin/ to the package that builds it.
var sources = map[string]string{
	"nethttp":  "./servers/nethttp",
	"fasthttp": "./servers/fasthttp",
	"fiber":    "./servers/fiber",
	"gin":      "./servers/gin",
	"gnet":     "./servers/gnet",
	"fcgi":     "./servers/fcgi",
	"loadgen":  "./bench/cmd/loadgen",
	"floor":    "./bench/cmd/floor",
}

// Config says where things are and how to place them on the CPUs.
type Config struct {
	Root      string // the module root, holding bin/ and servers/
	ServerCPU int    // core the server is pinned to; -1: not pinned
	ClientCPU int    // core the load generator is pinned to; -1: not pinned
	// StartTimeout bounds the wait for a server to accept connections.
	StartTimeout time.Duration
}

// DefaultConfig finds the module root from the working directory and pins
// the server to CPU 0 and the client to CPU 1.
func DefaultConfig() (Config, error) {
	root, err := FindRoot()
	if err != nil {
		return Config{}, err
	}
	c := Config{Root: root, ServerCPU: 0, ClientCPU: 1, StartTimeout: 15 * time.Second}
	if runtime.NumCPU() < 2 {
		// One core cannot separate server and client: run unpinned (the
		// figures then measure both together; fine for a smoke run only).
		c.ServerCPU, c.ClientCPU = -1, -1
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

// ErrMissing marks a server or tool that is not installed or not yet in the
// tree: the benchmarks skip it rather than fail.
var ErrMissing = errors.New("missing")

var buildMu sync.Mutex

// Binary returns the path of bin/<name> under the root, building it with
// go build when it is missing.
func (c Config) Binary(name string) (string, error) {
	path := filepath.Join(c.Root, "bin", name)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	src, ok := sources[name]
	if !ok {
		return "", fmt.Errorf("bench: no binary %s and no source known for it", name)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if _, err := os.Stat(filepath.Join(c.Root, src)); err != nil {
		return "", fmt.Errorf("bench: %s: not yet in the tree (%s %w)", name, src, ErrMissing)
	}
	cmd := exec.Command("go", "build", "-o", path, src)
	cmd.Dir = c.Root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("bench: go build %s: %v\n%s", src, err, out)
	}
	return path, nil
}

// A Server is a started server process (and, for fcgi, the application
// lighttpd spawned), pinned and listening on Addr.
type Server struct {
	Name string
	Addr string // host:port on the loopback interface

	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan struct{} // closed once cmd has exited
	err    error         // cmd's exit status, once exited is closed
	dir    string        // temporary files, removed by Stop
	app    int           // PID of the fcgi application, or 0
}

// URL returns the page's URL on the server.
func (s *Server) URL() string { return "http://" + s.Addr + "/hello/world" }

// PID returns the server process's PID.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// AppPID returns the PID of the FastCGI application behind lighttpd, or 0.
func (s *Server) AppPID() int { return s.app }

// Stderr returns what the server has written so far.
func (s *Server) Stderr() string { return s.stderr.String() }

// FreeAddr returns a loopback address with a port nobody listens on now.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Start starts the named server pinned to c.ServerCPU with GOMAXPROCS=1 on
// addr (a free loopback port when empty) and waits until it accepts
// connections. The error names the server and carries its stderr when it
// exits or never listens.
func (c Config) Start(name, addr string) (*Server, error) {
	if addr == "" {
		var err error
		if addr, err = FreeAddr(); err != nil {
			return nil, fmt.Errorf("bench: %s: no free port: %v", name, err)
		}
	} else if err := checkFree(addr); err != nil {
		return nil, fmt.Errorf("bench: %s: %v", name, err)
	}
	s := &Server{Name: name, Addr: addr, stderr: &syncBuffer{}, exited: make(chan struct{})}
	dir, err := os.MkdirTemp("", "hellobench-"+name+"-")
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %v", name, err)
	}
	s.dir = dir
	s.cmd, err = c.command(name, addr, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.cmd.Env = append(s.cmd.Env, "GOMAXPROCS=1")
	s.cmd.Stdout = s.stderr
	s.cmd.Stderr = s.stderr
	// Its own process group, so that Stop reaches every child too.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A child that inherited the output pipe must not keep Wait from
	// seeing the server exit.
	s.cmd.WaitDelay = 100 * time.Millisecond
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("bench: start %s: %v", name, err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitListening(c.StartTimeout); err != nil {
		s.Stop()
		return nil, err
	}
	if name == "fcgi" {
		// lighttpd may listen a moment before it spawns the application.
		for deadline := time.Now().Add(5 * time.Second); s.app == 0 && time.Now().Before(deadline); {
			if s.app = child(s.PID()); s.app == 0 {
				time.Sleep(10 * time.Millisecond)
			}
		}
		if s.app == 0 {
			s.Stop()
			return nil, fmt.Errorf("bench: fcgi: lighttpd is listening but spawned no application\n%s", s.Stderr())
		}
	}
	return s, nil
}

// checkFree reports a clear error when addr is already in use.
func checkFree(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("port %s already in use by another process", addr)
		}
		return fmt.Errorf("cannot listen on %s: %v", addr, err)
	}
	return ln.Close()
}

func (s *Server) waitListening(timeout time.Duration) error {
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", s.Addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("bench: %s exited before listening on %s (%v); its output:\n%s", s.Name, s.Addr, s.err, s.Stderr())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("bench: %s not listening on %s after %v: %v; its output:\n%s", s.Name, s.Addr, timeout, err, s.Stderr())
		}
	}
}

// grace is how long Stop waits after SIGTERM before SIGKILL; the contract
// gives servers 5 s to exit.
const grace = 5 * time.Second

// Stop ends the server's whole process group (SIGTERM, then SIGKILL after a
// grace period), waits until no process of the group is left and removes the
// temporary files. It returns an error if a process survives.
func (s *Server) Stop() error {
	pgid := s.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(grace):
	}
	// The leader is gone or overdue; its children (lighttpd's application)
	// must not outlive it either.
	syscall.Kill(-pgid, syscall.SIGKILL)
	<-s.exited
	defer os.RemoveAll(s.dir)
	if !waitGone(pgid) {
		return fmt.Errorf("bench: %s: processes of group %d still running after SIGKILL", s.Name, pgid)
	}
	return nil
}

// waitGone waits up to 2 s for process group pgid to be empty after a
// SIGKILL, and reports whether it is.
func waitGone(pgid int) bool {
	for deadline := time.Now().Add(2 * time.Second); GroupAlive(pgid); {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// GroupAlive reports whether any live (not zombie) process is in process
// group pgid.
func GroupAlive(pgid int) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, _, pg, ok := stat(pid)
		if ok && pg == pgid && state != "Z" && state != "X" {
			return true
		}
	}
	return false
}

// Alive reports whether pid is a live (not zombie) process.
func Alive(pid int) bool {
	state, _, _, ok := stat(pid)
	return ok && state != "Z" && state != "X"
}

// child returns the PID of a live child of ppid, or 0.
func child(ppid int) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, pp, _, ok := stat(pid)
		if ok && pp == ppid && state != "Z" {
			return pid
		}
	}
	return 0
}

// stat returns the state, parent and process group of pid.
func stat(pid int) (state string, ppid, pgid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, 0, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return "", 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return "", 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	pgid, _ = strconv.Atoi(f[2])
	return f[0], ppid, pgid, true
}

// syncBuffer collects a process's output for error messages.
type syncBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	// Keep the first 64 KiB: enough for any start-up error.
	if n := 64<<10 - len(b.b); n > 0 {
		b.b = append(b.b, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSpace(string(b.b))
}

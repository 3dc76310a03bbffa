//go:build linux

package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"hellobench/internal/deps"
)

// A Spec says what to run and where.
type Spec struct {
	Name string   // for messages: "nethttp", "wrk"
	Path string   // the program
	Args []string // its arguments
	Env  []string // added to this process's environment
	Dir  string   // working directory; "": this process's

	CPUs  string // taskset's CPU list ("0", "0-3", "0,2"); "": not pinned
	Procs int    // GOMAXPROCS; 0: not set
	// NoFile, when positive, is the open-file limit (soft and hard) the
	// process starts with, set by prlimit(1).
	NoFile int
	// Echo, when set, also receives everything the process writes.
	Echo io.Writer
	// Stop is the process's graceful stop, sent when the harness is
	// interrupted (Handle); 0: SIGTERM.
	Stop syscall.Signal
	// DeathSig is what the kernel sends the process when the harness dies;
	// 0: SIGKILL. A process that must stop children of its own (a shell
	// script, a master process) is given its stop signal instead.
	DeathSig syscall.Signal
}

// command builds the exec.Cmd for s: prlimit and taskset exec the program,
// so the PID is the program's own. When cgroup is not empty, a shell first
// moves itself into that group and then execs the rest, so that every
// process of the command is in it from its first instruction.
func (s Spec) command(cgroup string) (*exec.Cmd, error) {
	argv := append([]string{s.Path}, s.Args...)
	if s.CPUs != "" {
		ts, err := exec.LookPath("taskset")
		if err != nil {
			return nil, fmt.Errorf("proc: %s: pinning to CPUs %s: %s: %w", s.Name, s.CPUs, deps.NotInstalled("taskset"), err)
		}
		argv = append([]string{ts, "-c", s.CPUs}, argv...)
	}
	if s.NoFile > 0 {
		pl, err := exec.LookPath("prlimit")
		if err != nil {
			return nil, fmt.Errorf("proc: %s: an open-file limit: %s: %w", s.Name, deps.NotInstalled("prlimit"), err)
		}
		n := strconv.Itoa(s.NoFile)
		argv = append([]string{pl, "--nofile=" + n + ":" + n, "--"}, argv...)
	}
	if cgroup != "" {
		argv = append([]string{"/bin/sh", "-c", `echo $$ > "$0" && exec "$@"`, filepath.Join(cgroup, "cgroup.procs")}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), s.Env...)
	if s.Procs > 0 {
		cmd.Env = append(cmd.Env, "GOMAXPROCS="+strconv.Itoa(s.Procs))
	}
	// Its own process group, so that a stop reaches every child too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A child that inherited the output pipe must not keep Wait from
	// seeing the process exit.
	cmd.WaitDelay = 100 * time.Millisecond
	return cmd, nil
}

// A Process is a started command, the leader of its own process group.
type Process struct {
	Name   string
	cmd    *exec.Cmd
	out    *Output
	cgroup string        // its control group; "": none
	exited chan struct{} // closed once the leader has exited
	err    error         // its exit status, once exited is closed
}

// Start starts s in its own process group (and, where this machine allows,
// its own control group, for its CPU time), its stdout and stderr kept
// together in the process's Output. It dies with the harness (Pdeathsig).
func Start(s Spec) (*Process, error) {
	var group string
	if c := cgroups(); c != nil {
		var err error
		if group, err = c.make(s.Name); err != nil {
			return nil, fmt.Errorf("proc: %s: a control group: %w", s.Name, err)
		}
	}
	cmd, err := s.command(group)
	if err != nil {
		removeGroup(group)
		return nil, err
	}
	p := &Process{Name: s.Name, cmd: cmd, out: &Output{}, cgroup: group, exited: make(chan struct{})}
	var w io.Writer = p.out
	if s.Echo != nil {
		w = io.MultiWriter(p.out, s.Echo)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := startCmd(cmd, s.DeathSig); err != nil {
		removeGroup(group)
		return nil, fmt.Errorf("proc: start %s: %w", s.Name, err)
	}
	register(cmd.Process.Pid, s.Name, s.Stop)
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// PID returns the leader's PID, which is also the process group's ID.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Output returns what the process has written so far.
func (p *Process) Output() *Output { return p.out }

// Exited is closed once the leader has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitCode returns the leader's exit status once it has exited: its code,
// or -1 with the error when it was killed by a signal or never ran.
func (p *Process) ExitCode() (int, error) {
	<-p.exited
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0, nil
	case errors.As(p.err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode(), nil
	default:
		return -1, p.err
	}
}

// Signal sends sig to the leader only.
func (p *Process) Signal(sig syscall.Signal) error {
	return p.cmd.Process.Signal(sig)
}

// WaitListening waits until addr accepts TCP connections and, when ready is
// not nil, the output has a line matching it. The error names the process
// and carries its output when it exits first or the timeout passes.
func (p *Process) WaitListening(addr string, ready *regexp.Regexp, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			if ready == nil || ready.MatchString(p.out.String()) {
				return nil
			}
			err = fmt.Errorf("listening, but no line matching %q yet", ready)
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited before listening on %s (%v); its output:\n%s", p.Name, addr, p.err, p.out)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not listening on %s after %v: %v; its output:\n%s", p.Name, addr, timeout, err, p.out)
		}
	}
}

// Stop sends sig (the process's graceful stop) to the leader and waits up
// to grace for it to exit, then kills whatever is left of the group and
// proves that nothing of it is left. It returns an error when the leader
// had to be killed, when a process of the group outlived the leader, or
// when one survives SIGKILL.
func (p *Process) Stop(sig syscall.Signal, grace time.Duration) error {
	p.Signal(sig)
	var err error
	select {
	case <-p.exited:
		// Give the group a moment: a child may be on its way out.
		for deadline := time.Now().Add(100 * time.Millisecond); len(Group(p.PID())) > 0 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		if left := Group(p.PID()); len(left) > 0 {
			err = fmt.Errorf("proc: %s exited on %v but left %d processes running (first: %d %s)", p.Name, sig, len(left), left[0].PID, left[0].Comm)
		}
	case <-time.After(grace):
		err = fmt.Errorf("proc: %s still running %v after %v: killed", p.Name, grace, sig)
	}
	if kerr := p.Kill(); kerr != nil {
		return kerr
	}
	return err
}

// Kill kills the whole process group at once, waits for the leader and
// proves the group is empty.
func (p *Process) Kill() error {
	pgid := p.PID()
	syscall.Kill(-pgid, syscall.SIGKILL)
	<-p.exited
	if err := WaitGone(p.Name, pgid, 2*time.Second); err != nil {
		return err
	}
	unregister(pgid)
	if p.cgroup != "" {
		if err := removeGroup(p.cgroup); err != nil {
			return fmt.Errorf("proc: %s: removing its control group: %v", p.Name, err)
		}
	}
	return nil
}

// WaitGone waits up to d for process group pgid to be empty.
func WaitGone(name string, pgid int, d time.Duration) error {
	for deadline := time.Now().Add(d); ; {
		left := Group(pgid)
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("proc: %s: %d processes of group %d still running after SIGKILL (first: %d %s)", name, len(left), pgid, left[0].PID, left[0].Comm)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A Usage is what the kernel accounts for the processes of a group.
type Usage struct {
	// CPU is the time on CPU of the process's control group (every
	// process it ever had) where it has one, else of the live processes
	// counted.
	CPU time.Duration
	// User and Sys divide CPU between user mode and the kernel where the
	// group's accounting splits it (Split: cgroup v1's usage_user and
	// usage_sys); their sum is CPU only approximately (see cgroup.go).
	User, Sys time.Duration
	Split     bool
	ByComm    map[string]time.Duration // of the live processes counted, by command name
	Source    string                   // where CPU was read from (CPUSource's names)
	Memory                             // summed over the processes counted
}

// Usage reads the CPU time and memory of the process. CPU comes from its
// control group when it has one (every thread and every child, exited ones
// too); ByComm, and CPU otherwise, from the live processes of the group
// whose command name is one of comms (every process when comms is empty),
// by schedstat in nanoseconds where the kernel has it, else in clock ticks.
func (p *Process) Usage(comms ...string) (Usage, error) {
	u := Usage{ByComm: map[string]time.Duration{}, Source: SourceSchedstat}
	n := 0
	for _, s := range Group(p.PID()) {
		if len(comms) > 0 && !slices.Contains(comms, s.Comm) {
			continue
		}
		m, err := ReadMemory(s.PID)
		if err != nil {
			continue // exited meanwhile
		}
		cpu, err := schedCPU(s.PID)
		if err != nil {
			cpu, u.Source = s.CPU(), SourceTicks
		}
		u.CPU += cpu
		u.ByComm[s.Comm] += cpu
		u.RSS += m.RSS
		u.Peak += m.Peak
		n++
	}
	if n == 0 {
		return u, fmt.Errorf("proc: %s: no live process named %q in group %d (output:\n%s)", p.Name, comms, p.PID(), p.out)
	}
	if p.cgroup != "" {
		c := cgroups()
		cpu, err := c.read(p.cgroup)
		if err != nil {
			return u, fmt.Errorf("proc: %s: %v", p.Name, err)
		}
		u.CPU, u.Source = cpu, c.source
		if c.split != nil {
			u.User, u.Sys, err = c.split(p.cgroup)
			switch {
			case err == nil:
				u.Split = true
			case !errors.Is(err, fs.ErrNotExist):
				return u, fmt.Errorf("proc: %s: %v", p.Name, err)
			}
		}
	}
	return u, nil
}

// Times is the CPU time a command used, from the kernel's rusage of the
// process and of its waited-for children.
type Times struct {
	User time.Duration // in user mode
	Sys  time.Duration // in the kernel, on the command's behalf
}

// CPU is user and system time together.
func (t Times) CPU() time.Duration { return t.User + t.Sys }

// Run runs s to completion in its own process group and returns its
// standard output and the CPU time it used. A non-zero exit is an error
// carrying its standard error (the output is returned too); anything of the
// group that outlives the command is killed, and its survival is an error.
func Run(s Spec) (stdout []byte, cpu Times, err error) {
	cmd, err := s.command("")
	if err != nil {
		return nil, Times{}, err
	}
	// Files, not pipes: Wait returns when the command exits, even if a
	// child it left behind still holds its output open.
	outF, err := os.CreateTemp("", "hellobench-run-")
	if err != nil {
		return nil, Times{}, err
	}
	defer os.Remove(outF.Name())
	defer outF.Close()
	errF, err := os.CreateTemp("", "hellobench-run-")
	if err != nil {
		return nil, Times{}, err
	}
	defer os.Remove(errF.Name())
	defer errF.Close()
	cmd.Stdout, cmd.Stderr = outF, errF
	if err = startCmd(cmd, s.DeathSig); err == nil {
		register(cmd.Process.Pid, s.Name, s.Stop)
		err = cmd.Wait()
	}
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if gone := WaitGone(s.Name, cmd.Process.Pid, 2*time.Second); gone != nil {
			return nil, Times{}, gone
		}
		unregister(cmd.Process.Pid)
	}
	out, _ := os.ReadFile(outF.Name())
	if err != nil {
		msg, _ := os.ReadFile(errF.Name())
		msg = bytes.TrimSpace(msg)
		if len(msg) == 0 {
			msg = bytes.TrimSpace(out)
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out, Times{}, &ExitError{Name: s.Name, Code: ee.ExitCode(), Stderr: string(msg)}
		}
		return nil, Times{}, fmt.Errorf("%s: %w", s.Name, err)
	}
	return out, Times{User: cmd.ProcessState.UserTime(), Sys: cmd.ProcessState.SystemTime()}, nil
}

// An ExitError is a command that ran and exited non-zero (or was killed:
// Code -1).
type ExitError struct {
	Name   string
	Code   int
	Stderr string
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("%s exited with status %d: %s", e.Name, e.Code, e.Stderr)
}

// Output collects a process's output for tests and error messages: the
// first 4 MiB, enough for any start-up error or log check.
type Output struct {
	mu sync.Mutex
	b  []byte
}

const maxOutput = 4 << 20

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := maxOutput - len(o.b); n > 0 {
		o.b = append(o.b, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

// String returns everything kept so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return string(o.b)
}

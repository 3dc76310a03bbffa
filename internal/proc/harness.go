//go:build linux

package proc

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Nothing the harness starts may outlive it. Three mechanisms see to it:
//
//   - Every command is forked with a parent-death signal (Pdeathsig), so
//     the kernel signals it when the harness dies, however it dies (SIGKILL,
//     a test binary's timeout, a crash). Linux sends the signal when the
//     *thread* that forked the child exits, so every fork happens on one
//     locked OS thread that lives as long as the process.
//   - Handle turns SIGINT and SIGTERM into a stop of every live process
//     this harness started, gracefully then for sure, and a non-zero exit.
//   - Handle also notices when the harness itself is orphaned (its parent,
//     go test or make, has died) and stops the same way.

// forker runs the functions sent to it on one OS thread locked for the
// life of the process: the parent, as far as Pdeathsig is concerned, of
// every child.
var forker = make(chan func())

func init() {
	go func() {
		runtime.LockOSThread() // never unlocked: the thread must not exit
		for f := range forker {
			f()
		}
	}()
}

// startCmd starts cmd on the forker thread, with sig as the signal the
// kernel sends it when the harness dies (SIGKILL when 0).
func startCmd(cmd *exec.Cmd, sig syscall.Signal) error {
	if sig == 0 {
		sig = syscall.SIGKILL
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = sig
	done := make(chan error)
	forker <- func() { done <- cmd.Start() }
	return <-done
}

// StartCmd starts cmd as a child that dies with the harness (Pdeathsig
// sig; SIGKILL when 0), for commands that are not a Spec, such as the go
// test runs of the report tool. Unlike Start, it leaves the process group
// and the waiting to the caller.
func StartCmd(cmd *exec.Cmd, sig syscall.Signal) error { return startCmd(cmd, sig) }

// live is every process group started and not yet seen gone, so that an
// interrupted harness can stop them.
var live = struct {
	sync.Mutex
	m map[int]liveGroup // by process group ID
}{m: map[int]liveGroup{}}

type liveGroup struct {
	name string
	stop syscall.Signal // its graceful stop
}

func register(pgid int, name string, stop syscall.Signal) {
	if stop == 0 {
		stop = syscall.SIGTERM
	}
	live.Lock()
	live.m[pgid] = liveGroup{name, stop}
	live.Unlock()
}

func unregister(pgid int) {
	live.Lock()
	delete(live.m, pgid)
	live.Unlock()
}

// StopAll sends every live group its graceful stop, waits up to grace for
// the groups to empty, kills what is left and waits for that to go. It
// returns the names of the groups it stopped.
func StopAll(grace time.Duration) []string {
	live.Lock()
	groups := make(map[int]liveGroup, len(live.m))
	for pgid, g := range live.m {
		groups[pgid] = g
	}
	live.Unlock()
	var names []string
	for pgid, g := range groups {
		syscall.Kill(-pgid, g.stop)
		names = append(names, g.name)
	}
	deadline := time.Now().Add(grace)
	for pgid := range groups {
		for len(Group(pgid)) > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
	for pgid, g := range groups {
		WaitGone(g.name, pgid, 2*time.Second)
	}
	return names
}

// orphanPoll is how often Handle looks for the harness's parent.
const orphanPoll = 200 * time.Millisecond

var (
	handleOnce sync.Once
	stopping   atomic.Bool
)

// Stopping reports whether Handle is stopping the harness.
func Stopping() bool { return stopping.Load() }

// Exit exits with code, unless Handle is stopping the harness: then it
// waits for Handle to finish and exit with its own status, so that a main
// or TestMain whose work failed because its processes were stopped does not
// cut the stop short.
func Exit(code int) {
	if stopping.Load() {
		select {}
	}
	os.Exit(code)
}

// Handle makes the harness named name stop everything it started when it
// gets SIGINT or SIGTERM, or finds itself orphaned (its parent died and
// it was reparented): every live process is stopped gracefully, then
// killed after grace, one line says so on stderr, cleanup (if not nil)
// runs, and the process exits with status 130 (SIGINT) or 143.
func Handle(name string, grace time.Duration, cleanup func()) {
	handleOnce.Do(func() {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
		ppid := os.Getppid()
		go func() {
			var why string
			code := 143
			tick := time.NewTicker(orphanPoll)
			for why == "" {
				select {
				case s := <-sigs:
					why = s.String()
					if s == syscall.SIGINT {
						code = 130
					}
				case <-tick.C:
					if ppid != 1 && os.Getppid() != ppid {
						why = fmt.Sprintf("parent %d gone", ppid)
					}
				}
			}
			stopping.Store(true)
			stopped := StopAll(grace)
			if cleanup != nil {
				cleanup()
			}
			what := "nothing was running"
			if len(stopped) > 0 {
				slices.Sort(stopped)
				what = "stopped " + strings.Join(stopped, ", ")
			}
			fmt.Fprintf(os.Stderr, "%s: %s: %s\n", name, why, what)
			os.Exit(code)
		}()
	})
}

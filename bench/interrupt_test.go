package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

// TestBenchQuickInterrupted runs make bench-quick as a terminal would, in
// a process group of its own, and presses Ctrl-C (SIGINT to the group)
// once the ceilings' test binary has a server up: make must exit
// non-zero, the report must say what it stopped, and within 2 s nothing
// it started may be left.
func TestBenchQuickInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make bench-quick")
	}
	if _, err := exec.LookPath("make"); err != nil {
		skipMissing(t, fmt.Errorf("make is not installed: %w", err))
	}
	cfg := realConfig(t)
	mark := fmt.Sprintf("HELLOBENCH_INTERRUPT_TEST=%d", time.Now().UnixNano())
	// FORCE: the other test packages running beside this one keep the
	// CPUs busy; the busy-CPU check has its own test.
	cmd := exec.Command("make", "--no-print-directory", "bench-quick", "FORCE=1")
	cmd.Dir = cfg.Root
	cmd.Env = append(os.Environ(), mark)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &proc.Output{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	// A server whose parent is the ceilings' test binary: the report is in
	// the middle of a go test run. (The first run, ./servers/..., starts
	// servers of its own between which the report may be between runs.)
	servers := targets.Names()
	serving := func() bool {
		marked := proc.WithEnv(mark)
		return slices.ContainsFunc(marked, func(s proc.Stat) bool {
			return slices.Contains(servers, s.Comm) && slices.ContainsFunc(marked, func(p proc.Stat) bool {
				return p.PID == s.PPID && p.Comm == "bench.test"
			})
		})
	}
	start := time.Now()
	for !serving() {
		select {
		case err := <-exited:
			t.Fatalf("make bench-quick ended before it was interrupted (%v); its output:\n%s", err, out)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Since(start) > 5*time.Minute {
			t.Fatalf("no server started within 5 minutes; output:\n%s", out)
		}
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	var err error
	select {
	case err = <-exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("make bench-quick still running 30 s after Ctrl-C; output:\n%s", out)
	}
	ended := time.Now()
	if err == nil {
		t.Errorf("make bench-quick exited 0 after Ctrl-C")
	}
	if !bytes.Contains([]byte(out.String()), []byte("report: interrupt: stopped go test")) {
		t.Errorf("the report did not say what it stopped; output:\n%s", out)
	}
	for {
		left := proc.WithEnv(mark)
		if len(left) == 0 {
			break
		}
		if time.Since(ended) > 2*time.Second {
			for _, s := range left {
				syscall.Kill(s.PID, syscall.SIGKILL)
			}
			t.Fatalf("2 s after make bench-quick was interrupted, still running: %+v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

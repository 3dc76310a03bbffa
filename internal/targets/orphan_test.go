package targets

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hellobench/internal/proc"
)

// orphanTargets are started by the helper: a Go server, fcgi (a script,
// lighttpd and the application it spawns: the deepest tree) and nginx.
var orphanTargets = []string{"nethttp", "fcgi", "nginx"}

// TestHarnessHelper is not a test: TestNothingOutlivesTheHarness runs the
// test binary as a harness that starts the targets, prints each one's
// process group, and then waits to be killed, interrupted or timed out.
func TestHarnessHelper(t *testing.T) {
	bin := os.Getenv("HELLOBENCH_HARNESS_BIN")
	if bin == "" {
		t.Skip("run by TestNothingOutlivesTheHarness")
	}
	proc.Handle("harness helper", 2*time.Second, nil)
	for _, name := range orphanTargets {
		tg, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		in, err := tg.Start(Env{Root: "../..", Bin: bin})
		if err != nil {
			fmt.Printf("failed %s: %v\n", name, err)
			os.Exit(1)
		}
		fmt.Printf("group %s %d\n", name, in.Proc.PID())
	}
	fmt.Println("ready")
	time.Sleep(time.Hour)
}

// TestNothingOutlivesTheHarness starts the targets from a child harness,
// then ends that harness three ways (SIGKILL, SIGINT, its go test
// -timeout expiring) and finds nothing of any target's process group left
// within 2 s.
func TestNothingOutlivesTheHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	for _, name := range []string{"nginx", "lighttpd"} {
		if _, err := lookSbin(name); err != nil {
			if os.Getenv("HELLOBENCH_REQUIRE_TOOLS") == "1" {
				t.Fatal(err)
			}
			t.Skip(err)
		}
	}
	bin := t.TempDir()
	var ts []Target
	for _, name := range orphanTargets {
		if tg, _ := Lookup(name); tg.Package != "" {
			ts = append(ts, tg)
		}
	}
	if err := Build("../..", bin, ts...); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		timeout string         // the helper's -test.timeout
		end     syscall.Signal // sent once it is ready; 0: wait for the timeout
		status  int            // its exit status: -1 killed, 130 interrupted, 2 timed out
	}{
		{"SIGKILL", "1h", syscall.SIGKILL, -1},
		{"SIGINT", "1h", syscall.SIGINT, 130},
		{"timeout", "8s", 0, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestHarnessHelper$", "-test.timeout", c.timeout)
			cmd.Env = append(os.Environ(), "HELLOBENCH_HARNESS_BIN="+bin)
			stderr := &proc.Output{}
			cmd.Stderr = stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			groups := map[string]int{}
			sc := bufio.NewScanner(out)
			for sc.Scan() && sc.Text() != "ready" {
				f := strings.Fields(sc.Text())
				if len(f) == 3 && f[0] == "group" {
					groups[f[1]], _ = strconv.Atoi(f[2])
				} else {
					t.Logf("helper: %s", sc.Text())
				}
			}
			if len(groups) != len(orphanTargets) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the helper started %v, want %v; its stderr:\n%s", groups, orphanTargets, stderr)
			}
			for name, pgid := range groups {
				if len(proc.Group(pgid)) == 0 {
					t.Fatalf("%s: group %d empty before the harness ended", name, pgid)
				}
			}
			if c.end != 0 {
				cmd.Process.Signal(c.end)
			}
			err = cmd.Wait()
			ended := time.Now()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != c.status {
				t.Errorf("the harness ended with %v, want status %d; its stderr:\n%s", err, c.status, stderr)
			}
			if c.end == syscall.SIGINT && !strings.Contains(stderr.String(), "harness helper: interrupt: stopped fcgi, nethttp, nginx\n") {
				t.Errorf("no line saying what the interrupt stopped; stderr:\n%s", stderr)
			}
			for name, pgid := range groups {
				if err := proc.WaitGone(name, pgid, 2*time.Second-time.Since(ended)); err != nil {
					t.Error(err)
					syscall.Kill(-pgid, syscall.SIGKILL)
				}
			}
		})
	}
}

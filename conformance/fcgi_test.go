package conformance

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startFcgi starts lighttpd in front of the fcgi application the way
// `make serve-fcgi` does, through servers/fcgi/serve.sh (unpinned here), so
// the script's signal handling and clean-up are under test too. The process
// the suite signals is the script: it turns SIGTERM and SIGINT into
// lighttpd's graceful stop.
func startFcgi(t *testing.T, addr string, headerTimeout, idleTimeout time.Duration) *process {
	t.Helper()
	// lighttpd lives in sbin, which serve.sh adds to a user's PATH.
	if _, err := os.Stat("/usr/sbin/lighttpd"); err != nil {
		requireTool(t, "lighttpd", "lighttpd")
	}
	// serve.sh makes its socket directory in here; lighttpd started by root
	// runs as nobody, which must be able to reach it.
	tmp, err := os.MkdirTemp("", "hellobench-fcgi-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", filepath.Join("..", "servers", "fcgi", "serve.sh"), "", "1", addr)
	cmd.Env = append(os.Environ(),
		"TMPDIR="+tmp,
		"FCGI_BIN="+binary("fcgi"),
		"FCGI_HEADER_TIMEOUT="+seconds(headerTimeout),
		"FCGI_IDLE_TIMEOUT="+seconds(idleTimeout),
	)
	p := startProcess(t, "fcgi", addr, cmd)
	// lighttpd accepts before the application has logged its start line.
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(p.stderr.String(), "fcgi: listening on "); {
		if time.Now().After(deadline) {
			t.Fatalf("fcgi: no start line from the application after 5s\n%s", p.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Runs before startProcess's clean-up, which kills the group outright:
	// stop gracefully, then check that nothing is left behind.
	t.Cleanup(func() {
		defer os.RemoveAll(tmp)
		select {
		case <-p.exited:
		default:
			syscall.Kill(p.cmd.Process.Pid, syscall.SIGINT)
			select {
			case <-p.exited:
			case <-time.After(6 * time.Second):
				t.Errorf("fcgi: serve.sh still running 6s after SIGINT\n%s", p.stderr)
				return
			}
		}
		if pids := groupMembers(p.cmd.Process.Pid); len(pids) > 0 {
			for _, pid := range pids {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				t.Errorf("fcgi: process %d (%q) left running after serve.sh exited", pid, cmdline)
			}
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
			t.Errorf("fcgi: serve.sh left %v behind", left)
		}
	})
	return p
}

// seconds rounds d up to whole seconds, lighttpd's unit for timeouts.
func seconds(d time.Duration) string {
	return strconv.Itoa(int((d + time.Second - 1) / time.Second))
}

// groupMembers returns the processes still running in process group pgid.
func groupMembers(pgid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var pids []int
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // exited meanwhile
		}
		// Fields after the parenthesised command: state, ppid, pgrp.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		fields := bytes.Fields(b[i+1:])
		if len(fields) < 3 || string(fields[2]) != strconv.Itoa(pgid) {
			continue
		}
		if string(fields[0]) == "Z" {
			// Exited; an orphan waits for init to reap it.
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

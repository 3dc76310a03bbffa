// Package proc reads what the Linux kernel accounts for a process (CPU time,
// peak memory) and starts commands pinned to one core, for the bench's
// per-request cost figures.
package proc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of utime and stime in /proc/PID/stat. USER_HZ is 100
// on every Linux architecture Go supports (sysconf(_SC_CLK_TCK) reports the
// same constant), so it needs no cgo.
const clockTick = 10 * time.Millisecond

// CPUTime returns the user and system CPU time the process pid has used so
// far, including that of its threads, from /proc/PID/stat.
func CPUTime(pid int) (user, sys time.Duration, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The command name (field 2) is in parentheses and may contain spaces,
	// so fields are counted from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("proc: malformed /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// After ')': f[0] is field 3 (state), so utime (14) is f[11], stime (15) f[12].
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("proc: short /proc/%d/stat: %d fields", pid, len(f)+2)
	}
	u, err := strconv.ParseUint(f[11], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("proc: utime of %d: %v", pid, err)
	}
	s, err := strconv.ParseUint(f[12], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("proc: stime of %d: %v", pid, err)
	}
	return time.Duration(u) * clockTick, time.Duration(s) * clockTick, nil
}

// TotalCPU returns user+system CPU time of pid.
func TotalCPU(pid int) (time.Duration, error) {
	u, s, err := CPUTime(pid)
	return u + s, err
}

// PeakRSS returns the peak resident set size (VmHWM) of pid in bytes.
func PeakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		v, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("proc: VmHWM of %d: %v", pid, err)
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("proc: no VmHWM in /proc/%d/status", pid)
}

// Pinned returns a command that runs name with args on the given CPU through
// taskset, or unpinned when cpu < 0 or taskset is not installed. The
// process's PID is then the program's own: taskset execs it.
func Pinned(cpu int, name string, args ...string) *exec.Cmd {
	if cpu >= 0 {
		if ts, err := exec.LookPath("taskset"); err == nil {
			return exec.Command(ts, append([]string{"-c", strconv.Itoa(cpu), name}, args...)...)
		}
	}
	return exec.Command(name, args...)
}

// HasTaskset reports whether commands from Pinned are really pinned.
func HasTaskset() bool {
	_, err := exec.LookPath("taskset")
	return err == nil
}

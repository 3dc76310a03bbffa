//go:build linux

package proc

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// SyscallCost measures what one system call costs on cpu: the time per
// call of a loop of raw getppid(2) calls (the cheapest there is: no
// argument, no lock), on a thread pinned to cpu, the median of runs rounds
// of n calls. It is what io_uring saves per call it batches, and it differs
// between machines with the CPU and the kernel's mitigations (Mitigations).
func SyscallCost(cpu, runs, n int) (time.Duration, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var was unix.CPUSet
	if err := unix.SchedGetaffinity(0, &was); err != nil {
		return 0, err
	}
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return 0, err
	}
	defer unix.SchedSetaffinity(0, &was)
	per := make([]time.Duration, runs)
	for i := range per {
		start := time.Now()
		for range n {
			unix.RawSyscall(unix.SYS_GETPPID, 0, 0, 0)
		}
		per[i] = time.Since(start) / time.Duration(n)
	}
	slices.Sort(per)
	return per[runs/2], nil
}

// Mitigations lists the kernel's CPU vulnerability entries that are not
// "Not affected" (from /sys/devices/system/cpu/vulnerabilities), as
// "name: state", sorted: the mitigations that make a system call dearer,
// and the vulnerabilities left open.
func Mitigations() []string {
	paths, _ := filepath.Glob("/sys/devices/system/cpu/vulnerabilities/*")
	var out []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		state := strings.TrimSpace(string(b))
		if err != nil || state == "Not affected" {
			continue
		}
		out = append(out, filepath.Base(p)+": "+state)
	}
	slices.Sort(out)
	return out
}

//go:build linux

package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A target's CPU time is read, best first, from:
//
//   - its own cgroup: every process started is put in a fresh control
//     group before it runs, and the kernel accounts there every thread and
//     every child, including the ones that exit during a round, in
//     nanoseconds (cgroup v1 cpuacct.usage) or microseconds (cgroup v2
//     cpu.stat usage_usec);
//   - else the sum of /proc/PID/task/*/schedstat over its live processes,
//     in nanoseconds (a process that exits mid-round takes its share along);
//   - else /proc/PID/stat's utime and stime, in 10 ms clock ticks.
//
// Cgroup v1 also splits its group's time into user mode and the kernel
// (cpuacct.usage_user, cpuacct.usage_sys, in ns). Their resolution is not
// usage's: the kernel divides each thread's exact runtime between the two
// in the proportion of the timer ticks that found it in each (its
// tick-based cputime split), so user+sys adds up to usage only
// approximately, and a span of a few ticks can put all of it on one side.
// The report checks the sum against usage (within 2 %) and flags a row
// where it is not.

// CPU sources, as the report names them.
const (
	SourceCgroupV1  = "cgroup v1 cpuacct.usage (ns)"
	SourceCgroupV2  = "cgroup v2 cpu.stat usage_usec (µs)"
	SourceSchedstat = "/proc/PID/task/*/schedstat (ns, live processes)"
	SourceTicks     = "/proc/PID/stat utime+stime (10 ms ticks, live processes)"
)

// A cgroupFS is the hierarchy targets' groups are made in.
type cgroupFS struct {
	source string
	parent string // hellobench's directory in the hierarchy
	read   func(dir string) (time.Duration, error)
	split  func(dir string) (user, sys time.Duration, err error) // nil: no split
}

var (
	cgroups = sync.OnceValue(findCgroups)
	cgSeq   atomic.Int64
)

// CPUSource names where the CPU time of a started process is read from on
// this machine.
func CPUSource() string {
	if c := cgroups(); c != nil {
		return c.source
	}
	if _, err := schedCPU(os.Getpid()); err == nil {
		return SourceSchedstat
	}
	return SourceTicks
}

// findCgroups returns the first hierarchy in which this process may make
// groups and read their CPU time: cgroup v1's cpuacct controller, then
// cgroup v2. Nil: neither (not root, or no cgroups mounted).
func findCgroups() *cgroupFS {
	if os.Getenv("HELLOBENCH_NO_CGROUP") == "1" {
		return nil
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var v1, v2 string
	sc := bufio.NewScanner(strings.NewReader(string(mounts)))
	for sc.Scan() {
		// id parent major:minor root mountpoint options ... - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 {
			continue
		}
		switch {
		case g[0] == "cgroup" && v1 == "" && hasOption(g[2], "cpuacct"):
			v1 = f[4]
		case g[0] == "cgroup2" && v2 == "":
			v2 = f[4]
		}
	}
	candidates := []*cgroupFS{}
	if v1 != "" {
		candidates = append(candidates, &cgroupFS{source: SourceCgroupV1, parent: filepath.Join(v1, "hellobench"), read: readCpuacct, split: readCpuacctSplit})
	}
	if v2 != "" {
		candidates = append(candidates, &cgroupFS{source: SourceCgroupV2, parent: filepath.Join(v2, "hellobench"), read: readCPUStat})
	}
	for _, c := range candidates {
		if c.usable() {
			return c
		}
	}
	return nil
}

func hasOption(opts, name string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// usable makes the parent directory, removes groups a harness that has
// exited left behind, and proves a group can be made, read and removed.
func (c *cgroupFS) usable() bool {
	if err := os.MkdirAll(c.parent, 0o755); err != nil {
		return false
	}
	c.sweep()
	dir, err := c.make("probe")
	if err != nil {
		return false
	}
	defer removeGroup(dir)
	_, err = c.read(dir)
	return err == nil
}

// sweep removes the empty groups of harnesses that are no longer running.
// A live harness's group is left alone even while empty: it may have been
// made a moment ago for a process not yet moved into it (test packages run
// side by side, each with its own harness).
func (c *cgroupFS) sweep() {
	entries, _ := os.ReadDir(c.parent)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if pid, ok := groupOwner(e.Name()); ok && alive(pid) {
			continue
		}
		os.Remove(filepath.Join(c.parent, e.Name())) // fails, rightly, while a process is in it
	}
}

// groupOwner returns the PID of the harness that made the group named
// name ("NAME-PID-SEQ", as make names it).
func groupOwner(name string) (int, bool) {
	rest, _, ok := cutLast(name, "-")
	if !ok {
		return 0, false
	}
	_, pid, ok := cutLast(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(pid)
	return n, err == nil && n > 0
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// alive reports whether a process with this PID exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// make makes a fresh group for a process named name.
func (c *cgroupFS) make(name string) (string, error) {
	name = strings.NewReplacer("/", "_", " ", "_").Replace(name)
	dir := filepath.Join(c.parent, fmt.Sprintf("%s-%d-%d", name, os.Getpid(), cgSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
		os.Remove(dir)
		return "", err
	}
	return dir, nil
}

// removeGroup removes an empty group, waiting a moment for the kernel to
// let go of tasks that have just exited.
func removeGroup(dir string) error {
	var err error
	for range 100 {
		if err = os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}

func readCpuacct(dir string) (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cpuacct.usage"))
	if err != nil {
		return 0, err
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("proc: %s/cpuacct.usage: %v", dir, err)
	}
	return time.Duration(ns), nil
}

// readCpuacctSplit reads a cgroup v1 group's time in user mode and in the
// kernel, in ns. A kernel without the two files (before Linux 4.7) has no
// split: fs.ErrNotExist, which the caller takes as not recorded.
func readCpuacctSplit(dir string) (user, sys time.Duration, err error) {
	if user, err = readNS(filepath.Join(dir, "cpuacct.usage_user")); err != nil {
		return 0, 0, err
	}
	if sys, err = readNS(filepath.Join(dir, "cpuacct.usage_sys")); err != nil {
		return 0, 0, err
	}
	return user, sys, nil
}

// readNS reads a file holding one count of nanoseconds.
func readNS(file string) (time.Duration, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || ns < 0 {
		return 0, fmt.Errorf("proc: %s: want a count of nanoseconds, have %q", file, strings.TrimSpace(string(b)))
	}
	return time.Duration(ns), nil
}

func readCPUStat(dir string) (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return 0, err
	}
	return parseCPUStat(b)
}

// parseCPUStat reads usage_usec from cgroup v2's cpu.stat.
func parseCPUStat(b []byte) (time.Duration, error) {
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "usage_usec "); ok {
			us, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("proc: cpu.stat usage_usec: %v", err)
			}
			return time.Duration(us) * time.Microsecond, nil
		}
	}
	return 0, errors.New("proc: cpu.stat has no usage_usec")
}

// schedCPU sums the time on CPU of every thread of pid, from
// /proc/PID/task/*/schedstat (its first field, in nanoseconds).
func schedCPU(pid int) (time.Duration, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var sum time.Duration
	n := 0
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if err != nil {
			continue // the thread exited meanwhile
		}
		f := strings.Fields(string(b))
		if len(f) < 1 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("proc: %s/%s/schedstat: %v", dir, t.Name(), err)
		}
		sum += time.Duration(ns)
		n++
	}
	if n == 0 {
		return 0, fmt.Errorf("proc: no readable schedstat under %s", dir)
	}
	return sum, nil
}

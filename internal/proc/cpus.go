//go:build linux

package proc

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ParseCPUs reads a taskset CPU list ("0", "0-3", "0,2-3") and checks that
// every CPU in it is one this process may run on; the error names the
// CPUs that exist.
func ParseCPUs(list string) ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("proc: sched_getaffinity: %w", err)
	}
	cpus, err := parseList(list)
	if err != nil {
		return nil, err
	}
	for _, c := range cpus {
		if !set.IsSet(c) {
			return nil, fmt.Errorf("CPU %d does not exist here: this machine has CPUs %s", c, cpuList(&set))
		}
	}
	return cpus, nil
}

// parseList reads a CPU list as taskset and the kernel write it.
func parseList(list string) ([]int, error) {
	var cpus []int
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a || b >= 1024 {
			return nil, fmt.Errorf("bad CPU list %q: want CPU numbers such as 0, 0-3 or 0,2", list)
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// cpuList writes a CPU set as a taskset list.
func cpuList(set *unix.CPUSet) string {
	var parts []string
	for c := 0; c < 1024; c++ {
		if !set.IsSet(c) {
			continue
		}
		end := c
		for end+1 < 1024 && set.IsSet(end+1) {
			end++
		}
		if end > c {
			parts = append(parts, fmt.Sprintf("%d-%d", c, end))
		} else {
			parts = append(parts, strconv.Itoa(c))
		}
		c = end
	}
	return strings.Join(parts, ",")
}

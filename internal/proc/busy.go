//go:build linux

package proc

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// A Busy process used a share of a CPU the harness is about to pin to.
type Busy struct {
	PID   int
	Comm  string
	Share float64 // percent of one CPU over the look
}

func (b Busy) String() string {
	return fmt.Sprintf("PID %d (%s) at %.0f%% of a CPU", b.PID, b.Comm, b.Share)
}

// BusyOn watches every process for look and returns those that may run on
// one of cpus (their affinity allows it) and used at least min percent of a
// CPU meanwhile, busiest first. Kernel threads and this process are left
// out: the first cannot be stopped, the second is the harness.
func BusyOn(cpus []int, look time.Duration, min float64) []Busy {
	before := map[int]Stat{}
	for _, s := range All() {
		before[s.PID] = s
	}
	start := time.Now()
	time.Sleep(look)
	elapsed := time.Since(start)
	var busy []Busy
	for _, s := range All() {
		b, ok := before[s.PID]
		// The command name may have changed meanwhile (an exec), so it is
		// not compared; a PID reused within the look is unlikely enough.
		if !ok || s.PID == os.Getpid() || s.PID == 2 || s.PPID == 2 {
			continue
		}
		share := 100 * float64(s.CPU()-b.CPU()) / float64(elapsed)
		if share < min || !mayRunOn(s.PID, cpus) {
			continue
		}
		busy = append(busy, Busy{PID: s.PID, Comm: s.Comm, Share: share})
	}
	slices.SortFunc(busy, func(a, b Busy) int {
		switch {
		case a.Share > b.Share:
			return -1
		case a.Share < b.Share:
			return 1
		}
		return a.PID - b.PID
	})
	return busy
}

// WithEnv returns the live processes whose environment holds entry
// ("NAME=value"), read from /proc/PID/environ: a process tree marked by
// an environment variable can be found after its parents are gone.
func WithEnv(entry string) []Stat {
	var found []Stat
	for _, s := range All() {
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", s.PID))
		if err == nil && s.Live() && slices.Contains(strings.Split(string(env), "\x00"), entry) {
			found = append(found, s)
		}
	}
	return found
}

// mayRunOn reports whether pid's affinity (Cpus_allowed_list in
// /proc/PID/status) includes one of cpus; true when it cannot be read.
func mayRunOn(pid int, cpus []int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return true
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			allowed, err := parseList(strings.TrimSpace(v))
			if err != nil {
				return true
			}
			for _, c := range cpus {
				if slices.Contains(allowed, c) {
					return true
				}
			}
			return false
		}
	}
	return true
}

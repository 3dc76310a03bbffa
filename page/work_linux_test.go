//go:build linux

package page

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU is the calling thread's CPU time.
func threadCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestBurnUsesCPU checks that Burn spends CPU time, not wall time, and
// about as much as asked: the thread's own CPU clock, which preemption
// does not advance, over a burn long enough for its 1-4 ms resolution.
func TestBurnUsesCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	Calibrate()
	const d = 200 * time.Millisecond
	before := threadCPU(t)
	Burn(d)
	got := threadCPU(t) - before
	if got < d*3/4 || got > d*5/4 {
		t.Errorf("Burn(%v) used %v of CPU; want within 25%%", d, got)
	}
}

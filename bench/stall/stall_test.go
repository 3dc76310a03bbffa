package stall

import (
	"os"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSeesAStall holds CPU 0 with a real-time busy thread of a higher
// priority for 30 ms while a sleeper measures it: the sleeper cannot run
// while it spins, and must report a wake-up late by a good part of that.
//
// The hold is tried up to three times: beside the rest of make test, one
// run saw its longest stall at 3.6 ms, the hold not taking the CPU from
// the sleeper (the package passes alone); a meter that misses stalls
// misses all three.
func TestSeesAStall(t *testing.T) {
	const hold = 30 * time.Millisecond
	var r Result
	for try := 1; try <= 3; try++ {
		if r = holdOnce(t, hold); r.Max >= hold/3 {
			break
		}
		t.Logf("run %d: the longest stall seen is %v", try, r.Max)
	}
	t.Logf("CPU 0: %d wake-ups, late by p50 %v, p99 %v, p99.9 %v, max %v", r.Wakeups, r.P50, r.P99, r.P999, r.Max)
	// 130 ms of 1 ms sleeps, one of them held up by 30 ms.
	if os.Geteuid() == 0 && !r.RealTime {
		t.Error("as root, the sleeper did not run real-time")
	}
	if r.Wakeups < 20 || r.Wakeups > 130 {
		t.Errorf("%d wake-ups in about 130 ms of 1 ms sleeps", r.Wakeups)
	}
	// The kernel may let the sleeper in once in the middle of the hold
	// (seen under make test's load, two stalls of about half each): a
	// third of it is still far beyond anything the sleeper sees otherwise
	// within the test's 130 ms.
	if r.Max < hold/3 {
		t.Errorf("the longest stall seen is %v; CPU 0 was held for %v", r.Max, hold)
	}
	if !(r.P50 <= r.P99 && r.P99 <= r.P999 && r.P999 <= r.Max) {
		t.Errorf("percentiles out of order: %+v", r)
	}
}

// holdOnce measures CPU 0 with a 1 ms sleeper for about 130 ms, holding
// it for hold in the middle.
func holdOnce(t *testing.T, hold time.Duration) Result {
	t.Helper()
	m, err := Start([]int{0}, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if err := spin(0, hold); err != nil {
		m.Stop()
		t.Skipf("no real-time thread here to stall the CPU with: %v", err)
	}
	time.Sleep(50 * time.Millisecond)
	rs := m.Stop()
	if len(rs) != 1 || rs[0].CPU != 0 {
		t.Fatalf("results %+v; want one, of CPU 0", rs)
	}
	return rs[0]
}

// spin busies cpu for d on a SCHED_FIFO thread, which no ordinary thread
// can preempt.
func spin(cpu int, d time.Duration) error {
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // not unlocked: the real-time thread ends with the goroutine
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			done <- err
			return
		}
		attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: 10}
		if err := unix.SchedSetAttr(0, &attr, 0); err != nil {
			done <- err
			return
		}
		for end := time.Now().Add(d); time.Now().Before(end); {
		}
		done <- nil
	}()
	return <-done
}

func TestWorstAndErrors(t *testing.T) {
	w := Worst([]Result{{CPU: 0, RealTime: true, Wakeups: 10, P50: 1, P99: 5, P999: 9, Max: 20}, {CPU: 1, Wakeups: 7, P50: 2, P99: 4, P999: 12, Max: 15}})
	if w != (Result{RealTime: false, Wakeups: 17, P50: 2, P99: 5, P999: 12, Max: 20}) {
		t.Errorf("Worst = %+v", w)
	}
	if _, err := Start([]int{4096}, time.Millisecond); err == nil {
		t.Error("a sleeper on CPU 4096: no error")
	}
	if _, err := Start(nil, time.Millisecond); err == nil {
		t.Error("no CPUs: no error")
	}
}

// Package stall measures the host's own stalls, as jHiccup does: on each
// CPU a thread pinned to it sleeps a fixed short time, over and over, and
// records how late it wakes. Any thread on that CPU, a server's or a load
// generator's, is held up as long in the same moments, whatever its code,
// so a latency percentile no larger than the host's says nothing about the
// program that measured it.
package stall

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sys/unix"
)

// A Meter records the lateness of wake-ups on some CPUs until stopped.
type Meter struct {
	sleep time.Duration
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	res   []Result
}

// A Result is what one CPU's sleeper saw: how many times it woke and how
// late, at the percentiles a latency table reports.
type Result struct {
	CPU int
	// RealTime says the sleeper ran SCHED_FIFO: without it (no privilege)
	// it also waits for the ordinary threads busy on its CPU.
	RealTime            bool
	Wakeups             int64
	P50, P99, P999, Max time.Duration
}

// Start starts one sleeper on each of cpus, each sleeping sleep at a time.
func Start(cpus []int, sleep time.Duration) (*Meter, error) {
	if len(cpus) == 0 || sleep <= 0 {
		return nil, fmt.Errorf("stall: no CPUs or a sleep of %v", sleep)
	}
	m := &Meter{sleep: sleep, stop: make(chan struct{})}
	ready := make(chan error, len(cpus))
	for _, cpu := range cpus {
		m.wg.Add(1)
		go m.run(cpu, ready)
	}
	for range cpus {
		if err := <-ready; err != nil {
			m.Stop()
			return nil, err
		}
	}
	return m, nil
}

// run is one CPU's sleeper: a thread of its own, pinned, with the finest
// timer slack (the default 50 µs would count as a stall every time), and
// real-time where allowed, so that it never waits for the threads of the
// load on its CPU (a busy server, a spinning client): what delays it then
// is the host's alone (the hypervisor, interrupts, the kernel).
func (m *Meter) run(cpu int, ready chan<- error) {
	defer m.wg.Done()
	runtime.LockOSThread() // never unlocked: the thread dies with the goroutine, pinning and all
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		ready <- fmt.Errorf("stall: pinning a sleeper to CPU %d: %v", cpu, err)
		return
	}
	if err := unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0); err != nil {
		ready <- fmt.Errorf("stall: timer slack: %v", err)
		return
	}
	realtime := unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: 1}, 0) == nil
	ready <- nil
	h := hdrhistogram.New(1, int64(10*time.Second/time.Microsecond), 3)
	ts := unix.NsecToTimespec(int64(m.sleep))
	for {
		select {
		case <-m.stop:
			m.add(cpu, realtime, h)
			return
		default:
		}
		t0 := time.Now()
		unix.Nanosleep(&ts, nil) // a raw sleep: the kernel's wake-up, not the Go scheduler's
		late := time.Since(t0) - m.sleep
		h.RecordValue(max(int64(late/time.Microsecond), 0))
	}
}

// add keeps one sleeper's result.
func (m *Meter) add(cpu int, realtime bool, h *hdrhistogram.Histogram) {
	us := func(q float64) time.Duration { return time.Duration(h.ValueAtQuantile(q)) * time.Microsecond }
	m.mu.Lock()
	defer m.mu.Unlock()
	m.res = append(m.res, Result{CPU: cpu, RealTime: realtime, Wakeups: h.TotalCount(),
		P50: us(50), P99: us(99), P999: us(99.9), Max: time.Duration(h.Max()) * time.Microsecond})
}

// Stop stops the sleepers and returns what each saw, by CPU.
func (m *Meter) Stop() []Result {
	close(m.stop)
	m.wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	slices.SortFunc(m.res, func(a, b Result) int { return a.CPU - b.CPU })
	return m.res
}

// Worst is, percentile by percentile, the largest of rs: a request crosses
// both the client's and the server's CPU, so either one's stall delays it.
func Worst(rs []Result) Result {
	w := Result{RealTime: len(rs) > 0}
	for _, r := range rs {
		w.RealTime = w.RealTime && r.RealTime
		w.Wakeups += r.Wakeups
		w.P50, w.P99, w.P999, w.Max = max(w.P50, r.P50), max(w.P99, r.P99), max(w.P999, r.P999), max(w.Max, r.Max)
	}
	return w
}

package page

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MaxWork bounds each kind of handler work: beyond it a request would
// outlast the contract's timeouts, and a typo (10s for 10ms) would look
// like a hung server.
const MaxWork = 10 * time.Second

// Work is the optional work a server's handler does before it answers, the
// same in every stack so that only the stack differs: CPU to burn, as a
// handler that encodes or renders does, and a wait that uses no CPU, as a
// call to a database does. The zero Work does nothing and costs a compare.
type Work struct {
	CPU  time.Duration
	Wait time.Duration
}

// Flags registers -work-cpu and -work-wait on fs, into w.
func (w *Work) Flags(fs *flag.FlagSet) {
	fs.DurationVar(&w.CPU, "work-cpu", 0, "CPU time the handler burns before it answers (0: none)")
	fs.DurationVar(&w.Wait, "work-wait", 0, "time the handler waits, using no CPU, before it answers (0: none)")
}

// Check returns an error naming every flag out of range, on one line, so
// that a server can print it as its one line before exiting.
func (w Work) Check() error {
	var bad []string
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"-work-cpu", w.CPU}, {"-work-wait", w.Wait}} {
		if f.d < 0 || f.d > MaxWork {
			bad = append(bad, fmt.Sprintf("%s %v: want 0 to %v", f.name, f.d, MaxWork))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return errors.New(strings.Join(bad, "; "))
}

// On reports whether there is any work to do.
func (w Work) On() bool { return w.CPU > 0 || w.Wait > 0 }

// Do burns w.CPU, then waits w.Wait: for a handler that may block its
// goroutine. An event loop must not call it with a wait (see Burn).
func (w Work) Do() {
	if w.CPU > 0 {
		Burn(w.CPU)
	}
	if w.Wait > 0 {
		time.Sleep(w.Wait)
	}
}

// Burn spends about d of CPU time in a loop the compiler cannot remove.
// The loop's speed is measured once per process (Calibrate), so Burn reads
// no clock: a 1 µs burn is not dominated by timing it.
func Burn(d time.Duration) {
	if d <= 0 {
		return
	}
	sink.Add(spin(int64(float64(d) * Calibrate())))
}

// sink keeps spin's results live, so the loop is not dead code.
var sink atomic.Uint64

// spin runs n rounds of xorshift64: a chain of dependent register
// operations, so its speed does not depend on caches or memory.
func spin(n int64) uint64 {
	x := uint64(88172645463325252)
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

var (
	calibrateOnce sync.Once
	perNanosecond float64
)

// calibrationRounds is one calibration trial: about a millisecond.
const calibrationRounds = 1 << 20

// Calibrate returns spin's rounds per nanosecond on this machine, measured
// on first use (about 15 ms): the fastest of 15 trials, since a trial can
// only be slowed, by preemption or an interrupt, never sped up.
func Calibrate() float64 {
	calibrateOnce.Do(func() {
		for range 15 {
			start := time.Now()
			sink.Add(spin(calibrationRounds))
			perNanosecond = max(perNanosecond, calibrationRounds/float64(time.Since(start)))
		}
	})
	return perNanosecond
}

package page

import (
	"flag"
	"io"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestWorkFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want Work
		errs []string // substrings of the parse or check error, each
	}{
		{nil, Work{}, nil},
		{[]string{"-work-cpu", "20us", "-work-wait", "10ms"}, Work{CPU: 20 * time.Microsecond, Wait: 10 * time.Millisecond}, nil},
		{[]string{"-work-cpu", "10s"}, Work{CPU: 10 * time.Second}, nil},
		{[]string{"-work-cpu", "-1us", "-work-wait", "11s"}, Work{}, []string{"-work-cpu -1µs: want 0 to 10s", "-work-wait 11s: want 0 to 10s"}},
		{[]string{"-work-wait", "ten"}, Work{}, []string{`invalid value "ten" for flag -work-wait`}},
	} {
		var w Work
		fs := flag.NewFlagSet("server", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		w.Flags(fs)
		err := fs.Parse(tc.args)
		if err == nil {
			err = w.Check()
		}
		if len(tc.errs) == 0 {
			if err != nil || w != tc.want {
				t.Errorf("%q: got %+v, %v; want %+v, no error", tc.args, w, err, tc.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("%q: no error", tc.args)
			continue
		}
		for _, e := range tc.errs {
			if !strings.Contains(err.Error(), e) {
				t.Errorf("%q: error %q does not say %q", tc.args, err, e)
			}
		}
	}
	if (Work{}).On() || !(Work{Wait: 1}).On() || !(Work{CPU: 1}).On() {
		t.Error("On: the zero Work must be off, any work on")
	}
}

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

func BenchmarkBurn(b *testing.B) {
	Calibrate()
	for _, d := range []time.Duration{time.Microsecond, 20 * time.Microsecond} {
		b.Run(d.String(), func(b *testing.B) {
			for b.Loop() {
				Burn(d)
			}
		})
	}
}

func BenchmarkWorkOff(b *testing.B) {
	var w Work
	b.ReportAllocs()
	for b.Loop() {
		if w.On() {
			w.Do()
		}
	}
}

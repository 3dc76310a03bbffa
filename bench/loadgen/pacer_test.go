//go:build linux

package loadgen

import (
	"testing"
	"time"
)

func TestPacer(t *testing.T) {
	p := newPacer(1000, 5*time.Millisecond) // one a millisecond from 5 ms
	if p.interval != time.Millisecond {
		t.Fatalf("interval %v", p.interval)
	}
	for _, tc := range []struct {
		now   time.Duration
		due   int
		until time.Duration
	}{
		{0, 0, 5 * time.Millisecond},
		{4999 * time.Microsecond, 0, time.Microsecond},
		{5 * time.Millisecond, 1, 0},
		{7500 * time.Microsecond, 3, 0},
	} {
		if got := p.due(tc.now); got != tc.due {
			t.Errorf("due at %v: %d, want %d", tc.now, got, tc.due)
		}
		if got := p.until(tc.now); got != tc.until {
			t.Errorf("until at %v: %v, want %v", tc.now, got, tc.until)
		}
	}
	// Taking the due requests gives their due times, in order, and leaves
	// none due.
	for i, want := range []time.Duration{5, 6, 7} {
		if got := p.take(); got != want*time.Millisecond {
			t.Errorf("take %d: %v, want %v", i, got, want*time.Millisecond)
		}
	}
	if got := p.due(7500 * time.Microsecond); got != 0 {
		t.Errorf("due after taking them: %d", got)
	}
	if got := newPacer(1e12, 0).interval; got != 1 {
		t.Errorf("interval at 10^12/s: %v, want 1ns", got)
	}
}

package bench

import (
	"math"
	"testing"
	"time"
)

// TestPerRequestSplit: the user and kernel parts are taken over the same
// samples as the total, those within the client's measured span.
func TestPerRequestSplit(t *testing.T) {
	t0 := time.Now()
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	u := &usageLog{
		at:    []time.Time{t0, t0.Add(ms(100)), t0.Add(ms(200)), t0.Add(ms(300))},
		cpu:   []time.Duration{0, ms(50), ms(150), ms(250)},
		user:  []time.Duration{0, ms(20), ms(80), ms(140)},
		sys:   []time.Duration{0, ms(30), ms(70), ms(110)},
		split: true,
	}
	// 1000 req/s from the second sample to the last: 200 requests.
	st := Stats{Start: t0.Add(ms(100)), Elapsed: ms(200), ReqPerSec: 1000}
	cpu, busy, ok := u.perRequest(st)
	s := u.perRequestSplit(st)
	if !ok || !s.OK {
		t.Fatalf("perRequest ok %v, split %+v", ok, s)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(cpu, 1000) || !near(busy, 100) || !near(s.User, 600) || !near(s.Sys, 400) {
		t.Errorf("cpu %v µs busy %v %%, user %v sys %v µs; want 1000, 100, 600, 400", cpu, busy, s.User, s.Sys)
	}
	u.split = false
	if s := u.perRequestSplit(st); s.OK {
		t.Errorf("a log without a split gave %+v", s)
	}
}

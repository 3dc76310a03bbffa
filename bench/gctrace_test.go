package bench

import (
	"testing"
	"time"
)

func TestGCsIn(t *testing.T) {
	out := `nethttp: listening on 127.0.0.1:8080
gc 1 @0.012s 1%: 0.010+0.50+0.004 ms clock, 0.010+0.1/0.2/0+0.004 ms cpu, 3->3->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 1 P
gc 2 @1.500s 2%: 0.031+0.90+0.120 ms clock, 0.031+0.2/0.3/0+0.120 ms cpu, 4->4->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 1 P
gc 3 @1.750s 2%: 0.250+0.80+0.020 ms clock, 0.250+0.2/0.3/0+0.020 ms cpu, 4->4->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 1 P
gc 4 @3.000s 2%: 9.000+0.80+0.020 ms clock, 9.000+0.2/0.3/0+0.020 ms cpu, 4->4->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 1 P
`
	start := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	g := GCsIn(out, start, start.Add(time.Second), start.Add(3*time.Second))
	if g.Count != 2 || g.MaxPause != 250*time.Microsecond {
		t.Errorf("GCs from 1 s to 3 s = %+v; want 2, the longest pause 0.25 ms (gc 4 at 3 s is outside)", g)
	}
	if g := GCsIn("no trace here\n", start, start, start.Add(time.Hour)); g.Count != 0 || g.MaxPause != 0 {
		t.Errorf("GCs of an untraced output = %+v; want none", g)
	}
}

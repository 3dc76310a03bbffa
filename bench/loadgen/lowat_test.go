//go:build linux

package loadgen

import (
	"context"
	"testing"
)

// runPlan runs cfg and returns its plan, for a look at its loops.
func runPlan(t *testing.T, cfg Config) (*plan, *Result) {
	t.Helper()
	p, err := build(cfg.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return p, p.merge()
}

// A closed pipelined loop marks each connection once, at the size of a
// batch of its answers, and counts every request exactly once.
func TestMarks(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, nil)
		const n, c, depth = 4000, 5, 16
		p, r := runPlan(t, Config{URL: s.url(), Requests: n, Concurrency: c, KeepAlive: true, Pipeline: depth, Loops: 1, Engine: engine})
		checkCounts(t, r, n)
		if r.Complete != n || r.Failed != 0 {
			t.Fatalf("complete %d failed %d %+v", r.Complete, r.Failed, r.Failures)
		}
		l := p.loops[0]
		size := int64(len(s.response(nil, n+1, true)))
		if !l.marks || l.minResp != size {
			t.Errorf("marks %v, smallest response %d bytes, want true, %d", l.marks, l.minResp, size)
		}
		// At most once per connection, and once more each for the last,
		// short batch of a run that does not divide evenly: not once per
		// batch. (The in-process server may serve one connection for
		// most of so short a run, so some may never get theirs.)
		if l.marked < 1 || l.marked > 2*c {
			t.Errorf("%d marks set on %d connections for %d batches", l.marked, c, n/depth)
		}
	})
}

// Answers that shrink in the middle of a batch leave fewer bytes than the
// mark: the loop must notice the stall and drop its marks, so that no
// request waits for the timeout.
func TestMarksShrink(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newTestServer(t, func(s *testServer) { s.padUntil = 1000 + 5 })
		const n = 3000
		p, r := runPlan(t, Config{URL: s.url(), Requests: n, Concurrency: 4, KeepAlive: true, Pipeline: 16, Loops: 1, Engine: engine, Timeout: 10e9})
		checkCounts(t, r, n)
		if r.Complete != n || r.Failed != 0 {
			t.Fatalf("complete %d failed %d %+v", r.Complete, r.Failed, r.Failures)
		}
		if l := p.loops[0]; l.marks {
			t.Errorf("marks still set after a stall (%d set)", l.marked)
		}
	})
}

// With -l (answers of any length), a rate, or no pipelining, no mark is set.
func TestNoMarks(t *testing.T) {
	s := newTestServer(t, nil)
	for _, cfg := range []Config{
		{Pipeline: 16, AnyLength: true},
		{Pipeline: 1},
		{Pipeline: 16, Rate: 20000},
	} {
		cfg.URL, cfg.Requests, cfg.Concurrency, cfg.KeepAlive, cfg.Loops = s.url(), 500, 4, true, 1
		p, r := runPlan(t, cfg)
		checkCounts(t, r, 500)
		if l := p.loops[0]; l.marks || l.marked != 0 {
			t.Errorf("%+v: marks %v, %d set", cfg, l.marks, l.marked)
		}
	}
}

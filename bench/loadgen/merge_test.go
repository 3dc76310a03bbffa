//go:build linux

package loadgen

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Three runs merged, through their logs, are their sum: counts exactly, and
// a Total histogram equal bucket by bucket, and so at every percentile, to
// one that recorded every sample of the three.
func TestMergeEqualsOneHistogram(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	t0 := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	var all []int64
	runs := []*Result{
		synthetic(rnd, 30000, t0, 10*time.Second, &all),
		synthetic(rnd, 20000, t0.Add(500*time.Millisecond), 10*time.Second, &all),
		synthetic(rnd, 1, t0.Add(-250*time.Millisecond), 9*time.Second, &all),
	}
	runs[1].Engine = EngineURing
	var read []*Result
	for _, r := range runs {
		got, err := ReadLog(bytes.NewReader(writeLog(t, r)))
		if err != nil {
			t.Fatal(err)
		}
		read = append(read, got)
	}
	m, err := Merge(read)
	if err != nil {
		t.Fatal(err)
	}

	one := hdrhistogram.New(histMin, histMax, histSig)
	for _, v := range all {
		record(one, v)
	}
	sameHist(t, "merged total", m.Latency, one)
	for q := 0.0; q <= 100; q += 0.01 {
		if g, w := m.Latency.ValueAtQuantile(q), one.ValueAtQuantile(q); g != w {
			t.Fatalf("p%v: %d, want %d", q, g, w)
		}
	}
	if m.Latency.Mean() != one.Mean() || m.Latency.StdDev() != one.StdDev() || m.Latency.Min() != one.Min() || m.Latency.Max() != one.Max() {
		t.Errorf("mean, sd, min, max %v %v %v %v, want %v %v %v %v", m.Latency.Mean(), m.Latency.StdDev(), m.Latency.Min(),
			m.Latency.Max(), one.Mean(), one.StdDev(), one.Min(), one.Max())
	}
	if s, w := summarize(m.Latency), summarize(one); s != w {
		t.Errorf("JSON summary %+v, want %+v", s, w)
	}

	// Each other histogram is the sum of the runs'.
	for i, f := range []func(*Result) *hdrhistogram.Histogram{
		func(r *Result) *hdrhistogram.Histogram { return r.Connect },
		func(r *Result) *hdrhistogram.Histogram { return r.Processing },
		func(r *Result) *hdrhistogram.Histogram { return r.Waiting },
	} {
		sum := hdrhistogram.New(histMin, histMax, histSig)
		for _, r := range runs {
			sum.Merge(f(r))
		}
		sameHist(t, []string{"connect", "processing", "waiting"}[i], f(m), sum)
	}

	const n = 30000 + 20000 + 1
	switch {
	case m.Complete != n || m.Latency.TotalCount() != n:
		t.Errorf("complete %d, histogram %d, want %d", m.Complete, m.Latency.TotalCount(), n)
	case m.Failures != Failures{Connect: 3, Receive: 6, Length: 9, Timeout: 12} || m.Failed != 30:
		t.Errorf("failures %+v, failed %d", m.Failures, m.Failed)
	case m.Status[200] != 30000-4285+20000-2857+1 || m.Status[404] != 4285+2857 || m.Non2xx != 4285+2857:
		t.Errorf("status %v, non-2xx %d", m.Status, m.Non2xx)
	case m.TotalBytes != n*400 || m.HTMLBytes != n*257 || m.Connections != 33 || m.KeepAliveRequests != n-9:
		t.Errorf("bytes %d, html %d, connections %d, keep-alive %d", m.TotalBytes, m.HTMLBytes, m.Connections, m.KeepAliveRequests)
	case m.Concurrency != 24 || m.Requests != n+30 || m.Engine != "io_uring+epoll":
		t.Errorf("concurrency %d, requests %d, engine %q", m.Concurrency, m.Requests, m.Engine)
	}
	// From the earliest start, t0-0.25s, to the latest end, t0+10.5s.
	if !m.Start.Equal(t0.Add(-250*time.Millisecond)) || m.Elapsed != 10750*time.Millisecond {
		t.Errorf("start %v, elapsed %v; want %v, 10.75s", m.Start, m.Elapsed, t0.Add(-250*time.Millisecond))
	}
	if got, want := m.RequestsPerSec(), float64(n)/10.75; got != want {
		t.Errorf("requests per second %v, want %v", got, want)
	}
}

// Runs at a rate merge their send lateness bucket by bucket, through their
// logs; if one run has none (a log from before loadgen measured it), the
// merged run has none rather than some hosts' lateness as all of it.
func TestMergeLateness(t *testing.T) {
	rnd := rand.New(rand.NewPCG(13, 14))
	t0 := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	var runs []*Result
	sum := newHist()
	for i := range 3 {
		r := paced(rnd, synthetic(rnd, 1000*(i+1), t0.Add(time.Duration(i)*time.Millisecond), time.Second, nil), 5)
		got, err := ReadLog(bytes.NewReader(writeLog(t, r)))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, got)
		sum.Merge(r.SendLateness)
	}
	m, err := Merge(runs)
	if err != nil {
		t.Fatal(err)
	}
	sameHist(t, "merged send lateness", m.SendLateness, sum)
	if n := m.SendLateness.TotalCount(); n != 6000+15 {
		t.Errorf("merged send lateness holds %d, want 6015", n)
	}
	runs[1].SendLateness = nil
	if m, err = Merge(runs); err != nil || m.SendLateness != nil {
		t.Errorf("one run without send lateness: merged %v, %v", m.SendLateness, err)
	}
}

// Runs of different tests, or one run twice, do not merge.
func TestMergeable(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 10))
	t0 := time.Unix(1767225600, 0)
	k := 0
	base := func() *Result { // each a run of its own, started 1 ms after the last
		k++
		return synthetic(rnd, 10, t0.Add(time.Duration(k)*time.Millisecond), time.Second, nil)
	}
	for _, tc := range []struct {
		edit func(*Result)
		want string
	}{
		{func(r *Result) { r.URL = "http://127.0.0.2:8080/hello/world" }, "different URLs: http://127.0.0.1:8080/hello/world and http://127.0.0.2:8080/hello/world"},
		{func(r *Result) { r.KeepAlive = false }, "keep-alive in one run and not in the other"},
		{func(r *Result) { r.Pipeline = 1 }, "different pipeline depths: 2 and 1"},
		{func(r *Result) { r.Rate = 100 }, "one run at a set rate"},
		{func(r *Result) { r.AnyLength = true }, "variable document length"},
		{func(r *Result) { r.DocumentLength = 5 }, "different document lengths: 257 and 5 bytes"},
		{func(r *Result) {}, "the same run twice"},
		{func(r *Result) { r.Start = t0.Add(time.Hour) }, "and 2026-01-01T01:00:00.000Z to 2026-01-01T01:00:01.000Z; an old log, or the hosts' clocks are not in sync"},
	} {
		a, b := base(), base()
		if tc.want == "the same run twice" {
			b = a
		}
		tc.edit(b)
		if err := Mergeable(a, b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Mergeable: %v, want %q", err, tc.want)
		}
		if _, err := Merge([]*Result{a, base(), b}); err == nil || !strings.HasPrefix(err.Error(), "runs 1 and 3: ") {
			t.Errorf("Merge: %v, want runs 1 and 3", err)
		}
	}
	if _, err := Merge(nil); err == nil {
		t.Error("Merge of no runs")
	}
	a, b := base(), base()
	b.Rate, a.Rate = 10, 20
	b.DocumentLength, b.Complete = 0, 0 // a run that read no page has no length
	if err := Mergeable(a, b); err != nil {
		t.Error(err)
	}
}

// Run with StartAt waits for it before it opens a connection, and stops
// waiting, with an error, when its context is done.
func TestStartAt(t *testing.T) {
	s := newTestServer(t, nil)
	at := time.Now().Add(300 * time.Millisecond)
	r := run(t, EngineEpoll, Config{URL: s.url(), Requests: 20, KeepAlive: true, StartAt: at})
	if r.Start.Before(at) || r.Complete != 20 {
		t.Errorf("started at %v, before %v; complete %d", r.Start, at, r.Complete)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	at = time.Now().Add(time.Hour)
	_, err := Run(ctx, Config{URL: s.url(), Requests: 20, StartAt: at})
	if err == nil || !strings.HasPrefix(err.Error(), "interrupted while waiting to start at ") {
		t.Errorf("interrupted wait: %v", err)
	}
	if n := s.conns.Load(); n != 1 {
		t.Errorf("%d connections, want the first run's 1", n)
	}
}

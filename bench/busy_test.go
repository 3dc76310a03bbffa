package bench

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	flagBusy        = flag.String("busy", "1000,10000", "BenchmarkBusyConns' connection counts: the first is the one the others are compared with")
	flagBusyServers = flag.String("busy-servers", "uring", "BenchmarkBusyConns' servers")
	flagBusyRounds  = flag.Int("busy-rounds", 5, "BenchmarkBusyConns' rounds, each running every count once, in an order that changes round by round")
	flagBusyFor     = flag.Duration("busy-for", 5*time.Second, "how long each BenchmarkBusyConns run is measured, after a fifth as long of warm-up on its connections")
)

// BenchmarkBusyConns measures each server with many busy keep-alive
// connections beside fewer: every connection pipelines PipelineDepth
// requests (loadgen -pipeline), so that the server's core, not the
// client's, is the limit, however many connections share the load. Each
// run starts the server afresh. It reports each count's median req/s and
// CPU, and the ratio of each later count's req/s to the first's, round by
// round (its median: busy-ratio-c=N).
func BenchmarkBusyConns(b *testing.B) {
	cfg, client := setup(b)
	cs := counts(b, "busy", *flagBusy)
	for _, name := range strings.Split(*flagBusyServers, ",") {
		b.Run(name, func(b *testing.B) {
			runs, err := busyRuns(cfg, client, name, cs, *flagBusyRounds, *flagBusyFor)
			if errors.Is(err, ErrMissing) {
				b.Skip(err)
			}
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(0, "ns/op")
			for _, c := range cs {
				rs := runs[c]
				b.ReportMetric(busyMedian(rs, reqPerSec), "req/s-c="+strconv.Itoa(c))
				b.ReportMetric(busyMedian(rs, Result.Busy), "cpu-%-c="+strconv.Itoa(c))
				b.ReportMetric(busyMedian(rs, Result.ClientBusy), "client-cpu-%-c="+strconv.Itoa(c))
				if busy := busyMedian(rs, Result.Busy); busy < Saturated {
					b.Logf("%s at %d connections: its core %.0f %% busy, under %.0f %%: not server-bound", name, c, busy, Saturated)
				}
			}
			for _, c := range cs[1:] {
				b.ReportMetric(busyRatio(runs[c], runs[cs[0]]), "busy-ratio-c="+strconv.Itoa(c))
			}
		})
	}
}

// busyRuns runs name rounds times at each count of connections, for d each
// after d/5 of warm-up, and returns the runs by count, in round order.
func busyRuns(cfg Config, client Client, name string, cs []int, rounds int, d time.Duration) (map[int][]Result, error) {
	runs := map[int][]Result{}
	for round := range rounds {
		for _, c := range permute(cs, round) {
			r, err := busyRun(cfg, client, name, c, d)
			if err != nil {
				return nil, fmt.Errorf("%s at %d connections, round %d: %w", name, c, round+1, err)
			}
			runs[c] = append(runs[c], r)
		}
	}
	return runs, nil
}

func busyRun(cfg Config, client Client, name string, c int, d time.Duration) (Result, error) {
	s, err := cfg.StartWith(name, "", Work{})
	if err != nil {
		return Result{}, err
	}
	r, err := Measure(s, client, Load{URL: s.URL(), Mode: Pipeline, Connections: c, Duration: d, Warmup: d / 5})
	if stopErr := s.Stop(); err == nil {
		err = stopErr
	}
	return r, err
}

func reqPerSec(r Result) float64 { return r.ReqPerSec }

// busyMedian returns the median of f over rs.
func busyMedian(rs []Result, f func(Result) float64) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	return middle(v)
}

// middle returns the median of v, which it sorts.
func middle(v []float64) float64 {
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// busyRatio is the median, over the rounds, of many's req/s over few's.
func busyRatio(many, few []Result) float64 {
	ratios := make([]float64, len(many))
	for i := range many {
		ratios[i] = many[i].ReqPerSec / few[i].ReqPerSec
	}
	return middle(ratios)
}

// TestBusyConns runs BenchmarkBusyConns' measurement in brief, on uring at
// 100 and 1 000 busy connections, unpinned: each run serves requests on
// every connection count, with none failed, and the ratio is computed.
func TestBusyConns(t *testing.T) {
	cfg := realConfig(t)
	bin, err := cfg.Binary("loadgen")
	if errors.Is(err, ErrMissing) {
		skipMissing(t, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	runs, err := busyRuns(cfg, Loadgen{Bin: bin}, "uring", []int{100, 1000}, 1, 500*time.Millisecond)
	if errors.Is(err, ErrMissing) {
		skipMissing(t, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{100, 1000} {
		if len(runs[c]) != 1 || runs[c][0].Requests < int64(c) || runs[c][0].ReqPerSec <= 0 {
			t.Errorf("%d connections: %+v, want one run of at least one request a connection", c, runs[c])
		}
	}
	if r := busyRatio(runs[1000], runs[100]); r <= 0 {
		t.Errorf("ratio %v", r)
	}
}

package report

import (
	"testing"
)

// latSamples are the three rounds of testdata/latency.txt, a point at
// 25 000 req/s: the second client-limited, the third 2 % short of the rate.
func latSamples(t *testing.T) Samples {
	t.Helper()
	all := map[string]Samples{}
	if _, _, err := ReadBench("testdata/latency.txt", all, map[string]string{}); err != nil {
		t.Fatal(err)
	}
	s := all["hellobench/bench/BenchmarkLatency/nethttp/r=25000/c=50"]
	if len(s["p99-us"]) != 3 {
		t.Fatalf("testdata/latency.txt: %v", s)
	}
	return s
}

func TestLatPoint(t *testing.T) {
	l, ok := LatPoint("nethttp/r=25000/c=50", latSamples(t), "")
	if !ok {
		t.Fatal("latPoint refused nethttp/r=25000/c=50")
	}
	if l.Server != "nethttp" || l.Label != "r=25000" || l.Conns != 50 || l.Rate != 25000 || l.Rounds != 3 {
		t.Errorf("point %+v", l)
	}
	// Only the first round is kept: the second was client-limited, the
	// third short of the rate by more than 1 %.
	if l.ClientLimited != 1 || l.Short != 1 || l.P99.N != 1 || l.P99.Median != 300 || l.P999.Median != 900 || l.Max.Median != 4000 {
		t.Errorf("kept: %d client-limited, %d short, p99 %+v, p99.9 %+v, max %+v", l.ClientLimited, l.Short, l.P99.Spread, l.P999.Spread, l.Max.Spread)
	}
	if l.GCs == nil || l.GCs.Median != 12 || l.GCMax.Median != 250 {
		t.Errorf("collections %+v, longest %+v; want 12 and 250 µs", l.GCs, l.GCMax)
	}
	// The client's lateness counts in every round: it is why one was left out.
	if l.LateP999.N != 3 || l.LateP999.Hi != 800 {
		t.Errorf("send lateness p99.9 %+v; want all three rounds", l.LateP999.Spread)
	}
	s, ok := LatPoint("gnet/of=50%/c=50", Samples{"N": {1}, "rate": {55000}, "req/s": {55000}, "p99-us": {80}, "client-limited": {0}}, "")
	if !ok || s.Share() != 50 || s.GCs != nil || s.P99.Median != 80 {
		t.Errorf("gnet/of=50%%/c=50: %+v, %v", s, ok)
	}
	for _, name := range []string{"nethttp/r=25000", "nethttp/c=50", "nethttp/wait=10ms/c=50"} {
		if _, ok := LatPoint(name, latSamples(t), ""); ok {
			t.Errorf("latPoint(%q) accepted", name)
		}
	}
}

package bench

import (
	"flag"
	"fmt"
	"slices"
	"testing"
	"time"

	"hellobench/bench/stall"
)

// The SLO of BenchmarkCapacity: 5 ms at p99 lies several times above the
// host's own stalls at p99 (the stall meter's, beside every step), so that
// a rate refused is the server's queue, not the machine's hiccups.
var (
	flagSLO      = flag.Duration("slo", 5*time.Millisecond, "BenchmarkCapacity's bound on the p99 latency")
	flagSLOSteps = flag.Int("slo-steps", 6, "BenchmarkCapacity's steps of bisection between -slo-lo and 100 % of a server's ceiling")
	flagSLOLo    = flag.Float64("slo-lo", 0.2, "BenchmarkCapacity's lowest rate, as a share of the server's ceiling")
)

// BenchmarkLoad is make bench-load's cost at load: the points of
// BenchmarkLatency (its flags choose them), under its own name so that a
// run of each keeps its own results, and with a third nginx held without
// the stall meter: set beside nginx, the meter's cost, to read against
// the A/A twin's difference.
func BenchmarkLoad(b *testing.B) {
	names := latencyServers()
	if slices.Contains(names, "nginx") {
		names = append(names, "nginx"+QuietSuffix)
	}
	holdAll(b, names)
}

// BenchmarkCapacity finds, for each server, the highest rate one core
// holds open loop with its p99 within -slo: a bisection over rates
// between -slo-lo and all of its keep-alive ceiling (-ceilings), each step
// measured as a BenchmarkLatency point (-lat-warmup, then -lat-for) on
// -conns connections. A step passes when the server held the rate (within
// 1 %) and the p99 was within -slo. It reports the
// rate, its share of the ceiling, and the host's stall p99 at the last
// step that passed. With -block, the servers run in that block's order.
func BenchmarkCapacity(b *testing.B) {
	cfg, client := setup(b)
	if *flagSLO <= 0 || *flagSLOSteps < 1 || *flagSLOLo <= 0 || *flagSLOLo >= 1 {
		b.Fatalf("-slo %v, -slo-steps %d, -slo-lo %g: want a positive bound, a step or more, a share in (0, 1)", *flagSLO, *flagSLOSteps, *flagSLOLo)
	}
	withCeilings(b, latencyServers(), *flagLatServers != "", func(name string, ceil float64) {
		b.Run(fmt.Sprintf("%s/p99=%dus", name, flagSLO.Microseconds()), func(b *testing.B) {
			capacity(b, cfg, client, name, ceil)
		})
	})
}

// capacity bisects one server's rates, started once.
func capacity(b *testing.B, cfg Config, client Client, name string, ceiling float64) {
	s := start(b, cfg, name)
	lo, hi := *flagSLOLo, 1.0
	var held, hostP99 float64
	for range *flagSLOSteps {
		share := (lo + hi) / 2
		l := Load{URL: s.URL(), Mode: KeepAlive, Connections: *flagConns, Duration: *flagLatFor, Rate: share * ceiling, Warmup: *flagLatWarmup, Spin: true}
		meter := startMeter(b, cfg)
		st, err := client.Run(l)
		var host float64
		if meter != nil {
			host = float64(stall.Worst(meter.Stop()).P99) / float64(time.Microsecond)
		}
		// A client that fell behind only adds to the latency counted from
		// each request's due time: a step it slowed can fail, never pass.
		if err == nil && st.ReqPerSec >= 0.99*l.Rate && st.P99 <= *flagSLO {
			lo, held, hostP99 = share, st.ReqPerSec, host
		} else {
			hi = share
		}
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(held, "slo-req/s")
	b.ReportMetric(100*held/ceiling, "slo-share-%")
	b.ReportMetric(hostP99, "host-p99-us")
	if held == 0 {
		b.Logf("no rate from %g %% of its ceiling up held p99 within %v", 100**flagSLOLo, *flagSLO)
	}
}

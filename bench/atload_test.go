package bench

import (
	"flag"
	"fmt"
	"testing"
)

var flagAt = flag.Float64("at", 0.25, "BenchmarkAtLoad's rate, as a share of each server's keep-alive ceiling (-ceilings)")

// BenchmarkAtLoad is make bench-load's CPU per request at -at of each
// server's keep-alive ceiling, measured as the ceilings are: the servers in
// -block's order, each held open loop at -at of its own ceiling (warmed up
// at that rate for -lat-warmup, then measured for -for), with a reference
// nginx, kept running, held at -at of nginx's ceiling right before and
// after it. Below the ceiling a request's cost moves with the host's speed
// even more than at it, and the host changes speed over seconds: a server
// is set against the reference rounds beside it, not against an nginx
// point minutes away. A run counts (held=1) when the server kept its rate
// within 1 %.
func BenchmarkAtLoad(b *testing.B) {
	cfg, client := setup(b)
	if *flagAt <= 0 || *flagAt > maxShare || *flagFor <= 0 {
		b.Fatalf("-at %g, -for %v: want a share in (0, %g] and a duration", *flagAt, *flagFor, maxShare)
	}
	ceil, ok := parseCeilings(b, *flagCeilings)["nginx"]
	if !ok {
		b.Fatal("-ceilings has no ceiling for nginx, the reference")
	}
	ref := startReference(b, cfg, client, atShare(ceil))
	withCeilings(b, latencyServers(), *flagLatServers != "", func(name string, ceil float64) {
		b.Run(fmt.Sprintf("%s/of=%g%%", name, 100**flagAt), func(b *testing.B) {
			before := ref.before(b)
			s := start(b, cfg, name)
			l := atShare(ceil)
			l.URL = s.URL()
			// The warm-up is loadgen's, at the rate on the same
			// connections: -warmup's count of requests would last
			// seconds at a quarter of a slow server's ceiling.
			reportHeld(b, s, client, l)
			ref.after(b, before)
		})
	})
}

// reportHeld runs l against s at its fixed rate (heldAt) and reports the
// run: its CPU per request, its core's busy share and whether it held the
// rate. A run that fell over still reports, as not held, so that its
// block keeps every point (and the reference rounds beside it).
func reportHeld(b *testing.B, s *Server, client Client, l Load) heldRun {
	r, err := heldAt(s, client, l)
	if err != nil {
		b.Logf("%s%v", fellOverPrefix, err)
		b.ReportMetric(1, "fell-over")
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(l.Rate, "rate")
	b.ReportMetric(r.Stats.ReqPerSec, "req/s")
	b.ReportMetric(r.CPU, "cpu-us/req")
	r.Split.report(b)
	b.ReportMetric(r.Busy, "cpu-%")
	b.ReportMetric(b2f(r.Held), "held")
	return r
}

// atShare is a run at -at of ceiling: on -conns keep-alive connections,
// open loop, the client polling between sends (a late wake-up would be
// the client's stall, not the server's load), for -for after -lat-warmup.
func atShare(ceiling float64) Load {
	return Load{Mode: KeepAlive, Connections: *flagConns, Duration: *flagFor, Rate: *flagAt * ceiling, Warmup: *flagLatWarmup, Spin: true}
}

// A heldRun is one run at a fixed rate: the server's CPU per request and
// its core's busy share over the client's measured span (the warm-up on
// the same connections left out), and whether it held the rate.
type heldRun struct {
	Stats Stats
	CPU   float64 // µs per request
	Busy  float64 // percent
	Split Split   // CPU's user and kernel parts
	Held  bool    // the rate achieved within 1 % of the one asked
}

// heldAt runs l (a Rate) against s, sampling the server's CPU time.
func heldAt(s *Server, client Client, l Load) (heldRun, error) {
	usage := logUsage(s, usagePeriod)
	st, err := client.Run(l)
	if uerr := usage.Stop(); err == nil {
		err = uerr
	}
	if err != nil {
		return heldRun{}, err
	}
	r := heldRun{Stats: st, Held: st.ReqPerSec >= 0.99*l.Rate}
	var ok bool
	if r.CPU, r.Busy, ok = usage.perRequest(st); !ok {
		return r, fmt.Errorf("bench: %s: no CPU samples within the measured %v", s.Name, st.Elapsed)
	}
	r.Split = usage.perRequestSplit(st)
	return r, nil
}

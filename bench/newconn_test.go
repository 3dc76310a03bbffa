package bench

import (
	"flag"
	"fmt"
	"testing"
)

// At one client core the closed loop of a new connection per request
// saturates no server but fcgi: a fixed rate every server and nginx hold
// prices a new connection for all of them alike.
var flagConnRate = flag.Float64("conn-rate", 5000, "BenchmarkNewConn's rate of new connections, one request each, per second")

// BenchmarkNewConn is the CPU per request of a new connection per request
// (Connection: close) at -conn-rate, the same for every server: open loop,
// each server in -block's order (every server and reference, or
// -lat-servers), warmed up at the rate for -lat-warmup then measured for
// -for, with a reference nginx, kept running, held at the same rate right
// before and after it, as BenchmarkAtLoad holds its servers. A run counts
// (held=1) when the server kept the rate within 1 %.
func BenchmarkNewConn(b *testing.B) {
	cfg, client := setup(b)
	if *flagConnRate <= 0 || *flagFor <= 0 {
		b.Fatalf("-conn-rate %g, -for %v: want a rate and a duration", *flagConnRate, *flagFor)
	}
	ref := startReference(b, cfg, client, newConns())
	names := latencyServers()
	if *flagBlock >= 0 {
		names = permute(names, *flagBlock)
	}
	for _, name := range names {
		b.Run(fmt.Sprintf("%s/rate=%g", name, *flagConnRate), func(b *testing.B) {
			before := ref.before(b)
			s := start(b, cfg, name)
			l := newConns()
			l.URL = s.URL()
			reportHeld(b, s, client, l)
			ref.after(b, before)
		})
	}
}

// newConns is a run at -conn-rate, a new connection per request, on at
// most -conns connections at a time, the client polling between sends.
func newConns() Load {
	return Load{Mode: Close, Connections: *flagConns, Duration: *flagFor, Rate: *flagConnRate, Warmup: *flagLatWarmup, Spin: true}
}

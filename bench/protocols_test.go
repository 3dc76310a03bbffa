package bench

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"hellobench/internal/certs"
	"hellobench/internal/proc"
)

var (
	flagProtoServer = flag.String("proto-server", "nethttp", "BenchmarkProtocols' server: one with HTTPS, HTTP/2 and HTTP/3")
	flagProtoRates  = flag.String("proto-rates", "2500,5000,10000", "BenchmarkProtocols' fixed rates, requests a second")
	flagProtoFor    = flag.Duration("proto-for", 2*time.Second, "how long BenchmarkProtocols measures each run, after -proto-warmup")
	flagProtoNew    = flag.Float64("proto-new-rate", 1000, "BenchmarkProtocols' handshake rows' fixed rate, new connections a second (0: none)")
	flagProtoCalls  = flag.Float64("proto-calls-rate", 5000, "BenchmarkProtoCalls' fixed rate, requests a second")
	flagProtoWarmup = flag.Duration("proto-warmup", 500*time.Millisecond, "each BenchmarkProtocols run's warm-up on its own connections, not counted")
)

// BenchmarkProtocols is make bench-h3's block: one server, started once
// with HTTPS, HTTP/2 and HTTP/3 on one port, held at each -proto-rates
// rate (open loop) in every Protocol, the rows in -block's order, and
// HTTP/2 on 50 connections twice (its A/A twin: the block's noise floor);
// then at -proto-new-rate each Handshakes row, a new connection per
// request, and HTTP/3's full handshake twice (their A/A twin).
// A run counts (held=1) when the server kept the rate within 1 %; its CPU
// per request is read over loadgen's measured span, its warm-up on the
// same connections left out.
func BenchmarkProtocols(b *testing.B) {
	cfg, client := protoSetup(b)
	var rates []float64
	for _, r := range strings.Split(*flagProtoRates, ",") {
		v, err := strconv.ParseFloat(r, 64)
		if err != nil || v <= 0 {
			b.Fatalf("-proto-rates: %q is not a rate", r)
		}
		rates = append(rates, v)
	}
	if *flagProtoNew < 0 {
		b.Fatalf("-proto-new-rate: %g is below 0", *flagProtoNew)
	}
	s := start(b, cfg, *flagProtoServer)
	run := func(names []string, rate float64) {
		if *flagBlock >= 0 {
			names = permute(names, *flagBlock)
		}
		for _, name := range names {
			p, _ := ProtocolByName(name)
			b.Run(fmt.Sprintf("%s/rate=%g", name, rate), func(b *testing.B) {
				c := client
				c.Protocol = p
				reportHeld(b, s, c, Load{URL: s.URL(), Connections: p.Connections, Duration: *flagProtoFor, Rate: rate, Warmup: *flagProtoWarmup})
			})
		}
	}
	for _, rate := range rates {
		run(protoRows(Protocols, "h2-1"), rate)
	}
	if *flagProtoNew > 0 {
		run(protoRows(Handshakes, "h3-full"), *flagProtoNew)
	}
}

// protoRows are ps's names, twin's followed by its A/A twin.
func protoRows(ps []Protocol, twin string) []string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
		if p.Name == twin {
			names = append(names, p.Name+TwinSuffix)
		}
	}
	return names
}

// BenchmarkProtoCalls counts what the server asks of the kernel per
// request in each keep-alive Protocol, at -proto-calls-rate, as
// BenchmarkWhy counts it (perf, on the kernel's tracepoints): system calls
// by kind, epoll_waits, context switches. Counting slows the server, so
// it is a run of its own after BenchmarkProtocols' blocks, not one of them.
func BenchmarkProtoCalls(b *testing.B) {
	if *flagProtoCalls <= 0 {
		b.Fatalf("-proto-calls-rate: %g is not a rate", *flagProtoCalls)
	}
	cfg, client := protoSetup(b)
	perf := perfReady(b)
	s := start(b, cfg, *flagProtoServer)
	for _, p := range Protocols {
		b.Run(fmt.Sprintf("%s/rate=%g", p.Name, *flagProtoCalls), func(b *testing.B) {
			c := client
			c.Protocol = p
			// No warm-up: perf counts the whole run, its 50 handshakes
			// or fewer among thousands of requests.
			counted(b, perf, c, s, Load{URL: s.URL(), Connections: p.Connections, Duration: *flagProtoFor, Rate: *flagProtoCalls})
		})
	}
}

// protoSetup is the server's configuration (a certificate, HTTP/3 on)
// and the client.
func protoSetup(b *testing.B) (Config, ProtoClient) {
	cfg, lg := loadgenSetup(b)
	dir, err := os.MkdirTemp("", "hellobench-h3-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	pair, err := certs.Write(dir, certs.ECDSA)
	if err != nil {
		b.Fatal(err)
	}
	cfg.TLSCert, cfg.TLSKey, cfg.H3 = pair.Cert, pair.Key, true
	if err := proc.RaiseUDPBuffers(); err != nil {
		b.Logf("HTTP/3: %v: quic-go works with smaller buffers", err)
	}
	return cfg, ProtoClient{Loadgen: lg}
}

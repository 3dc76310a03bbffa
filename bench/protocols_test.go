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
	// 500 new connections a second: at 1000 one client core fell short of
	// the rate (968-993 a second) in 11 of 12 blocks of QUIC's full
	// handshakes on a host whose system calls cost 1.1 µs, leaving the row
	// without a figure.
	flagProtoNew    = flag.Float64("proto-new-rate", 500, "BenchmarkProtocols' handshake rows' fixed rate, new connections a second (0: none)")
	flagProtoCalls  = flag.Float64("proto-calls-rate", 5000, "BenchmarkProtoCalls' fixed rate, requests a second")
	flagProtoWarmup = flag.Duration("proto-warmup", 500*time.Millisecond, "each BenchmarkProtocols run's warm-up on its own connections, not counted")
	flagProtoMax    = flag.Bool("proto-max", true, "BenchmarkProtocols' closed-loop rows: each keep-alive protocol as fast as loadgen asks, the server's ceiling where one client core reaches it")
	flagProtoIdle   = flag.Int("proto-idle", 2000, "BenchmarkProtoIdle's idle connections in each protocol")
	flagProtoQuiet  = flag.Duration("proto-idle-quiet", 3*time.Second, "how long BenchmarkProtoIdle's connections stay quiet before they are checked")
)

// BenchmarkProtocols is make bench-h3's block: one server, started once
// with HTTPS, HTTP/2 and HTTP/3 on one port, held at each -proto-rates
// rate (open loop) in every Protocol, the rows in -block's order, and
// HTTP/2 on 50 connections twice (its A/A twin: the block's noise floor);
// with -proto-max each protocol in a closed loop (mode ProtoMax); then at
// -proto-new-rate each Handshakes row, a new connection per
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
	// A rate of 0 is the closed loop, whose run counts (held=1) where
	// the server's core was saturated: a ceiling.
	run := func(names []string, rate float64) {
		if *flagBlock >= 0 {
			names = permute(names, *flagBlock)
		}
		mode := fmt.Sprintf("rate=%g", rate)
		if rate == 0 {
			mode = ProtoMax
		}
		for _, name := range names {
			p, _ := ProtocolByName(name)
			b.Run(name+"/"+mode, func(b *testing.B) {
				c := client
				c.Protocol = p
				r := reportHeld(b, s, c, Load{URL: s.URL(), Connections: p.Connections, Duration: *flagProtoFor, Rate: rate, Warmup: *flagProtoWarmup})
				if rate == 0 {
					b.ReportMetric(b2f(r.Busy >= Saturated), "held")
				}
			})
		}
	}
	for _, rate := range rates {
		run(protoRows(Protocols, "h2-1"), rate)
	}
	if *flagProtoMax {
		run(protoRows(Protocols, ""), 0)
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

// BenchmarkProtoIdle holds -proto-idle connections in each of
// IdleProtocols, in -block's order, each protocol on a server of its own,
// started for it: Go's heap keeps what it grew to, so a second protocol
// on the same server would be measured from the first one's high-water
// mark. It reports the server's resident memory's growth per connection
// held (rss-B/conn) and its CPU while they are quiet (idle-cpu-ms/s), as
// BenchmarkIdle does over plain TCP.
func BenchmarkProtoIdle(b *testing.B) {
	if *flagProtoIdle <= 0 {
		b.Fatalf("-proto-idle: %d is not a count of connections", *flagProtoIdle)
	}
	cfg, _ := protoSetup(b)
	names := IdleProtocols
	if *flagBlock >= 0 {
		names = permute(names, *flagBlock)
	}
	for _, p := range names {
		b.Run(p+"/c="+strconv.Itoa(*flagProtoIdle), func(b *testing.B) {
			s := start(b, cfg, *flagProtoServer)
			r, err := ProtoIdle(s, p, *flagProtoIdle, *flagProtoQuiet)
			if err != nil {
				b.Fatal(err)
			}
			reportIdle(b, r)
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

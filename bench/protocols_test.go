package bench

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"hellobench/internal/certs"
)

var (
	flagProtoServer = flag.String("proto-server", "nethttp", "BenchmarkProtocols' server: one with HTTPS, HTTP/2 and HTTP/3")
	flagProtoRates  = flag.String("proto-rates", "2500,5000,10000", "BenchmarkProtocols' fixed rates, requests a second")
	flagProtoFor    = flag.Duration("proto-for", 2*time.Second, "how long BenchmarkProtocols measures each run, after -proto-warmup")
	flagProtoWarmup = flag.Duration("proto-warmup", 500*time.Millisecond, "each BenchmarkProtocols run's warm-up on its own connections, not counted")
)

// BenchmarkProtocols is make bench-h3's block: one server, started once
// with HTTPS, HTTP/2 and HTTP/3 on one port, held at each -proto-rates
// rate (open loop) in every Protocol, the rows in -block's order, and
// HTTP/2 on 50 connections twice (its A/A twin: the block's noise floor).
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
	s := start(b, cfg, *flagProtoServer)
	names := []string{}
	for _, p := range Protocols {
		names = append(names, p.Name)
		if p.Name == "h2-1" {
			names = append(names, p.Name+TwinSuffix)
		}
	}
	if *flagBlock >= 0 {
		names = permute(names, *flagBlock)
	}
	for _, rate := range rates {
		for _, name := range names {
			p, _ := ProtocolByName(name)
			b.Run(fmt.Sprintf("%s/rate=%g", name, rate), func(b *testing.B) {
				c := client
				c.Protocol = p
				reportHeld(b, s, c, Load{URL: s.URL(), Connections: p.Connections, Duration: *flagProtoFor, Rate: rate, Warmup: *flagProtoWarmup})
			})
		}
	}
}

// protoSetup is the server's configuration (a certificate, HTTP/3 on)
// and the client.
func protoSetup(b *testing.B) (Config, ProtoClient) {
	cfg, err := DefaultConfig()
	if err != nil {
		b.Fatal(err)
	}
	bin, err := cfg.Binary("loadgen")
	if errors.Is(err, ErrMissing) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
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
	return cfg, ProtoClient{Loadgen: Loadgen{Bin: bin, CPUs: cfg.ClientCPUs}}
}

package bench

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"hellobench/internal/certs"
	"hellobench/internal/targets"
)

var (
	flagTLSModes  = flag.String("tls-modes", "", "comma-separated modes of BenchmarkTLS: "+modeList(TLSModes)+" (default: all)")
	flagTLSKey    = flag.String("tls-key-type", "ecdsa", "BenchmarkTLS's certificate: ecdsa (P-256) or rsa (2048 bits)")
	flagTLSClient = flag.String("tls-client", "auto", "BenchmarkTLS's client, in each mode that has a choice: auto (the cheapest that saturates the reference nginx, measured in each mode), wrk, h2load or loadgen (where the mode can use it)")
	flagTLS12     = flag.Bool("tls12", false, "BenchmarkTLS also measures keep-alive and full handshakes over TLS 1.2 with ECDHE-ECDSA-AES128-GCM-SHA256 (modes "+string(TLS12)+", "+string(TLS12Full)+")")
)

// BenchmarkTLS measures what TLS and HTTP/2 cost each server on one core,
// as BenchmarkCeiling measures the ceilings: one certificate made for the
// run, the servers in -block's order, each mode's reference nginx (over
// TLS) measured right before and after each server, the same metrics and
// the same saturation rule. Servers without TLS (gnet, uring) are listed
// as skipped; a mode a server does not speak (HTTP/2, h2c) is skipped
// with the reason.
func BenchmarkTLS(b *testing.B) {
	cfg, err := DefaultConfig()
	if err != nil {
		b.Fatal(err)
	}
	client := tlsClient(b, cfg)
	names := tlsServers()
	if *flagBlock >= 0 {
		names = permute(names, *flagBlock)
	}
	tlsCfg := cfg
	tlsCfg.TLSCert, tlsCfg.TLSKey = client.pair.Cert, client.pair.Key
	for _, mode := range tlsModes(b) {
		l := Load{Mode: mode, Connections: *flagConns}
		rl := l
		rl.Mode = RefMode(mode)
		c := tlsCfg
		c.NoTickets = NoTickets(mode)
		ref := startReference(b, c, client, rl)
		var why string
		client.TLSClient, why = pickClient(b, client.TLSClient, ref, mode)
		if ref != nil {
			ref.client = client // its rounds on the chosen client too
		}
		if Cleartext(mode) {
			c.TLSCert, c.TLSKey, c.H2C = "", "", true
		}
		sub := string(mode)
		if client.kind == certs.RSA {
			// Its own rows: the report sets RSA's handshakes beside ECDSA's.
			sub += RSASuffix
		}
		for _, name := range names {
			b.Run(name+"/"+sub, func(b *testing.B) {
				t, err := lookup(strings.TrimSuffix(name, TwinSuffix))
				if err != nil {
					b.Fatal(err)
				}
				if ok, why := Serves(t, mode); !ok {
					b.Skip(why)
				}
				if why != "" {
					b.Logf("client: %s", why)
				}
				ceiling(b, c, client, name, Work{}, l, ref)
				// The report reads the client from the run.
				b.ReportMetric(b2f(client.Uses(mode) == "h2load"), "client-h2load")
				b.ReportMetric(b2f(client.Uses(mode) == "loadgen"), "client-loadgen")
			})
		}
	}
}

// pickClient chooses the client of a mode that has a choice by
// measurement on the reference nginx over TLS: each candidate runs once,
// and the one that saturated it at the lowest client CPU per request is
// kept (of those that saturate none, the one that kept it busiest), so
// that a server is measured by the cheapest client that saturates it.
// Without a reference (-ref=false, no -for), the mode's first stays.
func pickClient(b *testing.B, c TLSClient, ref *reference, m Mode) (TLSClient, string) {
	cands := Candidates(m)
	c.Pick = ""
	switch {
	case *flagTLSClient != "auto" && !slices.Contains([]string{"wrk", "h2load", "loadgen"}, *flagTLSClient):
		b.Fatalf("-tls-client: %q is none of auto, wrk, h2load, loadgen", *flagTLSClient)
	case len(cands) == 1:
		return c, ""
	case *flagTLSClient != "auto":
		if !slices.Contains(cands, *flagTLSClient) {
			return c, fmt.Sprintf("%s: %s cannot run %s", cands[0], *flagTLSClient, m)
		}
		c.Pick = *flagTLSClient
		return c, c.Pick + ", as -tls-client says"
	case ref == nil:
		return c, cands[0] + ": no reference to choose on"
	}
	var best Result
	var tried []string
	for _, name := range cands {
		try := c
		try.Pick = name
		r, err := Measure(ref.s, try, ref.load)
		if err != nil {
			b.Logf("client choice: %s on the reference: %v", name, err)
			continue
		}
		tried = append(tried, fmt.Sprintf("%s kept it %.0f %% busy at %.2f client µs/req", name, r.Busy(), r.ClientCPUPerRequest()))
		sat, bestSat := r.Busy() >= SaturatedCeiling, best.Busy() >= SaturatedCeiling
		if best.Requests == 0 || sat && !bestSat || sat == bestSat && (sat && r.ClientCPUPerRequest() < best.ClientCPUPerRequest() || !sat && r.Busy() > best.Busy()) {
			best, c.Pick = r, name
		}
	}
	return c, fmt.Sprintf("%s, chosen on the reference nginx (%s)", c.Uses(m), strings.Join(tried, "; "))
}

// tlsServers are BenchmarkTLS's targets: the servers (those without TLS
// are listed, and skip), nginx and its A/A twin, unless -servers says.
func tlsServers() []string {
	if *flagServers != "" {
		return servers()
	}
	names := targets.Names(targets.Server)
	return append(names, "nginx", "nginx"+TwinSuffix)
}

// tlsRun is TLSClient with the certificate it was set up for.
type tlsRun struct {
	TLSClient
	pair certs.Pair
	kind certs.Kind
}

// tlsClient writes the run's certificate and the clients' OpenSSL
// configurations into a directory every server's user can read (lighttpd
// reads the key as nobody), and finds wrk, h2load and loadgen; a missing
// one skips the benchmark.
func tlsClient(b *testing.B, cfg Config) tlsRun {
	kind := certs.ECDSA
	switch *flagTLSKey {
	case "ecdsa":
	case "rsa":
		kind = certs.RSA
	default:
		b.Fatalf("-tls-key-type: %q is neither ecdsa nor rsa", *flagTLSKey)
	}
	dir, err := os.MkdirTemp("", "hellobench-tls-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	pair, err := certs.Write(dir, kind)
	if err != nil {
		b.Fatal(err)
	}
	conf12, err := TLSConf(dir, kind)
	if err != nil {
		b.Fatal(err)
	}
	lg, err := cfg.Binary("loadgen")
	if err != nil {
		b.Skip(err)
	}
	var bins [2]string
	for i, name := range []string{"wrk", "h2load"} {
		bin, why, err := clientSpec(name).find(cfg)
		if err == nil && bin == "" {
			err = errors.New(why)
		}
		if err != nil {
			b.Skip(err)
		}
		bins[i] = bin
	}
	return tlsRun{TLSClient{
		Wrk:     Wrk{Bin: bins[0], CPUs: cfg.ClientCPUs},
		H2load:  H2load{Bin: bins[1], CPUs: cfg.ClientCPUs},
		Loadgen: Loadgen{Bin: lg, CPUs: cfg.ClientCPUs},
		Conf12:  conf12,
	}, pair, kind}
}

// tlsModes reads -tls-modes, and adds TLS12Modes with -tls12.
func tlsModes(b *testing.B) []Mode {
	ms := TLSModes
	if *flagTLSModes != "" {
		ms = nil
		for _, m := range strings.Split(*flagTLSModes, ",") {
			if !slices.Contains(TLSModes, Mode(m)) && !slices.Contains(TLS12Modes, Mode(m)) {
				b.Fatalf("-tls-modes: unknown mode %q (%s)", m, modeList(TLSModes))
			}
			ms = append(ms, Mode(m))
		}
	}
	for _, m := range TLS12Modes {
		if *flagTLS12 && !slices.Contains(ms, m) {
			ms = append(ms, m)
		}
	}
	return ms
}

func modeList(ms []Mode) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

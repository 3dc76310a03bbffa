package bench

import (
	"errors"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"hellobench/internal/certs"
	"hellobench/internal/targets"
)

var (
	flagTLSModes = flag.String("tls-modes", "", "comma-separated modes of BenchmarkTLS: "+modeList(TLSModes)+" (default: all)")
	flagTLSKey   = flag.String("tls-key-type", "ecdsa", "BenchmarkTLS's certificate: ecdsa (P-256) or rsa (2048 bits)")
	flagTLS12    = flag.Bool("tls12", false, "BenchmarkTLS also measures keep-alive over TLS 1.2 with ECDHE-ECDSA-AES128-GCM-SHA256 (mode "+string(TLS12)+")")
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
		perm := Order(len(names), *flagBlock)
		ordered := make([]string, len(names))
		for i, j := range perm {
			ordered[i] = names[j]
		}
		names = ordered
	}
	tlsCfg := cfg
	tlsCfg.TLSCert, tlsCfg.TLSKey = client.pair.Cert, client.pair.Key
	for _, mode := range tlsModes(b) {
		l := Load{Mode: mode, Connections: *flagConns}
		rl := l
		rl.Mode = RefMode(mode)
		ref := startReference(b, tlsCfg, client, rl)
		c := tlsCfg
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
				b.Logf("client: %s", client.Uses(mode))
				ceiling(b, c, client, name, Work{}, l, ref)
			})
		}
	}
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
// reads the key as nobody), and finds wrk and h2load; a missing one skips
// the benchmark.
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
	conf12, full12, err := TLSConfs(dir, kind)
	if err != nil {
		b.Fatal(err)
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
		Wrk:    Wrk{Bin: bins[0], CPUs: cfg.ClientCPUs},
		H2load: H2load{Bin: bins[1], CPUs: cfg.ClientCPUs},
		Conf12: conf12, Full12: full12,
	}, pair, kind}
}

// tlsModes reads -tls-modes, and adds TLS12 with -tls12.
func tlsModes(b *testing.B) []Mode {
	ms := TLSModes
	if *flagTLSModes != "" {
		ms = nil
		for _, m := range strings.Split(*flagTLSModes, ",") {
			if !slices.Contains(TLSModes, Mode(m)) && Mode(m) != TLS12 {
				b.Fatalf("-tls-modes: unknown mode %q (%s)", m, modeList(TLSModes))
			}
			ms = append(ms, Mode(m))
		}
	}
	if *flagTLS12 && !slices.Contains(ms, TLS12) {
		ms = append(ms, TLS12)
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

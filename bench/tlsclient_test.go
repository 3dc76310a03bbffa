package bench

import (
	"crypto/tls"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"hellobench/internal/certs"
)

// TestTLSClientHandshakes checks, against a crypto/tls server that counts
// its handshakes, what each TLS mode's clients do with a new connection
// per request: tls-resumed resumes (wrk keeps its session, loadgen runs
// with -resume), tls-full makes full TLS 1.3 handshakes with a server that
// issues no tickets, as BenchmarkTLS starts the servers for it, tls12-full
// full TLS 1.2 ones, and tls-keepalive makes one per connection. It needs
// wrk; without it, it skips.
func TestTLSClientHandshakes(t *testing.T) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	pair, err := certs.Write(dir, certs.ECDSA)
	if err != nil {
		t.Fatal(err)
	}
	conf12, err := TLSConf(dir, certs.ECDSA)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(pair.Cert, pair.Key)
	if err != nil {
		t.Fatal(err)
	}
	lg, err := realConfig(t).Binary("loadgen")
	if err != nil {
		t.Fatal(err)
	}
	resumes := func(f, r, n int64) bool { return f <= 4 && r >= n-4 }
	fulls := func(f, r, n int64) bool { return r == 0 && f >= n }
	perConn := func(f, r, n int64) bool { return f+r <= 4 }
	for _, tc := range []struct {
		mode       Mode
		client     string
		version    uint16
		check      func(full, resumed, requests int64) bool
		wantDetail string
	}{
		{TLSResumed, "wrk", tls.VersionTLS13, resumes, "a full handshake per connection at most, the rest resumed"},
		{TLSResumed, "loadgen", tls.VersionTLS13, resumes, "a full handshake per connection at most, the rest resumed"},
		{TLSFull, "wrk", tls.VersionTLS13, fulls, "every handshake full"},
		{TLSFull, "loadgen", tls.VersionTLS13, fulls, "every handshake full"},
		{TLS12Full, "wrk", tls.VersionTLS12, fulls, "every handshake full"},
		{TLSKeepAlive, "wrk", tls.VersionTLS13, perConn, "a handshake per connection"},
		{TLSKeepAlive, "loadgen", tls.VersionTLS13, perConn, "a handshake per connection"},
		{TLSPipeline, "loadgen", tls.VersionTLS13, perConn, "a handshake per connection"},
	} {
		c := TLSClient{Wrk: Wrk{Bin: wrk}, Loadgen: Loadgen{Bin: lg}, Conf12: conf12, Pick: tc.client}
		if got := c.Uses(tc.mode); got != tc.client {
			t.Fatalf("%s: runs on %s, want %s", tc.mode, got, tc.client)
		}
		var full, resumed, other atomic.Int64
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
		srv.TLS = &tls.Config{
			Certificates: []tls.Certificate{cert},
			// As BenchmarkTLS starts the servers of the mode.
			SessionTicketsDisabled: NoTickets(tc.mode),
			VerifyConnection: func(cs tls.ConnectionState) error {
				switch {
				case cs.Version != tc.version:
					other.Add(1)
				case cs.DidResume:
					resumed.Add(1)
				default:
					full.Add(1)
				}
				return nil
			},
		}
		// The clients end connections mid-handshake as a run stops.
		srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		srv.StartTLS()
		st, err := c.Run(Load{URL: srv.URL + "/", Mode: tc.mode, Connections: 2, Duration: time.Second})
		srv.Close()
		if err != nil {
			t.Fatalf("%s on %s: %v", tc.mode, tc.client, err)
		}
		if f, r, o := full.Load(), resumed.Load(), other.Load(); o != 0 || !tc.check(f, r, st.Requests) {
			t.Errorf("%s on %s: %d full and %d resumed handshakes in %s, %d in another version, for %d requests on 2 connections; want %s", tc.mode, tc.client, f, r, tls.VersionName(tc.version), o, st.Requests, tc.wantDetail)
		}
	}
}

// TestServes checks which targets each TLS mode measures, from the table.
func TestServes(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode Mode
		want bool
	}{
		{"nethttp", TLSKeepAlive, true}, {"nethttp", H2CMany, true}, {"gnet", TLSKeepAlive, false},
		{"uring", TLSFull, false}, {"fasthttp", TLSH2One, false}, {"fasthttp", TLSResumed, true},
		{"nginx", TLSH2Many, true}, {"nginx", H2COne, false}, {"fcgi", TLSH2One, true},
	} {
		tg, err := lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if got, why := Serves(tg, tc.mode); got != tc.want {
			t.Errorf("Serves(%s, %s) = %v (%s), want %v", tc.name, tc.mode, got, why, tc.want)
		}
	}
	if NoTickets(TLSResumed) || !NoTickets(TLSFull) || !NoTickets(TLS12Full) {
		t.Error("NoTickets: only the full handshakes' servers issue no tickets")
	}
	if RefMode(H2CMany) != TLSH2Many || RefMode(TLSFull) != TLSFull {
		t.Error("RefMode: h2c's reference is nginx's HTTP/2 over TLS, the rest the mode itself")
	}
}

// TestHandshakesFit checks the rule that rejects a loadgen run whose
// handshakes were not its mode's, with 50 connections.
func TestHandshakesFit(t *testing.T) {
	for _, tc := range []struct {
		mode Mode
		st   Stats
		ok   bool
	}{
		{TLSFull, Stats{Requests: 100, Handshakes: 102}, true},
		{TLSFull, Stats{Requests: 100, Handshakes: 102, Resumed: 1}, false},
		{TLSFull, Stats{Requests: 100, Handshakes: 50}, false},
		{TLSResumed, Stats{Requests: 100, Handshakes: 102, Resumed: 52}, true},
		{TLSResumed, Stats{Requests: 100, Handshakes: 102, Resumed: 51}, false},
		{TLSResumed, Stats{Requests: 100, Handshakes: 60, Resumed: 60}, false},
		{TLSKeepAlive, Stats{Requests: 100, Handshakes: 50}, true},
	} {
		if err := handshakesFit(tc.mode, tc.st, 50); (err == nil) != tc.ok {
			t.Errorf("%s %+v: error %v, want ok %v", tc.mode, tc.st, err, tc.ok)
		}
	}
}

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
// its handshakes, what each TLS mode's client does with a new connection
// per request: tls-resumed resumes (wrk keeps its session), tls-full makes
// full TLS 1.3 handshakes with a server that issues no tickets, as
// BenchmarkTLS starts the servers for it, tls12-full full TLS 1.2 ones, and
// tls-keepalive makes one per connection. It needs wrk; without it, it
// skips.
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
	c := TLSClient{Wrk: Wrk{Bin: wrk}, Conf12: conf12}
	for _, tc := range []struct {
		mode       Mode
		version    uint16
		check      func(full, resumed, requests int64) bool
		wantDetail string
	}{
		{TLSResumed, tls.VersionTLS13, func(f, r, n int64) bool { return f <= 4 && r >= n-4 }, "a full handshake per connection at most, the rest resumed"},
		{TLSFull, tls.VersionTLS13, func(f, r, n int64) bool { return r == 0 && f >= n }, "every handshake full"},
		{TLS12Full, tls.VersionTLS12, func(f, r, n int64) bool { return r == 0 && f >= n }, "every handshake full"},
		{TLSKeepAlive, tls.VersionTLS13, func(f, r, n int64) bool { return f+r <= 4 }, "a handshake per connection"},
	} {
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
			t.Fatalf("%s: %v", tc.mode, err)
		}
		if f, r, o := full.Load(), resumed.Load(), other.Load(); o != 0 || !tc.check(f, r, st.Requests) {
			t.Errorf("%s: %d full and %d resumed handshakes in %s, %d in another version, for %d requests on 2 connections; want %s", tc.mode, f, r, tls.VersionName(tc.version), o, st.Requests, tc.wantDetail)
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

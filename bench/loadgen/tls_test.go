//go:build linux

package loadgen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hellobench/internal/certs"
)

// handshakes counts a crypto/tls server's handshakes by kind.
type handshakes struct{ full, resumed, other atomic.Int64 }

// newTLSServer starts a crypto/tls HTTP server of a 257-byte page with a
// certificate of kind k, counting its handshakes; edit adjusts its
// configuration.
func newTLSServer(t *testing.T, k certs.Kind, edit func(*tls.Config)) (*httptest.Server, *handshakes) {
	t.Helper()
	pair, err := certs.Write(t.TempDir(), k)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(pair.Cert, pair.Key)
	if err != nil {
		t.Fatal(err)
	}
	var n handshakes
	body := bytes.Repeat([]byte("x"), 257)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	srv.TLS = &tls.Config{
		Certificates: []tls.Certificate{cert},
		VerifyConnection: func(cs tls.ConnectionState) error {
			switch {
			case cs.Version != tls.VersionTLS13:
				n.other.Add(1)
			case cs.DidResume:
				n.resumed.Add(1)
			default:
				n.full.Add(1)
			}
			return nil
		},
	}
	if edit != nil {
		edit(srv.TLS)
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failures tested
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestTLS checks every kind of run over TLS against a crypto/tls server,
// on each engine and with each kind of certificate: exact counts, and the
// handshakes the server saw are the ones loadgen reports, full or resumed
// as asked.
func TestTLS(t *testing.T) {
	const n, conns = 200, 4
	for _, tc := range []struct {
		name         string
		cfg          Config
		full, resume int64 // handshakes the server should see
	}{
		{"full", Config{}, n, 0},
		{"resumed", Config{Resume: true}, conns, n - conns},
		{"keepalive", Config{KeepAlive: true}, conns, 0},
		{"pipelined", Config{KeepAlive: true, Pipeline: 8}, conns, 0},
	} {
		for _, k := range []certs.Kind{certs.ECDSA, certs.RSA} {
			eachEngine(t, func(t *testing.T, engine string) {
				srv, hs := newTLSServer(t, k, nil)
				cfg := tc.cfg
				cfg.URL, cfg.Requests, cfg.Concurrency = srv.URL+"/hello/world", n, conns
				r := run(t, engine, cfg)
				checkCounts(t, r, n)
				if r.Complete != n || r.DocumentLength != 257 || r.Status[200] != n {
					t.Errorf("%s, %v: %d complete, document %d bytes, %d OK; want %d, 257, %d", tc.name, k, r.Complete, r.DocumentLength, r.Status[200], n, n)
				}
				full, resumed, other := hs.full.Load(), hs.resumed.Load(), hs.other.Load()
				if full != tc.full || resumed != tc.resume || other != 0 {
					t.Errorf("%s, %v: the server saw %d full and %d resumed TLS 1.3 handshakes, %d in another version; want %d and %d", tc.name, k, full, resumed, other, tc.full, tc.resume)
				}
				if r.Handshakes != full+resumed || r.Resumed != resumed || r.TLS != TLSProtocol {
					t.Errorf("%s, %v: loadgen reports %d handshakes, %d resumed, over %q; the server saw %d and %d", tc.name, k, r.Handshakes, r.Resumed, r.TLS, full+resumed, resumed)
				}
			})
		}
	}
}

// TestTLSTicketsOff checks that with Resume and a server that issues no
// tickets, every handshake is full, and counted so.
func TestTLSTicketsOff(t *testing.T) {
	srv, hs := newTLSServer(t, certs.ECDSA, func(c *tls.Config) { c.SessionTicketsDisabled = true })
	r := run(t, EngineEpoll, Config{URL: srv.URL + "/", Requests: 50, Concurrency: 2, Resume: true})
	checkCounts(t, r, 50)
	if r.Handshakes != 50 || r.Resumed != 0 || hs.full.Load() != 50 {
		t.Errorf("%d handshakes, %d resumed, the server saw %d full; want 50, 0, 50", r.Handshakes, r.Resumed, hs.full.Load())
	}
}

// TestTLSErrors checks that a server loadgen cannot speak TLS 1.3 with
// ends the run with an error that says why, before any request counts.
func TestTLSErrors(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(plain.Close)
	tls12, _ := newTLSServer(t, certs.ECDSA, func(c *tls.Config) { c.MaxVersion = tls.VersionTLS12 })
	p256, _ := newTLSServer(t, certs.ECDSA, func(c *tls.Config) { c.CurvePreferences = []tls.CurveID{tls.CurveP256} })
	mutual, _ := newTLSServer(t, certs.ECDSA, func(c *tls.Config) { c.ClientAuth = tls.RequireAnyClientCert })
	for _, tc := range []struct {
		name, url, want string
	}{
		{"plain HTTP", plain.URL, `TLS handshake: not a TLS record: "HTTP/1.1 400 Bad"`},
		{"TLS 1.2 only", tls12.URL, "TLS handshake: alert protocol_version (70) from the server"},
		{"no X25519", p256.URL, "TLS handshake: alert handshake_failure (40) from the server"},
		{"client certificate", mutual.URL, "TLS handshake: the server asks for a client certificate"},
	} {
		eachEngine(t, func(t *testing.T, engine string) {
			u := "https://" + strings.TrimPrefix(strings.TrimPrefix(tc.url, "https://"), "http://") + "/"
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := Run(ctx, Config{URL: u, Requests: 4, Concurrency: 2, Engine: engine, Timeout: 5 * time.Second})
			if err == nil || !strings.HasSuffix(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "connect ") {
				t.Errorf("%s: error %v, want connect ADDR: %s", tc.name, err, tc.want)
			}
		})
	}
}

// TestServerHelloBounds feeds the handshake every prefix of a ServerHello
// and random damage: each is an error or a wait for more, never a panic.
func TestServerHelloBounds(t *testing.T) {
	cl, err := newTLSClient(&target{host: "127.0.0.1"}, true)
	if err != nil {
		t.Fatal(err)
	}
	// A ServerHello choosing TLS 1.3, the suite and X25519 with cl's own
	// share.
	body := []byte{3, 3}
	body = append(body, make([]byte, 32)...)
	body = append(body, 0, suiteAES128GCM>>8, suiteAES128GCM&0xff, 0, 0, 46)
	body = append(body, 0, 43, 0, 2, 3, 4, 0, 51, 0, 36, 0, groupX25519, 0, 32)
	body = append(body, cl.share...)
	msg := append([]byte{msgServerHello, 0, 0, byte(len(body))}, body...)

	fresh := func() *tlsConn {
		s := &tlsConn{hash: sha256.New()}
		s.hello(cl)
		return s
	}
	if done, err := fresh().handshake(cl, msg); done || err != nil {
		t.Fatalf("a whole ServerHello: done %v, error %v; want false, nil", done, err)
	}
	for i := range len(msg) {
		// Cut short, as it says: a wait.
		if done, err := fresh().handshake(cl, msg[:i]); done || err != nil {
			t.Errorf("ServerHello cut at %d: done %v, error %v; want a wait", i, done, err)
		}
		// Cut short, saying it is whole: an error.
		cut := append([]byte{msgServerHello, 0, 0, byte(i)}, body[:min(i, len(body))]...)
		if i < len(body) {
			if _, err := fresh().handshake(cl, cut); err == nil {
				t.Errorf("ServerHello of %d bytes, cut at %d: no error", len(body), i)
			}
		}
		// A byte changed: whatever follows, no panic.
		bad := bytes.Clone(msg)
		bad[i] ^= 0xff
		fresh().handshake(cl, bad)
	}
}

// TestRecordAllocs checks that sealing and opening a record allocates
// nothing once the buffer has grown: a request over TLS costs no garbage.
func TestRecordAllocs(t *testing.T) {
	var w, r halfConn
	secret := bytes.Repeat([]byte{7}, 32)
	if err := w.set(secret); err != nil {
		t.Fatal(err)
	}
	if err := r.set(secret); err != nil {
		t.Fatal(err)
	}
	req := []byte("GET /hello/world HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")
	out := make([]byte, 0, 1024)
	var err error
	allocs := testing.AllocsPerRun(100, func() {
		out = w.seal(out[:0], recData, req)
		var typ byte
		var p []byte
		if typ, p, err = r.open(out); err == nil && (typ != recData || !bytes.Equal(p, req)) {
			err = fmt.Errorf("opened type %d, %q", typ, p)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Errorf("%v allocations per record sealed and opened, want 0", allocs)
	}
}

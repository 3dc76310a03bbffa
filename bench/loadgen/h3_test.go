//go:build linux

package loadgen

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"hellobench/internal/certs"
)

// h3Server is an in-process HTTP/3 server (quic-go's) of a 257-byte page,
// counting what it sees: requests, connections, handshakes by kind, and
// the requests that came on connections whose 0-RTT data it accepted
// (without keep-alive, a request is a connection).
type h3Server struct {
	url                  string
	requests, conns      atomic.Int64
	full, resumed, early atomic.Int64
	barrier              int // hold each request until this many are in flight on its connection, or 100 ms
	mu                   sync.Mutex
	seen                 []*h3ServerConn
	first                atomic.Pointer[http.Request] // the first request, for its header
}

// h3Opts configure an h3Server.
type h3Opts struct {
	no0RTT bool              // quic-go's Allow0RTT false
	tls    func(*tls.Config) // adjusts the TLS configuration
	// delay holds each packet the server sends this long, so that the
	// client's handshake takes that long at least: a request sent once
	// the connection is open goes in 0-RTT even if its goroutine is slow
	// to run.
	delay time.Duration
}

// slowConn delays each packet written.
type slowConn struct {
	net.PacketConn
	delay time.Duration
}

func (c slowConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	time.Sleep(c.delay)
	return c.PacketConn.WriteTo(b, addr)
}

// h3ServerConn is what the server knows of one connection.
type h3ServerConn struct {
	c             *quic.Conn
	inflight, max atomic.Int64
}

type h3ConnKey struct{}

// newH3Server starts an HTTP/3 server on a loopback UDP port.
func newH3Server(t *testing.T, o h3Opts) *h3Server {
	t.Helper()
	pair, err := certs.Write(t.TempDir(), certs.ECDSA)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(pair.Cert, pair.Key)
	if err != nil {
		t.Fatal(err)
	}
	s := &h3Server{}
	conf := &tls.Config{
		Certificates: []tls.Certificate{cert},
		VerifyConnection: func(cs tls.ConnectionState) error {
			if cs.DidResume {
				s.resumed.Add(1)
			} else {
				s.full.Add(1)
			}
			return nil
		},
	}
	if o.tls != nil {
		o.tls(conf)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.url = "https://" + pc.LocalAddr().String() + "/hello/world"
	if o.delay > 0 {
		pc = slowConn{pc, o.delay}
	}
	srv := &http3.Server{
		TLSConfig:  conf,
		QUICConfig: &quic.Config{Allow0RTT: !o.no0RTT},
		ConnContext: func(ctx context.Context, c *quic.Conn) context.Context {
			s.conns.Add(1)
			sc := &h3ServerConn{c: c}
			s.mu.Lock()
			s.seen = append(s.seen, sc)
			s.mu.Unlock()
			return context.WithValue(ctx, h3ConnKey{}, sc)
		},
		Handler: http.HandlerFunc(s.serve),
		Logger:  slog.New(slog.DiscardHandler),
	}
	go srv.Serve(pc)
	t.Cleanup(func() {
		srv.Close()
		pc.Close()
	})
	return s
}

var page = bytes.Repeat([]byte("x"), 257)

func (s *h3Server) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	s.first.CompareAndSwap(nil, r)
	sc := r.Context().Value(h3ConnKey{}).(*h3ServerConn)
	// Answer once the handshake is over, so that its counts (the TLS
	// VerifyConnection) are in before loadgen has its answer.
	select {
	case <-sc.c.HandshakeComplete():
	case <-time.After(5 * time.Second):
	}
	if sc.c.ConnectionState().Used0RTT {
		s.early.Add(1)
	}
	n := sc.inflight.Add(1)
	for m := sc.max.Load(); n > m && !sc.max.CompareAndSwap(m, n); m = sc.max.Load() {
	}
	for end := time.Now().Add(100 * time.Millisecond); sc.inflight.Load() < int64(s.barrier) && time.Now().Before(end); {
		time.Sleep(200 * time.Microsecond)
	}
	w.Header().Set("Server", "test")
	w.Write(page)
	sc.inflight.Add(-1)
}

// runH3T runs cfg over HTTP/3 with a 5 s timeout, failing t unless it
// ends within 20 s without an error.
func runH3T(t *testing.T, cfg Config) *Result {
	t.Helper()
	cfg.H3 = true
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("run did not finish")
	}
	return r
}

// TestH3KeepAlive: 100 requests on 4 kept connections are 100 complete
// responses, counted once by both sides, on 4 connections and handshakes.
func TestH3KeepAlive(t *testing.T) {
	s := newH3Server(t, h3Opts{})
	const n = 100
	r := runH3T(t, Config{URL: s.url, Requests: n, Concurrency: 4, KeepAlive: true})
	checkCounts(t, r, n)
	if r.Complete != n || r.Failed != 0 || r.Status[200] != n || r.DocumentLength != 257 || r.HTMLBytes != n*257 {
		t.Errorf("complete %d, failed %d %+v, status %v, document %d, html %d; want %d complete 200s of 257 bytes",
			r.Complete, r.Failed, r.Failures, r.Status, r.DocumentLength, r.HTMLBytes, n)
	}
	if got := s.requests.Load(); got != n {
		t.Errorf("server counted %d requests, want %d", got, n)
	}
	if r.Connections != 4 || s.conns.Load() != 4 || r.Handshakes != 4 || r.Resumed != 0 || s.full.Load() != 4 {
		t.Errorf("connections %d, handshakes %d (%d resumed); the server saw %d connections, %d full handshakes; want 4 each, 0 resumed",
			r.Connections, r.Handshakes, r.Resumed, s.conns.Load(), s.full.Load())
	}
	if r.KeepAliveRequests != n || r.Engine != EngineQUIC || r.ServerSoftware != "test" || r.Pipeline != 1 {
		t.Errorf("keep-alive requests %d, engine %q, server %q, pipeline %d", r.KeepAliveRequests, r.Engine, r.ServerSoftware, r.Pipeline)
	}
	if !strings.HasPrefix(r.TLS, "TLSv1.3,TLS_") || !strings.HasSuffix(r.TLS, ",X25519 over QUIC (h3)") {
		t.Errorf("TLS %q, want TLSv1.3,TLS_...,X25519 over QUIC (h3)", r.TLS)
	}
	if r.Connect.TotalCount() != n || r.Connect.Max() == 0 || r.Processing.TotalCount() != n {
		t.Errorf("connect times %d (max %d), processing %d; want %d, 4 of them the handshakes'",
			r.Connect.TotalCount(), r.Connect.Max(), r.Processing.TotalCount(), n)
	}
	// The header the server sees is loadgen's, with no Connection.
	q := s.first.Load()
	var fields []string
	for k := range q.Header {
		if !strings.HasPrefix(k, ":") {
			fields = append(fields, k)
		}
	}
	if q.Method != "GET" || q.Proto != "HTTP/3.0" || q.Host != strings.TrimPrefix(strings.TrimSuffix(s.url, "/hello/world"), "https://") ||
		q.URL.Path != "/hello/world" || q.Header.Get("User-Agent") != "loadgen" || q.Header.Get("Accept") != "*/*" || len(fields) != 2 {
		t.Errorf("request %s %s %s, host %q, header %v; want GET /hello/world HTTP/3.0 with User-Agent and Accept alone", q.Method, q.URL, q.Proto, q.Host, q.Header)
	}
	// Total transferred counts the header as HTTP/1.1 writes it.
	if r.TotalBytes <= r.HTMLBytes {
		t.Errorf("total %d bytes, html %d", r.TotalBytes, r.HTMLBytes)
	}
}

// TestH3Headers: -H replaces a default header or adds one; Host becomes
// :authority; HEAD has no body.
func TestH3Headers(t *testing.T) {
	s := newH3Server(t, h3Opts{})
	r := runH3T(t, Config{URL: s.url + "?a=1", Requests: 3, Method: "HEAD",
		Headers: []string{"User-Agent: other", "X-A: 1", "Host: example.com"}})
	checkCounts(t, r, 3)
	if r.Complete != 3 || r.HTMLBytes != 0 || r.DocumentLength != 0 || r.Connections != 3 {
		t.Errorf("complete %d, html %d, document %d, connections %d; want 3, 0, 0, 3", r.Complete, r.HTMLBytes, r.DocumentLength, r.Connections)
	}
	q := s.first.Load()
	if q.Method != "HEAD" || q.Host != "example.com" || q.URL.RequestURI() != "/hello/world?a=1" ||
		q.Header.Get("User-Agent") != "other" || q.Header.Get("X-A") != "1" || q.Header.Get("Accept") != "*/*" {
		t.Errorf("request %s %s, host %q, header %v", q.Method, q.URL, q.Host, q.Header)
	}
}

// TestH3Streams: with -streams 8 each connection has 8 requests in flight,
// never more (the server holds each until 8 are in).
func TestH3Streams(t *testing.T) {
	s := newH3Server(t, h3Opts{})
	s.barrier = 8
	const n = 160
	r := runH3T(t, Config{URL: s.url, Requests: n, Concurrency: 2, KeepAlive: true, Streams: 8})
	checkCounts(t, r, n)
	if r.Complete != n || s.requests.Load() != n || r.Connections != 2 || s.conns.Load() != 2 || r.Pipeline != 8 {
		t.Errorf("complete %d, server %d requests on %d connections, loadgen %d connections, pipeline %d; want %d on 2, 8",
			r.Complete, s.requests.Load(), s.conns.Load(), r.Connections, r.Pipeline, n)
	}
	for i, c := range s.seen {
		if m := c.max.Load(); m != 8 {
			t.Errorf("connection %d: at most %d requests in flight, want 8", i, m)
		}
	}
}

// TestH3Handshakes: without keep-alive each request opens a connection: a
// full handshake each; with Resume, all but each slot's first resume; with
// EarlyData too, those go in 0-RTT where the server allows it, and are
// sent again after the handshake where it rejects them.
func TestH3Handshakes(t *testing.T) {
	const n, c = 40, 4
	// rejecting issues tickets that allow early data, and then refuses it
	// on resumption: 0-RTT is rejected, the session resumed.
	rejecting := func(conf *tls.Config) {
		conf.UnwrapSession = func(id []byte, cs tls.ConnectionState) (*tls.SessionState, error) {
			ss, err := conf.DecryptTicket(id, cs)
			if ss != nil {
				ss.EarlyData = false
			}
			return ss, err
		}
	}
	slow := 5 * time.Millisecond
	for _, tc := range []struct {
		name                   string
		cfg                    Config
		opts                   h3Opts
		conns                  int64 // opened, as both sides count them
		full, resumed, zeroRTT int64 // handshakes, and requests in 0-RTT, as both sides count them
	}{
		{"full", Config{}, h3Opts{}, n, n, 0, 0},
		{"resumed", Config{Resume: true}, h3Opts{}, n, c, n - c, 0},
		{"0-RTT", Config{Resume: true, EarlyData: true}, h3Opts{delay: slow}, n, c, n - c, n - c},
		{"0-RTT not allowed", Config{Resume: true, EarlyData: true}, h3Opts{no0RTT: true, delay: slow}, n, c, n - c, 0},
		// Each request after a slot's first goes again on a second
		// connection, opened without 0-RTT.
		{"0-RTT rejected", Config{Resume: true, EarlyData: true}, h3Opts{tls: rejecting, delay: slow}, 2*n - c, c, 2 * (n - c), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newH3Server(t, tc.opts)
			cfg := tc.cfg
			cfg.URL, cfg.Requests, cfg.Concurrency = s.url, n, c
			r := runH3T(t, cfg)
			checkCounts(t, r, n)
			if r.Complete != n || s.requests.Load() != n {
				t.Errorf("complete %d, failures %+v, server counted %d; want %d", r.Complete, r.Failures, s.requests.Load(), n)
			}
			if r.Connections != tc.conns || s.conns.Load() != tc.conns {
				t.Errorf("connections %d, server saw %d; want %d", r.Connections, s.conns.Load(), tc.conns)
			}
			full, resumed, early := s.full.Load(), s.resumed.Load(), s.early.Load()
			if full != tc.full || resumed != tc.resumed || early != tc.zeroRTT {
				t.Errorf("server saw %d full and %d resumed handshakes, %d requests on 0-RTT connections; want %d, %d, %d",
					full, resumed, early, tc.full, tc.resumed, tc.zeroRTT)
			}
			if r.Handshakes != tc.full+tc.resumed || r.Resumed != tc.resumed || r.EarlyData != tc.zeroRTT {
				t.Errorf("loadgen reports %d handshakes, %d resumed, %d requests in 0-RTT; want %d, %d, %d",
					r.Handshakes, r.Resumed, r.EarlyData, tc.full+tc.resumed, tc.resumed, tc.zeroRTT)
			}
		})
	}
}

// TestH3Rate: 2000 requests a second for half a second are 1000 requests,
// less the last few the end cuts short, and none more. A run short of the
// schedule is tried again, up to three in all, as TestH2Rate's is.
func TestH3Rate(t *testing.T) {
	var r *Result
	tryRuns(t, 3, 0, func() string {
		s := newH3Server(t, h3Opts{})
		r = runH3T(t, Config{URL: s.url, Rate: 2000, Duration: 500 * time.Millisecond, Concurrency: 4, KeepAlive: true, Streams: 4})
		checkCounts(t, r, int(r.Complete+r.Failed))
		got := s.requests.Load()
		switch {
		case got > 1000 || r.Complete > got || r.Failed != 0:
			t.Errorf("server counted %d requests, loadgen %d complete and %d failed; want 995 to 1000, 990 to them, 0",
				got, r.Complete, r.Failed)
		case got < 995 || r.Complete < 990:
			return fmt.Sprintf("server counted %d requests, loadgen %d complete; want 995 to 1000, 990 to them", got, r.Complete)
		}
		return ""
	})
	if r.Elapsed != 500*time.Millisecond || r.Rate != 2000 {
		t.Errorf("elapsed %v, rate %v", r.Elapsed, r.Rate)
	}
	if l := r.SendLateness; l == nil || l.TotalCount() < r.Complete || l.TotalCount() > 1000 {
		t.Errorf("send lateness of %v requests, want one a request sent", l)
	}
}

// TestH3Duration: a run by time counts what was answered within it.
func TestH3Duration(t *testing.T) {
	s := newH3Server(t, h3Opts{})
	r := runH3T(t, Config{URL: s.url, Duration: 200 * time.Millisecond, Concurrency: 2, KeepAlive: true})
	if r.Complete == 0 || r.Failed != 0 || r.Elapsed != 200*time.Millisecond {
		t.Fatalf("complete %d, failed %d, elapsed %v", r.Complete, r.Failed, r.Elapsed)
	}
	// Requests in flight at the end (2 at most) are not counted.
	if d := s.requests.Load() - r.Complete; d < 0 || d > 2 {
		t.Errorf("server counted %d requests, loadgen %d", s.requests.Load(), r.Complete)
	}
}

// TestH3Down: a server that does not answer is an error that says so,
// after the timeout, not a hang.
func TestH3Down(t *testing.T) {
	// A UDP socket that never reads: what is sent to it goes unanswered.
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	addr := pc.LocalAddr().String()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = Run(ctx, Config{URL: "https://" + addr + "/", H3: true, Requests: 4, Concurrency: 2, Timeout: time.Second})
	want := "connect " + addr + ": no answer over QUIC within 1s: is an HTTP/3 server listening on UDP port "
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want %s...", err, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to fail", d)
	}
}

// TestH3BadConfig: what does not go with H3, or needs it.
func TestH3BadConfig(t *testing.T) {
	const u = "https://127.0.0.1/"
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{URL: "http://127.0.0.1/", H3: true}, "HTTP/2 and HTTP/3 here need an https:// URL"},
		{Config{URL: "https://127.0.0.1/", H3: true, H2: true}, "HTTP/3 or HTTP/2: give one"},
		{Config{URL: u, H3: true, KeepAlive: true, Pipeline: 2}, "HTTP/3 does not pipeline"},
		{Config{URL: u, H3: true, Engine: EngineEpoll}, "HTTP/3 runs on quic-go, not on the epoll engine"},
		{Config{URL: u, H3: true, Loops: 1}, "HTTP/3 runs no event loops"},
		{Config{URL: u, H3: true, Rate: 10, Spin: true}, "HTTP/3 does not spin"},
		{Config{URL: u, H3: true, Streams: 2}, "streams need keep-alive"},
		{Config{URL: u, H3: true, KeepAlive: true, Streams: maxStreams + 1}, "invalid number of streams 1025 (1 to 1024)"},
		{Config{URL: u, KeepAlive: true, Streams: 2}, "streams are HTTP/2's and HTTP/3's"},
		{Config{URL: u, Resume: true, EarlyData: true}, "0-RTT needs HTTP/3"},
		{Config{URL: u, H3: true, EarlyData: true}, "0-RTT needs Resume"},
		{Config{URL: u, H3: true, Headers: []string{"connection: close"}}, "header Connection has no place in HTTP/3"},
	} {
		tc.cfg.Requests = 1
		if err := tc.cfg.Validate(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %s", tc.cfg, err, tc.want)
		}
	}
	if err := (Config{URL: u, Requests: 8, H3: true, KeepAlive: true, Streams: 8, Resume: true, EarlyData: true}).Validate(); err != nil {
		t.Errorf("a valid Config: %v", err)
	}
}

// TestH3Progress: progress is reported, and ends at the count.
func TestH3Progress(t *testing.T) {
	s := newH3Server(t, h3Opts{})
	var last atomic.Int64
	r := runH3T(t, Config{URL: s.url, Requests: 50, KeepAlive: true, Progress: func(n int64) { last.Store(n) }})
	if last.Load() != 50 || r.Complete != 50 {
		t.Errorf("last progress %d, complete %d; want 50", last.Load(), r.Complete)
	}
}

package h3serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"hellobench/internal/certs"
	"hellobench/internal/proc"
	"hellobench/servers/internal/tlsflag"
)

// raiseUDPBuffers raises the kernel's UDP buffer limits to what quic-go
// asks for (proc.RaiseUDPBuffers): below them quic-go logs a warning, and
// a server must log nothing but its start line. Where they cannot be
// raised, the test says so.
func raiseUDPBuffers(t *testing.T) {
	t.Helper()
	if err := proc.RaiseUDPBuffers(); err != nil {
		t.Logf("UDP buffers: %v: quic-go may log a warning", err)
	}
}

func TestCheck(t *testing.T) {
	const want = "-h3: needs -tls-cert and -tls-key, as HTTP/3 runs over QUIC, which is TLS 1.3"
	if err := Check(true, nil); err == nil || err.Error() != want {
		t.Errorf("-h3 without TLS: %v, want %q", err, want)
	}
	for _, c := range []struct {
		on  bool
		cfg *tls.Config
	}{{false, nil}, {false, new(tls.Config)}, {true, new(tls.Config)}} {
		if err := Check(c.on, c.cfg); err != nil {
			t.Errorf("Check(%v, %v): %v, want nil", c.on, c.cfg, err)
		}
	}
}

// serving is an http.Server serving HTTPS on a loopback port, and the
// HTTP/3 server beside it, with clients of both trusting the certificate.
type serving struct {
	srv    *http.Server
	h3     *Server
	port   int
	served chan error // Serve's error, once it returns
	tcp    *http.Client
	quic   *http.Client
	dials  atomic.Int32 // QUIC connections the quic client made
	client *tls.Config  // the clients' TLS configuration: trusts the server
}

// start serves h as such a pair.
func start(t *testing.T, h http.Handler) *serving {
	t.Helper()
	raiseUDPBuffers(t)
	pair, err := certs.Write(t.TempDir(), certs.ECDSA)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := tlsflag.Load(pair.Cert, pair.Key, true)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pair.Pool()
	if err != nil {
		t.Fatal(err)
	}
	client := &tls.Config{RootCAs: pool, ServerName: "localhost"}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &serving{
		srv:    &http.Server{Handler: h, MaxHeaderBytes: 4 << 10, IdleTimeout: 2 * time.Second, TLSConfig: cfg},
		port:   ln.Addr().(*net.TCPAddr).Port,
		served: make(chan error, 1),
		client: client,
	}
	if s.h3, err = Listen(ln.Addr(), s.srv, cfg); err != nil {
		ln.Close()
		t.Fatal(err)
	}
	s.srv.Handler = s.h3.AltSvc(s.srv.Handler)
	go s.srv.ServeTLS(ln, "", "")
	go func() { s.served <- s.h3.Serve() }()
	tr := &http3.Transport{
		TLSClientConfig: client,
		Dial: func(ctx context.Context, addr string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
			s.dials.Add(1)
			return quic.DialAddr(ctx, addr, tlsCfg, cfg)
		},
	}
	s.quic = &http.Client{Transport: tr, Timeout: 5 * time.Second}
	s.tcp = &http.Client{Transport: &http.Transport{TLSClientConfig: client, ForceAttemptHTTP2: true}, Timeout: 5 * time.Second}
	t.Cleanup(func() {
		s.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		s.h3.Shutdown(ctx)
		tr.Close()
	})
	return s
}

func (s *serving) url(path string) string {
	return "https://localhost:" + strconv.Itoa(s.port) + path
}

// get sends one request with c and returns the answer and its body.
func get(t *testing.T, c *http.Client, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading the body: %v", url, err)
	}
	return resp, string(body)
}

// TestServe checks that the HTTP/3 server listens on the TCP listener's
// port, serves the server's handler over HTTP/3 with its header limit,
// and that the answers over TCP alone carry Alt-Svc, as quic-go's own
// SetQUICHeaders writes it.
func TestServe(t *testing.T) {
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", r.Proto, r.URL.Path)
	}))
	if a, ok := s.h3.Addr().(*net.UDPAddr); !ok || a.Port != s.port || !a.IP.Equal(net.IPv4(127, 0, 0, 1)) {
		t.Errorf("HTTP/3 on %v, want udp 127.0.0.1:%d", s.h3.Addr(), s.port)
	}
	if s.h3.srv.IdleTimeout != 2*time.Second || s.h3.srv.MaxHeaderBytes != 4<<10+320 {
		t.Errorf("IdleTimeout %v, MaxHeaderBytes %d; want the server's 2s and 4096+320", s.h3.srv.IdleTimeout, s.h3.srv.MaxHeaderBytes)
	}

	resp, body := get(t, s.quic, s.url("/x"))
	if resp.ProtoMajor != 3 || resp.StatusCode != 200 || body != "HTTP/3.0 /x" {
		t.Errorf("over HTTP/3: %s %d %q; want HTTP/3.0 200 %q", resp.Proto, resp.StatusCode, body, "HTTP/3.0 /x")
	}
	if v := resp.Header.Values("Alt-Svc"); v != nil {
		t.Errorf("over HTTP/3: Alt-Svc %q, want none", v)
	}
	// A header section within the limit, then one past it.
	if resp, _ := get(t, s.quic, s.url("/x"), "X-Fill", strings.Repeat("a", 2<<10)); resp.StatusCode != 200 {
		t.Errorf("a 2 KiB header over HTTP/3: status %d, want 200", resp.StatusCode)
	}
	if resp, _ := get(t, s.quic, s.url("/x"), "X-Fill", strings.Repeat("a", 9<<10)); resp.StatusCode != 431 {
		t.Errorf("a 9 KiB header over HTTP/3: status %d, want 431", resp.StatusCode)
	}
	if n := s.dials.Load(); n != 1 {
		t.Errorf("%d QUIC connections for 3 requests, want 1", n)
	}

	want := fmt.Sprintf(`h3=":%d"; ma=2592000`, s.port)
	resp, body = get(t, s.tcp, s.url("/y"))
	if v := resp.Header.Values("Alt-Svc"); resp.StatusCode != 200 || body != "HTTP/2.0 /y" || len(v) != 1 || v[0] != want {
		t.Errorf("over TCP: %d %q, Alt-Svc %q; want 200 %q, Alt-Svc %q", resp.StatusCode, body, v, "HTTP/2.0 /y", want)
	}
	h := http.Header{}
	if err := s.h3.srv.SetQUICHeaders(h); err != nil || h.Get("Alt-Svc") != want {
		t.Errorf("quic-go's SetQUICHeaders: %q, %v; want %q", h.Get("Alt-Svc"), err, want)
	}
}

// TestShutdown checks a graceful stop: a request in flight is answered in
// full, Serve returns http.ErrServerClosed, the port is free afterwards
// and no new request is served.
func TestShutdown(t *testing.T) {
	started := make(chan struct{}, 1)
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			started <- struct{}{}
			time.Sleep(500 * time.Millisecond)
		}
		io.WriteString(w, "done")
	}))
	if resp, _ := get(t, s.quic, s.url("/")); resp.StatusCode != 200 {
		t.Fatalf("status %d, want 200", resp.StatusCode)
	}
	type answer struct {
		status int
		body   string
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := s.quic.Get(s.url("/slow"))
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		answered <- answer{resp.StatusCode, string(b), err}
	}()
	<-started
	begin := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	if err := s.h3.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	took := time.Since(begin)
	if a := <-answered; a.err != nil || a.status != 200 || a.body != "done" {
		t.Errorf("request in flight: %d %q, %v; want 200 %q", a.status, a.body, a.err, "done")
	}
	if took < 400*time.Millisecond || took > 3*time.Second {
		t.Errorf("Shutdown took %v; want the request's 500 ms, and the client closing on GOAWAY", took)
	}
	select {
	case err := <-s.served:
		if !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v, want http.ErrServerClosed", err)
		}
	case <-time.After(time.Second):
		t.Error("Serve still running after Shutdown")
	}
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: s.port})
	if err != nil {
		t.Fatalf("the UDP port after Shutdown: %v", err)
	}
	c.Close()
	fresh := &http.Client{Transport: &http3.Transport{TLSClientConfig: s.quic.Transport.(*http3.Transport).TLSClientConfig}, Timeout: time.Second}
	if resp, err := fresh.Get(s.url("/")); err == nil {
		resp.Body.Close()
		t.Errorf("a new request after Shutdown: %s %d, want no answer", resp.Proto, resp.StatusCode)
	}
}

// TestListenTaken: a UDP port already taken is Listen's error, one line.
func TestListenTaken(t *testing.T) {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	port := c.LocalAddr().(*net.UDPAddr).Port
	_, err = Listen(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}, &http.Server{}, new(tls.Config))
	want := fmt.Sprintf("HTTP/3: listen udp 127.0.0.1:%d: bind: address already in use", port)
	if err == nil || err.Error() != want {
		t.Errorf("Listen on a taken port: %v, want %q", err, want)
	}
}

// TestEarly checks Early's rule on requests as http3.Server hands them
// over: in 0-RTT (the handshake not complete) GET, HEAD and OPTIONS are
// served and any other method answered 425; once the handshake is done,
// and over TCP (no TLS state from QUIC), every method is served.
func TestEarly(t *testing.T) {
	h := Early(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "served") }))
	for _, tc := range []struct {
		method string
		tls    *tls.ConnectionState
		code   int
	}{
		{"GET", &tls.ConnectionState{}, 200},
		{"HEAD", &tls.ConnectionState{}, 200},
		{"OPTIONS", &tls.ConnectionState{}, 200},
		{"POST", &tls.ConnectionState{}, 425},
		{"DELETE", &tls.ConnectionState{}, 425},
		{"POST", &tls.ConnectionState{HandshakeComplete: true}, 200},
		{"POST", nil, 200},
	} {
		r := httptest.NewRequest(tc.method, "/x", nil)
		r.TLS = tc.tls
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		early := tc.tls != nil && !tc.tls.HandshakeComplete
		want := "served"
		if tc.code == 425 {
			want = "425 Too Early: " + tc.method + " in 0-RTT data\n"
		}
		if w.Code != tc.code || w.Body.String() != want {
			t.Errorf("%s (in 0-RTT: %v): %d %q, want %d %q", tc.method, early, w.Code, w.Body.String(), tc.code, want)
		}
	}
}

// TestZeroRTT checks that a client resuming a session sends its GET in
// 0-RTT and the server accepts it there, the handler running before the
// handshake is complete.
func TestZeroRTT(t *testing.T) {
	var early atomic.Int32
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil && !r.TLS.HandshakeComplete {
			early.Add(1)
		}
		io.WriteString(w, "page")
	}))
	cfg := s.client.Clone()
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(1)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	round := func(dial func(context.Context, string, *tls.Config, *quic.Config) (*quic.Conn, error), method string) (*quic.Conn, *http.Response, string) {
		qc, err := dial(ctx, addr, http3.ConfigureTLSConfig(cfg), &quic.Config{})
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer qc.CloseWithError(0, "")
		req, err := http.NewRequestWithContext(ctx, method, s.url("/x"), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := (&http3.Transport{}).NewClientConn(qc).RoundTrip(req)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%s: reading the body: %v", method, err)
		}
		return qc, resp, string(body)
	}
	// The first connection's full handshake leaves a session ticket,
	// which comes after the handshake: wait for the cache to hold it.
	round(quic.DialAddr, http.MethodGet)
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, ok := cfg.ClientSessionCache.Get("localhost"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no session ticket 2 s after the first answer")
		}
	}
	// Whether the handler runs before the client's Finished arrives is a
	// race on loopback, which the server mostly wins: of up to 20 resumed
	// connections, each answered in 0-RTT, one must be served before its
	// handshake's end (so Early's rule sees such requests).
	for i := 1; i <= 20 && early.Load() == 0; i++ {
		qc, resp, body := round(quic.DialAddrEarly, http3.MethodGet0RTT)
		if resp.StatusCode != 200 || body != "page" || !qc.ConnectionState().Used0RTT {
			t.Fatalf("GET in 0-RTT, connection %d: %d %q, 0-RTT used %v; want 200 %q, true",
				i, resp.StatusCode, body, qc.ConnectionState().Used0RTT, "page")
		}
	}
	if early.Load() == 0 {
		t.Error("20 requests in 0-RTT, none served before its handshake's end")
	}
}

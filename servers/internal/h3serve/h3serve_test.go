package h3serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"hellobench/internal/certs"
	"hellobench/servers/internal/tlsflag"
)

// quicBuffer is what quic-go's documentation asks net.core.rmem_max and
// wmem_max to be at least (about 7.5 MB), for the 7 MiB UDP buffers it
// asks for on each socket.
const quicBuffer = 7500000

// raiseUDPBuffers raises net.core.rmem_max and wmem_max to quicBuffer
// where they are lower, never lowering them, when the test runs as root.
// quic-go logs a warning once per process when the kernel gives its
// sockets smaller buffers than it asks for, and the tests hold a server to
// logging nothing but its start line.
func raiseUDPBuffers(t *testing.T) {
	t.Helper()
	for _, name := range []string{"rmem_max", "wmem_max"} {
		path := "/proc/sys/net/core/" + name
		b, err := os.ReadFile(path)
		if err != nil {
			t.Logf("net.core.%s: %v", name, err)
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || n >= quicBuffer {
			continue
		}
		if os.Geteuid() != 0 {
			t.Logf("net.core.%s is %d, below the %d quic-go asks for, and only root may raise it: quic-go may log a warning", name, n, quicBuffer)
			continue
		}
		if err := os.WriteFile(path, []byte(strconv.Itoa(quicBuffer)), 0o644); err != nil {
			t.Logf("net.core.%s: raising it to %d: %v", name, quicBuffer, err)
		}
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

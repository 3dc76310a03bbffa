package conformance

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hellobench/internal/certs"
	"hellobench/internal/proc"
	"hellobench/internal/targets"
	"hellobench/internal/testnet"
	"hellobench/page"
)

// The suite's certificates, written once by tlsPair into certDir, which
// TestMain removes.
var (
	certOnce sync.Once
	certDir  string
	ecPair   certs.Pair // ECDSA P-256, what the servers serve
	rsaPair  certs.Pair // RSA, for a key that does not match ecPair's certificate
	certErr  error
)

// tlsPair returns the ECDSA pair the servers serve and a client
// configuration that trusts it alone.
func tlsPair(t *testing.T) (certs.Pair, *tls.Config) {
	t.Helper()
	certOnce.Do(func() {
		if certDir, certErr = os.MkdirTemp("", "hellobench-certs-"); certErr != nil {
			return
		}
		// lighttpd, started by root, serves as nobody, who must reach
		// the files.
		if certErr = os.Chmod(certDir, 0o755); certErr != nil {
			return
		}
		if ecPair, certErr = certs.Write(certDir, certs.ECDSA); certErr != nil {
			return
		}
		rsaPair, certErr = certs.Write(certDir, certs.RSA)
	})
	if certErr != nil {
		t.Fatal(certErr)
	}
	pool, err := ecPair.Pool()
	if err != nil {
		t.Fatal(err)
	}
	return ecPair, &tls.Config{RootCAs: pool, ServerName: "localhost"}
}

// startTLS starts tg serving HTTPS with the suite's certificate.
func startTLS(t *testing.T, tg target, e targets.Env) (*process, *tls.Config) {
	t.Helper()
	pair, cfg := tlsPair(t)
	e.HeaderTimeout, e.IdleTimeout = headerTimeout, idleTimeout
	e.TLSCert, e.TLSKey = pair.Cert, pair.Key
	return tg.startEnv(t, e), cfg
}

// TestTLS runs the contract over HTTPS on every server of the table that
// serves it, each as one process: the page to GET and HEAD, 404, 405,
// keep-alive and close, pipelining and bad input, through crypto/tls
// connections that trust the suite's certificate alone, and a request
// the framing guards refuse; and nothing logged but the start line. Then
// the TLS versions: TLS 1.3 by default, TLS 1.2 with
// ECDHE-ECDSA-AES128-GCM-SHA256 when a client asks for no more; and
// HTTP/2 by ALPN on the stacks that have it, not offered by the others.
func TestTLS(t *testing.T) {
	for _, tg := range servers {
		if !tg.TLS {
			continue
		}
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			p, cfg := startTLS(t, tg, targets.Env{})
			s := &suite{tg: tg, p: p, tls: cfg}
			contract(t, s, "date-refreshed", "split", "bodies", "timeouts")
			t.Run("framing", func(t *testing.T) { tlsFraming(t, s) })
			t.Run("versions", func(t *testing.T) { tlsVersions(t, p.addr, cfg) })
			t.Run("resumes", func(t *testing.T) { tickets(t, p.addr, cfg, true) })
			t.Run("alpn", func(t *testing.T) { alpn(t, s) })
			if tg.H2 {
				t.Run("h2", func(t *testing.T) { h2(t, s, "https://") })
			}
		})
	}
	t.Run("nginx", func(t *testing.T) {
		t.Parallel()
		tg, err := targets.Lookup("nginx")
		if err != nil {
			t.Fatal(err)
		}
		p, cfg := startTLS(t, target{tg}, targets.Env{})
		s := &suite{tg: target{tg}, p: p, tls: cfg}
		t.Run("get", s.get)
		t.Run("versions", func(t *testing.T) { tlsVersions(t, p.addr, cfg) })
		t.Run("resumes", func(t *testing.T) { tickets(t, p.addr, cfg, true) })
		t.Run("alpn", func(t *testing.T) { alpn(t, s) })
		t.Run("h2", func(t *testing.T) {
			c := http.Client{Transport: h2Transport(cfg, false), Timeout: 5 * time.Second}
			resp, body := fetch(t, &c, "GET", "https://"+p.addr+page.Path)
			if resp.ProtoMajor != 2 || resp.StatusCode != 200 || !bytes.Equal(body, page.HTML) {
				t.Errorf("%s, status %d, %d bytes; want HTTP/2.0, 200 and the page", resp.Proto, resp.StatusCode, len(body))
			}
		})
	})
}

// TestTLSNoTickets starts every server that serves HTTPS, and nginx,
// without session tickets, as make bench-tls does for its full
// handshakes, and checks that a client that keeps its sessions makes a
// full handshake on every new connection, in TLS 1.3 and in TLS 1.2.
func TestTLSNoTickets(t *testing.T) {
	names := []string{"nginx"}
	for _, tg := range servers {
		if tg.TLS {
			names = append(names, tg.Name)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tg, err := targets.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			p, cfg := startTLS(t, target{tg}, targets.Env{NoTickets: true})
			tickets(t, p.addr, cfg, false)
		})
	}
}

// tickets checks whether a client that keeps its sessions resumes on its
// second connection to addr, as want says, in TLS 1.3 and in TLS 1.2
// with ECDHE-ECDSA-AES128-GCM-SHA256. A TLS 1.3 ticket comes after the
// handshake, so each first connection reads an answer before it closes.
func tickets(t *testing.T, addr string, cfg *tls.Config, want bool) {
	for _, v := range []uint16{tls.VersionTLS13, tls.VersionTLS12} {
		c := cfg.Clone()
		c.MaxVersion = v
		c.ClientSessionCache = tls.NewLRUClientSessionCache(1)
		var got [2]bool
		for i := range got {
			conn := dialTLS(t, addr, c)
			conn.send(req("GET", page.Path))
			if r := conn.read("GET"); r.StatusCode != 200 {
				t.Fatalf("%s: status %d, want 200", tls.VersionName(v), r.StatusCode)
			}
			got[i] = conn.c.(*tls.Conn).ConnectionState().DidResume
			conn.c.Close()
		}
		if got[0] || got[1] != want {
			t.Errorf("%s: resumed on the first connection %v, on the second %v; want false, %v", tls.VersionName(v), got[0], got[1], want)
		}
	}
}

// tlsFraming checks that the guards read the requests above TLS: one
// that both Transfer-Encoding and Content-Length frame (RFC 9112 section
// 6.1, the corpus's te-cl case) is answered 400 and the connection
// closed, the GET behind it unanswered.
func tlsFraming(t *testing.T, s *suite) {
	c := s.dial(t)
	c.send("POST " + page.Path + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n" + req("GET", page.Path))
	if r := c.read("POST"); r.StatusCode != 400 {
		t.Fatalf("status %d, want 400", r.StatusCode)
	}
	c.expectClosed(3 * time.Second)
}

// tlsVersions checks that a client offering TLS 1.3 gets it, and one that
// offers TLS 1.2 with ECDHE-ECDSA-AES128-GCM-SHA256 alone gets that.
func tlsVersions(t *testing.T, addr string, cfg *tls.Config) {
	c := dialTLS(t, addr, cfg)
	if v := c.c.(*tls.Conn).ConnectionState().Version; v != tls.VersionTLS13 {
		t.Errorf("default: %s, want TLS 1.3", tls.VersionName(v))
	}
	cfg12 := cfg.Clone()
	cfg12.MaxVersion = tls.VersionTLS12
	cfg12.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}
	c = dialTLS(t, addr, cfg12)
	st := c.c.(*tls.Conn).ConnectionState()
	if st.Version != tls.VersionTLS12 || st.CipherSuite != tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 {
		t.Errorf("TLS 1.2 asked: %s with %s, want TLS 1.2 with TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
			tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite))
	}
	c.send(req("GET", page.Path))
	if r := c.read("GET"); r.StatusCode != 200 || !bytes.Equal(r.body, page.HTML) {
		t.Errorf("GET over TLS 1.2: status %d, %d bytes; want 200 and the page", r.StatusCode, len(r.body))
	}
}

// alpn checks the protocol a client offering h2 and http/1.1 gets: h2
// where the stack serves HTTP/2, else HTTP/1.1 (said by ALPN, or by no
// ALPN at all), on which the page is served.
func alpn(t *testing.T, s *suite) {
	cfg := s.tls.Clone()
	cfg.NextProtos = []string{"h2", "http/1.1"}
	c := dialTLS(t, s.p.addr, cfg)
	got := c.c.(*tls.Conn).ConnectionState().NegotiatedProtocol
	if s.tg.H2 {
		if got != "h2" {
			t.Errorf("ALPN %q, want h2", got)
		}
		return
	}
	if got != "http/1.1" && got != "" {
		t.Fatalf("ALPN %q: the stack has no HTTP/2 here; want http/1.1 or none", got)
	}
	c.send(req("GET", page.Path))
	s.checkPage(t, c.read("GET"), "GET")
}

// h2Transport is an HTTP/2-only client transport: over TLS trusting cfg,
// or over cleartext with prior knowledge.
func h2Transport(cfg *tls.Config, cleartext bool) *http.Transport {
	var p http.Protocols
	if cleartext {
		p.SetUnencryptedHTTP2(true)
	} else {
		p.SetHTTP2(true)
	}
	return &http.Transport{TLSClientConfig: cfg, Protocols: &p, ForceAttemptHTTP2: true}
}

// fetch sends one request and returns the response with its body read.
func fetch(t *testing.T, c *http.Client, method, url string) (*http.Response, []byte) {
	t.Helper()
	r, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return resp, body
}

// h2 checks the contract's answers over HTTP/2 (scheme https:// by ALPN,
// or http:// with prior knowledge), all on one HTTP/2 connection: the
// page and its headers to GET, none of its bytes to HEAD, 404, 405 with
// Allow; then curl, a client nobody here wrote, the same way.
func h2(t *testing.T, s *suite, scheme string) {
	tr := h2Transport(s.tls, scheme == "http://")
	defer tr.CloseIdleConnections()
	conns := 0
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conns++
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	c := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	base := scheme + s.p.addr
	for _, method := range []string{"GET", "HEAD"} {
		resp, body := fetch(t, c, method, base+page.Path)
		if resp.ProtoMajor != 2 {
			t.Fatalf("%s: %s, want HTTP/2.0", method, resp.Proto)
		}
		s.checkPage(t, &response{resp, body}, method)
	}
	if resp, _ := fetch(t, c, "GET", base+"/nope"); resp.StatusCode != 404 {
		t.Errorf("GET /nope: status %d, want 404", resp.StatusCode)
	}
	resp, _ := fetch(t, c, "POST", base+page.Path)
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != page.Allow {
		t.Errorf("POST: status %d, Allow %q; want 405, %q", resp.StatusCode, resp.Header.Get("Allow"), page.Allow)
	}
	if conns != 1 {
		t.Errorf("%d connections for 4 requests, want 1", conns)
	}

	curl := requireTool(t, "curl")
	args := []string{"-sS", "-o", "/dev/null", "-w", "%{http_version} %{http_code} %{size_download}", "--max-time", "5"}
	if scheme == "https://" {
		pair, _ := tlsPair(t)
		args = append(args, "--http2", "--cacert", pair.Cert, "https://localhost:"+port(t, s.p.addr)+page.Path)
	} else {
		args = append(args, "--http2-prior-knowledge", base+page.Path)
	}
	if out := run(t, curl, args...); out != "2 200 257" {
		t.Errorf("curl %s: %q, want \"2 200 257\" (HTTP/2, 200, the page's bytes)", strings.Join(args, " "), out)
	}
}

// port returns addr's port.
func port(t *testing.T, addr string) string {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestH2C checks HTTP/2 over cleartext with prior knowledge on the
// stacks that serve it when asked (-h2c): the contract's answers in
// HTTP/2, and HTTP/1.1 still served on the same port. The others serve
// no HTTP/2 to Go's client with prior knowledge; without -h2c, the
// corpus's h2-preface case checks that every server answers the preface
// 505 or 400 and closes.
func TestH2C(t *testing.T) {
	for _, tg := range servers {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			if !tg.H2C {
				noH2C(t, tg.startEnv(t, targets.Env{HeaderTimeout: headerTimeout, IdleTimeout: idleTimeout}))
				return
			}
			p := tg.startEnv(t, targets.Env{HeaderTimeout: headerTimeout, IdleTimeout: idleTimeout, H2C: true})
			s := &suite{tg: tg, p: p}
			h2(t, s, "http://")
			t.Run("http1", s.get)
			t.Run("pipelining", s.pipelining)
		})
	}
}

// noH2C checks that an HTTP/2 client with prior knowledge gets no answer
// in HTTP/2 from p.
func noH2C(t *testing.T, p *process) {
	tr := h2Transport(nil, true)
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + p.addr + page.Path)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("HTTP/2 with prior knowledge: %s %d, want no HTTP/2 answer", resp.Proto, resp.StatusCode)
	}
	t.Logf("HTTP/2 with prior knowledge: %v", err)
}

// TestTLSFlags runs every Go server that serves HTTPS with its TLS flags
// wrong: one file without the other, a file missing, a certificate file
// holding no certificate, a key that does not match, tickets turned off
// without a certificate. Each must exit 2 with one line naming the flag
// and the file, before it listens (its -addr is a held port, as in
// TestTimeoutFlags). fcgi's serve.sh checks its variables the same way.
func TestTLSFlags(t *testing.T) {
	pair, _ := tlsPair(t)
	missing := filepath.Join(certDir, "missing.pem")
	for _, tg := range servers {
		if !tg.TLS || !tg.GoRuntime {
			continue
		}
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			addr := testnet.Refusing(t)
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"-tls-cert", pair.Cert}, "-tls-cert " + pair.Cert + ": needs -tls-key, the certificate's key"},
				{[]string{"-tls-key", pair.Key}, "-tls-key " + pair.Key + ": needs -tls-cert, the key's certificate"},
				{[]string{"-tls-cert", missing, "-tls-key", pair.Key}, "-tls-cert " + missing + ": open " + missing + ": no such file or directory"},
				{[]string{"-tls-cert", pair.Cert, "-tls-key", missing}, "-tls-key " + missing + ": open " + missing + ": no such file or directory"},
				{[]string{"-tls-cert", pair.Key, "-tls-key", pair.Key}, "-tls-cert " + pair.Key + ": no PEM certificate in it"},
				{[]string{"-tls-cert", pair.Cert, "-tls-key", rsaPair.Key}, "-tls-key " + rsaPair.Key + ": tls: private key type does not match public key type"},
				{[]string{"-tls-tickets=false"}, "-tls-tickets=false: needs -tls-cert and -tls-key, as it is about HTTPS"},
			} {
				stdout, _, err := proc.Run(proc.Spec{
					Name: tg.Name, Path: filepath.Join(binDir, tg.Name),
					Args: append([]string{"-addr", addr}, c.args...),
				})
				want := tg.Name + ": " + c.want
				var ee *proc.ExitError
				if !errors.As(err, &ee) || ee.Code != 2 || ee.Stderr != want || len(stdout) > 0 {
					t.Errorf("%q: %v, stdout %q; want exit 2, stderr the one line %q", c.args, err, stdout, want)
				}
			}
		})
	}
	t.Run("fcgi", func(t *testing.T) {
		t.Parallel()
		addr := testnet.Refusing(t)
		for _, c := range []struct {
			env  []string
			want string
		}{
			{[]string{"FCGI_TLS_CERT=" + pair.Cert}, "serve.sh: FCGI_TLS_CERT '" + pair.Cert + "' and FCGI_TLS_KEY '': HTTPS needs both"},
			{[]string{"FCGI_TLS_KEY=" + pair.Key}, "serve.sh: FCGI_TLS_CERT '' and FCGI_TLS_KEY '" + pair.Key + "': HTTPS needs both"},
			{[]string{"FCGI_TLS_CERT=" + missing, "FCGI_TLS_KEY=" + pair.Key}, "serve.sh: " + missing + ": no such readable file"},
			{[]string{"FCGI_TLS_TICKETS=off"}, "serve.sh: FCGI_TLS_TICKETS=off is about HTTPS: it needs FCGI_TLS_CERT and FCGI_TLS_KEY"},
			{[]string{"FCGI_TLS_TICKETS=no", "FCGI_TLS_CERT=" + pair.Cert, "FCGI_TLS_KEY=" + pair.Key}, "serve.sh: FCGI_TLS_TICKETS 'no': the one value is off"},
		} {
			stdout, _, err := proc.Run(proc.Spec{
				Name: "serve.sh", Path: "sh",
				Args: []string{filepath.Join("..", "servers", "fcgi", "serve.sh"), "", "1", addr},
				Env:  append(c.env, "FCGI_BIN="+filepath.Join(binDir, "fcgi")),
			})
			var ee *proc.ExitError
			if !errors.As(err, &ee) || ee.Code != 2 || ee.Stderr != c.want || len(stdout) > 0 {
				t.Errorf("%q: %v, stdout %q; want exit 2, stderr the one line %q", c.env, err, stdout, c.want)
			}
		}
	})
}

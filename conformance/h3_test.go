package conformance

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"hellobench/internal/proc"
	"hellobench/internal/targets"
	"hellobench/internal/testnet"
	"hellobench/page"
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

// h3Client returns an HTTP/3 client (quic-go's http3.Transport) trusting
// cfg's roots, and the count of QUIC connections it dials.
func h3Client(t *testing.T, cfg *tls.Config) (*http.Client, *atomic.Int32) {
	dials := new(atomic.Int32)
	tr := &http3.Transport{
		TLSClientConfig: cfg,
		Dial: func(ctx context.Context, addr string, tlsCfg *tls.Config, qc *quic.Config) (*quic.Conn, error) {
			dials.Add(1)
			return quic.DialAddr(ctx, addr, tlsCfg, qc)
		},
	}
	t.Cleanup(func() { tr.Close() })
	return &http.Client{Transport: tr, Timeout: 5 * time.Second}, dials
}

// altSvc is the Alt-Svc header a server serving HTTP/3 on addr's port
// sends on its answers over TCP, as quic-go's http3 package writes it.
func altSvc(t *testing.T, addr string) string {
	return fmt.Sprintf(`h3=":%s"; ma=2592000`, port(t, addr))
}

// TestH3 runs the contract's answers over HTTP/3 on every server of the
// table that serves it, each started with the suite's certificate and
// -h3, through quic-go's HTTP/3 client on one QUIC connection: the page
// to GET and HEAD with its headers, the JSON object, 404, 405 with
// Allow, 431 for a 9 KiB header section. Over TCP, HTTP/1.1 and
// HTTP/2, every answer advertises HTTP/3 on the same port in Alt-Svc.
// Nothing is logged, not even at the start (quic-go's warning about UDP
// buffers would be).
func TestH3(t *testing.T) {
	raiseUDPBuffers(t)
	for _, tg := range servers {
		if !tg.H3 {
			continue
		}
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			p, cfg := startTLS(t, tg, targets.Env{H3: true})
			s := &suite{tg: tg, p: p, tls: cfg}
			c, dials := h3Client(t, cfg)
			base := "https://" + p.addr
			get := func(t *testing.T, method, path string) *response {
				t.Helper()
				resp, body := fetch(t, c, method, base+path)
				if resp.ProtoMajor != 3 {
					t.Fatalf("%s %s: %s, want HTTP/3.0", method, path, resp.Proto)
				}
				return &response{resp, body}
			}

			t.Run("page", func(t *testing.T) {
				for _, target := range []string{page.Path, page.Path + "?name=hellobench&x=1"} {
					s.checkPage(t, get(t, "GET", target), "GET")
				}
				s.checkPage(t, get(t, "HEAD", page.Path), "HEAD")
			})
			t.Run("json", func(t *testing.T) {
				n := s.checkJSON(t, get(t, "GET", page.JSONPath), "GET", -1)
				s.checkJSON(t, get(t, "HEAD", page.JSONPath), "HEAD", n)
			})
			t.Run("not-found", func(t *testing.T) {
				for _, target := range []string{"/", "/hello/world/", "/Hello/world", "/json/", "/favicon.ico"} {
					if r := get(t, "GET", target); r.StatusCode != 404 {
						t.Errorf("GET %s: status %d, want 404", target, r.StatusCode)
					}
				}
			})
			t.Run("method-not-allowed", func(t *testing.T) {
				for _, path := range []string{page.Path, page.JSONPath} {
					for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
						r := get(t, m, path)
						if v := r.Header.Values("Allow"); r.StatusCode != 405 || len(v) != 1 || v[0] != page.Allow {
							t.Errorf("%s %s: status %d, Allow %q; want 405 and the one %q", m, path, r.StatusCode, v, page.Allow)
						}
					}
				}
			})
			t.Run("header-too-large", func(t *testing.T) {
				r, err := http.NewRequest("GET", base+page.Path, nil)
				if err != nil {
					t.Fatal(err)
				}
				r.Header.Set("X-Fill", strings.Repeat("a", 9<<10))
				resp, err := c.Do(r)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 431 {
					t.Errorf("a 9 KiB header: status %d, want 431", resp.StatusCode)
				}
			})
			if n := dials.Load(); n != 1 {
				t.Errorf("%d QUIC connections for every request, want 1", n)
			}

			t.Run("alt-svc", func(t *testing.T) {
				want := altSvc(t, p.addr)
				conn := s.dial(t)
				for _, target := range []string{page.Path, "/nope"} {
					conn.send(req("GET", target))
					if v := conn.read("GET").Header.Values("Alt-Svc"); len(v) != 1 || v[0] != want {
						t.Errorf("GET %s over HTTP/1.1: Alt-Svc %q, want the one %q", target, v, want)
					}
				}
				tr := h2Transport(cfg, false)
				defer tr.CloseIdleConnections()
				resp, _ := fetch(t, &http.Client{Transport: tr, Timeout: 5 * time.Second}, "GET", base+page.Path)
				if v := resp.Header.Values("Alt-Svc"); resp.ProtoMajor != 2 || len(v) != 1 || v[0] != want {
					t.Errorf("GET over %s: Alt-Svc %q, want HTTP/2.0 and the one %q", resp.Proto, v, want)
				}
			})
			t.Run("log", func(t *testing.T) {
				for _, line := range strings.Split(p.stderr.String(), "\n") {
					if line != "" && !logLine.MatchString(line) {
						t.Errorf("the server logged: %s", line)
					}
				}
			})
		})
	}
}

// TestH3Shutdown checks the contract's graceful stop over HTTP/3 on each
// signal: a request in flight when it comes (the handler waits a second,
// -work-wait) is answered in full, the process exits 0 within 5 s, and
// HTTP/3 is no longer served.
func TestH3Shutdown(t *testing.T) {
	raiseUDPBuffers(t)
	for _, tg := range servers {
		if !tg.H3 {
			continue
		}
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Run(tg.Name+"/"+sig.String(), func(t *testing.T) {
				t.Parallel()
				p, cfg := startTLS(t, tg, targets.Env{H3: true, Work: page.Work{Wait: time.Second}})
				c, _ := h3Client(t, cfg)
				url := "https://" + p.addr + page.Path
				type answer struct {
					resp *http.Response
					body []byte
					err  error
				}
				answered := make(chan answer, 1)
				go func() {
					resp, err := c.Get(url)
					if err != nil {
						answered <- answer{err: err}
						return
					}
					defer resp.Body.Close()
					var b bytes.Buffer
					_, err = b.ReadFrom(resp.Body)
					answered <- answer{resp, b.Bytes(), err}
				}()
				time.Sleep(300 * time.Millisecond) // the request waits in the handler
				start := time.Now()
				p.signal(t, sig)
				a := <-answered
				if a.err != nil || a.resp.StatusCode != 200 || !bytes.Equal(a.body, page.HTML) {
					t.Errorf("the request in flight: %v; want 200 and the page", a.err)
				}
				if code := p.wait(t, 5*time.Second-time.Since(start)); code != 0 {
					t.Errorf("exit status %d, want 0\n%s", code, p.stderr)
				}
				fresh, _ := h3Client(t, cfg)
				fresh.Timeout = time.Second
				if resp, err := fresh.Get(url); err == nil {
					resp.Body.Close()
					t.Errorf("a request after the exit: %s %d, want no answer", resp.Proto, resp.StatusCode)
				}
			})
		}
	}
}

// TestH3PortZero starts each server serving HTTP/3 with -addr on port 0:
// HTTP/3 is served on the port the TCP listener got, the one its start
// line names, and Alt-Svc names it.
func TestH3PortZero(t *testing.T) {
	raiseUDPBuffers(t)
	pair, cfg := tlsPair(t)
	for _, tg := range servers {
		if !tg.H3 || !tg.GoRuntime {
			continue
		}
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			p, err := proc.Start(proc.Spec{
				Name: tg.Name, Path: filepath.Join(binDir, tg.Name),
				Args: []string{"-addr", "127.0.0.1:0", "-tls-cert", pair.Cert, "-tls-key", pair.Key, "-h3"},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := p.Stop(syscall.SIGTERM, 5*time.Second); err != nil {
					t.Error(err)
				}
			}()
			var addr string
			for deadline := time.Now().Add(10 * time.Second); addr == ""; time.Sleep(10 * time.Millisecond) {
				if m := logLine.FindStringSubmatch(p.Output().String()); m != nil {
					addr = m[2]
				} else if time.Now().After(deadline) {
					t.Fatalf("no start line after 10 s:\n%s", p.Output())
				}
			}
			if port(t, addr) == "0" {
				t.Fatalf("the start line names %s, not the port it got", addr)
			}
			c, _ := h3Client(t, cfg)
			resp, body := fetch(t, c, "GET", "https://"+addr+page.Path)
			if resp.ProtoMajor != 3 || resp.StatusCode != 200 || !bytes.Equal(body, page.HTML) {
				t.Errorf("GET over HTTP/3 on %s: %s %d, %d bytes; want HTTP/3.0 200 and the page", addr, resp.Proto, resp.StatusCode, len(body))
			}
			tr := h2Transport(cfg, false)
			defer tr.CloseIdleConnections()
			resp, _ = fetch(t, &http.Client{Transport: tr, Timeout: 5 * time.Second}, "GET", "https://"+addr+page.Path)
			if want := altSvc(t, addr); resp.Header.Get("Alt-Svc") != want {
				t.Errorf("over TCP: Alt-Svc %q, want %q", resp.Header.Get("Alt-Svc"), want)
			}
		})
	}
}

// TestH3Flags: -h3 without -tls-cert and -tls-key exits 2 with one line
// naming the flag, before the server listens, as the other flags' errors.
func TestH3Flags(t *testing.T) {
	for _, tg := range servers {
		if !tg.H3 || !tg.GoRuntime {
			continue
		}
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			addr := testnet.Refusing(t)
			stdout, _, err := proc.Run(proc.Spec{
				Name: tg.Name, Path: filepath.Join(binDir, tg.Name),
				Args: []string{"-addr", addr, "-h3"},
			})
			want := tg.Name + ": -h3: needs -tls-cert and -tls-key, as HTTP/3 runs over QUIC, which is TLS 1.3"
			var ee *proc.ExitError
			if !errors.As(err, &ee) || ee.Code != 2 || ee.Stderr != want || len(stdout) > 0 {
				t.Errorf("-h3 alone: %v, stdout %q; want exit 2, stderr the one line %q", err, stdout, want)
			}
		})
	}
}

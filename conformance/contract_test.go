package conformance

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hellobench/page"
)

// The suite's short timeouts; the contract's defaults are 10 s and 60 s.
const (
	headerTimeout = 1 * time.Second
	idleTimeout   = 2 * time.Second
)

// req is a minimal HTTP/1.1 request with a Host header.
func req(method, target string, headers ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: hellobench\r\n", method, target)
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// TestContract runs every contract case against each target, the targets in
// parallel, each as one long-running process.
func TestContract(t *testing.T) {
	for _, tg := range servers {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			contract(t, &suite{tg: tg, p: tg.start(t, "", headerTimeout, idleTimeout)})
		})
	}
}

// contract runs the contract's cases of s, but for those named in skip.
func contract(t *testing.T, s *suite, skip ...string) {
	logBefore := s.p.stderr.String()
	for _, c := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"get", s.get},
		{"head", s.head},
		{"date-refreshed", s.dateRefreshed},
		{"not-found", s.notFound},
		{"method-not-allowed", s.methodNotAllowed},
		{"connections", s.connections},
		{"pipelining", s.pipelining},
		{"split", s.split},
		{"bad-input", s.badInput},
		{"bodies", s.bodies},
		{"json", s.json},
		{"timeouts", s.timeouts},
		{"log", func(t *testing.T) { s.log(t, logBefore) }},
	} {
		if !slices.Contains(skip, c.name) {
			t.Run(c.name, c.run)
		}
	}
}

// A suite is the contract's cases against one started target, over TCP,
// or over TLS with tls set.
type suite struct {
	tg  target
	p   *process
	tls *tls.Config
}

// dial connects to the target as the suite speaks to it.
func (s *suite) dial(t *testing.T) *conn {
	t.Helper()
	return dialTLS(t, s.p.addr, s.tls)
}

// status returns the status the target must answer for a named case:
// the contract's, or its documented deviation.
func (s *suite) status(t *testing.T, name string, contract int) int {
	if d, ok := s.tg.Deviations[name]; ok {
		t.Logf("%s: deviation: %d instead of %d: %s", name, d.Status, contract, d.Why)
		return d.Status
	}
	return contract
}

// checkPage asserts the contract's 200 response to GET or HEAD.
func (s *suite) checkPage(t *testing.T, r *response, method string) {
	t.Helper()
	if r.StatusCode != 200 {
		t.Fatalf("%s: status %d, want 200", method, r.StatusCode)
	}
	want := page.HTML
	if method == "HEAD" {
		want = nil
	}
	if !bytes.Equal(r.body, want) {
		t.Errorf("%s: body of %d bytes differs from the page (%d bytes): %q", method, len(r.body), len(want), r.body)
	}
	if got := r.Header.Get("Content-Type"); got != page.ContentType {
		t.Errorf("%s: Content-Type %q, want %q", method, got, page.ContentType)
	}
	if got := r.Header.Values("Content-Length"); len(got) != 1 || got[0] != strconv.Itoa(page.Size) {
		t.Errorf("%s: Content-Length %q, want one %d", method, got, page.Size)
	}
	if got := r.Header.Get("Server"); !strings.HasPrefix(got, s.tg.ServerHeader) {
		t.Errorf("%s: Server %q, want %q", method, got, s.tg.ServerHeader)
	}
	checkDate(t, r)
}

// checkDate asserts an IMF-fixdate Date header close to the local clock.
func checkDate(t *testing.T, r *response) time.Time {
	t.Helper()
	v := r.Header.Get("Date")
	d, err := time.Parse(http.TimeFormat, v)
	if err != nil {
		t.Fatalf("Date %q is not an IMF-fixdate: %v", v, err)
	}
	if skew := time.Since(d); skew < -2*time.Second || skew > 3*time.Second {
		t.Errorf("Date %q is %v off the clock", v, skew)
	}
	return d
}

func (s *suite) get(t *testing.T) {
	c := s.dial(t)
	for _, target := range []string{page.Path, page.Path + "?name=hellobench&x=1", page.Path + "?"} {
		c.send(req("GET", target))
		r := c.read("GET")
		s.checkPage(t, r, "GET")
	}
}

func (s *suite) head(t *testing.T) {
	c := s.dial(t)
	// HEAD then GET in one write: a body after HEAD would corrupt the GET.
	c.send(req("HEAD", page.Path) + req("GET", page.Path))
	s.checkPage(t, c.read("HEAD"), "HEAD")
	s.checkPage(t, c.read("GET"), "GET")
}

func (s *suite) dateRefreshed(t *testing.T) {
	c := s.dial(t)
	c.send(req("GET", page.Path))
	first := checkDate(t, c.read("GET"))
	time.Sleep(time.Until(first.Add(2 * time.Second)))
	c.send(req("GET", page.Path))
	if second := checkDate(t, c.read("GET")); !second.After(first) {
		t.Errorf("Date not refreshed: %v, then %v two seconds later", first, second)
	}
}

func (s *suite) notFound(t *testing.T) {
	c := s.dial(t)
	for _, target := range []string{"/", "/hello", "/hello/", "/hello/world/", "/Hello/world", "/hello/worlds", "/hello/world/x", "/favicon.ico"} {
		for _, method := range []string{"GET", "HEAD"} {
			c.send(req(method, target))
			if r := c.read(method); r.StatusCode != 404 {
				t.Errorf("%s %s: status %d, want 404", method, target, r.StatusCode)
			}
		}
	}
}

func (s *suite) methodNotAllowed(t *testing.T) {
	check := func(t *testing.T, method, extra string, want int) {
		c := s.dial(t)
		c.send(req(method, page.Path, extra))
		r := c.read(method)
		if r.StatusCode != want {
			t.Fatalf("%s: status %d, want %d", method, r.StatusCode, want)
		}
		if want == 405 && r.Header.Get("Allow") != page.Allow {
			t.Errorf("%s: Allow %q, want %q", method, r.Header.Get("Allow"), page.Allow)
		}
	}
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		check(t, m, "Content-Length: 0", 405)
	}
	check(t, "OPTIONS", "Content-Length: 0", 405)
	// A method this server has never heard of is still a valid token.
	check(t, "BREW", "Content-Length: 0", s.status(t, "extension-method", 405))
}

func (s *suite) connections(t *testing.T) {
	t.Run("http11-keep-alive", func(t *testing.T) {
		c := s.dial(t)
		for range 3 {
			c.send(req("GET", page.Path))
			r := c.read("GET")
			s.checkPage(t, r, "GET")
			if r.Close {
				t.Fatal("HTTP/1.1 response says Connection: close")
			}
		}
		c.expectOpen(200 * time.Millisecond)
	})
	t.Run("http11-close", func(t *testing.T) {
		c := s.dial(t)
		c.send(req("GET", page.Path, "Connection: close"))
		r := c.read("GET")
		s.checkPage(t, r, "GET")
		if !r.Close {
			t.Error("response to Connection: close does not say Connection: close")
		}
		c.expectClosed(3 * time.Second)
	})
	t.Run("http10-close", func(t *testing.T) {
		c := s.dial(t)
		c.send("GET " + page.Path + " HTTP/1.0\r\n\r\n")
		r := c.read("GET")
		s.checkPage(t, r, "GET")
		if hasToken(r.Header, "Connection", "keep-alive") {
			t.Error("HTTP/1.0 response without keep-alive asked says Connection: keep-alive")
		}
		c.expectClosed(3 * time.Second)
	})
	t.Run("http10-keep-alive", func(t *testing.T) {
		c := s.dial(t)
		for range 3 {
			c.send("GET " + page.Path + " HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
			r := c.read("GET")
			s.checkPage(t, r, "GET")
			if !hasToken(r.Header, "Connection", "keep-alive") {
				t.Fatalf("Connection %q, want keep-alive", r.Header.Values("Connection"))
			}
		}
		c.expectOpen(200 * time.Millisecond)
	})
}

func (s *suite) pipelining(t *testing.T) {
	type step struct {
		method, target string
		status         int
	}
	steps := []step{
		{"GET", page.Path, 200}, {"HEAD", page.Path, 200}, {"GET", "/nope", 404},
		{"GET", page.Path + "?n=1", 200}, {"HEAD", "/nope", 404}, {"GET", page.Path, 200},
	}
	var all strings.Builder
	for range 5 {
		for _, st := range steps {
			all.WriteString(req(st.method, st.target))
		}
	}
	c := s.dial(t)
	c.send(all.String())
	for i := range 5 * len(steps) {
		st := steps[i%len(steps)]
		r := c.read(st.method)
		if r.StatusCode != st.status {
			t.Fatalf("pipelined request %d (%s %s): status %d, want %d", i, st.method, st.target, r.StatusCode, st.status)
		}
		if st.status == 200 {
			s.checkPage(t, r, st.method)
		}
	}
	c.expectOpen(100 * time.Millisecond)
}

func (s *suite) split(t *testing.T) {
	one := req("GET", page.Path+"?split=1", "User-Agent: hellobench-conformance", "Accept: */*")
	t.Run("byte-by-byte", func(t *testing.T) {
		c := s.dial(t)
		for i := range len(one) {
			c.send(one[i : i+1])
			time.Sleep(time.Millisecond)
		}
		s.checkPage(t, c.read("GET"), "GET")
	})
	t.Run("at-every-point", func(t *testing.T) {
		// Two requests in two writes, the cut moving through both.
		two := one + req("HEAD", page.Path)
		c := s.dial(t)
		for cut := 1; cut < len(two); cut += 3 {
			c.send(two[:cut])
			time.Sleep(2 * time.Millisecond)
			c.send(two[cut:])
			s.checkPage(t, c.read("GET"), "GET")
			s.checkPage(t, c.read("HEAD"), "HEAD")
		}
	})
}

// badInput sends each malformed request on its own connection: the server
// must answer with the status, close, and keep serving others. obs-fold is
// not among them: RFC 9112 section 5.2 lets a server either reject it or
// unfold it.
func (s *suite) badInput(t *testing.T) {
	big := "X-Big: " + strings.Repeat("a", 9<<10)
	fits := "X-Fits: " + strings.Repeat("a", 7<<10)
	cases := []struct {
		name, req string
		status    int
	}{
		{"garbage", "\x16\x03\x01\x02\x00garbage\r\n\r\n", 400},
		{"no-version", "GET " + page.Path + "\r\nHost: x\r\n\r\n", 400},
		{"bad-version-syntax", "GET " + page.Path + " HTTX/1.1\r\nHost: x\r\n\r\n", 400},
		{"header-without-colon", "GET " + page.Path + " HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n", 400},
		{"space-before-colon", "GET " + page.Path + " HTTP/1.1\r\nHost : x\r\n\r\n", 400},
		{"bad-header-name", "GET " + page.Path + " HTTP/1.1\r\nHost: x\r\nBad(Name): v\r\n\r\n", 400},
		{"missing-host", "GET " + page.Path + " HTTP/1.1\r\n\r\n", 400},
		{"bad-content-length", "POST " + page.Path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n", 400},
		{"conflicting-content-length", "POST " + page.Path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400},
		{"header-over-8KiB", req("GET", page.Path, big), 431},
		{"http-2.0", "GET " + page.Path + " HTTP/2.0\r\nHost: x\r\n\r\n", 505},
		{"http-1.2", "GET " + page.Path + " HTTP/1.2\r\nHost: x\r\n\r\n", 505},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := s.status(t, tc.name, tc.status)
			c := s.dial(t)
			c.send(tc.req)
			r, err := c.tryRead("GET")
			if err != nil {
				t.Fatalf("no response: %v", err)
			}
			if r.StatusCode != want {
				t.Fatalf("status %d, want %d (body %q)", r.StatusCode, want, r.body)
			}
			if want >= 400 {
				c.expectClosed(3 * time.Second)
			}
			// Everyone else is still served.
			c2 := s.dial(t)
			c2.send(req("GET", page.Path))
			s.checkPage(t, c2.read("GET"), "GET")
		})
	}
	t.Run("header-under-8KiB", func(t *testing.T) {
		c := s.dial(t)
		c.send(req("GET", page.Path, fits))
		s.checkPage(t, c.read("GET"), "GET")
	})
}

// bodies checks that a request body is consumed or the connection closed,
// never parsed as the next request: each body is itself a request for /nope,
// which would show up as a 404.
func (s *suite) bodies(t *testing.T) {
	smuggled := req("GET", "/nope")
	chunked := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(smuggled), smuggled)
	cases := []struct {
		name, head, body string
		status           int
	}{
		{"post-content-length", "POST " + page.Path + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + strconv.Itoa(len(smuggled)) + "\r\n\r\n", smuggled, 405},
		{"get-content-length", "GET " + page.Path + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + strconv.Itoa(len(smuggled)) + "\r\n\r\n", smuggled, 200},
		{"post-chunked", "POST " + page.Path + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", chunked, 405},
		{"get-chunked", "GET " + page.Path + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", chunked, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := s.dial(t)
			c.send(tc.head + tc.body + req("GET", page.Path))
			r := c.read("POST")
			if r.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", r.StatusCode, tc.status)
			}
			next, err := c.tryRead("GET")
			if err != nil {
				// Closing instead of reading the body is allowed.
				if r.Close {
					return
				}
				t.Fatalf("after the body: no response and no Connection: close: %v", err)
			}
			if next.StatusCode == 404 {
				t.Fatal("the request body was read as a request")
			}
			s.checkPage(t, next, "GET")
		})
	}
}

func (s *suite) timeouts(t *testing.T) {
	t.Run("slow-headers", func(t *testing.T) {
		t.Parallel()
		c := s.dial(t)
		c.send("GET " + page.Path + " HTTP/1.1\r\nHost: x\r\n")
		// Closed within the header timeout and some slack; a 408 first is fine.
		c.c.SetReadDeadline(time.Now().Add(headerTimeout + 3*time.Second))
		if r, err := c.tryRead("GET"); err == nil {
			if r.StatusCode != 408 {
				t.Fatalf("incomplete headers answered %d, want 408 or a close", r.StatusCode)
			}
			c.expectClosed(time.Second)
		} else if !isClosed(err) {
			t.Fatalf("incomplete headers: connection not closed: %v", err)
		}
	})
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		c := s.dial(t)
		c.send(req("GET", page.Path))
		s.checkPage(t, c.read("GET"), "GET")
		c.expectOpen(idleTimeout / 2)
		c.expectClosed(idleTimeout + 3*time.Second)
	})
	t.Run("busy-connection-lives", func(t *testing.T) {
		t.Parallel()
		// Requests every 300 ms for longer than both timeouts: neither may
		// cut a connection that is in use.
		c := s.dial(t)
		end := time.Now().Add(idleTimeout + headerTimeout)
		for time.Now().Before(end) {
			c.send(req("GET", page.Path))
			s.checkPage(t, c.read("GET"), "GET")
			time.Sleep(300 * time.Millisecond)
		}
	})
}

var logLine = regexp.MustCompile(`(?m)^.*\b([a-z]+): listening on (\S+) \(GOMAXPROCS=(\d+)\)$`)

// log checks the one start line and that serving wrote nothing more, but
// for the lines the target declares its front server may write.
func (s *suite) log(t *testing.T, before string) {
	m := logLine.FindStringSubmatch(before)
	if m == nil {
		t.Fatalf("no start line of the form %q in:\n%s", "<stack>: listening on <addr> (GOMAXPROCS=<n>)", before)
	}
	if m[3] != "1" {
		t.Errorf("start line says GOMAXPROCS=%s, the environment said 1", m[3])
	}
	for _, line := range strings.Split(strings.TrimPrefix(s.p.stderr.String(), before), "\n") {
		if line == "" {
			continue
		}
		if s.tg.LogAllowed != nil && s.tg.LogAllowed.MatchString(line) {
			t.Logf("allowed log line: %s", line)
			continue
		}
		t.Errorf("the server logged while serving: %s", line)
	}
}

// TestShutdown checks graceful stop on each signal: requests sent before the
// signal are answered completely, new connections are refused, idle
// connections are closed, and the process exits 0 within 5 s.
func TestShutdown(t *testing.T) {
	for _, tg := range servers {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Run(tg.Name+"/"+sig.String(), func(t *testing.T) {
				t.Parallel()
				p := tg.start(t, "", 10*time.Second, 60*time.Second)
				idle := dial(t, p.addr) // an idle keep-alive connection must not delay exit
				idle.send(req("GET", page.Path))
				idle.read("GET")
				partial := dial(t, p.addr)
				full := req("GET", page.Path)
				partial.send(full[:20])
				time.Sleep(200 * time.Millisecond)

				c := dial(t, p.addr)
				c.send(req("GET", page.Path)) // accepted, so the listener's close cannot reset it
				c.read("GET")
				c.send(req("GET", page.Path) + req("GET", page.Path))
				start := time.Now()
				p.signal(t, sig)
				// Requests sent just before the signal are answered in full,
				// or the connection is closed before their answer starts:
				// net/http closes a keep-alive connection it has not yet
				// read from, and lighttpd answers one request with
				// Connection: close and drops the rest; a client retries
				// those (RFC 9112 section 9.3.2). A response is never cut.
				for i := range 2 {
					c.c.SetReadDeadline(time.Now().Add(5 * time.Second))
					if _, err := c.br.Peek(1); err != nil {
						if !isClosed(err) {
							t.Errorf("request %d sent before the signal: %v", i, err)
						}
						break
					}
					r := c.read("GET") // begun, so it must be whole
					if r.StatusCode != 200 || !bytes.Equal(r.body, page.HTML) {
						t.Errorf("request %d sent before the signal: status %d, %d body bytes", i, r.StatusCode, len(r.body))
					}
					if r.Close {
						break
					}
				}
				time.Sleep(300 * time.Millisecond)
				if nc, err := netDial(p.addr); err == nil {
					nc.Close()
					t.Error("a new connection was accepted after the signal")
				}
				// A request still being received when the signal came may be
				// answered in full or dropped with the connection, never cut.
				partial.send(full[20:])
				if r, err := partial.tryRead("GET"); err == nil {
					if r.StatusCode != 200 || !bytes.Equal(r.body, page.HTML) {
						t.Errorf("request completed after the signal: status %d, %d body bytes", r.StatusCode, len(r.body))
					}
				} else if !isClosed(err) || partial.br.Buffered() > 0 {
					t.Errorf("request completed after the signal: %v", err)
				}
				left := 5*time.Second - time.Since(start)
				idle.expectClosed(left)
				c.expectClosed(left)
				if code := p.wait(t, 5*time.Second-time.Since(start)); code != 0 {
					t.Errorf("exit status %d, want 0\n%s", code, p.stderr)
				}
			})
		}
	}
}

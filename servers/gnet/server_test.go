//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"

	"hellobench/internal/testnet"
	"hellobench/page"
	"hellobench/servers/internal/http1"
)

// start runs a server with a real gnet engine on a loopback port and
// returns it with its address; the engine stops when the test ends.
func start(t *testing.T, headerTimeout, idleTimeout time.Duration) (*server, string) {
	t.Helper()
	// A port of its own, held for the test: with one event loop per P,
	// each loop binds the address given with SO_REUSEPORT, so port 0 would
	// give each loop a different port; and a port found free, then let go,
	// may be taken before the loops bind it, or shared with them silently
	// by another server with SO_REUSEPORT.
	addr := testnet.ReusePort(t)
	s := newServer(addr, headerTimeout, idleTimeout)
	done := make(chan error, 1)
	go func() { done <- gnet.Run(s, "tcp://"+addr, options()...) }()
	select {
	case err := <-done:
		t.Fatalf("gnet.Run: %v", err)
	case <-s.booted:
	}
	t.Cleanup(func() {
		if !s.draining.Load() {
			s.shutdown(0)
		}
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("engine did not stop")
		}
	})
	return s, addr
}

// exchange sends the pieces with a pause between them, then reads until
// EOF, and returns what it read and the read error (nil at EOF).
func exchange(t *testing.T, addr string, pieces ...string) ([]byte, error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i, p := range pieces {
		if i > 0 {
			time.Sleep(5 * time.Millisecond)
		}
		if _, err := io.WriteString(c, p); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	return io.ReadAll(c)
}

// responses parses the responses in b, for requests of the given methods.
func responses(t *testing.T, b []byte, methods ...string) []*http.Response {
	t.Helper()
	br := bufio.NewReader(bytes.NewReader(b))
	var rs []*http.Response
	for _, m := range methods {
		r, err := http.ReadResponse(br, &http.Request{Method: m})
		if err != nil {
			t.Fatalf("response %d of %q: %v", len(rs), b, err)
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Fatalf("response %d body: %v", len(rs), err)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rs = append(rs, r)
	}
	if rest, _ := io.ReadAll(br); len(rest) > 0 {
		t.Fatalf("after %d responses, %q", len(rs), rest)
	}
	return rs
}

func body(r *http.Response) string {
	b, _ := io.ReadAll(r.Body)
	return string(b)
}

func TestServe(t *testing.T) {
	_, addr := start(t, 10*time.Second, 10*time.Second)
	const (
		req   = "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"
		close = "GET /hello/world HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
	)

	t.Run("headers", func(t *testing.T) {
		out, err := exchange(t, addr, close)
		if err != nil {
			t.Fatal(err)
		}
		r := responses(t, out, "GET")[0]
		if r.StatusCode != 200 || body(r) != string(page.HTML) {
			t.Fatalf("got %d %q", r.StatusCode, out)
		}
		want := map[string]string{
			"Server":         "gnet",
			"Content-Type":   page.ContentType,
			"Content-Length": "257",
		}
		for k, v := range want {
			if got := r.Header.Get(k); got != v {
				t.Errorf("%s: %q, want %q", k, got, v)
			}
		}
		if !r.Close { // net/http takes "Connection: close" out of Header
			t.Error("no Connection: close")
		}
		d, err := http.ParseTime(r.Header.Get("Date"))
		if err != nil || time.Since(d).Abs() > 2*time.Second || !strings.HasSuffix(r.Header.Get("Date"), " GMT") {
			t.Errorf("Date %q: %v", r.Header.Get("Date"), err)
		}
	})

	t.Run("pipelined and routed", func(t *testing.T) {
		out, err := exchange(t, addr,
			req+"HEAD /hello/world?x=1 HTTP/1.1\r\nHost: h\r\n\r\n"+
				"GET /hello/world/ HTTP/1.1\r\nHost: h\r\n\r\n"+
				"DELETE /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"+close)
		if err != nil {
			t.Fatal(err)
		}
		rs := responses(t, out, "GET", "HEAD", "GET", "DELETE", "GET")
		for i, want := range []int{200, 200, 404, 405, 200} {
			if rs[i].StatusCode != want {
				t.Errorf("response %d: %d, want %d", i, rs[i].StatusCode, want)
			}
		}
		if b := body(rs[1]); b != "" || rs[1].Header.Get("Content-Length") != "257" {
			t.Errorf("HEAD: body %q, Content-Length %q", b, rs[1].Header.Get("Content-Length"))
		}
		if a := rs[3].Header.Get("Allow"); a != page.Allow {
			t.Errorf("405 Allow %q", a)
		}
	})

	t.Run("json pipelined with the page", func(t *testing.T) {
		out, err := exchange(t, addr, jsonStream)
		if err != nil {
			t.Fatal(err)
		}
		checkJSONPipelined(t, out)
		out, err = exchange(t, addr, strings.Split(jsonStream, "")...)
		if err != nil {
			t.Fatal(err)
		}
		checkJSONPipelined(t, out)
	})

	t.Run("split byte by byte", func(t *testing.T) {
		out, err := exchange(t, addr, strings.Split(req+close, "")...)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range responses(t, out, "GET", "GET") {
			if r.StatusCode != 200 {
				t.Errorf("status %d", r.StatusCode)
			}
		}
	})

	t.Run("HTTP/1.0", func(t *testing.T) {
		out, err := exchange(t, addr,
			"GET /hello/world HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"+
				"GET /hello/world HTTP/1.0\r\n\r\n"+req)
		if err != nil {
			t.Fatal(err)
		}
		rs := responses(t, out, "GET", "GET") // and nothing for the third
		if c := rs[0].Header.Get("Connection"); c != "keep-alive" {
			t.Errorf("first: Connection %q", c)
		}
		if !rs[1].Close {
			t.Error("second: no Connection: close")
		}
	})

	t.Run("bodies", func(t *testing.T) {
		chunks := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(req), req)
		out, err := exchange(t, addr,
			"POST /hello/world HTTP/1.1\r\nHost: h\r\nContent-Length: 38\r\n\r\n", req[:10], req[10:],
			"GET /hello/world HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", chunks[:20], chunks[20:],
			close)
		if err != nil {
			t.Fatal(err)
		}
		rs := responses(t, out, "POST", "GET", "GET")
		for i, want := range []int{405, 200, 200} {
			if rs[i].StatusCode != want {
				t.Errorf("response %d: %d, want %d", i, rs[i].StatusCode, want)
			}
		}
	})

	t.Run("bad requests", func(t *testing.T) {
		for _, tc := range []struct {
			in     string
			status int
		}{
			{"GET /hello/world HTTP/1.1\r\n\r\n", 400},
			{"GET /hello/world HTTP/2.0\r\nHost: h\r\n\r\n", 505},
			{"POST /hello/world HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501},
			{"GET /hello/world HTTP/1.1\r\nHost: h\r\nX: " + strings.Repeat("x", 9000) + "\r\n\r\n", 431},
		} {
			// A good request first: the error comes after a response, and
			// more bytes follow it that the server must not answer.
			out, err := exchange(t, addr, req+tc.in+req)
			if err != nil {
				t.Fatalf("%.40q: read: %v (reset before the response was read?)", tc.in, err)
			}
			rs := responses(t, out, "GET", "GET")
			if rs[0].StatusCode != 200 || rs[1].StatusCode != tc.status || !rs[1].Close {
				t.Errorf("%.40q: %d then %d, close %v", tc.in, rs[0].StatusCode, rs[1].StatusCode, rs[1].Close)
			}
			if n, _ := fmt.Sscanf(body(rs[1]), "%d", new(int)); n != 1 {
				t.Errorf("%.40q: error body %q", tc.in, out)
			}
		}
	})

	t.Run("expect 100-continue", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, "PUT /hello/world HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\nConnection: close\r\n\r\n")
		interim := make([]byte, len(http1.Continue))
		if _, err := io.ReadFull(c, interim); err != nil || string(interim) != http1.Continue {
			t.Fatalf("interim %q: %v", interim, err)
		}
		io.WriteString(c, "hello")
		out, err := io.ReadAll(c)
		if err != nil {
			t.Fatal(err)
		}
		if r := responses(t, out, "PUT")[0]; r.StatusCode != 405 {
			t.Errorf("status %d", r.StatusCode)
		}
	})
}

// checkJSONPipelined checks the answers to jsonStream: the page, the JSON
// object, HEAD's headers for it, 405 with Allow, and the page, closing.
func checkJSONPipelined(t *testing.T, b []byte) {
	t.Helper()
	rs := responses(t, b, "GET", "GET", "HEAD", "POST", "GET")
	for i, want := range []int{200, 200, 200, 405, 200} {
		if rs[i].StatusCode != want {
			t.Errorf("response %d: %d, want %d", i, rs[i].StatusCode, want)
		}
	}
	for _, i := range []int{0, 4} {
		if b := body(rs[i]); b != string(page.HTML) {
			t.Errorf("response %d: not the page: %q", i, b)
		}
	}
	for i, want := range map[int]string{1: `{"message":"Hello, World!"}`, 2: ""} {
		r := rs[i]
		if b := body(r); b != want || r.Header.Get("Content-Type") != "application/json" ||
			len(r.Header.Values("Content-Length")) != 1 || r.Header.Get("Content-Length") != "27" || r.Header.Get("Server") != "gnet" {
			t.Errorf("%s /json: body %q, headers %q", r.Request.Method, b, r.Header)
		}
	}
	if a := rs[3].Header.Get("Allow"); a != page.Allow {
		t.Errorf("405 Allow %q", a)
	}
	if !rs[4].Close {
		t.Error("the last response does not close")
	}
}

// jsonStream is /json pipelined between requests for the page.
const jsonStream = "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n" +
	"GET /json HTTP/1.1\r\nHost: h\r\n\r\n" +
	"HEAD /json HTTP/1.1\r\nHost: h\r\n\r\n" +
	"POST /json HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n" +
	"GET /hello/world HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"

// TestJSON runs /json through serve with a fixed Date and checks the
// answers byte for byte: the object encoded, 27 bytes, as application/json;
// HEAD's headers with the GET's length; 405 with Allow; 404 for the paths
// beside it; the page's Connection rules; and the page pipelined around it.
func TestJSON(t *testing.T) {
	const (
		date = "Sun, 06 Nov 1994 08:49:37 GMT"
		obj  = `{"message":"Hello, World!"}`
		ok   = "HTTP/1.1 200 OK\r\nServer: gnet\r\nDate: " + date + "\r\nContent-Type: application/json\r\nContent-Length: 27\r\n"
		text = "Server: gnet\r\nDate: " + date + "\r\nContent-Type: text/plain; charset=utf-8\r\n"

		notFound   = "HTTP/1.1 404 Not Found\r\n" + text + "Content-Length: 14\r\n\r\n"
		notAllowed = "HTTP/1.1 405 Method Not Allowed\r\n" + text + "Content-Length: 23\r\nAllow: GET, HEAD\r\n\r\n405 Method Not Allowed\n"

		req  = "GET /json HTTP/1.1\r\nHost: h\r\n\r\n"
		head = "HEAD /json HTTP/1.1\r\nHost: h\r\n\r\n"
		pg   = "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"
	)
	pageOut := string(http1.AppendResponse(nil, "gnet", http1.OK, false, http1.ConnNone, []byte(date)))
	for _, tc := range []struct {
		in      string
		want    string
		served  int
		closing bool
	}{
		{req, ok + "\r\n" + obj, 1, false},
		{"GET /json?n=1 HTTP/1.1\r\nHost: h\r\n\r\n", ok + "\r\n" + obj, 1, false},
		{head, ok + "\r\n", 1, false},
		{"GET /json HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", ok + "Connection: keep-alive\r\n\r\n" + obj, 1, false},
		{"GET /json HTTP/1.0\r\n\r\n", ok + "Connection: close\r\n\r\n" + obj, 1, true},
		{"HEAD /json HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", ok + "Connection: close\r\n\r\n", 1, true},
		{"POST /json HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi", notAllowed, 1, false},
		{"DELETE /json HTTP/1.1\r\nHost: h\r\n\r\n", notAllowed, 1, false},
		{"GET /json/ HTTP/1.1\r\nHost: h\r\n\r\n", notFound + "404 Not Found\n", 1, false},
		{"GET /JSON HTTP/1.1\r\nHost: h\r\n\r\n", notFound + "404 Not Found\n", 1, false},
		{"GET /jsons HTTP/1.1\r\nHost: h\r\n\r\n", notFound + "404 Not Found\n", 1, false},
		{"GET /json/x HTTP/1.1\r\nHost: h\r\n\r\n", notFound + "404 Not Found\n", 1, false},
		{"HEAD /jso HTTP/1.1\r\nHost: h\r\n\r\n", notFound, 1, false},
		{pg + req + head + pg, pageOut + ok + "\r\n" + obj + ok + "\r\n" + pageOut, 4, false},
	} {
		cs := &conn{}
		out, n, closing, served := cs.serve(nil, []byte(tc.in), []byte(date), false)
		if string(out) != tc.want || n != len(tc.in) || closing != tc.closing || served != tc.served {
			t.Errorf("%q:\n got %q, %d bytes read, closing %v, %d served\nwant %q, %d, %v, %d",
				tc.in, out, n, closing, served, tc.want, len(tc.in), tc.closing, tc.served)
		}
	}

	// The handler's work is the page's alone: /json is answered at once.
	saved := work
	defer func() { work = saved }()
	work = page.Work{Wait: time.Hour}
	cs := &conn{}
	if out, _, _, served := cs.serve(nil, []byte(req), []byte(date), false); string(out) != ok+"\r\n"+obj || served != 1 || cs.held {
		t.Errorf("with -work-wait: %q, %d served, held %v", out, served, cs.held)
	}
}

// eofWithin reads from c until EOF and reports when it came, or fails.
func eofWithin(t *testing.T, c net.Conn, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(limit))
	b, err := io.ReadAll(c)
	if err != nil || len(b) > 0 {
		t.Fatalf("want EOF within %v, got %q, %v", limit, b, err)
	}
	return time.Since(start)
}

// closedWithin is eofWithin for a connection the client may still be
// writing to when the server closes it: the server's kernel then answers
// those bytes with a reset, which may reach the client's read before the
// FIN does.
func closedWithin(t *testing.T, c net.Conn, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(limit))
	b, err := io.ReadAll(c)
	if (err != nil && !errors.Is(err, syscall.ECONNRESET)) || len(b) > 0 {
		t.Fatalf("want EOF or a reset within %v, got %q, %v", limit, b, err)
	}
	return time.Since(start)
}

func TestTimeouts(t *testing.T) {
	const header, idle = 300 * time.Millisecond, 900 * time.Millisecond
	_, addr := start(t, header, idle)
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	// Headers trickling in: the clock runs from the first byte.
	slow := dial()
	io.WriteString(slow, "GET /hello/world HTTP/1.1\r\n")
	go func() {
		for range 10 {
			time.Sleep(50 * time.Millisecond)
			if _, err := io.WriteString(slow, "X: y\r\n"); err != nil {
				return
			}
		}
	}()
	// The lower bounds matter: never closed early. The upper ones only
	// show the close comes, with room for a loaded machine.
	if d := closedWithin(t, slow, 3*time.Second); d < header-50*time.Millisecond || d > header+1500*time.Millisecond {
		t.Errorf("slow headers closed after %v, want about %v", d, header)
	}

	// An idle keep-alive connection outlives the header timeout and is
	// closed at the idle timeout.
	idler := dial()
	io.WriteString(idler, "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n")
	r, err := http.ReadResponse(bufio.NewReader(idler), nil)
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("response: %v", err)
	}
	io.Copy(io.Discard, r.Body)
	if d := eofWithin(t, idler, 4*time.Second); d < idle-50*time.Millisecond || d > idle+1500*time.Millisecond {
		t.Errorf("idle connection closed after %v, want about %v", d, idle)
	}
}

// TestSlowBody: a body dripped a few bytes at a time does not renew the
// request's deadline: the connection is closed at the header timeout from
// the request's first byte, header section and body together.
func TestSlowBody(t *testing.T) {
	const header = 400 * time.Millisecond
	_, addr := start(t, header, 10*time.Second)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	began := time.Now()
	// The header section in two reads, then the body: its clock does not
	// start again when the body begins.
	io.WriteString(c, "POST /hello/world HTTP/1.1\r\nHost: h\r\n")
	time.Sleep(100 * time.Millisecond)
	io.WriteString(c, "Content-Length: 4096\r\n\r\n")
	closed := make(chan error, 1)
	go func() {
		b, err := io.ReadAll(c)
		if err == nil && len(b) > 0 {
			err = fmt.Errorf("read %q before the close", b)
		}
		closed <- err
	}()
	drip := time.NewTicker(50 * time.Millisecond)
	defer drip.Stop()
	for {
		select {
		case err := <-closed:
			if err != nil && !errors.Is(err, syscall.ECONNRESET) {
				t.Fatalf("want EOF or a reset at the header timeout: %v", err)
			}
			// Never early; late by at most a tick or two, with room for a
			// loaded machine.
			if d := time.Since(began); d < header-50*time.Millisecond || d > header+time.Second {
				t.Errorf("dripped body closed %v after the request began, want about %v", d, header)
			}
			return
		case <-drip.C:
			if time.Since(began) > 3*time.Second {
				t.Fatalf("a body dripped 2 bytes every 50 ms still held its connection 3 s after the request began (header timeout %v)", header)
			}
			io.WriteString(c, "x=")
		}
	}
}

// TestPause pipelines more answers than the sockets hold and reads none
// for a while: the server stops serving the connection's requests once
// pauseAt bytes of answers wait, and serves the rest once the client reads.
func TestPause(t *testing.T) {
	s, addr := start(t, 10*time.Second, 10*time.Second)
	small := func(fd int, opt int) {
		// Small socket buffers, so the answers back up into the server.
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, opt, 4<<10); err != nil {
			t.Error(err)
		}
	}
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { small(int(fd), unix.SO_RCVBUF) })
	}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	get := "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"
	io.WriteString(c, get)
	if _, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil {
		t.Fatal(err)
	}
	onConn(t, s, func(cs *conn) { small(cs.c.Fd(), unix.SO_SNDBUF) })
	const n = 100 // 3.6 KB of requests, under maxUnread; 42 KB of answers
	reqs := strings.Repeat(get, n-1) + "GET /hello/world HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
	if _, err := io.WriteString(c, reqs); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // three sweeps: the answers stay unread
	var paused bool
	var out int
	onConn(t, s, func(cs *conn) { paused, out = cs.paused, cs.c.OutboundBuffered() })
	if !paused || out < pauseAt || out > 2*pauseAt+page.Size+200 {
		t.Fatalf("with the answers unread: paused %v with %d bytes queued, want paused with %d to %d", paused, out, pauseAt, 2*pauseAt+page.Size+200)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("read after %d bytes: %v", len(b), err)
	}
	methods := make([]string, n)
	for i := range methods {
		methods[i] = "GET"
	}
	for i, r := range responses(t, b, methods...) {
		if r.StatusCode != 200 || body(r) != string(page.HTML) {
			t.Fatalf("response %d of %d: status %d", i+1, n, r.StatusCode)
		}
	}
}

// onConn runs f on the server's one connection, on its event loop.
func onConn(t *testing.T, s *server, f func(*conn)) {
	t.Helper()
	s.mu.Lock()
	loops := slices.Clone(s.loops)
	s.mu.Unlock()
	done := make(chan bool, len(loops))
	for _, l := range loops {
		l.el.Execute(context.Background(), gnet.RunnableFunc(func(context.Context) error {
			for _, cs := range l.conns {
				f(cs)
			}
			done <- len(l.conns) > 0
			return nil
		}))
	}
	for range loops {
		select {
		case ok := <-done:
			if ok {
				return
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a loop did not run the function")
		}
	}
	t.Fatal("no connection on the server's loops")
}

func TestShutdown(t *testing.T) {
	s, addr := start(t, 10*time.Second, 10*time.Second)
	busy, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	io.WriteString(busy, "GET /hello/world HTTP/1.1\r\nHo")
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	const get = "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"
	io.WriteString(idle, get)
	idleBuf := bufio.NewReader(idle)
	if r, err := http.ReadResponse(idleBuf, nil); err != nil || r.StatusCode != 200 {
		t.Fatalf("idle connection's request: %v", err)
	} else {
		io.Copy(io.Discard, r.Body)
	}
	time.Sleep(50 * time.Millisecond)
	// Requests sent just before shutdown, maybe not even accepted yet.
	late, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	io.WriteString(late, get+get)

	stopped := make(chan time.Duration)
	go func() {
		t0 := time.Now()
		s.shutdown(3 * time.Second)
		stopped <- time.Since(t0)
	}()

	lateBuf := bufio.NewReader(late)
	for i := range 2 {
		r, err := http.ReadResponse(lateBuf, nil)
		if err != nil || r.StatusCode != 200 {
			t.Fatalf("request %d sent before shutdown: %v", i, err)
		}
		io.Copy(io.Discard, r.Body)
	}
	idle.SetReadDeadline(time.Now().Add(time.Second))
	if b, err := io.ReadAll(idleBuf); err != nil || len(b) > 0 {
		t.Fatalf("idle connection: want EOF within 1s, got %q, %v", b, err)
	}
	// Several dials, for SO_REUSEPORT spreads them over the loops' sockets.
	for range 10 {
		if c, err := net.DialTimeout("tcp", addr, time.Second); !errors.Is(err, unix.ECONNREFUSED) {
			if c != nil {
				c.Close()
			}
			t.Fatalf("dial during shutdown: %v, want connection refused", err)
		}
	}

	io.WriteString(busy, "st: h\r\n\r\n")
	busy.SetReadDeadline(time.Now().Add(2 * time.Second))
	out, err := io.ReadAll(busy)
	if err != nil {
		t.Fatalf("in-flight request: %q, %v", out, err)
	}
	r := responses(t, out, "GET")[0]
	if r.StatusCode != 200 || !r.Close || body(r) != string(page.HTML) {
		t.Errorf("in-flight request: %q", out)
	}
	select {
	case d := <-stopped:
		if d > 4*time.Second {
			t.Errorf("shutdown took %v", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("shutdown did not return")
	}
}

// TestMulticore runs the multicore form, four event loops each with its own
// SO_REUSEPORT listener, as at GOMAXPROCS=4: connections spread over all
// loops, each served, and the drain refuses new connections on every
// listener and still finishes a request in flight.
func TestMulticore(t *testing.T) {
	const loops = 4
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(loops))
	s, addr := start(t, 10*time.Second, 10*time.Second)
	fds, err := listenerFDs(s.eng)
	if err != nil {
		t.Fatal(err)
	}
	// The loops but the first open their sockets after OnBoot.
	for deadline := time.Now().Add(time.Second); len(fds) < loops && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		fds, _ = listenerFDs(s.eng)
	}
	if len(fds) != loops {
		t.Fatalf("%d listening sockets on %s, want %d", len(fds), addr, loops)
	}

	// The kernel picks a listener by a hash of the connection's addresses:
	// with 64 connections, a loop left without one is a 4·(3/4)^64 chance.
	const get = "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"
	conns := make([]net.Conn, 64)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, get)
		r, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		if b, _ := io.ReadAll(r.Body); r.StatusCode != 200 || string(b) != string(page.HTML) {
			t.Fatalf("connection %d: %s, %q", i, r.Status, b)
		}
	}
	s.mu.Lock()
	used := len(s.loops)
	s.mu.Unlock()
	if used != loops {
		t.Errorf("connections served on %d event loops, want %d", used, loops)
	}
	if n := s.limit.Open(); n != int64(len(conns)) {
		t.Errorf("%d connections counted open, want %d", n, len(conns))
	}

	busy := conns[0]
	busyBuf := bufio.NewReader(busy)
	io.WriteString(busy, "GET /hello/world HTTP/1.1\r\nHo")
	time.Sleep(50 * time.Millisecond)
	stopped := make(chan struct{})
	go func() {
		s.shutdown(3 * time.Second)
		close(stopped)
	}()
	// Draining: every listener closed, whichever one a dial hashes to.
	for deadline := time.Now().Add(time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if c != nil {
			c.Close()
		}
		if errors.Is(err, unix.ECONNREFUSED) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("dial during shutdown: %v, want connection refused", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for i := range 20 {
		if c, err := net.DialTimeout("tcp", addr, time.Second); !errors.Is(err, unix.ECONNREFUSED) {
			if c != nil {
				c.Close()
			}
			t.Fatalf("dial %d during shutdown: %v, want connection refused", i, err)
		}
	}
	io.WriteString(busy, "st: h\r\n\r\n")
	r, err := http.ReadResponse(busyBuf, nil)
	if err != nil {
		t.Fatalf("in-flight request: %v", err)
	}
	if b, _ := io.ReadAll(r.Body); r.StatusCode != 200 || !r.Close || string(b) != string(page.HTML) {
		t.Errorf("in-flight request: %s, close %v, %q", r.Status, r.Close, b)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("shutdown did not return")
	}
	if n := s.limit.Open(); n != 0 {
		t.Errorf("%d connections open after shutdown", n)
	}
}

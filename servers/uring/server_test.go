//go:build linux

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"hellobench/internal/testnet"
	"hellobench/internal/uring"
	"hellobench/internal/uring/uringtest"
	"hellobench/page"
	"hellobench/servers/internal/http1"
)

// start runs a server with n real rings on a loopback port and returns it
// with its address; it drains and stops when the test ends. Where io_uring
// is refused, the test is skipped with the reason.
func start(t *testing.T, n int, headerTimeout, idleTimeout time.Duration) (*server, string) {
	s, addr, _ := startStop(t, n, headerTimeout, idleTimeout)
	return s, addr
}

// startStop is start, and returns a function that stops the server and
// waits for its loops to end.
func startStop(t *testing.T, n int, headerTimeout, idleTimeout time.Duration) (*server, string, func()) {
	t.Helper()
	if r, err := uring.New(8); err != nil {
		t.Skipf("%v", err)
	} else {
		r.Close()
	}
	// A port of its own, held for the test: each loop binds it with
	// SO_REUSEPORT, and a port found free, then let go, may be taken
	// before the loops bind it.
	addr := testnet.ReusePort(t)
	s := newServer(headerTimeout, idleTimeout)
	done, err := s.serve(addr, n)
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			s.stop()
			for range s.loops {
				select {
				case err := <-done:
					if err != nil {
						t.Errorf("loop: %v", err)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("a loop did not stop")
				}
			}
		})
	}
	t.Cleanup(stop)
	return s, addr, stop
}

// exchange sends the pieces with a pause between them, shuts its write
// side, then reads until EOF, and returns what it read and the read error
// (nil at EOF).
func exchange(t *testing.T, addr string, pieces ...string) ([]byte, error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i, p := range pieces {
		if i > 0 {
			time.Sleep(20 * time.Millisecond)
		}
		if _, err := io.WriteString(c, p); err != nil {
			t.Fatal(err)
		}
	}
	c.(*net.TCPConn).CloseWrite()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	return io.ReadAll(c)
}

// responses parses b as the responses to requests of the given methods, and
// fails if anything is left over.
func responses(t *testing.T, b []byte, methods ...string) []*http.Response {
	t.Helper()
	br := bufio.NewReader(bytes.NewReader(b))
	var rs []*http.Response
	for _, m := range methods {
		r, err := http.ReadResponse(br, &http.Request{Method: m})
		if err != nil {
			t.Fatalf("response %d: %v in %q", len(rs), err, b)
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rs = append(rs, r)
	}
	if rest, _ := io.ReadAll(br); len(rest) > 0 {
		t.Fatalf("%d bytes after %d responses: %q", len(rest), len(rs), rest)
	}
	return rs
}

func body(r *http.Response) string {
	b, _ := io.ReadAll(r.Body)
	return string(b)
}

const get = "GET /hello/world HTTP/1.1\r\nHost: a\r\n\r\n"

// TestServe runs request streams through a real ring, whole and split, and
// checks every response: status, the bytes of the page, Connection, and
// that nothing is answered after a request that closes.
func TestServe(t *testing.T) {
	_, addr := start(t, 1, 10*time.Second, 60*time.Second)
	chunked := "POST /hello/world HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: v\r\n\r\n"
	for _, tc := range []struct {
		name    string
		pieces  []string
		methods []string
		status  []int
		close   bool // the last response says Connection: close
	}{
		{"one", []string{get}, []string{"GET"}, []int{200}, false},
		{"pipelined", []string{get + "HEAD /hello/world HTTP/1.1\r\nHost: a\r\n\r\n" + "GET /nope HTTP/1.1\r\nHost: a\r\n\r\n" + "DELETE /hello/world HTTP/1.1\r\nHost: a\r\n\r\n"},
			[]string{"GET", "HEAD", "GET", "DELETE"}, []int{200, 200, 404, 405}, false},
		{"split", []string{"GET /hello/wo", "rld HTTP/1.1\r\nHo", "st: a\r\n", "\r\n"}, []string{"GET"}, []int{200}, false},
		{"body", []string{"POST /hello/world HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhel", "lo" + get}, []string{"POST", "GET"}, []int{405, 200}, false},
		{"chunked", []string{chunked[:70], chunked[70:] + get}, []string{"POST", "GET"}, []int{405, 200}, false},
		{"close", []string{"GET /hello/world HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n" + get}, []string{"GET"}, []int{200}, true},
		{"http/1.0", []string{"GET /hello/world HTTP/1.0\r\n\r\n" + get}, []string{"GET"}, []int{200}, true},
		{"bad request", []string{get + "GET /hello/world HTTP/1.1\r\nHost: a\r\nBad Field: x\r\n\r\n" + get}, []string{"GET", "GET"}, []int{200, 400}, true},
		{"version", []string{"GET /hello/world HTTP/2.0\r\nHost: a\r\n\r\n"}, []string{"GET"}, []int{505}, true},
		{"too large", []string{"GET /hello/world HTTP/1.1\r\nHost: a\r\nX: " + strings.Repeat("x", 9000) + "\r\n\r\n"}, []string{"GET"}, []int{431}, true},
		{"continue", []string{"POST /hello/world HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", "hi"}, []string{"POST", "POST"}, []int{100, 405}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := exchange(t, addr, tc.pieces...)
			if err != nil {
				t.Fatalf("read: %v after %q", err, b)
			}
			rs := responses(t, b, tc.methods...)
			for i, r := range rs {
				if r.StatusCode != tc.status[i] {
					t.Errorf("response %d: status %d, want %d", i, r.StatusCode, tc.status[i])
				}
				if r.StatusCode == 200 && tc.methods[i] == "GET" && body(r) != string(page.HTML) {
					t.Errorf("response %d: not the page", i)
				}
				if got := r.Header.Get("Server"); r.StatusCode != 100 && got != "uring" {
					t.Errorf("response %d: Server %q", i, got)
				}
			}
			if last := rs[len(rs)-1]; last.Close != tc.close {
				t.Errorf("last response: Connection close %v, want %v", last.Close, tc.close)
			}
		})
	}
}

// TestJSON runs /json through serve with a fixed Date and checks the
// answers byte for byte: the object encoded, 27 bytes, as application/json;
// HEAD's headers with the GET's length; 405 with Allow; 404 for the paths
// beside it; the page's Connection rules; and the page pipelined around it.
func TestJSON(t *testing.T) {
	const (
		date = "Sun, 06 Nov 1994 08:49:37 GMT"
		obj  = `{"message":"Hello, World!"}`
		ok   = "HTTP/1.1 200 OK\r\nServer: uring\r\nDate: " + date + "\r\nContent-Type: application/json\r\nContent-Length: 27\r\n"
		text = "Server: uring\r\nDate: " + date + "\r\nContent-Type: text/plain; charset=utf-8\r\n"

		notFound   = "HTTP/1.1 404 Not Found\r\n" + text + "Content-Length: 14\r\n\r\n"
		notAllowed = "HTTP/1.1 405 Method Not Allowed\r\n" + text + "Content-Length: 23\r\nAllow: GET, HEAD\r\n\r\n405 Method Not Allowed\n"

		req  = "GET /json HTTP/1.1\r\nHost: h\r\n\r\n"
		head = "HEAD /json HTTP/1.1\r\nHost: h\r\n\r\n"
		pg   = "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"
	)
	pageOut := string(http1.AppendResponse(nil, "uring", http1.OK, false, http1.ConnNone, []byte(date)))
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
		c := &conn{}
		out, n, closing, served := c.serve(nil, []byte(tc.in), []byte(date), false)
		if string(out) != tc.want || n != len(tc.in) || closing != tc.closing || served != tc.served {
			t.Errorf("%q:\n got %q, %d bytes read, closing %v, %d served\nwant %q, %d, %v, %d",
				tc.in, out, n, closing, served, tc.want, len(tc.in), tc.closing, tc.served)
		}
	}

	// The handler's work is the page's alone: /json is answered at once.
	saved := work
	defer func() { work = saved }()
	work = page.Work{Wait: time.Hour}
	c := &conn{}
	if out, _, _, served := c.serve(nil, []byte(req), []byte(date), false); string(out) != ok+"\r\n"+obj || served != 1 || c.held {
		t.Errorf("with -work-wait: %q, %d served, held %v", out, served, c.held)
	}
}

// TestJSONPipelined sends /json between page requests through a real ring,
// in one send and split byte by byte.
func TestJSONPipelined(t *testing.T) {
	_, addr := start(t, 1, 10*time.Second, 60*time.Second)
	b, err := exchange(t, addr, jsonStream)
	if err != nil {
		t.Fatal(err)
	}
	checkJSONPipelined(t, b)
	b, err = exchange(t, addr, strings.Split(jsonStream, "")...)
	if err != nil {
		t.Fatal(err)
	}
	checkJSONPipelined(t, b)
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
			len(r.Header.Values("Content-Length")) != 1 || r.Header.Get("Content-Length") != "27" || r.Header.Get("Server") != "uring" {
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

// TestSplitEveryByte sends a pipelined pair one byte at a time.
func TestSplitEveryByte(t *testing.T) {
	_, addr := start(t, 1, 10*time.Second, 60*time.Second)
	in := get + "GET /hello/world HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.(*net.TCPConn).SetNoDelay(true)
	for i := range len(in) {
		if _, err := c.Write([]byte{in[i]}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if rs := responses(t, b, "GET", "GET"); !rs[1].Close {
		t.Error("the second response does not close")
	}
}

// TestUnread pipelines more requests than the answers' pause bound holds,
// reads nothing for a while, then everything: all are answered, in order,
// whole.
func TestUnread(t *testing.T) {
	_, addr := start(t, 1, 10*time.Second, 60*time.Second)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n = 20000 // 7.8 MB of answers, far past pauseAt and maxPending
	go c.Write(bytes.Repeat([]byte(get), n))
	time.Sleep(300 * time.Millisecond)
	br := bufio.NewReaderSize(c, 64<<10)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for i := range n {
		r, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d of %d: %v", i, n, err)
		}
		if b := body(r); r.StatusCode != 200 || b != string(page.HTML) {
			t.Fatalf("response %d: status %d, %d body bytes", i, r.StatusCode, len(b))
		}
	}
}

// TestHalfClose: a client that sends its request and shuts its side gets
// the answer, then EOF.
func TestHalfClose(t *testing.T) {
	_, addr := start(t, 1, 10*time.Second, 60*time.Second)
	b, err := exchange(t, addr, get+get)
	if err != nil {
		t.Fatal(err)
	}
	responses(t, b, "GET", "GET")
}

// closedWithin waits up to limit for the server to close c.
func closedWithin(t *testing.T, c net.Conn, limit time.Duration) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(limit))
	_, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("still open after %v", limit)
	}
}

// TestTimeouts: a header section not complete within the header timeout
// and a connection idle past the idle timeout are closed, on time, and not
// before.
func TestTimeouts(t *testing.T) {
	_, addr := start(t, 1, 300*time.Millisecond, 600*time.Millisecond)
	partial, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer partial.Close()
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	idle.Write([]byte(get))
	if _, err := http.ReadResponse(bufio.NewReader(idle), nil); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	partial.Write([]byte("GET /hello/world HTTP/1.1\r\nHo"))
	for _, tc := range []struct {
		name string
		c    net.Conn
		want time.Duration
	}{{"header", partial, 300 * time.Millisecond}, {"idle", idle, 600 * time.Millisecond}} {
		closedWithin(t, tc.c, 3*time.Second)
		took := time.Since(began)
		if slack := 150 * time.Millisecond; took < tc.want-50*time.Millisecond || took > tc.want+slack {
			t.Errorf("%s timeout: closed %v after the last byte, want %v to %v", tc.name, took, tc.want, tc.want+slack)
		}
	}
}

// TestDrain: on stop, an idle connection is closed, a request sent before
// it is answered with Connection: close, new connections are refused, and
// the loop ends.
func TestDrain(t *testing.T) {
	s, addr := start(t, 1, 10*time.Second, 60*time.Second)
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	idle.Write([]byte(get))
	br := bufio.NewReader(idle)
	if _, err := http.ReadResponse(br, nil); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busy.Write([]byte(get[:20]))
	time.Sleep(50 * time.Millisecond)
	s.stop()
	busy.Write([]byte(get[20:]))
	busy.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(busy)
	if err != nil {
		t.Fatal(err)
	}
	if rs := responses(t, b, "GET"); !rs[0].Close {
		t.Error("the request in flight at the drain was not answered with Connection: close")
	}
	closedWithin(t, idle, 2*time.Second)
	time.Sleep(300 * time.Millisecond)
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Error("a new connection was accepted while draining")
	}
}

// TestMulticore: with two rings, connections land on both and all are
// answered.
func TestMulticore(t *testing.T) {
	s, addr, stop := startStop(t, 2, 10*time.Second, 60*time.Second)
	for range 64 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(get))
		_, err = http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	stop() // the loops' state is theirs until they end
	for i, l := range s.loops {
		if l.gen == 0 {
			t.Errorf("loop %d accepted none of 64 connections", i)
		}
	}
	if got := s.loops[0].gen + s.loops[1].gen; got != 64 {
		t.Errorf("the loops accepted %d connections, want 64", got)
	}
}

// TestParseAllocs: answering keep-alive and pipelined requests allocates
// nothing.
func TestParseAllocs(t *testing.T) {
	var ck clock
	ck.update(time.Now())
	c := &conn{}
	out := make([]byte, 0, 16<<10)
	for _, in := range [][]byte{[]byte(get), bytes.Repeat([]byte(get), 16)} {
		allocs := testing.AllocsPerRun(1000, func() {
			var n int
			out, n, _, _ = c.serve(out[:0], in, ck.date[:], false)
			if n != len(in) {
				panic(fmt.Sprintf("served %d of %d bytes", n, len(in)))
			}
		})
		if allocs != 0 {
			t.Errorf("%d requests: %.1f allocations per read", bytes.Count(in, []byte("GET")), allocs)
		}
	}
}

// TestRefused: where a seccomp profile refuses io_uring, the server exits
// 1 with one line that says so. The refusal is made in a child process, so
// that the rest of the tests keep their rings.
func TestRefused(t *testing.T) {
	if !uringtest.InChild(t, "URING_REFUSED_CHILD") {
		return
	}
	bin := filepath.Join(t.TempDir(), "uring")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := uringtest.Forbid(unix.SYS_IO_URING_SETUP, unix.EPERM); err != nil {
		t.Skipf("no seccomp filter here: %v", err)
	}
	addr := testnet.Refusing(t) // never connected to: the server must not get that far
	cmd := exec.Command(bin, "-addr", addr)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "uring: io_uring not available") || !strings.Contains(lines[0], "operation not permitted") {
		t.Errorf("stderr %q, want one line saying io_uring is refused", stderr.String())
	}
}

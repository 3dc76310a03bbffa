package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// serveTest starts the server as main does on a loopback port and returns its
// address.
func serveTest(t testing.TB, headerTimeout time.Duration, bare bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := start(ln, config{headerTimeout: headerTimeout, idleTimeout: 10 * time.Second, bare: bare}, contract(newMux()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.shutdown)
	return ln.Addr().String()
}

// exchange sends in on a new connection and returns the statuses read
// until the server closes, and whether it did.
func exchange(t *testing.T, addr, in string, wait time.Duration) (statuses []int, closed bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, in)
	c.SetReadDeadline(time.Now().Add(wait))
	br := bufio.NewReader(c)
	for {
		r, err := http.ReadResponse(br, nil)
		if err != nil {
			return statuses, err == io.EOF || err == io.ErrUnexpectedEOF
		}
		io.Copy(io.Discard, r.Body)
		statuses = append(statuses, r.StatusCode)
	}
}

const (
	get      = "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"
	smuggled = "GET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n"
)

// TestGuard serves through the guard on a real socket, and without it
// (bare): what nbhttp does out of the box is what the guard is for.
func TestGuard(t *testing.T) {
	teCL := "POST /hello/world HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n" +
		"0\r\n\r\n" + smuggled + get
	trailer := "POST /hello/world HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-A: 1\r\n\r\n" + get
	for _, tc := range []struct {
		name, in string
		bare     bool
		want     []int
		closed   bool
	}{
		{"TE and CL", teCL, false, []int{400}, true},
		{"TE and CL, bare", teCL, true, []int{405, 404, 200}, false}, // the smuggled request answered
		{"pipelined", get + get, false, []int{200, 200}, false},
		{"leading CRLF", "\r\n\r\n" + get, false, []int{200}, false},
		{"leading CRLF, bare", "\r\n" + get, true, nil, true},
		{"refused after one answered", get + "GET /hello/world HTTP/1.2\r\nHost: h\r\n\r\n" + get, false, []int{200, 505}, true},
		{"no Host", "GET /hello/world HTTP/1.1\r\n\r\n", false, []int{400}, true},
		{"no Host, bare", "GET /hello/world HTTP/1.1\r\n\r\n", true, []int{200}, false},
		{"header over 8 KiB", "GET /hello/world HTTP/1.1\r\nHost: h\r\nX: " + string(make([]byte, 9<<10)) + "\r\n\r\n", false, []int{431}, true},
		{"extension method", "BREW /hello/world HTTP/1.1\r\nHost: h\r\n\r\n", false, []int{501}, true},
		{"extension method, bare", "BREW /hello/world HTTP/1.1\r\nHost: h\r\n\r\n", true, nil, true},
		{"absolute form", "GET http://h/hello/world HTTP/1.1\r\nHost: h\r\n\r\n" + get, false, []int{200, 200}, false},
		{"absolute form, bare", "GET http://h/hello/world HTTP/1.1\r\nHost: h\r\n\r\n", true, nil, true},
		{"trailer", trailer, false, []int{405, 200}, false},
		{"trailer, bare", trailer, true, nil, true},
		{"tab before Content-Length", "POST /hello/world HTTP/1.1\r\nHost: h\r\nContent-Length:\t5\r\n\r\nhello" + get, false, []int{405, 200}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := serveTest(t, 5*time.Second, tc.bare)
			got, closed := exchange(t, addr, tc.in, 2*time.Second)
			if !equal(got, tc.want) || closed != tc.closed {
				t.Errorf("got %v closed=%v, want %v closed=%v", got, closed, tc.want, tc.closed)
			}
		})
	}
}

// TestSplit sends a guarded request a byte at a time: the same answers.
func TestSplit(t *testing.T) {
	addr := serveTest(t, 5*time.Second, false)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	in := "\r\nPOST /hello/world HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX: y\r\n\r\n" + get
	for i := range len(in) {
		if _, err := c.Write([]byte{in[i]}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	br := bufio.NewReader(c)
	for _, want := range []int{405, 200} {
		r, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("want %d: %v", want, err)
		}
		io.Copy(io.Discard, r.Body)
		if r.StatusCode != want {
			t.Fatalf("status %d, want %d", r.StatusCode, want)
		}
	}
}

// TestHeaderTimeout: a request not whole within the header timeout of its
// first byte has its connection closed, even while bytes keep coming.
func TestHeaderTimeout(t *testing.T) {
	addr := serveTest(t, 300*time.Millisecond, false)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	for _, b := range []byte("GET /hello/world HTTP/1.1\r\nX-Slow: ") {
		if _, err := c.Write([]byte{b}); err != nil {
			break // closed
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("read %d bytes, %v; want the connection closed", n, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("closed after %v, want about 300ms", d)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

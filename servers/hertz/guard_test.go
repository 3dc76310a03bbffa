package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"hellobench/page"
)

// start starts the server as main does on a loopback port and returns its
// address.
func start(t *testing.T, headerTimeout time.Duration, bare bool) string {
	t.Helper()
	quietLogs()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := newHertz(ln, headerTimeout, 10*time.Second, bare, nil)
	go h.Run()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		h.Shutdown(ctx)
	})
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
// (bare): what hertz does out of the box is what the guard is for.
func TestGuard(t *testing.T) {
	teCL := "POST /hello/world HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n" +
		"0\r\n\r\n" + smuggled + get
	crlfAfterBody := "POST /hello/world HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello\r\n" + get
	for _, tc := range []struct {
		name, in string
		bare     bool
		want     []int
		closed   bool
	}{
		{"TE and CL", teCL, false, []int{400}, true},
		{"TE and CL, bare", teCL, true, []int{405, 404, 200}, false}, // the smuggled request answered
		{"CRLF after a body", crlfAfterBody, false, []int{405, 200}, false},
		{"CRLF after a body, bare", crlfAfterBody, true, []int{405, 400}, true},
		{"pipelined", get + get, false, []int{200, 200}, false},
		{"leading CRLF", "\r\n\r\n" + get, false, []int{200}, false},
		{"leading CRLF, bare", "\r\n" + get, true, []int{400}, true},
		{"HTTP/1.2", "GET /hello/world HTTP/1.2\r\nHost: h\r\n\r\n" + get, false, []int{505}, true},
		{"HTTP/1.2, bare", "GET /hello/world HTTP/1.2\r\nHost: h\r\n\r\n", true, []int{200}, true},
		{"no colon", "GET /hello/world HTTP/1.1\r\nHost: h\r\nX-A\r\n\r\n" + get, false, []int{400}, true},
		{"gzip, chunked", "POST /hello/world HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + get, false, []int{501}, true},
		{"valid then refused", get + "GET /hello/world HTTP/1.1\r\nHost: h\r\nHost: h\r\n\r\n" + get, false, []int{200, 400}, true},
		{"chunked", "POST /hello/world HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + get, false, []int{405, 200}, false},
		{"obs-fold in the trailer", "POST /hello/world HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-A: 1\r\n 2\r\n\r\n" + get, false, []int{400}, true},
		{"bad chunk line after a chunk", "POST /hello/world HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n2 \r\naa\r\n0\r\n\r\n" + get, false, []int{400}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := start(t, 5*time.Second, tc.bare)
			got, closed := exchange(t, addr, tc.in, time.Second)
			if !equal(got, tc.want) || closed != tc.closed {
				t.Errorf("statuses %v, closed %v; want %v, closed %v", got, closed, tc.want, tc.closed)
			}
		})
	}
}

// TestHeaderDeadline: guarded, a header section not complete within the
// header timeout from the connection's start gets 408 and a close, though
// bytes keep coming; bare, hertz's timeout restarts with each read, and
// once the bytes stop it answers 400.
func TestHeaderDeadline(t *testing.T) {
	const timeout = 500 * time.Millisecond
	for _, bare := range []bool{false, true} {
		addr := start(t, timeout, bare)
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		io.WriteString(c, "GET "+page.Path+" HTTP/1.1\r\n")
		for range 6 { // a field line every 200 ms: 1.2 s in all
			time.Sleep(timeout * 2 / 5)
			if _, err := io.WriteString(c, "X-A: 1\r\n"); err != nil {
				break
			}
		}
		c.SetReadDeadline(time.Now().Add(time.Second))
		r, err := http.ReadResponse(bufio.NewReader(c), nil)
		took := time.Since(start)
		switch {
		case err != nil:
			t.Errorf("bare=%v: no answer: %v", bare, err)
		case !bare && (r.StatusCode != 408 || took > 2*timeout):
			t.Errorf("guarded: %d after %v; want 408 within %v", r.StatusCode, took, 2*timeout)
		case bare && (r.StatusCode != 400 || took < 12*timeout/5):
			t.Errorf("bare: %d after %v; want 400 once the field lines stop, after %v", r.StatusCode, took, 12*timeout/5)
		}
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

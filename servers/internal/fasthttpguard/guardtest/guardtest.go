// Package guardtest is the test of package fasthttpguard on a server that
// serves through it, which the servers on fasthttp's server (fasthttp and
// fiber) share, as fasthttputil is the helper fasthttp's tests share. It is
// for tests only. A server's tests pass it the function that serves on a
// listener as main does:
//
//	func TestGuard(t *testing.T) {
//		srv := newServer(time.Second, time.Second)
//		guardtest.Guard(t, srv.Serve, srv.Shutdown)
//	}
//
//	func TestFDServer(t *testing.T) {
//		guardtest.FDServer(t, newServer(10*time.Second, 10*time.Second).Serve, "fasthttp")
//	}
//
//	func TestFDExhaustion(t *testing.T) { guardtest.FDExhaustion(t, "fasthttp") }
package guardtest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"hellobench/servers/internal/fasthttpguard"
	"hellobench/servers/internal/fdflood"
)

const get = "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"

func post(body string, fields ...string) string {
	return "POST /hello/world HTTP/1.1\r\nHost: h\r\n" + strings.Join(append(fields, ""), "\r\n") + "\r\n" + body
}

func chunked(body string) string { return post(body, "Transfer-Encoding: chunked") }

// Guard serves through the guard on a real socket with serve, and stops
// with shutdown: a refused request gets 400 (or 501) and a close, a valid
// chunked one is answered and the connection kept.
func Guard(t *testing.T, serve func(net.Listener) error, shutdown func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go serve(fasthttpguard.Listener{Listener: ln})
	defer shutdown()
	for _, tc := range []struct {
		name, in string
		want     []int // statuses, then the connection closes unless the last is 200
	}{
		{"CL and TE", post("0\r\n\r\n"+get, "Transfer-Encoding: chunked", "Content-Length: 53"), []int{400}},
		{"empty extension", chunked("2;\r\naa\r\n0\r\n\r\n"), []int{400}},
		{"gzip, chunked", post("", "Transfer-Encoding: gzip, chunked"), []int{501}},
		{"valid chunked", chunked("2;a=b\r\naa\r\n0\r\n\r\n") + get, []int{405, 200}},
		{"empty line first", "\r\n" + get, []int{200}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(3 * time.Second))
			io.WriteString(c, tc.in)
			br := bufio.NewReader(c)
			for i, want := range tc.want {
				r, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("response %d: %v", i, err)
				}
				io.Copy(io.Discard, r.Body)
				if r.StatusCode != want {
					t.Fatalf("response %d: status %d, want %d", i, r.StatusCode, want)
				}
			}
			if tc.want[len(tc.want)-1] == 200 {
				return
			}
			if b, err := br.ReadByte(); err != io.EOF {
				t.Errorf("after the error: read %q, %v; want EOF", b, err)
			}
		})
	}
}

// FDServer is the server side of FDExhaustion: in the flood's process, with
// an open-file limit of fdflood.Limit, it prints its address and serves
// with serve, as main does, through the guard and a RetryListener that
// logs under name. Elsewhere it skips.
func FDServer(t *testing.T, serve func(net.Listener) error, name string) {
	t.Helper()
	if !fdflood.InServer() {
		t.Skip("the server side of TestFDExhaustion")
	}
	fdflood.LimitFiles(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(ln.Addr())
	t.Fatal(serve(fasthttpguard.Listener{Listener: &fasthttpguard.RetryListener{Listener: ln, Name: name}}))
}

// FDExhaustion floods the server of TestFDServer, limited to fdflood.Limit
// descriptors, with five times as many connections: it must keep running,
// log the failed accepts under name a line a second at most, and serve
// again at once when the flood ends.
func FDExhaustion(t *testing.T, name string) {
	t.Helper()
	if fdflood.InServer() {
		t.Skip("in the server process")
	}
	logged := fdflood.Run(t, nil, name+": accept: ")
	if !strings.Contains(logged, "too many open files") {
		t.Errorf("the server's log does not say what failed:\n%s", logged)
	}
}

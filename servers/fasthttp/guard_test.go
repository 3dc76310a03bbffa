package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"hellobench/servers/internal/fasthttpguard"
)

// Requests for TestGuard.
const get = "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"

func post(body string, fields ...string) string {
	s := "POST /hello/world HTTP/1.1\r\nHost: h\r\n"
	for _, f := range fields {
		s += f + "\r\n"
	}
	return s + "\r\n" + body
}

func chunked(body string) string { return post(body, "Transfer-Encoding: chunked") }

// TestGuard serves through the guard on a real socket: a refused request
// gets 400 and a close, a valid chunked one is answered and the connection
// kept.
func TestGuard(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(time.Second, time.Second)
	go srv.Serve(fasthttpguard.Listener{Listener: ln})
	defer srv.Shutdown()
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

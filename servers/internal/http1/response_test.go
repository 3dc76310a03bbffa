package http1

import (
	"strings"
	"testing"

	"hellobench/page"
)

// TestAppendResponse checks the bytes of each kind of answer: status line,
// Server, Date, Content-Type and Content-Length, Allow on 405 only, the
// Connection header by kind, the body unless HEAD; and that writing one
// allocates nothing.
func TestAppendResponse(t *testing.T) {
	date := []byte("Sat, 05 Dec 2026 00:00:00 GMT")
	for _, tc := range []struct {
		method, path string
		c            Connection
		want         string
	}{
		{"GET", page.Path, ConnNone, "HTTP/1.1 200 OK\r\nServer: x\r\nDate: " + string(date) + "\r\nContent-Type: " + page.ContentType + "\r\nContent-Length: 257\r\n\r\n" + string(page.HTML)},
		{"HEAD", page.Path, ConnKeepAlive, "HTTP/1.1 200 OK\r\nServer: x\r\nDate: " + string(date) + "\r\nContent-Type: " + page.ContentType + "\r\nContent-Length: 257\r\nConnection: keep-alive\r\n\r\n"},
		{"GET", "/nope", ConnClose, "HTTP/1.1 404 Not Found\r\nServer: x\r\nDate: " + string(date) + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 14\r\nConnection: close\r\n\r\n404 Not Found\n"},
		{"POST", page.Path, ConnNone, "HTTP/1.1 405 Method Not Allowed\r\nServer: x\r\nDate: " + string(date) + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 23\r\nAllow: GET, HEAD\r\n\r\n405 Method Not Allowed\n"},
	} {
		r, head := Route([]byte(tc.method), []byte(tc.path))
		if got := string(AppendResponse(nil, "x", r, head, tc.c, date)); got != tc.want {
			t.Errorf("%s %s:\n got %q\nwant %q", tc.method, tc.path, got, tc.want)
		}
	}
	for status, want := range map[int]string{400: "400 Bad Request", 431: "431 Request", 501: "501 Not", 505: "505 HTTP", 0: "400 Bad Request"} {
		if got := string(AppendResponse(nil, "x", ErrorReply(status), false, ConnClose, date)); !strings.HasPrefix(got, "HTTP/1.1 "+want) {
			t.Errorf("ErrorReply(%d): %q", status, got)
		}
	}
	buf := make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() { buf = AppendResponse(buf[:0], "x", OK, false, ConnNone, date) }); n != 0 {
		t.Errorf("%.0f allocations per response", n)
	}
}

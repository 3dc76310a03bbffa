package jsonreply

import (
	"testing"

	"hellobench/servers/internal/http1"
)

func TestRoute(t *testing.T) {
	for _, tt := range []struct {
		method, path string
		reply        *http1.Reply
		head         bool
	}{
		{"GET", "/json", Reply, false},
		{"HEAD", "/json", Reply, true},
		{"POST", "/json", http1.NotAllowed, false},
		{"GET", "/json/", http1.NotFound, false},
		{"HEAD", "/JSON", http1.NotFound, true},
		{"GET", "/hello/world", http1.NotFound, false},
	} {
		r, head := Route([]byte(tt.method), []byte(tt.path))
		if r != tt.reply || head != tt.head {
			t.Errorf("Route(%s %s) = %p, %v; want %p, %v", tt.method, tt.path, r, head, tt.reply, tt.head)
		}
	}
}

const date = "Mon, 07 Dec 2026 23:00:00 GMT"

func TestAppend(t *testing.T) {
	for _, tt := range []struct {
		head bool
		c    http1.Connection
		want string
	}{
		{false, http1.ConnNone, "HTTP/1.1 200 OK\r\nServer: gnet\r\nDate: " + date +
			"\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n" +
			`{"message":"Hello, World!"}`},
		{true, http1.ConnClose, "HTTP/1.1 200 OK\r\nServer: gnet\r\nDate: " + date +
			"\r\nContent-Type: application/json\r\nContent-Length: 27\r\nConnection: close\r\n\r\n"},
		{false, http1.ConnKeepAlive, "HTTP/1.1 200 OK\r\nServer: gnet\r\nDate: " + date +
			"\r\nContent-Type: application/json\r\nContent-Length: 27\r\nConnection: keep-alive\r\n\r\n" +
			`{"message":"Hello, World!"}`},
	} {
		got := string(Append([]byte("x"), "gnet", tt.head, tt.c, []byte(date)))
		if got != "x"+tt.want {
			t.Errorf("Append(head %v, connection %d):\n got %q\nwant %q", tt.head, tt.c, got, "x"+tt.want)
		}
	}
}

// TestAllocs checks that the answer allocates only what json.Marshal does.
func TestAllocs(t *testing.T) {
	b := make([]byte, 0, 512)
	n := testing.AllocsPerRun(100, func() { b = Append(b[:0], "gnet", false, http1.ConnNone, []byte(date)) })
	if n > 2 {
		t.Errorf("%v allocations per answer, want at most 2 (json.Marshal's)", n)
	}
}

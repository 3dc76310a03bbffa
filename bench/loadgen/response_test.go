//go:build linux

package loadgen

import (
	"strings"
	"testing"
)

type parsed struct {
	status    int
	keepAlive bool
	body      int64
	size      int64
	server    string
}

var responses = []struct {
	name string
	head bool
	in   string
	want []parsed // responses in order; the last may end with the connection
	eof  bool     // the last response ends with the connection's close
}{
	{name: "content-length", in: "HTTP/1.1 200 OK\r\nServer: s\r\nContent-Length: 5\r\n\r\nhello",
		want: []parsed{{200, true, 5, 54, "s"}}},
	{name: "case and spaces", in: "HTTP/1.1 404 Not Found\r\ncontent-LENGTH:   3  \r\nSERVER:x y\r\n\r\nabc",
		want: []parsed{{404, true, 3, 64, "x y"}}},
	{name: "no reason", in: "HTTP/1.1 204\r\n\r\n", want: []parsed{{204, true, 0, 16, ""}}},
	{name: "connection close", in: "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi",
		want: []parsed{{200, false, 2, 59, ""}}},
	{name: "http/1.0", in: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi", want: []parsed{{200, false, 2, 40, ""}}},
	{name: "http/1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nhi",
		want: []parsed{{200, true, 2, 64, ""}}},
	{name: "until close", in: "HTTP/1.0 200 OK\r\n\r\nhello world", eof: true,
		want: []parsed{{200, false, 11, 30, ""}}},
	{name: "chunked", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nA;x=1\r\n0123456789\r\n0\r\n\r\n",
		want: []parsed{{200, true, 15, 81, ""}}},
	{name: "chunked trailers", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n3\r\nabc\r\n0\r\nA: b\r\nC: d\r\n\r\n",
		want: []parsed{{200, true, 3, 78, ""}}},
	{name: "interim 100", in: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
		want: []parsed{{200, true, 1, 64, ""}}},
	{name: "head", head: true, in: "HTTP/1.1 200 OK\r\nContent-Length: 257\r\n\r\n",
		want: []parsed{{200, true, 0, 40, ""}}},
	{name: "304", in: "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n",
		want: []parsed{{304, true, 0, 48, ""}}},
	{name: "pipelined", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
		want: []parsed{{200, true, 1, 39, ""}, {500, true, 1, 60, ""}, {200, false, 0, 57, ""}}},
	{name: "repeated", in: strings.Repeat("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na", 3) +
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nbcHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na" +
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n" +
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n0\r\n\r\n",
		want: []parsed{{200, true, 1, 39, ""}, {200, true, 1, 39, ""}, {200, true, 1, 39, ""},
			{200, true, 2, 40, ""}, {200, true, 1, 39, ""}, {200, true, 1, 58, ""}, {200, true, 2, 59, ""}}},
}

// feedSplit feeds in to a parser in two parts, split at i, and collects the
// responses it completes.
func feedSplit(t *testing.T, head bool, in string, i int, eof bool) ([]parsed, error) {
	var p parser
	p.head = head
	p.reset()
	p.wantSrv = true // the first response's Server, then none
	var got []parsed
	for _, part := range []string{in[:i], in[i:]} {
		b := []byte(part)
		for len(b) > 0 {
			n, done, err := p.feed(b)
			if err != nil {
				return got, err
			}
			if n == 0 {
				t.Fatalf("split %d: feed used no byte of %q", i, b)
			}
			b = b[n:]
			if done {
				got = append(got, parsed{p.status, p.keepAlive, p.body, p.size, string(p.server)})
				p.wantSrv = false // as the loop does after the first response
				p.server = p.server[:0]
				p.reset()
			}
		}
	}
	if eof {
		if !p.eof() {
			t.Fatalf("split %d: close did not complete the response", i)
		}
		got = append(got, parsed{p.status, p.keepAlive, p.body, p.size, string(p.server)})
	} else if p.started {
		t.Fatalf("split %d: a response left half read", i)
	}
	return got, nil
}

func TestParser(t *testing.T) {
	for _, tc := range responses {
		for i := 0; i <= len(tc.in); i++ {
			got, err := feedSplit(t, tc.head, tc.in, i, tc.eof)
			if err != nil {
				t.Fatalf("%s, split %d: %v", tc.name, i, err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%s, split %d: %d responses %+v, want %+v", tc.name, i, len(got), got, tc.want)
			}
			for j := range got {
				if got[j] != tc.want[j] {
					t.Fatalf("%s, split %d, response %d: %+v, want %+v", tc.name, i, j, got[j], tc.want[j])
				}
			}
		}
	}
}

func TestParserErrors(t *testing.T) {
	for _, in := range []string{
		"HTTP/2 200 OK\r\n\r\n",
		"HTTP/1.1 20 OK\r\n\r\n",
		"HTTP/1.1 2000 OK\r\n\r\n",
		"HTTP/1.1 2x0 OK\r\n\r\n",
		"HTTP/1.2 200 OK\r\n\r\n",
		"http/1.1 200 OK\r\n\r\n",
		"HTTP/1.1 200 OK\r\nNoColon\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZ\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
		"HTTP/1.1 101 Switching Protocols\r\n\r\n",
		"HTTP/1.1 200 OK\r\n" + strings.Repeat("X: y\r\n", 20000),
	} {
		for _, i := range []int{0, len(in) / 2, len(in)} {
			if _, err := feedSplit(t, false, in, i, false); err == nil {
				t.Errorf("%.40q split %d: no error", in, i)
			}
		}
	}
}

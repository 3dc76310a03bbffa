package main

import (
	"bytes"
	"io"
	"net"
	"regexp"
	"slices"
	"testing"
	"time"
)

// FuzzSplit sends a stream to the guarded server whole and again split
// into pieces of step bytes, each its own write: the guard holds a request
// not yet whole across reads, and must pass nbhttp the same bytes either
// way, so the answers must be the same, Date aside and in any order of
// their header fields (nbhttp writes a map's). make test replays the seeds.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		get + get,
		"\r\n" + get,
		"POST /hello/world HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello" + get,
		"POST /hello/world HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n0\r\nX: y\r\n\r\n" + get,
		"POST /hello/world HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n" + get,
		"GET http://h/json?a=1 HTTP/1.1\r\nHost: h\r\n\r\nHEAD /json HTTP/1.1\r\nHost:\th\t\r\n\r\n",
		"BREW /hello/world HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET /hello/world HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" + get + "GET /hello/world HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n" + get,
	} {
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(7))
	}
	addr := serveTest(f, 2*time.Second, false)
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		if len(in) > 1024 {
			return // the bytes of a few requests
		}
		whole := answers(t, addr, in, len(in))
		split := answers(t, addr, in, int(step%32)+1)
		if !bytes.Equal(whole, split) {
			t.Errorf("sent %q\nwhole, answered %q\nin pieces of %d, %q", in, whole, int(step%32)+1, split)
		}
	})
}

// head is a response's status line and header fields; no body here holds
// "HTTP/1.".
var head = regexp.MustCompile(`HTTP/1\.[01] [^\r]*\r\n(?:[^\r]+\r\n)*\r\n`)

// canonical returns b with each response head's fields sorted and its Date
// dropped.
func canonical(b []byte) []byte {
	return head.ReplaceAllFunc(b, func(h []byte) []byte {
		lines := bytes.Split(bytes.TrimSuffix(h, []byte("\r\n\r\n")), []byte("\r\n"))
		fields := lines[1:]
		fields = slices.DeleteFunc(fields, func(l []byte) bool { return bytes.HasPrefix(l, []byte("Date: ")) })
		slices.SortFunc(fields, bytes.Compare)
		return append(bytes.Join(append(lines[:1], fields...), []byte("\r\n")), "\r\n\r\n"...)
	})
}

// answers sends in to addr in writes of step bytes, a little apart, and
// returns what comes back until the server closes or is silent for 200ms,
// canonical.
func answers(t *testing.T, addr string, in []byte, step int) []byte {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := make(chan []byte)
	go func() {
		var b bytes.Buffer
		for {
			c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			if _, err := io.CopyN(&b, c, 1); err != nil {
				got <- b.Bytes()
				return
			}
		}
	}()
	for len(in) > 0 {
		n := min(step, len(in))
		if _, err := c.Write(in[:n]); err != nil {
			break // closed: what came back says why
		}
		in = in[n:]
		time.Sleep(100 * time.Microsecond)
	}
	return canonical(<-got)
}

//go:build linux

package main

import (
	"bytes"
	"testing"
	"time"

	"hellobench/servers/internal/http1"
)

// FuzzSplit feeds a request stream to one connection's input whole, and
// again in three pieces split where the fuzzer says, as receives would
// bring it: the answers must be the same bytes (but for 100 Continue), and
// the connection must end in the same state. This is the loop's own part of a request: what a
// receive leaves unparsed is kept aside and joined to the next (serve),
// which the parser's own fuzzer (servers/internal/http1) does not reach.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		get + get,
		"GET /hello/world HTTP/1.0\r\n\r\n" + get,
		"POST /hello/world HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: v\r\n\r\n" + get,
		"POST /hello/world HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello" + get,
		"POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi",
		"\r\n" + get + "GET /hello/world HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n" + get,
		"GET /hello/world HTTP/1.1\r\nHost: a\r\nBad Field: x\r\n\r\n",
		"GET /json HTTP/1.1\r\nHost: a\r\n\r\nHEAD /json?x HTTP/1.1\r\nHost: a\r\n\r\nPOST /json HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n" + get,
	} {
		f.Add([]byte(s), uint16(5), uint16(40))
	}
	f.Fuzz(func(t *testing.T, in []byte, i, j uint16) {
		if len(in) > 512 {
			return // answers below pauseAt: no ring is needed
		}
		a, b := int(i)%(len(in)+1), int(j)%(len(in)+1)
		a, b = min(a, b), max(a, b)
		// An interim 100 Continue is sent only if the body has not come
		// with the header section: it depends on the split.
		interim := []byte(http1.Continue)
		whole, stateW := feed(in)
		split, stateS := feed(in[:a], in[a:b], in[b:])
		whole, split = bytes.ReplaceAll(whole, interim, nil), bytes.ReplaceAll(split, interim, nil)
		if !bytes.Equal(whole, split) || stateW != stateS {
			t.Fatalf("split at %d and %d of %q:\nwhole %q (state %d)\nsplit %q (state %d)", a, b, in, whole, stateW, split, stateS)
		}
	})
}

// feed runs the pieces through a loop with no ring (none is needed below
// the pause bound) and returns the answers and the connection's state.
func feed(pieces ...[]byte) ([]byte, state) {
	l := newLoop(newServer(time.Second, time.Second), -1)
	l.clock.date = [len(timeFormat)]byte([]byte("Sat, 05 Dec 2026 00:00:00 GMT"))
	c := &conn{state: stateIdle}
	var out []byte
	for _, p := range pieces {
		if len(p) == 0 {
			continue
		}
		// The receive buffer is reused once its bytes are parsed: a copy
		// that is then overwritten shows any that were kept.
		buf := bytes.Clone(p)
		l.input(c, buf)
		for k := range buf {
			buf[k] = 'X'
		}
		out = append(out, c.out...)
		c.out = c.out[:0]
	}
	return out, c.state
}

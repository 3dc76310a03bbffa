//go:build linux

package main

import (
	"bytes"
	"testing"
	"time"

	"hellobench/page"
)

// What wrk sends.
var wrkRequest = []byte("GET /hello/world HTTP/1.1\r\nHost: 127.0.0.1:8084\r\n\r\n")

// serveStream replays in, read by read, through one connection's serve as
// OnTraffic does, and returns the requests answered.
func serveStream(b *testing.B, cs *conn, in, out, date []byte) (int, []byte) {
	out, n, closing, served := cs.serve(out[:0], in, date, false)
	if n != len(in) || closing {
		b.Fatalf("served %d of %d bytes, closing %v", n, len(in), closing)
	}
	return served, out
}

// BenchmarkServeKeepAlive measures parser, router and response writer for
// one keep-alive request per read, as a wrk connection sends them: what the
// server adds to gnet's loop and the system calls.
func BenchmarkServeKeepAlive(b *testing.B) {
	b.ReportAllocs()
	var c clock
	c.update(time.Now())
	cs := &conn{}
	out := make([]byte, 0, 4096)
	served := 0
	for b.Loop() {
		var k int
		k, out = serveStream(b, cs, wrkRequest, out, c.date[:])
		served += k
	}
	if served != b.N {
		b.Fatalf("served %d requests, want %d", served, b.N)
	}
	if !bytes.HasPrefix(out, []byte("HTTP/1.1 200 OK\r\n")) {
		b.Fatalf("response %q", out)
	}
}

// BenchmarkServeJSON is BenchmarkServeKeepAlive for /json: the page's
// path through the parser, and a page.Message encoded for each request.
func BenchmarkServeJSON(b *testing.B) {
	b.ReportAllocs()
	req := []byte("GET /json HTTP/1.1\r\nHost: bench\r\n\r\n")
	var c clock
	c.update(time.Now())
	cs := &conn{}
	out := make([]byte, 0, 4096)
	served := 0
	for b.Loop() {
		var k int
		k, out = serveStream(b, cs, req, out, c.date[:])
		served += k
	}
	if served != b.N {
		b.Fatalf("served %d requests, want %d", served, b.N)
	}
	if !bytes.HasPrefix(out, []byte("HTTP/1.1 200 OK\r\n")) || !bytes.HasSuffix(out, page.JSON) {
		b.Fatalf("response %q", out)
	}
}

// BenchmarkServePipelined measures the same with 16 requests in each read.
func BenchmarkServePipelined(b *testing.B) {
	b.ReportAllocs()
	const depth = 16
	var c clock
	c.update(time.Now())
	in := bytes.Repeat(wrkRequest, depth)
	cs := &conn{}
	out := make([]byte, 0, 16<<10)
	served := 0
	for i := 0; i < b.N; i += depth {
		var k int
		k, out = serveStream(b, cs, in, out, c.date[:])
		served += k
	}
	if want := (b.N + depth - 1) / depth * depth; served != want {
		b.Fatalf("served %d requests, want %d", served, want)
	}
}

// BenchmarkServeClose measures a request that closes its connection, with
// the connection state that OnOpen makes for it.
func BenchmarkServeClose(b *testing.B) {
	b.ReportAllocs()
	req := []byte("GET /hello/world HTTP/1.0\r\nHost: 127.0.0.1:8084\r\n\r\n")
	var c clock
	c.update(time.Now())
	out := make([]byte, 0, 4096)
	served := 0
	for b.Loop() {
		cs := &conn{}
		o, n, closing, k := cs.serve(out[:0], req, c.date[:], false)
		if n != len(req) || !closing || k != 1 {
			b.Fatalf("served %d of %d bytes, closing %v, %d requests", n, len(req), closing, k)
		}
		out = o
		served += k
	}
	if served != b.N {
		b.Fatalf("served %d requests, want %d", served, b.N)
	}
}

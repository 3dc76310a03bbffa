//go:build linux

package main

import (
	"bytes"
	"testing"
	"time"

	"hellobench/page"
)

// What wrk sends.
var wrkRequest = []byte("GET /hello/world HTTP/1.1\r\nHost: 127.0.0.1:8089\r\n\r\n")

// benchLoop is a loop with no ring, for what the server adds to a receive's
// completion: the connection's input, the parser, the router and the
// response writer, as fasthttp's server_timing_test does without a
// network. Nothing here reaches the ring below the pause bound.
func benchLoop() (*loop, *conn) {
	l := newLoop(newServer(10*time.Second, 60*time.Second), -1)
	l.setClock(time.Now())
	return l, &conn{state: stateIdle}
}

// BenchmarkServeKeepAlive measures one keep-alive request per receive, as
// a wrk connection sends them: what the server adds to the ring's work and
// the kernel's.
func BenchmarkServeKeepAlive(b *testing.B) {
	b.ReportAllocs()
	l, c := benchLoop()
	served := 0
	for b.Loop() {
		l.input(c, wrkRequest)
		served += bytes.Count(c.out, []byte("HTTP/1.1 200 OK"))
		c.out = c.out[:0]
		c.queued = 0
		l.dirty = l.dirty[:0]
	}
	if served != b.N {
		b.Fatalf("served %d requests, want %d", served, b.N)
	}
}

// BenchmarkServeJSON is BenchmarkServeKeepAlive for /json: the page's
// path through the parser, and a page.Message encoded for each request.
func BenchmarkServeJSON(b *testing.B) {
	b.ReportAllocs()
	req := []byte("GET /json HTTP/1.1\r\nHost: bench\r\n\r\n")
	l, c := benchLoop()
	served := 0
	for b.Loop() {
		l.input(c, req)
		if bytes.HasSuffix(c.out, page.JSON) {
			served += bytes.Count(c.out, []byte("HTTP/1.1 200 OK"))
		}
		c.out = c.out[:0]
		c.queued = 0
		l.dirty = l.dirty[:0]
	}
	if served != b.N {
		b.Fatalf("served %d requests, want %d", served, b.N)
	}
}

// BenchmarkServePipelined measures the same with 16 requests in each
// receive.
func BenchmarkServePipelined(b *testing.B) {
	b.ReportAllocs()
	const depth = 16
	in := bytes.Repeat(wrkRequest, depth)
	l, c := benchLoop()
	served := 0
	for i := 0; i < b.N; i += depth {
		l.input(c, in)
		served += bytes.Count(c.out, []byte("HTTP/1.1 200 OK"))
		c.out = c.out[:0]
		c.queued = 0
		l.dirty = l.dirty[:0]
	}
	if want := (b.N + depth - 1) / depth * depth; served != want {
		b.Fatalf("served %d requests, want %d", served, want)
	}
}

// BenchmarkServeSplit measures a request that arrives in two receives,
// whose first part is kept aside and joined to the second.
func BenchmarkServeSplit(b *testing.B) {
	b.ReportAllocs()
	l, c := benchLoop()
	served := 0
	for b.Loop() {
		l.input(c, wrkRequest[:20])
		l.input(c, wrkRequest[20:])
		served += bytes.Count(c.out, []byte("HTTP/1.1 200 OK"))
		c.out = c.out[:0]
		c.queued = 0
		l.dirty = l.dirty[:0]
	}
	if served != b.N {
		b.Fatalf("served %d requests, want %d", served, b.N)
	}
}

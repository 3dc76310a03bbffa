package main

import (
	"errors"
	"net"
	"net/http"
	"net/http/fcgi"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hellobench/page"
)

// The benchmarks run the net/http/fcgi child, with the application's
// handler, over in-memory connections that replay prebuilt FastCGI records
// and discard the answers, counting END_REQUEST records: the cost of the
// application's side of the FastCGI hop without lighttpd or the kernel.
// One request is in flight at a time: the next is sent when the previous
// one has ended, so the figures do not depend on how many pile up.

// BenchmarkKeepConn sends b.N requests with FCGI_KEEP_CONN on one connection,
// as nginx does with fastcgi_keep_conn.
func BenchmarkKeepConn(b *testing.B) {
	req := request(1, flagKeepConn, "GET", page.Path)
	l := newMemListener(b.N, 1)
	l.conns <- newMemConn(req, b.N, l)
	run(b, l)
}

// BenchmarkServeJSON is BenchmarkKeepConn's loop on /json: a Message
// built and encoded for each request.
func BenchmarkServeJSON(b *testing.B) {
	req := request(1, flagKeepConn, "GET", page.JSONPath)
	l := newMemListener(b.N, 1)
	l.conns <- newMemConn(req, b.N, l)
	run(b, l)
}

// BenchmarkConnPerRequest opens one connection per request, as lighttpd
// does: the child reads one request, answers and closes.
func BenchmarkConnPerRequest(b *testing.B) {
	req := request(1, 0, "GET", page.Path)
	l := newMemListener(b.N, b.N)
	go func() {
		for range b.N {
			l.conns <- newMemConn(req, 1, l)
			select {
			case <-l.next:
			case <-l.closed:
				return
			}
		}
	}()
	run(b, l)
}

func run(b *testing.B, l *memListener) {
	b.ReportAllocs()
	b.ResetTimer()
	served := make(chan error, 1)
	go func() { served <- fcgi.Serve(l, http.HandlerFunc(hello)) }()
	select {
	case <-l.done:
	case err := <-served:
		b.Fatalf("Serve returned early: %v", err)
	case <-time.After(time.Minute):
		b.Fatalf("%d of %d requests answered after a minute", l.ended.Load(), l.want)
	}
	b.StopTimer()
	l.Close()
	if err := <-served; !errors.Is(err, net.ErrClosed) {
		b.Fatalf("Serve: %v", err)
	}
	if got := l.ended.Load(); got != int64(b.N) {
		b.Fatalf("%d requests answered, want %d", got, b.N)
	}
}

// memListener hands out memConns and counts the requests they complete.
type memListener struct {
	conns  chan *memConn
	want   int64
	ended  atomic.Int64
	done   chan struct{} // closed when want requests have ended
	next   chan struct{} // a request has ended
	closed chan struct{}
	once   sync.Once
}

func newMemListener(requests, conns int) *memListener {
	return &memListener{
		conns:  make(chan *memConn, conns),
		want:   int64(requests),
		done:   make(chan struct{}),
		next:   make(chan struct{}, 1),
		closed: make(chan struct{}),
	}
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *memListener) Addr() net.Addr { return memAddr{} }

type memAddr struct{}

func (memAddr) Network() string { return "mem" }
func (memAddr) String() string  { return "mem" }

// memConn replays one request's records n times, then blocks until it or
// the listener is closed, so that the child does not hang up on answers
// still in flight. Written records are discarded; END_REQUESTs are counted.
type memConn struct {
	req    []byte
	left   int // requests not yet read
	off    int // offset in req of the next byte to read
	sent   bool
	l      *memListener
	closed chan struct{}
	once   sync.Once
}

func newMemConn(req []byte, n int, l *memListener) *memConn {
	return &memConn{req: req, left: n, l: l, closed: make(chan struct{})}
}

func (c *memConn) Read(p []byte) (int, error) {
	if c.left == 0 {
		select {
		case <-c.closed:
		case <-c.l.closed:
		}
		return 0, net.ErrClosed
	}
	if c.off == 0 && c.sent {
		// Wait for the answer to the previous request.
		select {
		case <-c.l.next:
		case <-c.l.closed:
			return 0, net.ErrClosed
		}
	}
	c.sent = true
	n := 0
	for n < len(p) && c.left > 0 {
		k := copy(p[n:], c.req[c.off:])
		n += k
		c.off += k
		if c.off == len(c.req) {
			c.off = 0
			c.left--
			break
		}
	}
	return n, nil
}

// Write sees one whole record per call: net/http/fcgi writes each record
// with a single Write.
func (c *memConn) Write(p []byte) (int, error) {
	if len(p) >= 8 && p[1] == typeEndRequest {
		if c.l.ended.Add(1) == c.l.want {
			close(c.l.done)
		}
		select {
		case c.l.next <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

func (c *memConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *memConn) LocalAddr() net.Addr              { return memAddr{} }
func (c *memConn) RemoteAddr() net.Addr             { return memAddr{} }
func (c *memConn) SetDeadline(time.Time) error      { return nil }
func (c *memConn) SetReadDeadline(time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }

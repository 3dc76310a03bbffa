// Package memconn is an in-memory network for benchmarking a server loop
// without the kernel: a Listener hands out Conns that replay a request a
// given number of times and count, then discard, what the server writes.
// It is the technique of fasthttp's server_timing_test.go.
package memconn

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Conn replays req n times to the server's reads, then reports EOF, and
// counts the bytes of the server's writes.
type Conn struct {
	req     []byte
	left    int // whole requests not yet read
	off     int // read offset into the current request
	written atomic.Int64
	closed  chan struct{}
	once    sync.Once
}

// NewConn returns a connection that delivers req n times.
func NewConn(req []byte, n int) *Conn {
	return &Conn{req: req, left: n, closed: make(chan struct{})}
}

// Read fills p with as many copies of the request as fit.
func (c *Conn) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && c.left > 0 {
		k := copy(p[n:], c.req[c.off:])
		n += k
		c.off += k
		if c.off == len(c.req) {
			c.off = 0
			c.left--
		}
	}
	return n, nil
}

// Write counts and discards p.
func (c *Conn) Write(p []byte) (int, error) {
	c.written.Add(int64(len(p)))
	return len(p), nil
}

// Written returns the number of bytes the server has written.
func (c *Conn) Written() int64 { return c.written.Load() }

// Close marks the connection closed; Done is then closed.
func (c *Conn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// Done is closed when the server has closed the connection.
func (c *Conn) Done() <-chan struct{} { return c.closed }

var addr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}

func (c *Conn) LocalAddr() net.Addr                { return addr }
func (c *Conn) RemoteAddr() net.Addr               { return addr }
func (c *Conn) SetDeadline(t time.Time) error      { return nil }
func (c *Conn) SetReadDeadline(t time.Time) error  { return nil }
func (c *Conn) SetWriteDeadline(t time.Time) error { return nil }

// Listener hands out the Conns queued with Dial to a server's Accept loop.
type Listener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

// NewListener returns an open Listener.
func NewListener() *Listener {
	return &Listener{conns: make(chan net.Conn, 1), closed: make(chan struct{})}
}

// Dial queues c for the server to accept.
func (l *Listener) Dial(c net.Conn) { l.conns <- c }

// Accept returns the next queued connection, or an error once closed.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops Accept.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *Listener) Addr() net.Addr { return addr }

// ErrCount is returned by Check when the server did not write n responses.
var ErrCount = errors.New("memconn: written bytes are not a whole number of responses")

// Check reports whether written bytes are exactly n responses of size each.
func Check(written int64, n int, size int) error {
	if size <= 0 || written != int64(n)*int64(size) {
		return ErrCount
	}
	return nil
}

package framing

import (
	"io"
	"net"
	"sync/atomic"
	"time"
)

// A Scanner follows the framing of the requests on one connection.
type Scanner interface {
	// Scan follows p, bytes just read, and returns how many of them to
	// pass on, moved to the front of p: all of them but those the stack
	// drops, up to the first framing error, which it returns too.
	Scan(p []byte) (int, error)
}

// A Conn is a connection whose reads pass on only what its Scanner passes
// on, then the Scanner's error, which the server reading it answers as a
// request it cannot read.
type Conn struct {
	net.Conn
	s   Scanner
	err error // the framing error, returned once the bytes before it are read
	// refused is set with err; Close reads it, perhaps from another
	// goroutine (a server's shutdown closing its connections).
	refused atomic.Bool
}

// lingerFor bounds how long Close reads on after a refusal: net/http's own
// rstAvoidanceDelay, so a client that never closes holds it no longer.
const lingerFor = 500 * time.Millisecond

// lingerBytes bounds how much Close reads on after a refusal.
const lingerBytes = 256 << 10

// NewConn returns c read through s.
func NewConn(c net.Conn, s Scanner) *Conn { return &Conn{Conn: c, s: s} }

// Accept waits for the next connection of l and returns it read through a
// scanner of its own, from newScanner.
func Accept(l net.Listener, newScanner func() Scanner) (net.Conn, error) {
	c, err := l.Accept()
	if err != nil {
		return nil, err // as is: a server retries a temporary error
	}
	return NewConn(c, newScanner()), nil
}

func (c *Conn) Read(p []byte) (int, error) {
	for {
		if c.err != nil {
			return 0, c.err
		}
		n, err := c.Conn.Read(p)
		m, ferr := c.s.Scan(p[:n])
		if ferr != nil {
			c.err = ferr
			c.refused.Store(true)
			if m == 0 {
				return 0, ferr
			}
			return m, nil
		}
		// m == 0 < n: the scanner dropped all (empty lines before a
		// request); read on rather than return 0 and no error.
		if m > 0 || n == 0 || err != nil {
			return m, err
		}
	}
}

// CloseWrite lets the server half-close, as net/http does after a 431,
// when the connection can.
func (c *Conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Close closes the connection; after a framing error it first half-closes
// and reads what the client is still sending, until the client closes,
// lingerFor passes or lingerBytes arrive (RFC 9112, section 9.6). Closed
// with unread bytes, the socket would send a reset that can discard the
// error response before the client reads it: a request refused at its
// head, whose body was still coming, lost its 400 that way.
func (c *Conn) Close() error {
	if c.refused.Load() {
		c.CloseWrite()
		c.Conn.SetReadDeadline(time.Now().Add(lingerFor))
		io.Copy(io.Discard, io.LimitReader(c.Conn, lingerBytes))
	}
	return c.Conn.Close()
}

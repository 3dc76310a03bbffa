package conformance

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A conn is a raw TCP connection to a server under test, or a TLS one
// over TCP.
type conn struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

func dial(t *testing.T, addr string) *conn {
	t.Helper()
	return dialTLS(t, addr, nil)
}

// dialTLS connects to addr and, when cfg is not nil, completes a TLS
// handshake with cfg within 5 s.
func dialTLS(t *testing.T, addr string, cfg *tls.Config) *conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	c.(*net.TCPConn).SetNoDelay(true) // so each write of a split request is its own segment
	if cfg != nil {
		tc := tls.Client(c, cfg)
		tc.SetDeadline(time.Now().Add(5 * time.Second))
		if err := tc.Handshake(); err != nil {
			t.Fatalf("TLS handshake with %s: %v", addr, err)
		}
		tc.SetDeadline(time.Time{})
		c = tc
	}
	return &conn{t: t, c: c, br: bufio.NewReader(c)}
}

// send writes s in one write.
func (c *conn) send(s string) {
	c.t.Helper()
	c.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c.c, s); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// A response is one parsed response with its body read in full.
type response struct {
	*http.Response
	body []byte
}

// read reads one response to a request with the given method, within 5 s.
func (c *conn) read(method string) *response {
	c.t.Helper()
	r, err := c.tryRead(method)
	if err != nil {
		c.t.Fatalf("reading the response to %s: %v", method, err)
	}
	return r
}

func (c *conn) tryRead(method string) (*response, error) {
	c.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(c.br, &http.Request{Method: method})
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &response{resp, body}, nil
}

// expectClosed checks that the server closes the connection within d
// without sending anything more; leftover bytes fail the test.
func (c *conn) expectClosed(d time.Duration) {
	c.t.Helper()
	c.c.SetReadDeadline(time.Now().Add(d))
	b, err := c.br.ReadByte()
	switch {
	case err == nil:
		rest, _ := c.br.Peek(c.br.Buffered())
		c.t.Fatalf("expected the connection closed, read %q", append([]byte{b}, rest...))
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.t.Fatalf("connection still open after %v", d)
	case errors.Is(err, io.EOF), isReset(err):
	default:
		c.t.Fatalf("expected the connection closed: %v", err)
	}
}

// expectOpen checks that nothing arrives and the connection stays open for d.
func (c *conn) expectOpen(d time.Duration) {
	c.t.Helper()
	c.c.SetReadDeadline(time.Now().Add(d))
	b, err := c.br.ReadByte()
	switch {
	case err == nil:
		c.t.Fatalf("unexpected byte %q on an idle connection", b)
	case errors.Is(err, os.ErrDeadlineExceeded):
	default:
		c.t.Fatalf("connection closed, expected it open: %v", err)
	}
}

// isReset reports whether err is the peer's reset of the connection.
func isReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

// isClosed reports whether err means the server closed the connection: an
// orderly close (EOF, also in the middle of a response's header) or a reset.
func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isReset(err)
}

// hasToken reports whether a comma-separated header such as Connection lists
// tok, case-insensitively.
func hasToken(h http.Header, name, tok string) bool {
	for _, v := range h.Values(name) {
		for _, f := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), tok) {
				return true
			}
		}
	}
	return false
}

// netDial makes one connection attempt with a short timeout.
func netDial(addr string) (net.Conn, error) {
	return net.DialTimeout("tcp", addr, 500*time.Millisecond)
}

package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/cloudwego/hertz/pkg/common/config"
	"github.com/cloudwego/hertz/pkg/network"
	"github.com/cloudwego/hertz/pkg/network/netpoll"
	"github.com/cloudwego/hertz/pkg/network/standard"

	"hellobench/servers/internal/http1"
)

// The guard. hertz accepts much that RFC 9112 asks a server to refuse: any
// HTTP/x.y, served as HTTP/1.0; control characters and separators in the
// method and target; a field line without a colon, which it waits on;
// several Host fields; Transfer-Encoding with Content-Length. netpoll reads
// each socket into buffers of its own and hertz parses from those through
// network.Reader (Peek, Skip, ReadByte): there is no net.Conn read to
// wrap, as the fasthttp servers' guard wraps, but the transport hands hertz
// each connection as a network.Conn, and the guard hands hertz its own in
// its place. That Conn shows hertz only the bytes the project's own strict
// parser (servers/internal/http1, gnet's) has checked: a request's head
// once all of it is in and valid, body bytes once their framing is. At the
// first byte the parser refuses, hertz sees the stream end there: once it
// has answered the requests before it, and asks for more, the guard
// answers the parser's status itself (400, 431, 501 or 505), closes, and
// drops what hertz writes after. Empty lines before a request line are
// skipped, as section 2.2 asks and hertz does not.
//
// Over TLS hertz runs on its standard transport, whose connections
// decrypt into buffers of their own behind the same network.Reader: the
// guard reads them alike (guardedTransport).
//
// What the parser accepts, hertz frames alike, but for one thing: hertz
// refuses every chunk extension (common/utils/chunk.go, ParseChunkSize),
// valid ones too, with 400: listed as hertz's deviations in the
// conformance suite.

// transport is netpoll's transport, or over TLS the standard one, its
// connections read through the guard.
type transport struct{ network.Transporter }

// guardedTransport is the server.WithTransport of the guarded server. Over
// TLS it is the standard transport, which server.WithTLS picks when no
// transport is given: netpoll has no TLS. The standard transport's
// connection decrypts below the network.Reader the guard reads, so the
// guard sees what hertz would.
func guardedTransport(o *config.Options) network.Transporter {
	if o.TLS != nil {
		return transport{standard.NewTransporter(o)}
	}
	return transport{netpoll.NewTransporter(o)}
}

func (t transport) ListenAndServe(onData network.OnData) error {
	return t.Transporter.ListenAndServe(func(ctx context.Context, c any) error {
		if nc, ok := c.(network.Conn); ok {
			d, _ := ctx.Value(deadlineKey{}).(*headerDeadline)
			g := &conn{Conn: nc, deadline: d}
			c = g
			if tc, ok := nc.(network.ConnTLSer); ok {
				// What hertz asks of a TLS connection (its handshake and
				// state, for ALPN and its adaptor) reaches the transport's.
				c = &tlsConn{g, tc}
			}
		}
		return onData(ctx, c)
	})
}

// tlsConn is the guard's connection over TLS: it keeps the standard
// transport's Handshake and ConnectionState.
type tlsConn struct {
	*conn
	tls network.ConnTLSer
}

func (c *tlsConn) Handshake() error                     { return c.tls.Handshake() }
func (c *tlsConn) ConnectionState() tls.ConnectionState { return c.tls.ConnectionState() }

// conn is a connection as hertz reads it through the guard. Offsets count
// the bytes of the stream since the connection began.
type conn struct {
	network.Conn // netpoll's
	p            http1.Parser
	read         int64 // the offset hertz has read to
	parsed       int64 // the offset the parser is done with
	checked      int64 // the offset hertz may read up to
	seen         int   // the bytes past read the parser was last given
	deadline     *headerDeadline
	answered     bool // the guard has answered a refused request; hertz's writes are dropped
}

// need waits until n checked bytes are ahead of hertz, or returns the
// error that ends the stream for hertz: the guard's answer given, or the
// connection's.
func (c *conn) need(n int) error {
	for c.checked-c.read < int64(n) {
		c.check()
		switch {
		case c.checked-c.read >= int64(n):
			return nil
		case c.p.Reason != "":
			return c.refuse()
		}
		// Wait for one byte more than the parser has been given.
		if _, err := c.Conn.Peek(c.seen + 1); err != nil {
			return err
		}
	}
	return nil
}

// check gives the parser what is buffered past what it has checked.
func (c *conn) check() {
	for c.p.Reason == "" {
		if c.p.Idle() && c.read < c.parsed {
			return // the next request waits until hertz has read this one
		}
		buf, _ := c.Conn.Peek(c.Conn.Len())
		c.seen = len(buf)
		in := buf[c.parsed-c.read:]
		if c.p.Idle() {
			n := 0
			for len(in)-n >= 2 && in[n] == '\r' && in[n+1] == '\n' {
				n += 2
			}
			if n > 0 {
				// Empty lines before a request line (section 2.2): gone
				// before hertz sees them. Here read == parsed.
				c.Conn.Skip(n)
				c.seen -= n
				in = in[n:]
			}
			if len(in) == 0 || len(in) == 1 && in[0] == '\r' {
				return
			}
		}
		n, ev := c.p.Parse(in)
		c.parsed += int64(n)
		if ev != http1.Fail && !c.p.InTrailer() {
			// The last chunk and trailer section show only whole: hertz
			// takes the end of what it sees for the end of the trailer.
			c.checked = c.parsed
		}
		switch ev {
		case http1.More:
			return
		case http1.Header:
			if c.deadline != nil {
				c.deadline.met()
				c.deadline = nil
			}
		}
	}
}

// refuse answers the request the parser refused, once hertz has answered
// those before it and asks for its bytes, and ends the stream: hertz
// closes the connection quietly, or answers an error the guard drops.
func (c *conn) refuse() error {
	if c.answered {
		return io.EOF
	}
	c.answered = true
	if c.deadline != nil && !c.deadline.met() {
		return io.EOF // the deadline has answered 408
	}
	text := http.StatusText(c.p.Status)
	resp := fmt.Sprintf("HTTP/1.1 %d %s\r\nServer: hertz\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		c.p.Status, text, len(text), text)
	c.Conn.WriteBinary([]byte(resp))
	c.Conn.Flush()
	return io.EOF
}

// The network.Reader hertz reads: only checked bytes.

func (c *conn) Len() int { return int(c.checked - c.read) }

func (c *conn) Peek(n int) ([]byte, error) {
	if err := c.need(n); err != nil {
		return nil, err
	}
	return c.Conn.Peek(n)
}

func (c *conn) Skip(n int) error {
	if err := c.need(n); err != nil {
		return err
	}
	c.read += int64(n)
	c.seen -= n
	return c.Conn.Skip(n)
}

func (c *conn) ReadByte() (byte, error) {
	if err := c.need(1); err != nil {
		return 0, err
	}
	c.read++
	c.seen--
	return c.Conn.ReadByte()
}

func (c *conn) ReadBinary(n int) ([]byte, error) {
	if err := c.need(n); err != nil {
		return nil, err
	}
	c.read += int64(n)
	c.seen -= n
	return c.Conn.ReadBinary(n)
}

func (c *conn) Read(p []byte) (int, error) {
	if err := c.need(1); err != nil {
		return 0, err
	}
	p = p[:min(len(p), c.Len())]
	n, err := c.Conn.Read(p)
	c.read += int64(n)
	c.seen -= n
	return n, err
}

// The network.Writer: hertz's writes after the guard's answer are dropped.

func (c *conn) Malloc(n int) ([]byte, error) {
	if c.answered {
		return make([]byte, n), nil
	}
	return c.Conn.Malloc(n)
}

func (c *conn) WriteBinary(b []byte) (int, error) {
	if c.answered {
		return len(b), nil
	}
	return c.Conn.WriteBinary(b)
}

func (c *conn) Flush() error {
	if c.answered {
		return nil
	}
	return c.Conn.Flush()
}

// What hertz asks of netpoll's connections beyond network.Conn.

func (c *conn) ToHertzError(err error) error {
	if n, ok := c.Conn.(network.ErrorNormalization); ok {
		return n.ToHertzError(err)
	}
	return err
}

func (c *conn) HandleSpecificError(err error, rip string) bool {
	h, ok := c.Conn.(network.HandleSpecificError)
	return ok && h.HandleSpecificError(err, rip)
}

// hertz's read timeout bounds each wait for bytes, not the whole header
// section: a client sending a byte within each timeout keeps its
// connection, and a header section cut off by the timeout is answered 400,
// not 408. headerDeadline answers 408 and closes a connection whose first
// request's head is not in within the header timeout from its connecting,
// before hertz's own timeout, which the guard sets later, fires. Until the
// head is in, hertz is waiting for it, so nothing else writes.
type headerDeadline struct{ t *time.Timer }

type deadlineKey struct{}

const timeout408 = "HTTP/1.1 408 Request Timeout\r\nServer: hertz\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"

// onConnect arms the deadline of a new connection.
func onConnect(timeout time.Duration) func(context.Context, network.Conn) context.Context {
	return func(ctx context.Context, conn network.Conn) context.Context {
		d := &headerDeadline{t: time.AfterFunc(timeout, func() {
			conn.SetWriteTimeout(time.Second)
			io.WriteString(conn, timeout408)
			conn.Close()
		})}
		return context.WithValue(ctx, deadlineKey{}, d)
	}
}

// met disarms the deadline, and reports whether it had not yet fired.
func (d *headerDeadline) met() bool { return d.t.Stop() }

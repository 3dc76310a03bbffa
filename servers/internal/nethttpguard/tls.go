package nethttpguard

import (
	"crypto/tls"
	"net"
	"sync"
	"time"

	"hellobench/servers/internal/framing"
)

// TLSListener returns the guard's Listener for a server serving HTTPS on
// l: each connection's TLS handshake (crypto/tls with cfg, within timeout)
// happens before the server gets it, so that the scanner can read the
// HTTP/1.1 requests above TLS. net/http's own ServeTLS leaves the guard
// nothing to read but ciphertext: its listener hands out *tls.Conn, which
// is also how net/http knows to serve HTTP/2 by ALPN. So a connection
// that negotiated h2 is handed out as its *tls.Conn, and net/http serves
// HTTP/2 on it; any other is handed out read through the scanner, with
// the TLS state net/http gives its requests (Request.TLS). Serve the
// listener with http.Server.Serve, its TLSConfig nil: net/http then sets
// up HTTP/2 for the *tls.Conn that negotiated it. The listener offers h2
// and http/1.1.
//
// A handshake that fails or takes longer than timeout closes its
// connection, as net/http's would, without a log line.
func TLSListener(l net.Listener, cfg *tls.Config, timeout time.Duration) net.Listener {
	cfg = cfg.Clone()
	cfg.NextProtos = []string{"h2", "http/1.1"}
	tl := &tlsListener{
		Listener: l, cfg: cfg, timeout: timeout,
		conns: make(chan net.Conn), errs: make(chan error), done: make(chan struct{}),
	}
	go tl.accept()
	return tl
}

type tlsListener struct {
	net.Listener
	cfg     *tls.Config
	timeout time.Duration
	conns   chan net.Conn // handshaken connections
	errs    chan error    // l.Listener's Accept errors
	done    chan struct{} // closed by Close
	once    sync.Once
}

// accept accepts connections and handshakes each on a goroutine of its
// own, so that a slow client delays no other. It passes on Accept's
// errors, and goes on after a temporary one once the server has taken it
// (the server waits before it accepts again).
func (l *tlsListener) accept() {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			select {
			case l.errs <- err:
			case <-l.done:
				return
			}
			if !isTemporary(err) {
				return
			}
		}
		go l.handshake(c)
	}
}

// isTemporary reports what net/http's Serve retries.
func isTemporary(err error) bool {
	ne, ok := err.(interface{ Temporary() bool })
	return ok && ne.Temporary()
}

func (l *tlsListener) handshake(c net.Conn) {
	tc := tls.Server(c, l.cfg)
	if l.timeout > 0 {
		tc.SetDeadline(time.Now().Add(l.timeout))
	}
	if err := tc.Handshake(); err != nil {
		c.Close()
		return
	}
	tc.SetDeadline(time.Time{})
	var out net.Conn = tc
	if tc.ConnectionState().NegotiatedProtocol != "h2" {
		out = tlsConn{framing.NewConn(tc, newScanner()), tc}
	}
	select {
	case l.conns <- out:
	case <-l.done:
		c.Close()
	}
}

func (l *tlsListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case err := <-l.errs:
		return nil, err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *tlsListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// tlsConn is an HTTP/1.1 connection over TLS read through the scanner.
// ConnectionState is how net/http finds the TLS state of a connection
// that is not a *tls.Conn.
type tlsConn struct {
	*framing.Conn
	tls *tls.Conn
}

func (c tlsConn) ConnectionState() tls.ConnectionState { return c.tls.ConnectionState() }

//go:build linux

package loadgen

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"time"
)

// tlsEngine puts TLS between a loop and its socket engine, as wrk's TLS
// sockets share its loop: the loop sends and receives plaintext through it,
// and learns a connection is established once its TLS handshake, not its
// TCP connect, is done. A loop with an https:// target gets one
// (newEngine); the handshake is handshake.go's.
//
// It is the engine to the loop (send encrypts, close forgets the
// connection's TLS) and the handler to the engine underneath (received
// decrypts), and passes the rest through.
type tlsEngine struct {
	engine // the socket engine underneath
	l      *loop
	cl     *tlsClient
	conns  []tlsConn // by connection
}

// newTLS puts a TLS engine over e, whose handler *h it becomes.
func newTLS(l *loop, e engine, h *handler) (*tlsEngine, error) {
	cl, err := newTLSClient(l.t, l.cfg.Resume)
	if err != nil {
		e.shutdown()
		return nil, err
	}
	t := &tlsEngine{engine: e, l: l, cl: cl, conns: make([]tlsConn, len(l.conns))}
	for i := range t.conns {
		t.conns[i].hash = sha256.New()
	}
	*h = t
	return t, nil
}

// send sends b in records, after any the handshake left to send.
func (t *tlsEngine) send(c *conn, b []byte) (bool, error) {
	s := &t.conns[c.idx]
	s.out = append(s.out[:0], s.pre...)
	s.pre = s.pre[:0]
	s.out = s.wr.seal(s.out, recData, b)
	return t.engine.send(c, s.out)
}

func (t *tlsEngine) close(c *conn) {
	t.conns[c.idx].reset()
	t.engine.close(c)
}

// established starts the handshake on c's new socket.
func (t *tlsEngine) established(c *conn, now time.Duration) {
	s := &t.conns[c.idx]
	done, err := t.engine.send(c, s.hello(t.cl))
	if err != nil {
		t.l.connectFailed(c, fmt.Errorf("TLS handshake: %w", err), now)
		return
	}
	s.sending = !done
	t.engine.receive(c)
}

func (t *tlsEngine) connectFailed(c *conn, err error, now time.Duration) {
	t.l.connectFailed(c, err, now)
}

func (t *tlsEngine) sent(c *conn, now time.Duration) {
	s := &t.conns[c.idx]
	if !s.sending {
		t.l.sent(c, now)
		return
	}
	s.sending = false
	if s.opening {
		t.open(c, now)
	}
}

// lost: a socket that ends before its handshake did is a failed connect.
func (t *tlsEngine) lost(c *conn, err error, now time.Duration) {
	if t.conns[c.idx].state != tlsOpen {
		if err == nil {
			err = errors.New("the server closed the connection")
		}
		t.l.connectFailed(c, fmt.Errorf("TLS handshake: %w", err), now)
		return
	}
	t.l.lost(c, err, now)
}

// received handles the records b completes: the handshake's, and the
// content of the application's, which goes to the loop. It reports false
// when c's socket was closed since.
func (t *tlsEngine) received(c *conn, b []byte, now time.Duration) bool {
	s := &t.conns[c.idx]
	s.in = append(s.in, b...)
	for {
		rec, err := s.record()
		if err == nil && rec == nil {
			break
		}
		alive := false
		if err == nil {
			var typ byte
			var p []byte
			if typ, p, err = s.unprotect(rec); err == nil {
				alive, err = t.handle(c, typ, p, now)
			}
		}
		if err != nil {
			t.fail(c, err, now)
			return false
		}
		if !alive {
			return false
		}
	}
	s.compact()
	return true
}

// handle handles one record's content p of type typ. alive reports that
// c's socket is still open.
func (t *tlsEngine) handle(c *conn, typ byte, p []byte, now time.Duration) (alive bool, err error) {
	s := &t.conns[c.idx]
	gen := c.gen
	switch typ {
	case recData:
		if s.state != tlsOpen {
			return false, errors.New("application data during the handshake")
		}
		return len(p) == 0 || t.l.received(c, p, now), nil
	case recHandshake:
		done, err := s.handshake(t.cl, p)
		if err != nil {
			return false, err
		}
		if done {
			t.open(c, now)
		}
		return c.gen == gen && c.state != closed, nil
	case recAlert:
		if err := alert(p); err != nil {
			return false, err
		}
		if s.state != tlsOpen {
			return false, errors.New("close_notify during the handshake")
		}
		t.l.lost(c, nil, now) // close_notify: the end of the stream
		return false, nil
	case recCCS:
		if s.state == tlsOpen || len(p) != 1 || p[0] != 1 {
			return false, errors.New("unexpected ChangeCipherSpec")
		}
		return true, nil
	}
	return false, fmt.Errorf("record of type %d", typ)
}

// open tells the loop c is established, once the ClientHello's send is
// done: the loop's first send follows, carrying the client's Finished.
func (t *tlsEngine) open(c *conn, now time.Duration) {
	s := &t.conns[c.idx]
	if s.sending {
		s.opening = true
		return
	}
	s.opening = false
	t.l.s.handshakes++
	if s.resumed {
		t.l.s.resumed++
	}
	t.l.established(c, now)
}

// fail ends c for a TLS error: a failed connect during the handshake, a
// lost connection after.
func (t *tlsEngine) fail(c *conn, err error, now time.Duration) {
	if t.conns[c.idx].state != tlsOpen {
		t.l.connectFailed(c, fmt.Errorf("TLS handshake: %w", err), now)
		return
	}
	t.l.lost(c, fmt.Errorf("TLS: %w", err), now)
}

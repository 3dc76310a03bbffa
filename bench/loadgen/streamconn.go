//go:build linux

package loadgen

import (
	"crypto/tls"
	"net/http"
	"sync/atomic"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// h3Conn is a connection and the HTTP client on it: a QUIC connection
// and HTTP/3 (qc, cc), or with Config.H2 a TLS connection over TCP and
// net/http's HTTP/2 client on it (tc, h2), whose handshake is over when
// it is made.
type h3Conn struct {
	qc      *quic.Conn
	cc      *http3.ClientConn
	tc      *tls.Conn
	h2      *http.ClientConn
	early   bool         // opened for 0-RTT: requests before the handshake's end go early
	served  atomic.Int64 // responses read on it
	counted atomic.Bool  // its handshake is counted
}

// engine is the Result's Engine: the client library the run speaks on.
func (h *h3Run) engine() string {
	if h.cfg.H2 {
		return EngineH2
	}
	return EngineQUIC
}

// over says what the TLS runs over, for the Result's TLS line.
func (h *h3Run) over() string {
	if h.cfg.H2 {
		return "over TCP (h2)"
	}
	return "over QUIC (h3)"
}

func (c *h3Conn) close() {
	if c.h2 != nil {
		c.h2.Close()
		return
	}
	c.qc.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "")
}

// handshakeComplete is closed when c's handshake is over.
func (c *h3Conn) handshakeComplete() <-chan struct{} {
	if c.h2 != nil {
		return done
	}
	return c.qc.HandshakeComplete()
}

// alive says whether c can still take requests.
func (c *h3Conn) alive() bool {
	if c.h2 != nil {
		return c.h2.Err() == nil
	}
	return c.qc.Context().Err() == nil
}

// gone is closed when c's QUIC connection is; never over HTTP/2, whose
// handshake is over before anyone waits on it.
func (c *h3Conn) gone() <-chan struct{} {
	if c.h2 != nil {
		return nil
	}
	return c.qc.Context().Done()
}

// tlsState is c's TLS connection state.
func (c *h3Conn) tlsState() tls.ConnectionState {
	if c.h2 != nil {
		return c.tc.ConnectionState()
	}
	return c.qc.ConnectionState().TLS
}

// used0RTT says whether c's server took its early data.
func (c *h3Conn) used0RTT() bool { return c.qc != nil && c.qc.ConnectionState().Used0RTT }

// roundTrip sends rq on c and returns its response.
func (c *h3Conn) roundTrip(rq *http.Request) (*http.Response, error) {
	if c.h2 != nil {
		return c.h2.RoundTrip(rq)
	}
	return c.cc.RoundTrip(rq)
}

//go:build linux

package loadgen

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
)

// EngineH2 is Result.Engine for an HTTP/2 run: net/http's client, on the
// HTTP/3 engine's goroutines and pacer (h3.go).
const EngineH2 = "net/http"

// done is closed when c's handshake is over: at once over HTTP/2.
var done = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// dialH2 opens a TLS connection over TCP that negotiated h2, and on it an
// HTTP/2 client (net/http's ClientConn), within the connect wait.
func (w *h3Worker) dialH2() (*h3Conn, error) {
	h := w.h
	ctx, cancel := context.WithTimeout(h.ctx, h.qconf.HandshakeIdleTimeout)
	defer cancel()
	var tc *tls.Conn
	protos := new(http.Protocols)
	protos.SetHTTP2(true)
	tr := &http.Transport{
		Protocols:          protos,
		DisableCompression: true,
		// The TLS connection kept, for its handshake's state.
		DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			d := tls.Dialer{Config: w.slot.tls}
			nc, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			tc = nc.(*tls.Conn)
			if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
				tc.Close()
				return nil, fmt.Errorf("the server negotiated %q, not h2: it speaks no HTTP/2 over TLS", p)
			}
			return tc, nil
		},
	}
	cc, err := tr.NewClientConn(ctx, "https", h.t.addr)
	if err != nil {
		return nil, err
	}
	return &h3Conn{tc: tc, h2: cc}, nil
}

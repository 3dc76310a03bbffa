package bench

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// IdleProtocols are the protocols ProtoIdle holds idle connections in:
// HTTP/1.1 over TLS, HTTP/2 and HTTP/3.
var IdleProtocols = []string{"h1-tls", "h2", "h3"}

// ProtoIdle is Idle over HTTPS in one of IdleProtocols: n connections to s,
// each with one request answered, then quiet for quiet, and the server's
// resident memory's growth per connection held. The client is this
// process; HTTP/3's connections each have a UDP socket of their own, as
// n separate clients would.
func ProtoIdle(s *Server, proto string, n int, quiet time.Duration) (IdleResult, error) {
	var dial func(string) (idleConn, error)
	switch proto {
	case "h1-tls":
		dial = dialIdleH1
	case "h2":
		dial = dialIdleH2
	case "h3":
		dial = dialIdleH3
	default:
		return IdleResult{Conns: n}, fmt.Errorf("bench: no idle connections in %q: want one of %v", proto, IdleProtocols)
	}
	return holdIdle(s, n, quiet, dial)
}

// idleTLS is the client's TLS for ProtoIdle, as loadgen's: TLS 1.3, X25519,
// the server not authenticated.
func idleTLS(next ...string) *tls.Config {
	return &tls.Config{
		NextProtos:         next,
		MinVersion:         tls.VersionTLS13,
		CurvePreferences:   []tls.CurveID{tls.X25519},
		InsecureSkipVerify: true,
	}
}

// dialIdleH1 opens a TLS connection speaking HTTP/1.1 and asks the page
// once on it.
func dialIdleH1(addr string) (idleConn, error) {
	d := tls.Dialer{NetDialer: &net.Dialer{Timeout: 10 * time.Second}, Config: idleTLS("http/1.1")}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	if err := askOnce(c); err != nil {
		c.Close()
		return nil, err
	}
	return tcpIdle{c}, nil
}

// dialIdleH2 opens a TLS connection speaking HTTP/2, net/http's client on
// it, and asks the page once.
func dialIdleH2(addr string) (idleConn, error) {
	protos := new(http.Protocols)
	protos.SetHTTP2(true)
	tr := &http.Transport{Protocols: protos, TLSClientConfig: idleTLS("h2"), DisableCompression: true}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cc, err := tr.NewClientConn(ctx, "https", addr)
	if err != nil {
		return nil, err
	}
	if err := getPage(cc, addr); err != nil {
		cc.Close()
		return nil, err
	}
	return h2Idle{cc}, nil
}

// dialIdleH3 opens a QUIC connection, quic-go's HTTP/3 client on it, and
// asks the page once. No keep-alive: the server's idle timeout is longer
// than any quiet period here, and pings would cost it CPU while idle.
func dialIdleH3(addr string) (idleConn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	qc, err := quic.DialAddr(ctx, addr, idleTLS(http3.NextProtoH3), &quic.Config{MaxIncomingStreams: -1})
	if err != nil {
		return nil, err
	}
	cc := (&http3.Transport{}).NewClientConn(qc)
	if err := getPage(cc, addr); err != nil {
		qc.CloseWithError(0, "")
		return nil, err
	}
	return h3Idle{qc}, nil
}

// getPage asks the page once through an HTTP/2 or HTTP/3 client
// connection and reads the whole answer.
func getPage(rt http.RoundTripper, addr string) error {
	req, err := http.NewRequest("GET", "https://"+addr+"/hello/world", nil)
	if err != nil {
		return err
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// An idleConn is a connection held idle: open says, as nil, that the
// server has not closed it.
type idleConn interface {
	open() error
	Close() error
}

type tcpIdle struct{ net.Conn }

func (c tcpIdle) open() error { return stillOpen(c.Conn) }

type h2Idle struct{ *http.ClientConn }

// open is the client's own view: its reader has seen neither a GOAWAY
// nor the connection's end.
func (c h2Idle) open() error { return c.Err() }

type h3Idle struct{ *quic.Conn }

func (c h3Idle) open() error {
	if ctx := c.Context(); ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}

func (c h3Idle) Close() error { return c.CloseWithError(0, "") }

// Package h3serve serves HTTP/3 beside a server on net/http's http.Server,
// for the servers on net/http (nethttp, gin, echo, chi) given -h3: quic-go's
// http3.Server on the UDP port of the same number as the server's TCP
// listener, with the server's handler, header limit and idle timeout, and
// an Alt-Svc header on the answers over TCP that tells a client where to
// find it. HTTP/3 runs over QUIC, whose TLS is TLS 1.3 alone, so it needs
// the certificate of -tls-cert and -tls-key. A server checks the flag
// after tlsflag.Load, then, once its TCP listener listens:
//
//	if err := h3serve.Check(*useH3, tlsConfig); err != nil {
//		fmt.Fprintf(os.Stderr, "nethttp: %v\n", err)
//		os.Exit(2)
//	}
//	...
//	h3, err := h3serve.Listen(ln.Addr(), srv, tlsConfig)
//	if err != nil {
//		log.Fatalf("nethttp: %v", err)
//	}
//	srv.Handler = h3.AltSvc(srv.Handler)
//	go h3.Serve()
//
// and stops it with Shutdown beside the http.Server's.
package h3serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// Check returns an error, one line naming the flag, when on (-h3) is
// given without the TLS configuration of -tls-cert and -tls-key.
func Check(on bool, cfg *tls.Config) error {
	if on && cfg == nil {
		return errors.New("-h3: needs -tls-cert and -tls-key, as HTTP/3 runs over QUIC, which is TLS 1.3")
	}
	return nil
}

// A Server serves HTTP/3 on one UDP socket.
type Server struct {
	srv    *http3.Server
	conn   *net.UDPConn
	ln     *quic.EarlyListener
	altSvc string
}

// Listen listens on UDP at the address of addr, a TCP listener's actual
// address (so that a server given port 0 serves both on the port it got),
// and returns the HTTP/3 server of srv's Handler with srv's MaxHeaderBytes
// (as net/http's HTTP/2 takes it) and IdleTimeout, and cfg's certificate
// and session tickets. Call it before wrapping srv's Handler in AltSvc:
// the header is for the answers over TCP.
//
// The socket and the QUIC listener are set up here, before the server
// says it listens: an error is the caller's to report, and quic-go's one
// warning, when the kernel will not give the socket the buffers it asks
// for (net.core.rmem_max and wmem_max below what it wants), comes before
// the start line rather than while serving.
func Listen(addr net.Addr, srv *http.Server, cfg *tls.Config) (*Server, error) {
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return nil, fmt.Errorf("HTTP/3: %s is not a TCP address", addr)
	}
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: ta.IP, Port: ta.Port, Zone: ta.Zone})
	if err != nil {
		return nil, fmt.Errorf("HTTP/3: %v", err)
	}
	// ConfigureTLSConfig offers h3 by ALPN; quic-go raises the minimum
	// to TLS 1.3. 0-RTT is on, as in http3.Server's own listeners: a
	// resumed client's first request costs no round trip; Early keeps
	// the replayable part to the safe methods.
	ln, err := quic.ListenEarly(conn, http3.ConfigureTLSConfig(cfg), &quic.Config{
		Allow0RTT: true,
		// QUIC closes a connection with no packets for 30 s by
		// default, before the server's own idle timeout of 60 s:
		// the two agree here.
		MaxIdleTimeout: srv.IdleTimeout,
	})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("HTTP/3: %v", err)
	}
	maxHeader := srv.MaxHeaderBytes
	if maxHeader <= 0 {
		maxHeader = http.DefaultMaxHeaderBytes
	}
	return &Server{
		srv: &http3.Server{
			Handler: Early(srv.Handler),
			// HTTP/3 counts a header section as HTTP/2 does, each
			// field's name and value and 32 bytes; net/http pads
			// HTTP/2's limit from MaxHeaderBytes by ten such fields,
			// and so does this, for the same limit on both.
			MaxHeaderBytes: maxHeader + 10*32,
			IdleTimeout:    srv.IdleTimeout,
		},
		conn: conn,
		ln:   ln,
		// As http3.Server.SetQUICHeaders writes it, but built here, once:
		// SetQUICHeaders has a value only while Serve runs, and the TCP
		// server may answer before Serve starts and after it returns.
		altSvc: fmt.Sprintf(`%s=":%d"; ma=2592000`, http3.NextProtoH3, ta.Port),
	}, nil
}

// Addr returns the UDP address the server listens on.
func (s *Server) Addr() net.Addr { return s.conn.LocalAddr() }

// AltSvc returns h adding to every answer the Alt-Svc header that
// advertises HTTP/3 on the server's port, for 30 days (quic-go's max age).
func (s *Server) AltSvc(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Alt-Svc", s.altSvc)
		h.ServeHTTP(w, r)
	})
}

// Early returns h answering 425 Too Early (RFC 8470) to a request other
// than GET, HEAD or OPTIONS that arrives in 0-RTT, before the handshake is
// complete: early data can be replayed by anyone who captured it, so only
// a method without side effects is served from it. The client sends the
// request again once the handshake is done.
func Early(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil && !r.TLS.HandshakeComplete {
			switch r.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
			default:
				http.Error(w, "425 Too Early: "+r.Method+" in 0-RTT data", http.StatusTooEarly)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// Serve serves HTTP/3 until Shutdown, when it returns
// http.ErrServerClosed.
func (s *Server) Serve() error { return s.srv.ServeListener(s.ln) }

// Shutdown stops the server gracefully: it stops accepting connections,
// sends each a GOAWAY, waits until their requests in flight are answered
// and their clients have closed them, or until ctx is done, then closes
// what is left and the socket.
func (s *Server) Shutdown(ctx context.Context) error {
	// http3.Server leaves a listener it was given to its owner; closing
	// it first refuses new connections, as http3.Server does with the
	// listeners it makes itself. The connections it accepted live on.
	s.ln.Close()
	err := s.srv.Shutdown(ctx)
	s.conn.Close()
	return err
}

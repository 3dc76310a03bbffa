// Command gin serves the hellobench page with github.com/gin-gonic/gin in
// release mode, on net/http's server, behind a guard that refuses requests
// whose framing RFC 9112 asks a server to refuse and net/http accepts: a
// listener and a handler around the engine (servers/internal/nethttpguard).
//
// With -bare it serves as gin and net/http do out of the box, without that
// guard.
//
// At /json it answers a page.Message encoded on every request by gin's
// c.JSON (encoding/json's json.Marshal in gin's default build), 27 bytes.
//
// With -tls-cert and -tls-key it serves HTTPS, and HTTP/2 to clients
// that ask by ALPN; with -h2c, HTTP/2 over cleartext to clients with prior
// knowledge too. Over TLS the guard's listener does the handshakes with
// crypto/tls, net/http's TLS, so that it reads the requests above TLS;
// with -bare, net/http's ServeTLS does. With -h3 as well, it serves HTTP/3
// with quic-go's http3.Server on the same port over UDP, through the same
// handler, and every answer over TCP advertises it in Alt-Svc
// (servers/internal/h3serve).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/gin-gonic/gin"

	"hellobench/page"
	"hellobench/servers/internal/h3serve"
	"hellobench/servers/internal/nethttpguard"
	"hellobench/servers/internal/timeouts"
	"hellobench/servers/internal/tlsflag"
)

// work is the handler's optional work, -work-cpu and -work-wait (see
// page.Work). Off by default, it costs hello the inlined test of On.
var work page.Work

func hello(c *gin.Context) {
	if work.On() {
		// Waiting blocks only this connection's own goroutine.
		work.Do()
	}
	// Data sets Content-Type and Content-Length; net/http adds Date and
	// drops the body of a HEAD response.
	c.Data(http.StatusOK, page.ContentType, page.HTML)
}

// helloJSON answers GET and HEAD /json with a Message built and encoded
// for each request. c.JSON sets "application/json; charset=utf-8" and
// writes json.Marshal's 27 bytes, no newline; net/http adds Content-Length
// for a body this small written before the handler returns, HEAD's too (it
// counts what was written, then drops it).
func helloJSON(c *gin.Context) {
	c.JSON(http.StatusOK, page.Message{Message: page.Greeting})
}

// newRouter returns the engine.
func newRouter() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()                  // no Logger, no Recovery: nothing per request
	r.HandleMethodNotAllowed = true // 405 with Allow instead of 404
	// Only the paths themselves: no redirect from /hello/world/ or
	// /Hello/World (or /json/, /JSON), answer 404 instead.
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.GET(page.Path, hello)
	r.HEAD(page.Path, hello)
	r.GET(page.JSONPath, helloJSON)
	r.HEAD(page.JSONPath, helloJSON)
	return r
}

// newServer returns the server. Unless bare, it refuses what net/http
// lets through and the contract does not: versions other than 1.0 and 1.1
// (505), and a chunked body badly framed (400, read before routing).
func newServer(addr string, headerTimeout, idleTimeout time.Duration, bare bool) *http.Server {
	h := http.Handler(newRouter())
	if !bare {
		h = nethttpguard.Handler(h)
	}
	return &http.Server{
		Addr: addr,
		// Every answer, the guard's and gin's 404 and 405 included, names
		// the stack.
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Server", "gin")
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: headerTimeout,
		// ReadTimeout runs from a request's first byte to the end of its
		// body, so a body dripped on a kept connection cannot hold it (net/http
		// reads an unread body on before the next request). Over HTTP/2 it
		// bounds each stream's body, at a timer per stream.
		ReadTimeout: headerTimeout,
		IdleTimeout: idleTimeout,
		// net/http reads MaxHeaderBytes plus 4096 bytes of slack before it
		// answers 431, so 4 KiB here caps the header section at 8 KiB.
		MaxHeaderBytes: 4 << 10,
		// net/http's own errors, such as a failed Accept, at most one line
		// a second.
		ErrorLog: log.New(nethttpguard.NewRateLimited(gin.DefaultErrorWriter, time.Second), "gin: ", 0),
	}
}

func main() {
	addr := flag.String("addr", ":8083", "listen `address`")
	headerTimeout := flag.Duration("header-timeout", 10*time.Second, "close a connection whose request, body included, is not complete within this `duration` of its first byte")
	idleTimeout := flag.Duration("idle-timeout", 60*time.Second, "close a keep-alive connection idle for this `duration`")
	bare := flag.Bool("bare", false, "serve as gin on net/http does out of the box, without this server's framing guards (for the robustness report)")
	certFile := flag.String("tls-cert", "", "serve HTTPS, and HTTP/2 to clients that ask by ALPN, with the certificate in this PEM `file` (with -tls-key)")
	keyFile := flag.String("tls-key", "", "the private key of -tls-cert, a PEM `file`")
	tickets := flag.Bool("tls-tickets", true, "issue TLS session tickets, so that a client can resume its session; false makes every new connection a full handshake")
	h2c := flag.Bool("h2c", false, "also serve HTTP/2 over cleartext to clients with prior knowledge (h2c); without it the HTTP/2 preface gets 505, as the contract asks")
	useH3 := flag.Bool("h3", false, "also serve HTTP/3 on the same port over UDP (QUIC; needs -tls-cert and -tls-key); every answer over TCP then advertises it in Alt-Svc")
	work.Flags(flag.CommandLine)
	flag.Parse()
	if err := timeouts.Check(*headerTimeout, *idleTimeout); err != nil {
		fmt.Fprintf(os.Stderr, "gin: %v\n", err)
		os.Exit(2)
	}
	if err := work.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "gin: %v\n", err)
		os.Exit(2)
	}
	tlsConfig, err := tlsflag.Load(*certFile, *keyFile, *tickets)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gin: %v\n", err)
		os.Exit(2)
	}
	if err := h3serve.Check(*useH3, tlsConfig); err != nil {
		fmt.Fprintf(os.Stderr, "gin: %v\n", err)
		os.Exit(2)
	}

	srv := newServer(*addr, *headerTimeout, *idleTimeout, *bare)
	// HTTP/1.1, and HTTP/2 over TLS to clients that ask by ALPN, as
	// net/http serves by default; HTTP/2 over cleartext with prior
	// knowledge only when asked.
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetHTTP2(true)
	srv.Protocols.SetUnencryptedHTTP2(*h2c)
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("gin: %v", err)
	}
	switch {
	case *bare:
	case tlsConfig != nil:
		// The guard's listener does the TLS handshakes, to read what
		// is above TLS; net/http serves HTTP/2 on the connections that
		// negotiated it.
		ln = nethttpguard.TLSListener(ln, tlsConfig, *headerTimeout)
	default:
		ln = nethttpguard.Listener{Listener: ln}
	}

	// HTTP/3 on the TCP listener's port over UDP, through the handler
	// as it is; the answers over TCP advertise it.
	var h3 *h3serve.Server
	if *useH3 {
		if h3, err = h3serve.Listen(ln.Addr(), srv, tlsConfig); err != nil {
			log.Fatalf("gin: %v", err)
		}
		srv.Handler = h3.AltSvc(srv.Handler)
		go func() {
			if err := h3.Serve(); !errors.Is(err, http.ErrServerClosed) {
				log.Fatalf("gin: %v", err)
			}
		}()
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		// Shutdown closes the listener and idle connections, then waits for
		// requests in flight; the contract allows 5 s in all. HTTP/3's
		// stops beside it: GOAWAY, then the same wait.
		sctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		if h3 != nil {
			wg.Go(func() { h3.Shutdown(sctx) })
		}
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close()
		}
		wg.Wait()
	}()

	log.Printf("gin: listening on %s (GOMAXPROCS=%d)", ln.Addr(), runtime.GOMAXPROCS(0))
	if tlsConfig != nil && *bare {
		// net/http's TLS as its docs show it: ServeTLS wraps ln and
		// offers h2 by ALPN.
		srv.TLSConfig = tlsConfig
		err = srv.ServeTLS(ln, "", "")
	} else {
		err = srv.Serve(ln)
	}
	if !errors.Is(err, http.ErrServerClosed) {
		log.Fatalf("gin: %v", err)
	}
	<-done // Serve returns as soon as Shutdown starts
}

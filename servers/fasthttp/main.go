// Command fasthttp serves the hellobench page with github.com/valyala/fasthttp:
// one RequestHandler that routes on ctx.Path, as fasthttp's own examples do,
// behind a guard that refuses requests whose framing RFC 9112 asks a server
// to refuse and fasthttp accepts, on a listener that waits out a lack of
// file descriptors (both in servers/internal/fasthttpguard).
//
// At /json it sends a Message that encoding/json's json.Marshal encodes for
// each request, 27 bytes (fasthttp has no JSON helper).
//
// With -bare it serves as fasthttp does out of the box, without the guard.
// With -prefork it serves in fasthttp's multi-process form (prefork.go).
//
// With -tls-cert and -tls-key it serves HTTPS (HTTP/1.1: fasthttp has no
// HTTP/2) on crypto/tls's listener, under the guard.
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/prefork"

	"hellobench/page"
	"hellobench/servers/internal/fasthttpguard"
	"hellobench/servers/internal/timeouts"
	"hellobench/servers/internal/tlsflag"
)

var (
	http10 = []byte("HTTP/1.0")
	http11 = []byte("HTTP/1.1")
)

// work is the handler's optional work, -work-cpu and -work-wait (see
// page.Work). Off by default, it costs hello the inlined test of On.
var work page.Work

// route answers the whole contract at the handler level. fasthttp adds Date,
// Server and Content-Length, and drops the body of a HEAD response.
func route(ctx *fasthttp.RequestCtx) {
	// fasthttp accepts any "HTTP/x.y" and answers it as 1.1 or 1.0; the
	// contract wants other versions refused.
	if p := ctx.Request.Header.Protocol(); !bytes.Equal(p, http11) && !bytes.Equal(p, http10) {
		ctx.Error("HTTP Version Not Supported", fasthttp.StatusHTTPVersionNotSupported)
		ctx.SetConnectionClose()
		return
	}
	var h fasthttp.RequestHandler
	switch string(ctx.Path()) { // the conversion does not allocate here
	case page.Path:
		h = hello
	case page.JSONPath:
		h = helloJSON
	default:
		ctx.Error("Not Found", fasthttp.StatusNotFound)
		return
	}
	if !ctx.IsGet() && !ctx.IsHead() {
		ctx.Error("Method Not Allowed", fasthttp.StatusMethodNotAllowed)
		ctx.Response.Header.Set("Allow", page.Allow) // after Error, which resets headers
		return
	}
	h(ctx)
}

// hello sends the page.
func hello(ctx *fasthttp.RequestCtx) {
	if work.On() {
		// Waiting blocks only this connection's worker goroutine.
		work.Do()
	}
	ctx.SetContentType(page.ContentType)
	ctx.SetBody(page.HTML)
}

// helloJSON encodes a new Message for each request as fasthttp's own
// example encodes JSON, with json.Marshal, and sends its 27 bytes (Encode
// on a json.Encoder would add a newline). The -work flags are the page's.
func helloJSON(ctx *fasthttp.RequestCtx) {
	b, err := json.Marshal(page.Message{Message: page.Greeting})
	if err != nil {
		ctx.Error(err.Error(), fasthttp.StatusInternalServerError)
		return
	}
	ctx.SetContentType(page.JSONType)
	ctx.SetBody(b)
}

func newServer(headerTimeout, idleTimeout time.Duration) *fasthttp.Server {
	return &fasthttp.Server{
		Handler: route,
		Name:    "fasthttp",
		// ReadTimeout runs from a request's first byte to its end, so it
		// bounds slow headers; IdleTimeout bounds the wait for the next one.
		ReadTimeout: headerTimeout,
		IdleTimeout: idleTimeout,
		// The read buffer must hold the whole header section: 8 KiB caps it
		// there, and fasthttp answers 431 past it.
		ReadBufferSize: 8 << 10,
		// The handler reads no header by name, so skipping the
		// canonicalisation of every header name saves work per request.
		DisableHeaderNamesNormalizing: true,
		ErrorHandler:                  parseError,
		// fasthttp logs each connection error, which is per-request noise.
		Logger: quiet{},
	}
}

// parseError answers a request fasthttp could not read. The default handler
// misses timeouts that arrive wrapped and calls them 400.
func parseError(ctx *fasthttp.RequestCtx, err error) {
	var small *fasthttp.ErrSmallBuffer
	var nerr net.Error
	var ferr *fasthttpguard.Error
	switch {
	case errors.As(err, &ferr):
		ctx.Error(fasthttp.StatusMessage(ferr.Status), ferr.Status)
	case errors.As(err, &small):
		ctx.Error("Request Header Fields Too Large", fasthttp.StatusRequestHeaderFieldsTooLarge)
	case errors.As(err, &nerr) && nerr.Timeout():
		ctx.Error("Request Timeout", fasthttp.StatusRequestTimeout)
	default:
		ctx.Error("Bad Request", fasthttp.StatusBadRequest)
	}
}

// quiet drops fasthttp's per-connection error log lines.
type quiet struct{}

func (quiet) Printf(string, ...any) {}

func main() {
	addr := flag.String("addr", ":8081", "listen `address`")
	headerTimeout := flag.Duration("header-timeout", 10*time.Second, "close a connection whose request is not complete within this `duration`")
	idleTimeout := flag.Duration("idle-timeout", 60*time.Second, "close a keep-alive connection idle for this `duration`")
	bare := flag.Bool("bare", false, "serve as the stack does out of the box, without this server's framing guards (for the robustness report)")
	pf := flag.Bool("prefork", false, "serve with fasthttp's prefork package: this process starts one child process per GOMAXPROCS core,\n"+
		"each running this command at GOMAXPROCS=1 on its own SO_REUSEPORT listener (tcp4, or tcp6 for an IPv6 address,\n"+
		"with TCP_DEFER_ACCEPT), logs the start line once all of them listen, and stops them gracefully on SIGINT or SIGTERM")
	certFile := flag.String("tls-cert", "", "serve HTTPS (HTTP/1.1; fasthttp has no HTTP/2) with the certificate in this PEM `file` (with -tls-key)")
	keyFile := flag.String("tls-key", "", "the private key of -tls-cert, a PEM `file`")
	tickets := flag.Bool("tls-tickets", true, "issue TLS session tickets, so that a client can resume its session; false makes every new connection a full handshake")
	work.Flags(flag.CommandLine)
	flag.Parse()
	if err := timeouts.Check(*headerTimeout, *idleTimeout); err != nil {
		fmt.Fprintf(os.Stderr, "fasthttp: %v\n", err)
		os.Exit(2)
	}
	if err := work.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "fasthttp: %v\n", err)
		os.Exit(2)
	}
	tlsConfig, err := tlsflag.Load(*certFile, *keyFile, *tickets)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fasthttp: %v\n", err)
		os.Exit(2)
	}

	srv := newServer(*headerTimeout, *idleTimeout)
	if tlsConfig != nil {
		tlsConfig.NextProtos = []string{"http/1.1"} // no h2 to offer
		srv.TLSConfig = tlsConfig
	}
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	if *pf {
		if prefork.IsChild() {
			child(srv, *addr, *bare, sig)
		} else {
			os.Exit(parent(srv, *addr, sig))
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("fasthttp: %v", err)
	}
	log.Printf("fasthttp: listening on %s (GOMAXPROCS=%d)", ln.Addr(), runtime.GOMAXPROCS(0))
	if err := serveUntil(srv, ln, *bare, sig); err != nil {
		log.Fatalf("fasthttp: %v", err)
	}
}

// serveUntil serves on ln until a signal comes, then shuts down gracefully.
func serveUntil(srv *fasthttp.Server, ln net.Listener, bare bool, sig <-chan os.Signal) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-sig
		// Shutdown closes the listener, then waits for requests in flight;
		// the contract allows 5 s in all.
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
		defer cancel()
		if err := srv.ShutdownWithContext(ctx); err != nil {
			log.Printf("fasthttp: shutdown: %v", err)
		}
	}()
	ln = &fasthttpguard.RetryListener{Listener: ln, Name: "fasthttp"}
	if srv.TLSConfig != nil {
		// What fasthttp's ServeTLS does, but under the guard: ServeTLS
		// wraps the listener it is given in crypto/tls, so the guard's
		// listener would read ciphertext.
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	if !bare {
		ln = fasthttpguard.Listener{Listener: ln}
	}
	if err := srv.Serve(ln); err != nil {
		return err
	}
	<-done // Serve returns as soon as Shutdown closes the listener
	return nil
}

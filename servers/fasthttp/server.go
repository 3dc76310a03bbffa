package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/prefork"

	"hellobench/servers/internal/fasthttpguard"
	"hellobench/servers/internal/serve"
)

var (
	http10 = []byte("HTTP/1.0")
	http11 = []byte("HTTP/1.1")
)

// versions answers 505 to a version other than 1.0 and 1.1, and passes
// the others to h: fasthttp accepts any "HTTP/x.y" and answers it as 1.1 or
// 1.0.
func versions(h fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if p := ctx.Request.Header.Protocol(); !bytes.Equal(p, http11) && !bytes.Equal(p, http10) {
			ctx.Error("HTTP Version Not Supported", fasthttp.StatusHTTPVersionNotSupported)
			ctx.SetConnectionClose()
			return
		}
		h(ctx)
	}
}

// run serves srv as f says, in one process or, with pf, in fasthttp's
// prefork form (prefork.go), until SIGINT or SIGTERM.
func run(srv *fasthttp.Server, f *serve.Flags, pf bool) {
	if f.TLS != nil {
		f.TLS.NextProtos = []string{"http/1.1"} // no h2 to offer
		srv.TLSConfig = f.TLS
	}
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	if pf {
		if prefork.IsChild() {
			child(srv, f.Addr, f.Bare, sig)
		} else {
			os.Exit(parent(srv, f.Addr, sig))
		}
		return
	}
	ln, err := net.Listen("tcp", f.Addr)
	if err != nil {
		log.Fatalf("fasthttp: %v", err)
	}
	log.Printf("fasthttp: listening on %s (GOMAXPROCS=%d)", ln.Addr(), runtime.GOMAXPROCS(0))
	if err := serveUntil(srv, ln, f.Bare, sig); err != nil {
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

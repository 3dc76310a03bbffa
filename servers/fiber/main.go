// Command fiber serves the hellobench page with github.com/gofiber/fiber/v2,
// the Express-style router on top of fasthttp, behind a guard that refuses
// requests whose framing RFC 9112 asks a server to refuse and fasthttp
// accepts, on a listener that waits out a lack of file descriptors (both
// in servers/internal/fasthttpguard).
//
// At /json it sends a Message that c.JSON encodes for each request with
// fiber's default JSONEncoder, encoding/json's json.Marshal: 27 bytes.
//
// With -bare it serves as fiber does out of the box, without the guard.
//
// With -tls-cert and -tls-key it serves HTTPS (HTTP/1.1: fiber has no
// HTTP/2) on crypto/tls's listener, under the guard.
package main

import (
	"crypto/tls"
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

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"hellobench/page"
	"hellobench/servers/internal/fasthttpguard"
	"hellobench/servers/internal/timeouts"
	"hellobench/servers/internal/tlsflag"
)

// work is the handler's optional work, -work-cpu and -work-wait (see
// page.Work). Off by default, it costs the page handler the inlined test of On.
var work page.Work

func newApp(headerTimeout, idleTimeout time.Duration) *fiber.App {
	app := fiber.New(fiber.Config{
		ServerHeader:          "fiber",
		DisableStartupMessage: true, // one log line, ours
		// Only /hello/world itself: not /hello/world/ nor /Hello/World.
		StrictRouting: true,
		CaseSensitive: true,
		// fasthttp's ReadTimeout runs from a request's first byte to its end,
		// so it bounds slow headers; IdleTimeout bounds the wait for the next.
		ReadTimeout: headerTimeout,
		IdleTimeout: idleTimeout,
		// The read buffer must hold the whole header section: 8 KiB caps it
		// there, and fasthttp answers 431 past it.
		ReadBufferSize: 8 << 10,
		// No handler reads a header by name, so skip canonicalising them.
		DisableHeaderNormalizing: true,
	})

	// fiber answers a request fasthttp could not read with 400 (or 408, 413,
	// 431); the framing guard's errors carry their own status (fasthttpguard.Error).
	onError := app.Server().ErrorHandler
	app.Server().ErrorHandler = func(ctx *fasthttp.RequestCtx, err error) {
		var ferr *fasthttpguard.Error
		if errors.As(err, &ferr) {
			ctx.Error(fasthttp.StatusMessage(ferr.Status), ferr.Status)
			return
		}
		onError(ctx, err)
	}

	// fasthttp accepts any "HTTP/x.y"; the contract refuses versions other
	// than 1.0 and 1.1.
	app.Use(func(c *fiber.Ctx) error {
		switch string(c.Request().Header.Protocol()) {
		case "HTTP/1.1", "HTTP/1.0":
			return c.Next()
		}
		c.Set(fiber.HeaderConnection, "close")
		return fiber.ErrHTTPVersionNotSupported
	})

	// Get registers HEAD too; fiber drops the body of a HEAD response.
	app.Get(page.Path, func(c *fiber.Ctx) error {
		if work.On() {
			// Waiting blocks only this connection's worker goroutine.
			work.Do()
		}
		c.Set(fiber.HeaderContentType, page.ContentType)
		return c.Send(page.HTML)
	})
	// Fiber answers other methods 405 on its own but without Allow.
	app.All(page.Path, notAllowed)

	// c.JSON encodes with the app's JSONEncoder, json.Marshal unless
	// fiber.Config sets another, and sets Content-Type application/json.
	app.Get(page.JSONPath, func(c *fiber.Ctx) error {
		return c.JSON(page.Message{Message: page.Greeting})
	})
	app.All(page.JSONPath, notAllowed)
	return app
}

// notAllowed answers a method a route does not take: 405 with the Allow
// that fiber's own 405 leaves out.
func notAllowed(c *fiber.Ctx) error {
	c.Set(fiber.HeaderAllow, page.Allow)
	return fiber.ErrMethodNotAllowed
}

func main() {
	addr := flag.String("addr", ":8082", "listen `address`")
	headerTimeout := flag.Duration("header-timeout", 10*time.Second, "close a connection whose request is not complete within this `duration`")
	idleTimeout := flag.Duration("idle-timeout", 60*time.Second, "close a keep-alive connection idle for this `duration`")
	bare := flag.Bool("bare", false, "serve as the stack does out of the box, without this server's framing guards (for the robustness report)")
	certFile := flag.String("tls-cert", "", "serve HTTPS (HTTP/1.1; fiber has no HTTP/2) with the certificate in this PEM `file` (with -tls-key)")
	keyFile := flag.String("tls-key", "", "the private key of -tls-cert, a PEM `file`")
	tickets := flag.Bool("tls-tickets", true, "issue TLS session tickets, so that a client can resume its session; false makes every new connection a full handshake")
	work.Flags(flag.CommandLine)
	flag.Parse()
	if err := timeouts.Check(*headerTimeout, *idleTimeout); err != nil {
		fmt.Fprintf(os.Stderr, "fiber: %v\n", err)
		os.Exit(2)
	}
	if err := work.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "fiber: %v\n", err)
		os.Exit(2)
	}
	tlsConfig, err := tlsflag.Load(*certFile, *keyFile, *tickets)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fiber: %v\n", err)
		os.Exit(2)
	}

	app := newApp(*headerTimeout, *idleTimeout)
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("fiber: %v", err)
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		<-sig
		// Shutdown closes the listener, then waits for requests in flight;
		// the contract allows 5 s in all.
		if err := app.ShutdownWithTimeout(4 * time.Second); err != nil {
			log.Printf("fiber: shutdown: %v", err)
		}
	}()

	log.Printf("fiber: listening on %s (GOMAXPROCS=%d)", ln.Addr(), runtime.GOMAXPROCS(0))
	ln = &fasthttpguard.RetryListener{Listener: ln, Name: "fiber"}
	if tlsConfig != nil {
		// fiber's way to TLS with a listener of one's own, as its docs
		// show for app.Listener: crypto/tls's, under the guard, which
		// reads what TLS has decrypted.
		tlsConfig.NextProtos = []string{"http/1.1"} // no h2 to offer
		ln = tls.NewListener(ln, tlsConfig)
	}
	if !*bare {
		ln = fasthttpguard.Listener{Listener: ln}
	}
	if err := app.Listener(ln); err != nil {
		log.Fatalf("fiber: %v", err)
	}
	<-done // Listener returns as soon as Shutdown closes the listener
}

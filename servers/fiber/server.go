package main

import (
	"crypto/tls"
	"errors"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"hellobench/servers/internal/fasthttpguard"
	"hellobench/servers/internal/serve"
)

// guard makes app refuse what the contract refuses and fiber does not
// unless told: the framing guard's errors keep their own status, and
// versions other than 1.0 and 1.1 get 505.
func guard(app *fiber.App) {
	// fiber answers a request fasthttp could not read with 400 (or 408,
	// 413, 431); the framing guard's errors carry their own status
	// (fasthttpguard.Error).
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
}

// run serves app as f says until SIGINT or SIGTERM, then drains.
func run(app *fiber.App, f *serve.Flags) {
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	ln, err := net.Listen("tcp", f.Addr)
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
	if f.TLS != nil {
		// fiber's way to TLS with a listener of one's own, as its docs
		// show for app.Listener: crypto/tls's, under the guard, which
		// reads what TLS has decrypted.
		f.TLS.NextProtos = []string{"http/1.1"} // no h2 to offer
		ln = tls.NewListener(ln, f.TLS)
	}
	if !f.Bare {
		ln = fasthttpguard.Listener{Listener: ln}
	}
	if err := app.Listener(ln); err != nil {
		log.Fatalf("fiber: %v", err)
	}
	<-done // Listener returns as soon as Shutdown closes the listener
}

package main

import (
	"context"
	"crypto/tls"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/cloudwego/hertz/pkg/app/server"
	"github.com/cloudwego/hertz/pkg/common/config"

	"hellobench/servers/internal/serve"
)

// options returns newHertz's options for TLS and, unless bare, the guard
// (guard.go).
func options(headerTimeout time.Duration, bare bool, tlsConfig *tls.Config) []config.Option {
	var opts []config.Option
	if tlsConfig != nil {
		// WithTLS picks the standard transport, unless one is given: the
		// guard's picks it too (guardedTransport).
		tlsConfig.NextProtos = []string{"http/1.1"} // no h2 to offer
		opts = append(opts, server.WithTLS(tlsConfig))
	}
	if !bare {
		opts = append(opts,
			// The guard's deadline closes a slow header section first:
			// hertz would answer it 400.
			server.WithReadTimeout(headerTimeout+time.Second),
			server.WithTransport(guardedTransport),
			server.WithOnConnect(onConnect(headerTimeout)))
	}
	return opts
}

// run serves as f says until SIGINT or SIGTERM, then drains.
func run(f *serve.Flags) {
	quietLogs()

	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", f.Addr)
	if err != nil {
		log.Fatalf("hertz: %v", err)
	}
	h := newHertz(ln, f.HeaderTimeout, f.IdleTimeout, f.Bare, f.TLS)
	// Spin stops gracefully once the waiter returns nil: on our signals,
	// caught since before the listener opened.
	h.SetCustomSignalWaiter(func(errc chan error) error {
		select {
		case <-ctx.Done():
			return nil
		case err := <-errc:
			return err
		}
	})
	log.Printf("hertz: listening on %s (GOMAXPROCS=%d)", ln.Addr(), runtime.GOMAXPROCS(0))
	h.Spin()
}

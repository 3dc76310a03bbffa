// Command hertz serves the hellobench page with github.com/cloudwego/hertz
// on its default transport, netpoll: an epoll event loop of its own that
// reads each connection into netpoll's buffers, not through net.Conn.
//
// At /json it sends a Message that c.JSON encodes for each request with
// hertz's default encoder, sonic (bytedance/sonic's ConfigStd) on amd64 and
// arm64 and encoding/json elsewhere or with -tags stdjson: 27 bytes.
//
// hertz accepts much that RFC 9112 asks a server to refuse; unless -bare,
// a guard (guard.go) shows hertz only requests a strict parser has checked.
//
// With -tls-cert and -tls-key it serves HTTPS (HTTP/1.1) through
// server.WithTLS, on hertz's standard transport (net.Conn): netpoll has
// no TLS. The guard reads that transport's connections the same way.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/app/server"
	"github.com/cloudwego/hertz/pkg/common/config"
	"github.com/cloudwego/hertz/pkg/protocol/consts"

	"hellobench/page"
	"hellobench/servers/internal/timeouts"
	"hellobench/servers/internal/tlsflag"
)

// work is the handler's optional work, -work-cpu and -work-wait (see
// page.Work). Off by default, it costs hello the inlined test of On.
var work page.Work

func hello(_ context.Context, c *app.RequestContext) {
	if work.On() {
		// hertz runs each connection's handlers on a goroutine of its own
		// (netpoll's pool), off the event loop: waiting blocks only it.
		work.Do()
	}
	// hertz adds Content-Length, Date and Server, and drops the body of a
	// HEAD response.
	c.Data(consts.StatusOK, page.ContentType, page.HTML)
}

// helloJSON encodes a new Message for each request. c.JSON renders it with
// hertz's default JSON marshaler (render.ResetJSONMarshal would swap it),
// sonic on amd64 and arm64, with Content-Type "application/json;
// charset=utf-8". The -work flags are the page's.
func helloJSON(_ context.Context, c *app.RequestContext) {
	c.JSON(consts.StatusOK, page.Message{Message: page.Greeting})
}

// newHertz returns the server, not yet running, on ln.
// With tlsConfig it serves HTTPS through server.WithTLS, on hertz's
// standard transport (netpoll has no TLS).
func newHertz(ln net.Listener, headerTimeout, idleTimeout time.Duration, bare bool, tlsConfig *tls.Config) *server.Hertz {
	readTimeout := headerTimeout
	if !bare {
		// The guard's deadline closes a slow header section first: hertz
		// would answer it 400.
		readTimeout += time.Second
	}
	opts := []config.Option{
		server.WithListener(ln),
		server.WithReadTimeout(readTimeout),
		server.WithIdleTimeout(idleTimeout),
		// The contract caps the header section at 8 KiB (hertz allows 1 MiB
		// by default); past it hertz answers 431.
		server.WithMaxHeaderBytes(8 << 10),
		server.WithHandleMethodNotAllowed(true), // 405 instead of 404
		// Only /hello/world itself: no redirect from /hello/world/.
		server.WithRedirectTrailingSlash(false),
		server.WithDisablePrintRoute(true),
		// Requests in flight get 4 s to finish; the contract allows 5 s in
		// all.
		server.WithExitWaitTime(4 * time.Second),
	}
	if tlsConfig != nil {
		// WithTLS picks the standard transport, unless one is given: the
		// guard's picks it too (guardedTransport).
		tlsConfig.NextProtos = []string{"http/1.1"} // no h2 to offer
		opts = append(opts, server.WithTLS(tlsConfig))
	}
	if !bare {
		opts = append(opts,
			server.WithTransport(guardedTransport),
			server.WithOnConnect(onConnect(headerTimeout)))
	}
	h := server.New(opts...) // no Recovery middleware: nothing per request
	h.Name = "hertz"
	h.GET(page.Path, hello)
	h.HEAD(page.Path, hello)
	h.GET(page.JSONPath, helloJSON)
	h.HEAD(page.JSONPath, helloJSON)
	h.NoMethod(func(_ context.Context, c *app.RequestContext) {
		c.Response.Header.Set("Allow", page.Allow)
	})
	return h
}

func main() {
	addr := flag.String("addr", ":8088", "listen `address`")
	headerTimeout := flag.Duration("header-timeout", 10*time.Second, "close a connection whose request headers are not complete within this `duration`")
	idleTimeout := flag.Duration("idle-timeout", 60*time.Second, "close a keep-alive connection idle for this `duration`")
	bare := flag.Bool("bare", false, "serve as hertz does out of the box, without this server's guard (for the robustness report)")
	certFile := flag.String("tls-cert", "", "serve HTTPS (HTTP/1.1, on hertz's standard transport: netpoll has no TLS) with the certificate in this PEM `file` (with -tls-key)")
	keyFile := flag.String("tls-key", "", "the private key of -tls-cert, a PEM `file`")
	tickets := flag.Bool("tls-tickets", true, "issue TLS session tickets, so that a client can resume its session; false makes every new connection a full handshake")
	work.Flags(flag.CommandLine)
	flag.Parse()
	if err := timeouts.Check(*headerTimeout, *idleTimeout); err != nil {
		fmt.Fprintf(os.Stderr, "hertz: %v\n", err)
		os.Exit(2)
	}
	if err := work.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "hertz: %v\n", err)
		os.Exit(2)
	}
	tlsConfig, err := tlsflag.Load(*certFile, *keyFile, *tickets)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hertz: %v\n", err)
		os.Exit(2)
	}

	quietLogs()

	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("hertz: %v", err)
	}
	h := newHertz(ln, *headerTimeout, *idleTimeout, *bare, tlsConfig)
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

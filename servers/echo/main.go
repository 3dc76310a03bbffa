// Command echo serves the hellobench page with github.com/labstack/echo/v4
// on net/http's server, behind a guard that refuses requests whose framing
// RFC 9112 asks a server to refuse and net/http accepts: a listener
// (servers/internal/nethttpguard) and a middleware (strict).
//
// With -bare it serves as echo and net/http do out of the box, without that
// guard.
package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"

	"hellobench/page"
	"hellobench/servers/internal/nethttpguard"
)

func hello(c echo.Context) error {
	// net/http adds Content-Length and Date, and drops the body of a HEAD
	// response. (HTMLBlob would say charset=UTF-8.)
	return c.Blob(http.StatusOK, page.ContentType, page.HTML)
}

// notAllowed answers a method the route does not have.
func notAllowed(echo.Context) error { return echo.ErrMethodNotAllowed }

// newEcho returns the router. Unless bare, it refuses what net/http lets
// through and the contract does not: see strict.
func newEcho(bare bool) *echo.Echo {
	e := echo.New() // no Logger, no Recover middleware: nothing per request
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Response().Header().Set(echo.HeaderServer, "echo")
			return next(c)
		}
	})
	if !bare {
		e.Use(strict)
	}
	// echo's 405 names OPTIONS in Allow, which it answers itself with 204;
	// the contract's resource has GET and HEAD only.
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		if he, ok := err.(*echo.HTTPError); ok && he.Code == http.StatusMethodNotAllowed {
			c.Response().Header().Set(echo.HeaderAllow, page.Allow)
		}
		e.DefaultHTTPErrorHandler(err, c)
	}
	e.GET(page.Path, hello)
	e.HEAD(page.Path, hello)
	e.OPTIONS(page.Path, notAllowed)
	return e
}

// maxDrain is how much of a chunked body strict reads before answering:
// what net/http itself reads of an unread body before it gives up and
// closes the connection.
const maxDrain = 256 << 10

// strict is the middleware half of the framing guard (package
// nethttpguard has the connection's half).
func strict(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		// net/http serves HTTP/1.2 and up as 1.1 (RFC 9110 section 2.5
		// allows it) and passes "PRI * HTTP/2.0" on for a handler to take
		// over; the contract refuses versions other than 1.0 and 1.1.
		if r.ProtoMajor != 1 || r.ProtoMinor > 1 {
			c.Response().Header().Set(echo.HeaderConnection, "close")
			return c.String(http.StatusHTTPVersionNotSupported, "HTTP Version Not Supported")
		}
		// A chunked body is read before the answer, so that a framing
		// error in it (RFC 9112 section 7.1), found by net/http's chunked
		// reader or by the guard's listener, is answered 400 and a close
		// rather than the route's status.
		if r.TransferEncoding != nil {
			if _, err := io.CopyN(io.Discard, r.Body, maxDrain); err != nil && err != io.EOF {
				c.Response().Header().Set(echo.HeaderConnection, "close")
				return c.String(http.StatusBadRequest, "Bad Request")
			}
		}
		return next(c)
	}
}

// newServer returns the server, as echo's documentation starts a custom
// http.Server with the Echo instance as its handler.
func newServer(addr string, headerTimeout, idleTimeout time.Duration, bare bool) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           newEcho(bare),
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       idleTimeout,
		// net/http reads MaxHeaderBytes plus 4096 bytes of slack before it
		// answers 431, so 4 KiB here caps the header section at 8 KiB.
		MaxHeaderBytes: 4 << 10,
		// net/http's own errors, such as a failed Accept, at most one line
		// a second.
		ErrorLog: log.New(nethttpguard.NewRateLimited(os.Stderr, time.Second), "echo: ", 0),
	}
}

func main() {
	addr := flag.String("addr", ":8086", "listen `address`")
	headerTimeout := flag.Duration("header-timeout", 10*time.Second, "close a connection whose request headers are not complete within this `duration`")
	idleTimeout := flag.Duration("idle-timeout", 60*time.Second, "close a keep-alive connection idle for this `duration`")
	bare := flag.Bool("bare", false, "serve as echo on net/http does out of the box, without this server's framing guards (for the robustness report)")
	flag.Parse()

	srv := newServer(*addr, *headerTimeout, *idleTimeout, *bare)
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("echo: %v", err)
	}
	if !*bare {
		ln = nethttpguard.Listener{Listener: ln}
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		// Shutdown closes the listener and idle connections, then waits for
		// requests in flight; the contract allows 5 s in all.
		sctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close()
		}
	}()

	log.Printf("echo: listening on %s (GOMAXPROCS=%d)", ln.Addr(), runtime.GOMAXPROCS(0))
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatalf("echo: %v", err)
	}
	<-done // Serve returns as soon as Shutdown starts
}

// Command gin serves the hellobench page with github.com/gin-gonic/gin in
// release mode, on net/http's server, behind a guard that refuses requests
// whose framing RFC 9112 asks a server to refuse and net/http accepts: a
// listener (servers/internal/nethttpguard) and a middleware (strict).
//
// With -bare it serves as gin and net/http do out of the box, without that
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

	"github.com/gin-gonic/gin"

	"hellobench/page"
	"hellobench/servers/internal/nethttpguard"
)

func hello(c *gin.Context) {
	// Data sets Content-Type and Content-Length; net/http adds Date and
	// drops the body of a HEAD response.
	c.Data(http.StatusOK, page.ContentType, page.HTML)
}

// newRouter returns the engine. Unless bare, it refuses what net/http
// lets through and the contract does not: see strict.
func newRouter(bare bool) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()                  // no Logger, no Recovery: nothing per request
	r.HandleMethodNotAllowed = true // 405 with Allow instead of 404
	// Only /hello/world itself: no redirect from /hello/world/ or
	// /Hello/World, answer 404 instead.
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.Use(func(c *gin.Context) { c.Header("Server", "gin") })
	if !bare {
		r.Use(strict)
	}
	r.GET(page.Path, hello)
	r.HEAD(page.Path, hello)
	return r
}

// maxDrain is how much of a chunked body strict reads before answering:
// what net/http itself reads of an unread body before it gives up and
// closes the connection.
const maxDrain = 256 << 10

// strict is the middleware half of the framing guard (package
// nethttpguard has the connection's half).
func strict(c *gin.Context) {
	// net/http serves HTTP/1.2 and up as 1.1 (RFC 9110 section 2.5 allows
	// it) and passes "PRI * HTTP/2.0" on for a handler to take over; the
	// contract refuses versions other than 1.0 and 1.1.
	if r := c.Request; r.ProtoMajor != 1 || r.ProtoMinor > 1 {
		c.Header("Connection", "close")
		c.String(http.StatusHTTPVersionNotSupported, "HTTP Version Not Supported")
		c.Abort()
		return
	}
	// A chunked body is read before the answer, so that a framing error in
	// it (RFC 9112 section 7.1), found by net/http's chunked reader or by
	// strictConn, is answered 400 and a close rather than the route's
	// status.
	if c.Request.TransferEncoding != nil {
		if _, err := io.CopyN(io.Discard, c.Request.Body, maxDrain); err != nil && err != io.EOF {
			c.Header("Connection", "close")
			c.String(http.StatusBadRequest, "Bad Request")
			c.Abort()
		}
	}
}

func newServer(addr string, headerTimeout, idleTimeout time.Duration, bare bool) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           newRouter(bare),
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       idleTimeout,
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
	headerTimeout := flag.Duration("header-timeout", 10*time.Second, "close a connection whose request headers are not complete within this `duration`")
	idleTimeout := flag.Duration("idle-timeout", 60*time.Second, "close a keep-alive connection idle for this `duration`")
	bare := flag.Bool("bare", false, "serve as gin on net/http does out of the box, without this server's framing guards (for the robustness report)")
	flag.Parse()

	srv := newServer(*addr, *headerTimeout, *idleTimeout, *bare)
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("gin: %v", err)
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

	log.Printf("gin: listening on %s (GOMAXPROCS=%d)", ln.Addr(), runtime.GOMAXPROCS(0))
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatalf("gin: %v", err)
	}
	<-done // Serve returns as soon as Shutdown starts
}

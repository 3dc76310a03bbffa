// Command gin serves the hellobench page with github.com/gin-gonic/gin in
// release mode with no middleware, on net/http's server.
package main

import (
	"context"
	"errors"
	"flag"
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
)

func hello(c *gin.Context) {
	// Data sets Content-Type and Content-Length; net/http adds Date and
	// drops the body of a HEAD response.
	c.Data(http.StatusOK, page.ContentType, page.HTML)
}

func newRouter() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()                  // no Logger, no Recovery: nothing per request
	r.HandleMethodNotAllowed = true // 405 with Allow instead of 404
	// Only /hello/world itself: no redirect from /hello/world/ or
	// /Hello/World, answer 404 instead.
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.Use(func(c *gin.Context) {
		c.Header("Server", "gin")
		// net/http serves HTTP/1.2 and up as 1.1 (RFC 9110 section 2.5
		// allows it); the contract refuses versions other than 1.0/1.1.
		if c.Request.ProtoMinor > 1 {
			c.Header("Connection", "close")
			c.String(http.StatusHTTPVersionNotSupported, "HTTP Version Not Supported")
			c.Abort()
		}
	})
	r.GET(page.Path, hello)
	r.HEAD(page.Path, hello)
	return r
}

func newServer(addr string, headerTimeout, idleTimeout time.Duration) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           newRouter(),
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       idleTimeout,
		// net/http reads MaxHeaderBytes plus 4096 bytes of slack before it
		// answers 431, so 4 KiB here caps the header section at 8 KiB.
		MaxHeaderBytes: 4 << 10,
	}
}

func main() {
	addr := flag.String("addr", ":8083", "listen `address`")
	headerTimeout := flag.Duration("header-timeout", 10*time.Second, "close a connection whose request headers are not complete within this `duration`")
	idleTimeout := flag.Duration("idle-timeout", 60*time.Second, "close a keep-alive connection idle for this `duration`")
	flag.Parse()

	srv := newServer(*addr, *headerTimeout, *idleTimeout)
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("gin: %v", err)
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

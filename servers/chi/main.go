// Command chi serves the hellobench page with github.com/go-chi/chi/v5 on
// net/http's server, behind a guard that refuses requests whose framing
// RFC 9112 asks a server to refuse and net/http accepts: a listener
// (servers/internal/nethttpguard) and a middleware (strict).
//
// With -bare it serves as chi and net/http do out of the box, without that
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
	"strconv"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"

	"hellobench/page"
	"hellobench/servers/internal/nethttpguard"
)

var contentLength = strconv.Itoa(page.Size)

// hello answers GET and HEAD /hello/world; net/http adds Date and drops the
// body of a HEAD response.
func hello(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", page.ContentType)
	h.Set("Content-Length", contentLength)
	w.Write(page.HTML)
}

// newRouter returns the router. Unless bare, it refuses what net/http
// lets through and the contract does not: see strict.
func newRouter(bare bool) *chi.Mux {
	r := chi.NewRouter() // no Logger, no Recoverer: nothing per request
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Server", "chi")
			next.ServeHTTP(w, r)
		})
	})
	if !bare {
		r.Use(strict)
	}
	r.Get(page.Path, hello)
	r.Head(page.Path, hello)
	// chi's own 405 gives each allowed method an Allow line of its own;
	// the contract asks for one.
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", page.Allow)
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	})
	return r
}

// maxDrain is how much of a chunked body strict reads before answering:
// what net/http itself reads of an unread body before it gives up and
// closes the connection.
const maxDrain = 256 << 10

// strict is the middleware half of the framing guard (package
// nethttpguard has the connection's half).
func strict(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// net/http serves HTTP/1.2 and up as 1.1 (RFC 9110 section 2.5
		// allows it) and passes "PRI * HTTP/2.0" on for a handler to take
		// over; the contract refuses versions other than 1.0 and 1.1.
		if r.ProtoMajor != 1 || r.ProtoMinor > 1 {
			w.Header().Set("Connection", "close")
			http.Error(w, "HTTP Version Not Supported", http.StatusHTTPVersionNotSupported)
			return
		}
		// A chunked body is read before the answer, so that a framing
		// error in it (RFC 9112 section 7.1), found by net/http's chunked
		// reader or by the guard's listener, is answered 400 and a close
		// rather than the route's status.
		if r.TransferEncoding != nil {
			if _, err := io.CopyN(io.Discard, r.Body, maxDrain); err != nil && err != io.EOF {
				w.Header().Set("Connection", "close")
				http.Error(w, "Bad Request", http.StatusBadRequest)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
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
		ErrorLog: log.New(nethttpguard.NewRateLimited(os.Stderr, time.Second), "chi: ", 0),
	}
}

func main() {
	addr := flag.String("addr", ":8087", "listen `address`")
	headerTimeout := flag.Duration("header-timeout", 10*time.Second, "close a connection whose request headers are not complete within this `duration`")
	idleTimeout := flag.Duration("idle-timeout", 60*time.Second, "close a keep-alive connection idle for this `duration`")
	bare := flag.Bool("bare", false, "serve as chi on net/http does out of the box, without this server's framing guards (for the robustness report)")
	flag.Parse()

	srv := newServer(*addr, *headerTimeout, *idleTimeout, *bare)
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("chi: %v", err)
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

	log.Printf("chi: listening on %s (GOMAXPROCS=%d)", ln.Addr(), runtime.GOMAXPROCS(0))
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatalf("chi: %v", err)
	}
	<-done // Serve returns as soon as Shutdown starts
}

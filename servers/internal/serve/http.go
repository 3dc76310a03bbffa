package serve

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"

	"hellobench/page"
	"hellobench/servers/internal/h3serve"
	"hellobench/servers/internal/nethttpguard"
)

// HTTPFlags registers the flags of a server on net/http's http.Server,
// named name, listening on addr by default: New's, -bare, the TLS flags,
// -h2c, -h3 and work's. stack is what -bare serves as, "net/http" or
// "gin on net/http".
func HTTPFlags(name, addr, stack string, work *page.Work) *Flags {
	f := New(name, addr, HeaderBody)
	f.BareFlag("serve as " + stack + " does out of the box, without this server's framing guards (for the robustness report)")
	f.TLSFlags("serve HTTPS, and HTTP/2 to clients that ask by ALPN, with the certificate in this PEM `file` (with -tls-key)")
	f.HTTP2Flags()
	f.Work(work)
	return f
}

// Server returns the http.Server that serves h as f says, with the
// contract's limits. Unless f.Bare, h is behind the guard, which refuses
// what net/http lets through and the contract does not: versions other than
// 1.0 and 1.1 (505), and a chunked body badly framed (400, read before
// routing).
func Server(f *Flags, h http.Handler) *http.Server {
	if !f.Bare {
		h = nethttpguard.Handler(h)
	}
	return &http.Server{
		Addr: f.Addr,
		// Every answer, the guard's and the router's 404 and 405 included,
		// names the stack.
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Server", f.Name)
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: f.HeaderTimeout,
		// ReadTimeout runs from a request's first byte to the end of its
		// body, so a body dripped on a kept connection cannot hold it (net/http
		// reads an unread body on before the next request). Over HTTP/2 it
		// bounds each stream's body, at a timer per stream.
		ReadTimeout: f.HeaderTimeout,
		IdleTimeout: f.IdleTimeout,
		// net/http reads MaxHeaderBytes plus 4096 bytes of slack before it
		// answers 431, so 4 KiB here caps the header section at 8 KiB.
		MaxHeaderBytes: 4 << 10,
		// No per-request logging: net/http's own errors, such as a failed
		// Accept, at most one line a second.
		ErrorLog: log.New(nethttpguard.NewRateLimited(os.Stderr, time.Second), f.Name+": ", 0),
	}
}

// HTTP serves h on Server(f, h) until SIGINT or SIGTERM, then drains and
// returns; it exits the program on an error. It serves HTTP/1.1, HTTP/2
// over TLS to clients that ask by ALPN, as net/http does by default, and
// HTTP/2 over cleartext (f.H2C) and HTTP/3 (f.H3) when asked.
func HTTP(f *Flags, h http.Handler) {
	srv := Server(f, h)
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetHTTP2(true)
	srv.Protocols.SetUnencryptedHTTP2(f.H2C)
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln := listen(f)
	var h3 *h3serve.Server
	if f.H3 {
		h3 = serveH3(f, srv, ln.Addr())
	}
	done := drain(ctx, srv, h3)

	log.Printf("%s: listening on %s (GOMAXPROCS=%d)", f.Name, ln.Addr(), runtime.GOMAXPROCS(0))
	var err error
	if f.TLS != nil && f.Bare {
		// net/http's TLS as its docs show it: ServeTLS wraps ln and offers
		// h2 by ALPN.
		srv.TLSConfig = f.TLS
		err = srv.ServeTLS(ln, "", "")
	} else {
		err = srv.Serve(ln)
	}
	if !errors.Is(err, http.ErrServerClosed) {
		log.Fatalf("%s: %v", f.Name, err)
	}
	<-done // Serve returns as soon as Shutdown starts
}

// listen listens on f.Addr, under the guard's listener unless f.Bare.
func listen(f *Flags) net.Listener {
	ln, err := net.Listen("tcp", f.Addr)
	if err != nil {
		log.Fatalf("%s: %v", f.Name, err)
	}
	switch {
	case f.Bare:
		return ln
	case f.TLS != nil:
		// The guard's listener does the TLS handshakes, to read what is
		// above TLS; net/http serves HTTP/2 on the connections that
		// negotiated it.
		return nethttpguard.TLSListener(ln, f.TLS, f.HeaderTimeout)
	}
	return nethttpguard.Listener{Listener: ln}
}

// serveH3 serves HTTP/3 on the TCP listener's port, addr, over UDP, through
// srv's handler as it is, and makes the answers over TCP advertise it.
func serveH3(f *Flags, srv *http.Server, addr net.Addr) *h3serve.Server {
	h3, err := h3serve.Listen(addr, srv, f.TLS)
	if err != nil {
		log.Fatalf("%s: %v", f.Name, err)
	}
	srv.Handler = h3.AltSvc(srv.Handler)
	go func() {
		if err := h3.Serve(); !errors.Is(err, http.ErrServerClosed) {
			log.Fatalf("%s: %v", f.Name, err)
		}
	}()
	return h3
}

// drain shuts srv, and h3 if not nil, down gracefully once ctx is done,
// and closes the channel it returns when they have stopped.
func drain(ctx context.Context, srv *http.Server, h3 *h3serve.Server) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		// Shutdown closes the listener and idle connections, then waits for
		// requests in flight; the contract allows 5 s in all. HTTP/3's
		// stops beside it: GOAWAY, then the same wait.
		sctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		if h3 != nil {
			wg.Go(func() { h3.Shutdown(sctx) })
		}
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close()
		}
		wg.Wait()
	}()
	return done
}

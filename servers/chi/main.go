// Command chi serves the hellobench page with github.com/go-chi/chi/v5 on
// net/http's server, behind a guard that refuses requests whose framing
// RFC 9112 asks a server to refuse and net/http accepts: a listener and a
// handler around the router (servers/internal/nethttpguard).
//
// With -bare it serves as chi and net/http do out of the box, without that
// guard.
//
// At /json it answers a page.Message encoded on every request by
// encoding/json's json.NewEncoder(w).Encode, 28 bytes with its newline.
//
// With -tls-cert and -tls-key it serves HTTPS, and HTTP/2 to clients
// that ask by ALPN; with -h2c, HTTP/2 over cleartext to clients with prior
// knowledge too. Over TLS the guard's listener does the handshakes with
// crypto/tls, net/http's TLS, so that it reads the requests above TLS;
// with -bare, net/http's ServeTLS does. With -h3 as well, it serves HTTP/3
// with quic-go's http3.Server on the same port over UDP, through the same
// handler, and every answer over TCP advertises it in Alt-Svc
// (servers/internal/h3serve).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"

	"hellobench/page"
	"hellobench/servers/internal/h3serve"
	"hellobench/servers/internal/nethttpguard"
	"hellobench/servers/internal/timeouts"
	"hellobench/servers/internal/tlsflag"
)

var contentLength = strconv.Itoa(page.Size)

// work is the handler's optional work, -work-cpu and -work-wait (see
// page.Work). Off by default, it costs hello the inlined test of On.
var work page.Work

// hello answers GET and HEAD /hello/world; net/http adds Date and drops the
// body of a HEAD response.
func hello(w http.ResponseWriter, r *http.Request) {
	if work.On() {
		// Waiting blocks only this connection's own goroutine.
		work.Do()
	}
	h := w.Header()
	h.Set("Content-Type", page.ContentType)
	h.Set("Content-Length", contentLength)
	w.Write(page.HTML)
}

// helloJSON answers GET and HEAD /json with a Message built and encoded
// for each request with encoding/json, chi having no JSON helper of its
// own (go-chi/render is a module apart); json.Encoder ends it with a
// newline: 28 bytes. net/http adds Content-Length for a body this small
// written before the handler returns, HEAD's too (it counts what was
// written, then drops it).
func helloJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", page.JSONType)
	json.NewEncoder(w).Encode(page.Message{Message: page.Greeting})
}

// newRouter returns the router.
func newRouter() *chi.Mux {
	r := chi.NewRouter() // no Logger, no Recoverer: nothing per request
	r.Get(page.Path, hello)
	r.Head(page.Path, hello)
	r.Get(page.JSONPath, helloJSON)
	r.Head(page.JSONPath, helloJSON)
	// chi's own 405 gives each allowed method an Allow line of its own;
	// the contract asks for one. Both paths allow GET and HEAD.
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", page.Allow)
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	})
	return r
}

// newServer returns the server. Unless bare, it refuses what net/http
// lets through and the contract does not: versions other than 1.0 and 1.1
// (505), and a chunked body badly framed (400, read before routing).
func newServer(addr string, headerTimeout, idleTimeout time.Duration, bare bool) *http.Server {
	h := http.Handler(newRouter())
	if !bare {
		h = nethttpguard.Handler(h)
	}
	return &http.Server{
		Addr: addr,
		// Every answer, the guard's and chi's 404 and 405 included, names
		// the stack.
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Server", "chi")
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: headerTimeout,
		// ReadTimeout runs from a request's first byte to the end of its
		// body, so a body dripped on a kept connection cannot hold it (net/http
		// reads an unread body on before the next request). Over HTTP/2 it
		// bounds each stream's body, at a timer per stream.
		ReadTimeout: headerTimeout,
		IdleTimeout: idleTimeout,
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
	headerTimeout := flag.Duration("header-timeout", 10*time.Second, "close a connection whose request, body included, is not complete within this `duration` of its first byte")
	idleTimeout := flag.Duration("idle-timeout", 60*time.Second, "close a keep-alive connection idle for this `duration`")
	bare := flag.Bool("bare", false, "serve as chi on net/http does out of the box, without this server's framing guards (for the robustness report)")
	certFile := flag.String("tls-cert", "", "serve HTTPS, and HTTP/2 to clients that ask by ALPN, with the certificate in this PEM `file` (with -tls-key)")
	keyFile := flag.String("tls-key", "", "the private key of -tls-cert, a PEM `file`")
	tickets := flag.Bool("tls-tickets", true, "issue TLS session tickets, so that a client can resume its session; false makes every new connection a full handshake")
	h2c := flag.Bool("h2c", false, "also serve HTTP/2 over cleartext to clients with prior knowledge (h2c); without it the HTTP/2 preface gets 505, as the contract asks")
	useH3 := flag.Bool("h3", false, "also serve HTTP/3 on the same port over UDP (QUIC; needs -tls-cert and -tls-key); every answer over TCP then advertises it in Alt-Svc")
	work.Flags(flag.CommandLine)
	flag.Parse()
	if err := timeouts.Check(*headerTimeout, *idleTimeout); err != nil {
		fmt.Fprintf(os.Stderr, "chi: %v\n", err)
		os.Exit(2)
	}
	if err := work.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "chi: %v\n", err)
		os.Exit(2)
	}
	tlsConfig, err := tlsflag.Load(*certFile, *keyFile, *tickets)
	if err != nil {
		fmt.Fprintf(os.Stderr, "chi: %v\n", err)
		os.Exit(2)
	}
	if err := h3serve.Check(*useH3, tlsConfig); err != nil {
		fmt.Fprintf(os.Stderr, "chi: %v\n", err)
		os.Exit(2)
	}

	srv := newServer(*addr, *headerTimeout, *idleTimeout, *bare)
	// HTTP/1.1, and HTTP/2 over TLS to clients that ask by ALPN, as
	// net/http serves by default; HTTP/2 over cleartext with prior
	// knowledge only when asked.
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetHTTP2(true)
	srv.Protocols.SetUnencryptedHTTP2(*h2c)
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("chi: %v", err)
	}
	switch {
	case *bare:
	case tlsConfig != nil:
		// The guard's listener does the TLS handshakes, to read what
		// is above TLS; net/http serves HTTP/2 on the connections that
		// negotiated it.
		ln = nethttpguard.TLSListener(ln, tlsConfig, *headerTimeout)
	default:
		ln = nethttpguard.Listener{Listener: ln}
	}

	// HTTP/3 on the TCP listener's port over UDP, through the handler
	// as it is; the answers over TCP advertise it.
	var h3 *h3serve.Server
	if *useH3 {
		if h3, err = h3serve.Listen(ln.Addr(), srv, tlsConfig); err != nil {
			log.Fatalf("chi: %v", err)
		}
		srv.Handler = h3.AltSvc(srv.Handler)
		go func() {
			if err := h3.Serve(); !errors.Is(err, http.ErrServerClosed) {
				log.Fatalf("chi: %v", err)
			}
		}()
	}

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

	log.Printf("chi: listening on %s (GOMAXPROCS=%d)", ln.Addr(), runtime.GOMAXPROCS(0))
	if tlsConfig != nil && *bare {
		// net/http's TLS as its docs show it: ServeTLS wraps ln and
		// offers h2 by ALPN.
		srv.TLSConfig = tlsConfig
		err = srv.ServeTLS(ln, "", "")
	} else {
		err = srv.Serve(ln)
	}
	if !errors.Is(err, http.ErrServerClosed) {
		log.Fatalf("chi: %v", err)
	}
	<-done // Serve returns as soon as Shutdown starts
}

package main

import (
	"context"
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
	"syscall"
	"time"

	"github.com/lesismal/nbio/logging"
	"github.com/lesismal/nbio/nbhttp"

	"hellobench/servers/internal/nethttpguard"
	"hellobench/servers/internal/timeouts"
)

// config is what the flags ask for.
type config struct {
	addr                       string
	headerTimeout, idleTimeout time.Duration
	bare                       bool
}

// parseFlags reads the flags; a bad value gets one line and exit 2.
func parseFlags() config {
	var c config
	flag.StringVar(&c.addr, "addr", ":8090", "listen `address`")
	flag.DurationVar(&c.headerTimeout, "header-timeout", 10*time.Second, "close a connection whose request, body included, is not complete within this `duration` of its first byte")
	flag.DurationVar(&c.idleTimeout, "idle-timeout", 60*time.Second, "close a keep-alive connection idle for this `duration`")
	flag.BoolVar(&c.bare, "bare", false, "serve as nbio does out of the box, without this server's guard (for the robustness report)")
	work.Flags(flag.CommandLine)
	flag.Parse()
	err := timeouts.Check(c.headerTimeout, c.idleTimeout)
	if err == nil {
		err = work.Check()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "nbio: %v\n", err)
		os.Exit(2)
	}
	return c
}

// serve runs the engine with h until SIGINT or SIGTERM, then stops it
// gracefully.
func serve(c config, h http.Handler) error {
	// nbio logs every start, stop and failed accept; the listener below
	// logs the failed accepts, at most one line a second.
	logging.SetLevel(logging.LevelNone)
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	inner, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	ln := newListener(inner)
	e := nbhttp.NewEngine(nbhttp.Config{
		Network: "tcp",
		Addrs:   []string{c.addr},
		// The engine listens through Listen: hand it ours, already bound.
		Listen:  func(string, string) (net.Listener, error) { return ln, nil },
		NPoller: 1, // one event loop reads every connection
		Handler: h,
		// The deadline of a connection waiting for its next request.
		KeepaliveTime: c.idleTimeout,
	})
	var g *guards
	if !c.bare {
		g = newGuards(e, c.headerTimeout)
	}
	if err := e.Start(); err != nil {
		return err
	}
	log.Printf("nbio: listening on %s (GOMAXPROCS=%d)", inner.Addr(), runtime.GOMAXPROCS(0))
	<-ctx.Done()
	// Stop accepting, let the requests in flight be answered, then stop;
	// the contract allows 5 s in all.
	ln.drain()
	sctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	if g != nil {
		g.drain(sctx)
	}
	e.Stop()
	return nil
}

// contract wraps h with what net/http's server does and nbhttp leaves to
// the handler: every answer names the stack, HEAD gets no body, and an
// HTTP/1.0 request that asks to keep its connection is told it is kept.
func contract(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "nbio")
		if r.ProtoMinor == 0 && !r.Close {
			w.Header().Set("Connection", "keep-alive")
		}
		if r.Method != http.MethodHead {
			h.ServeHTTP(w, r)
			return
		}
		hw := &headWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(hw, r)
		if hw.Header().Get("Content-Length") == "" {
			hw.Header().Set("Content-Length", strconv.Itoa(hw.n))
		}
		w.WriteHeader(hw.status)
	})
}

// headWriter answers HEAD with the GET's headers and no body: it counts
// the body for its Content-Length, as net/http does, where nbhttp would
// send it, or for a body of unknown length, a chunked one's last chunk.
type headWriter struct {
	http.ResponseWriter
	status, n int
}

func (w *headWriter) WriteHeader(status int)      { w.status = status }
func (w *headWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// listener is the engine's listener. nbio's accept loop retries at once on
// every error but a timeout, until the engine stops: on a closed listener,
// or out of descriptors, it would spin. This listener waits instead: a
// growing pause after a failed accept, and once drained, until the engine
// closes it.
type listener struct {
	net.Listener
	log     *log.Logger
	drained chan struct{}
	closed  chan struct{}
	pause   time.Duration
}

func newListener(ln net.Listener) *listener {
	return &listener{
		Listener: ln,
		log:      log.New(nethttpguard.NewRateLimited(os.Stderr, time.Second), "nbio: ", 0),
		drained:  make(chan struct{}),
		closed:   make(chan struct{}),
	}
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.pause = 0
		return c, nil
	}
	select {
	case <-l.drained:
		<-l.closed
		return nil, net.ErrClosed
	default:
	}
	// As net/http does: 5 ms, doubling up to a second.
	l.pause = min(max(2*l.pause, 5*time.Millisecond), time.Second)
	l.log.Printf("accept: %v; retrying in %v", err, l.pause)
	time.Sleep(l.pause)
	return nil, err
}

// drain stops accepting: new connections are refused.
func (l *listener) drain() {
	close(l.drained)
	l.Listener.Close()
}

// Close is the engine's, as it stops.
func (l *listener) Close() error {
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
	if err := l.Listener.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

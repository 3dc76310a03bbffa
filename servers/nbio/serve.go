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
	"strings"
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
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	s, err := start(ln, c, h)
	if err != nil {
		return err
	}
	log.Printf("nbio: listening on %s (GOMAXPROCS=%d)", ln.Addr(), runtime.GOMAXPROCS(0))
	<-ctx.Done()
	s.shutdown()
	return nil
}

// server is a running engine.
type server struct {
	e  *nbhttp.Engine
	ln *listener
	g  *guards // nil with -bare
}

// start serves h on inner with nbhttp's engine, guarded unless c.bare.
func start(inner net.Listener, c config, h http.Handler) (*server, error) {
	s := &server{ln: newListener(inner)}
	logging.SetLogger(acceptLog{s.ln.log})
	cfg := nbhttp.Config{
		Network: "tcp",
		Addrs:   []string{inner.Addr().String()},
		// The engine listens through Listen: hand it ours, already bound.
		Listen: func(string, string) (net.Listener, error) { return s.ln, nil },
		// An event loop per core the runtime may use: under GOMAXPROCS=1,
		// one loop reads every connection.
		NPoller: runtime.GOMAXPROCS(0),
		Handler: h,
		// The deadline of a connection waiting for its next request.
		KeepaliveTime: c.idleTimeout,
		// nbio reads on while a client leaves its answers unread, and
		// would queue them without bound: past 64 KiB unsent (about 200
		// answers) it closes the connection instead.
		MaxWriteBufferSize: 64 << 10,
	}
	s.e = nbhttp.NewEngine(cfg)
	if !c.bare {
		// The handlers run on the loop, as a handler that does not
		// block is run on an event loop; with -work-wait, on nbio's task
		// pool, its default, so that a handler that waits blocks only
		// its connection (nbio still runs each connection's requests in
		// order). With -bare, on the pool, as nbio runs out of the box.
		s.g = newGuards(s.e, c.headerTimeout, work.Wait == 0)
	}
	return s, s.e.Start()
}

// shutdown stops accepting, lets the requests in flight be answered, then
// stops the engine; the contract allows 5 s in all.
func (s *server) shutdown() {
	s.ln.drain()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	if s.g != nil {
		s.g.drain(ctx)
	}
	s.e.Stop()
}

// contract serves mux with what net/http's server does and nbhttp leaves
// to the handler: every answer names the stack, an HTTP/1.0 request that
// asks to keep its connection is told it is kept, and an answer whose
// handler sets no Content-Length (the mux's 404 and 405, which nbhttp would
// send chunked) and every answer to HEAD are sized: net/http sets
// Content-Length for a small body, and sends none for HEAD.
func contract(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "nbio")
		if r.ProtoMinor == 0 && !r.Close {
			w.Header().Set("Connection", "keep-alive")
		}
		h, pattern := mux.Handler(r)
		if pattern != "" && r.Method != http.MethodHead {
			h.ServeHTTP(w, r) // the page and /json set Content-Length
			return
		}
		sw := &sizedWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		w.Header().Set("Content-Length", strconv.Itoa(len(sw.body)))
		w.WriteHeader(sw.status)
		if r.Method != http.MethodHead {
			w.Write(sw.body)
		}
	})
}

// sizedWriter holds an answer's status and body until its handler returns.
type sizedWriter struct {
	http.ResponseWriter
	status int
	body   []byte
}

func (w *sizedWriter) WriteHeader(status int) { w.status = status }

func (w *sizedWriter) Write(p []byte) (int, error) {
	w.body = append(w.body, p...)
	return len(p), nil
}

// acceptLog is nbio's logger: as net/http's error log, it says only why
// a connection could not be taken once accepted ("AddConn...failed", such
// as a descriptor nbio could not dup), at most a line a second with the
// listener's own failed accepts; nbio's starts, stops, failed requests and
// its word on failed accepts (that its loop exits, which it does not) go
// unsaid.
type acceptLog struct{ l *log.Logger }

func (acceptLog) Debug(string, ...any) {}
func (acceptLog) Info(string, ...any)  {}
func (acceptLog) Warn(string, ...any)  {}

func (a acceptLog) Error(format string, v ...any) {
	if strings.HasPrefix(format, "AddConn") {
		a.l.Printf(format, v...)
	}
}

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

//go:build linux

// Command gnet serves the hellobench page on github.com/panjf2000/gnet/v2,
// an event-loop networking library with no HTTP in it: the HTTP/1.1 request
// parser (package http1, in servers/internal/http1) and response writer
// (response.go) are this program's own.
//
// Beside the page it answers /json, a page.Message encoded with
// encoding/json's json.Marshal on every request (package jsonreply).
//
// It is a complete server, not a benchmark special: it validates requests
// per RFC 9112, reads requests split over any number of reads, answers
// pipelined ones in order (in one write when no handler waits), consumes
// bodies (chunked included), enforces header and idle timeouts, drains on
// SIGINT or SIGTERM, and keeps serving when connections outnumber its
// open-file limit (limit.go).
//
// With -work-cpu and -work-wait its handler does work before it answers, as
// every server's can; a wait runs off the event loop, on a bounded pool of
// goroutines, unless -work-wait-inline asks for the naive wait on the loop
// (work.go).
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/panjf2000/gnet/v2"

	"hellobench/servers/internal/timeouts"
)

// serverName is what the Server header of every response says.
const serverName = "gnet"

func main() {
	addr := flag.String("addr", ":8084", "listen `address`")
	headerTimeout := flag.Duration("header-timeout", 10*time.Second, "close a connection whose request, body included, is not complete within this `duration` of its first byte")
	idleTimeout := flag.Duration("idle-timeout", 60*time.Second, "close a keep-alive connection idle for this `duration`")
	work.Flags(flag.CommandLine)
	flag.BoolVar(&waitInline, "work-wait-inline", false, "wait on the event loop itself, which blocks every connection on it (the naive handler, to show its cost);\n"+
		"without it a wait runs off the loop, on the -work-pool goroutines")
	flag.IntVar(&poolSize, "work-pool", poolSize, "at most this many `goroutines` wait off the event loops at once; further waits queue until one is free")
	flag.Parse()
	if err := timeouts.Check(*headerTimeout, *idleTimeout); err != nil {
		fmt.Fprintf(os.Stderr, "gnet: %v\n", err)
		os.Exit(2)
	}
	if err := work.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "gnet: %v\n", err)
		os.Exit(2)
	}
	if poolSize < 1 {
		fmt.Fprintf(os.Stderr, "gnet: -work-pool %d: want at least 1\n", poolSize)
		os.Exit(2)
	}

	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	// With SO_REUSEPORT (see options) gnet's bind succeeds even if another
	// server holds the port with that option too; a plain bind first makes
	// a taken port an error, as for any other server.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("gnet: %v", err)
	}
	ln.Close()

	s := newServer(*addr, *headerTimeout, *idleTimeout)
	done := make(chan error, 1)
	go func() { done <- gnet.Run(s, "tcp://"+*addr, options()...) }()

	select {
	case err := <-done:
		if err == nil {
			err = errors.New("engine stopped")
		}
		log.Fatalf("gnet: %v", err)
	case <-s.booted:
	}
	select {
	case err := <-done:
		log.Fatalf("gnet: engine stopped: %v", err)
	case <-sig:
	}
	// The contract allows 5 s from the signal to exit: up to 3 s for
	// requests in flight, up to 1 s for the engine to stop, and a little
	// for gnet.Run to return.
	s.shutdown(3 * time.Second)
	select {
	case <-done:
	case <-time.After(500 * time.Millisecond):
		log.Print("gnet: engine still running at exit")
	}
}

func options() []gnet.Option {
	procs := runtime.GOMAXPROCS(0)
	return []gnet.Option{
		// gnet's multicore form past one P, with one event loop per P:
		// GOMAXPROCS from the environment decides, as for the other servers.
		// (WithMulticore alone would start NumCPU loops; WithNumEventLoop
		// overrides that count.) At GOMAXPROCS=1, one loop.
		gnet.WithMulticore(procs > 1),
		gnet.WithNumEventLoop(procs),
		// Each event loop keeps its own thread. When a loop sleeps in
		// epoll_wait, the scheduler takes its P away after 20 µs (there is
		// no other P at GOMAXPROCS=1); unlocked, the loop then often wakes
		// on another thread, and hopping threads cost about a sixth more
		// CPU per request in a keep-alive run on one core.
		gnet.WithLockOSThread(true),
		// OnTick drives the timeouts and the Date cache: no timer, no
		// goroutine per connection.
		gnet.WithTicker(true),
		// The default, said here: responses leave at once, no Nagle delay.
		gnet.WithTCPNoDelay(gnet.TCPNoDelay),
		// Each event loop accepts on its own SO_REUSEPORT socket, instead of
		// one acceptor goroutine handing every new connection over to a
		// loop: on one core that hand-off made a connection-per-request run
		// cost about a fifth more CPU per request. (main checks the port
		// is free first, since SO_REUSEPORT would share it silently.)
		gnet.WithReusePort(true),
		// gnet logs each start and stop through zap; keep its errors only.
		gnet.WithLogger(quiet{}),
	}
}

// quiet passes gnet's errors to the log package and drops the rest.
type quiet struct{}

func (quiet) Debugf(string, ...any)             {}
func (quiet) Infof(string, ...any)              {}
func (quiet) Warnf(string, ...any)              {}
func (quiet) Errorf(format string, args ...any) { log.Printf("gnet: "+format, args...) }
func (quiet) Fatalf(format string, args ...any) { log.Fatalf("gnet: "+format, args...) }

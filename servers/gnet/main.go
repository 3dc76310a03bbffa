//go:build linux

// Command gnet serves the hellobench page on github.com/panjf2000/gnet/v2,
// an event-loop networking library with no HTTP in it: the HTTP/1.1 request
// parser and response writer (package http1) and the /json answer (package
// jsonreply), a page.Message encoded with json.Marshal on every request,
// are this program's own.
//
// It is a complete server, not a benchmark special: it validates requests
// per RFC 9112, reads requests split over any number of reads, answers
// pipelined ones in order (traffic.go, http.go), enforces header and idle
// timeouts (tick.go), drains on SIGINT or SIGTERM (drain.go), keeps serving
// when connections outnumber its open-file limit (limit.go), and with
// -work-cpu and -work-wait does work before it answers, off the event loop
// when it waits (work.go).
package main

import (
	"flag"
	"fmt"
	"runtime"

	"github.com/panjf2000/gnet/v2"

	"hellobench/servers/internal/serve"
)

// serverName is what the Server header of every response says.
const serverName = "gnet"

func main() {
	f := serve.New("gnet", ":8084", serve.HeaderBody)
	f.Work(&work)
	flag.BoolVar(&waitInline, "work-wait-inline", false, "wait on the event loop itself, which blocks every connection on it (the naive handler, to show its cost);\n"+
		"without it a wait runs off the loop, on the -work-pool goroutines")
	flag.IntVar(&poolSize, "work-pool", poolSize, "at most this many `goroutines` wait off the event loops at once; further waits queue until one is free")
	f.Check(func() error {
		if poolSize < 1 {
			return fmt.Errorf("-work-pool %d: want at least 1", poolSize)
		}
		return nil
	})
	f.Parse()
	run(newServer(f.Addr, f.HeaderTimeout, f.IdleTimeout), f.Addr) // run.go
}

// options are the engine's, passed to gnet.Run.
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

//go:build linux

package main

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"hellobench/servers/internal/connlimit"
	"hellobench/servers/internal/timeouts"
	"hellobench/servers/internal/waitpool"
)

// server is what the loops share.
type server struct {
	headerTimeout time.Duration
	idleTimeout   time.Duration
	minWait       time.Duration // io_uring's minimum wait for a batch; 0: none
	start         time.Time     // origin of the loops' monotonic clocks

	loops    []*loop
	draining atomic.Bool // set on SIGINT or SIGTERM
	// limit counts the connections whose descriptor is not yet closed,
	// against the open-file limit (limit.go).
	limit *connlimit.Limit

	pool waitpool.Pool // for handler waits off the rings (work.go)
}

func newServer(headerTimeout, idleTimeout time.Duration) *server {
	return &server{
		headerTimeout: headerTimeout,
		idleTimeout:   idleTimeout,
		start:         time.Now(),
		limit:         newLimit(1), // open sizes it for its loops
		pool:          waitpool.Pool{Size: poolSize},
	}
}

// checkArgs checks the flags main has parsed.
func checkArgs(headerTimeout, idleTimeout, minWait time.Duration) error {
	if err := timeouts.Check(headerTimeout, idleTimeout); err != nil {
		return err
	}
	if err := work.Check(); err != nil {
		return err
	}
	if minWait < 0 || minWait > time.Second {
		return fmt.Errorf("-min-wait %v: want 0 to 1s", minWait)
	}
	if poolSize < 1 {
		return fmt.Errorf("-work-pool %d: want at least 1", poolSize)
	}
	return nil
}

// stop starts the drain: each loop stops accepting, closes its idle
// connections, lets the others finish the request they are in, and
// returns within grace.
func (s *server) stop() {
	s.draining.Store(true)
	for _, l := range s.loops {
		l.wakeUp()
	}
}

// serve starts n loops on addr and returns once they serve; done receives
// each loop's end.
func (s *server) serve(addr string, n int) (done chan error, err error) {
	loops, err := s.open(addr, n)
	if err != nil {
		return nil, err
	}
	// Each loop owns a thread: its ring is set up for a single issuer, and
	// the loop sleeps in io_uring_enter, not in the Go scheduler, unless
	// handler waits need the P (loop.setup).
	ready := make(chan error, len(loops))
	done = make(chan error, len(loops))
	for _, l := range loops {
		go func() {
			runtime.LockOSThread()
			if err := l.setup(); err != nil {
				ready <- err
				return
			}
			ready <- nil
			done <- l.run()
		}()
	}
	for range loops {
		if err := <-ready; err != nil {
			return nil, err
		}
	}
	return done, nil
}

// open makes n loops, each with a listening socket of its own. The sockets
// share the port with SO_REUSEPORT, so the kernel spreads connections over
// the loops with no hand-off between them.
func (s *server) open(addr string, n int) ([]*loop, error) {
	s.limit = newLimit(n)
	for range n {
		lfd, err := listen(addr)
		if err != nil {
			return nil, fmt.Errorf("listen %s: %w", addr, err)
		}
		s.loops = append(s.loops, newLoop(s, lfd))
	}
	return s.loops, nil
}

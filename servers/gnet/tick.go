//go:build linux

package main

import (
	"context"
	"time"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// OnTick runs on gnet's ticker goroutine; it hands the sweep to each event
// loop, which runs it between its I/O events.
func (s *server) OnTick() (time.Duration, gnet.Action) {
	s.sweepAll()
	s.limit.Report(time.Now())
	return tick, gnet.None
}

func (s *server) sweepAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.loops {
		_ = l.el.Execute(context.Background(), gnet.RunnableFunc(func(context.Context) error {
			s.sweep(l)
			return nil
		}))
	}
}

// sweep refreshes a loop's clock and Date, and closes its connections that
// are past their deadline, or idle while the server drains.
func (s *server) sweep(l *loop) {
	l.setClock(time.Now())
	draining := s.draining.Load()
	// Backwards, since closing moves the last connection into the slot.
	for i := len(l.conns) - 1; i >= 0; i-- {
		cs := l.conns[i]
		if cs.phase == phaseFlush {
			s.flushed(cs)
		}
		if cs.paused && cs.c.OutboundBuffered() < pauseAt {
			// Its answers have drained: serve the requests that waited.
			if s.OnTraffic(cs.c) == gnet.Close {
				_ = l.el.Close(cs.c)
			}
			if cs.closed {
				continue
			}
		}
		if l.now >= cs.deadline || (draining && s.idle(cs)) {
			_ = l.el.Close(cs.c)
		}
	}
}

// freshGrace is how long, while draining, a new connection that has sent
// nothing is left open: its client may be about to send its request. (Go's
// net/http waits 5 s; the drain has 3 s in all.)
const freshGrace = time.Second

// idle reports whether a connection can be closed while draining: between
// requests, its responses sent, no byte unread in the socket (closing with
// unread input would reset the connection), and, if it never sent a
// request, open for freshGrace.
func (s *server) idle(cs *conn) bool {
	if cs.phase != phaseIdle || cs.c.OutboundBuffered() > 0 {
		return false
	}
	if !cs.used && cs.loop.now-cs.opened < freshGrace {
		return false
	}
	n, err := unix.IoctlGetInt(cs.c.Fd(), unix.SIOCINQ)
	return err == nil && n == 0
}

// setClock sets the loop's time and Date to now.
func (l *loop) setClock(now time.Time) {
	l.now = now.Sub(l.start)
	l.clock.update(now)
}

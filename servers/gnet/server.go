//go:build linux

package main

import (
	"log"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"

	"hellobench/servers/internal/connlimit"
	"hellobench/servers/internal/http1"
	"hellobench/servers/internal/waitpool"
)

const (
	// tick is how often each event loop refreshes its clock and Date and
	// looks for connections past their deadline: the precision of the
	// timeouts, and the staleness bound of Date within a second.
	tick = 100 * time.Millisecond
	// linger is how long a closing connection, its response sent and its
	// write side shut, reads and drops what the client still sends, so that
	// closing does not reset the connection under the client's last response.
	linger = time.Second
	// maxPending bounds the requests kept unread while an answer is
	// worked on off the loop (work.go).
	maxPending = 1 << 20
	// pauseAt is how many bytes of answers a connection may have queued
	// unsent before its further requests wait: what a client that pipelines
	// and never reads makes the server hold, against a thousand such clients.
	pauseAt = 16 << 10
	// maxUnread bounds the requests a paused connection may have waiting
	// (about a hundred): gnet reads every socket into its buffers, so past
	// it the connection closes.
	maxUnread = 4 << 10
)

// phase is where a connection is in its exchange, which decides its deadline.
type phase uint8

const (
	phaseIdle    phase = iota // between requests (or none yet): idle timeout
	phaseRequest              // a request has started: header timeout, from its first byte
	phaseBody                 // reading its body: the same timeout, not renewed
	phaseWait                 // its answer is worked on off the loop (work.go): no timeout, nothing read
	phaseFlush                // last response still being written
	phaseLinger               // last response sent, write side shut
)

// server is the gnet.EventHandler. Each connection's state lives in its
// gnet.Conn context, each event loop's in a loop; both are touched only on
// that event loop's goroutine, so they need no locks.
type server struct {
	gnet.BuiltinEventEngine

	addr          string
	headerTimeout time.Duration
	idleTimeout   time.Duration
	start         time.Time // origin of the loops' monotonic clocks

	eng      gnet.Engine
	booted   chan struct{}    // closed by OnBoot
	draining atomic.Bool      // set on SIGINT or SIGTERM
	limit    *connlimit.Limit // open connections, against the open-file limit (limit.go)

	pool waitpool.Pool // for handler waits off the loops (work.go)

	mu    sync.Mutex // guards loops, read by the ticker goroutine
	loops []*loop
}

// loop is the state of one event loop.
type loop struct {
	el    gnet.EventLoop
	start time.Time     // server.start
	now   time.Duration // since start, as of the last tick
	clock clock
	conns []*conn // for the sweep
	out   []byte  // responses of one OnTraffic call, reused
}

// conn is the state of one connection.
type conn struct {
	c        gnet.Conn
	loop     *loop
	idx      int // in loop.conns
	p        http1.Parser
	phase    phase
	deadline time.Duration // loop time
	opened   time.Duration // loop time of OnOpen
	used     bool          // a request has been answered
	closed   bool

	// The answer to the request being read, chosen when its header section
	// completes and sent when its body has been read.
	reply      *http1.Reply
	head       bool
	connection http1.Connection
	held       bool // serve stopped at a request answered off the loop
	paused     bool // serve stopped at pauseAt with requests left: the sweep resumes it
}

func newServer(addr string, headerTimeout, idleTimeout time.Duration) *server {
	return &server{
		addr:          addr,
		headerTimeout: headerTimeout + tick, // one tick: never early
		idleTimeout:   idleTimeout + tick,
		start:         time.Now(),
		booted:        make(chan struct{}),
		pool:          waitpool.Pool{Size: poolSize},
	}
}

func (s *server) OnBoot(eng gnet.Engine) gnet.Action {
	s.eng = eng
	s.limit = newLimit(runtime.GOMAXPROCS(0)) // one loop per P: see options
	log.Printf("gnet: listening on %s (GOMAXPROCS=%d)", s.addr, runtime.GOMAXPROCS(0))
	close(s.booted)
	return gnet.None
}

func (s *server) OnOpen(c gnet.Conn) ([]byte, gnet.Action) {
	if !s.limit.Acquire() {
		s.limit.Refuse()
		return nil, gnet.Close
	}
	l := s.loopOf(c.EventLoop())
	cs := &conn{c: c, loop: l, idx: len(l.conns), phase: phaseIdle, opened: l.now}
	// A new connection gets the header timeout for its first request, as
	// in net/http: it has not earned the longer idle timeout yet.
	cs.deadline = l.now + s.headerTimeout
	l.conns = append(l.conns, cs)
	c.SetContext(cs)
	// Even while draining: the client may have sent its request already.
	return nil, gnet.None
}

func (s *server) OnClose(c gnet.Conn, _ error) gnet.Action {
	cs, ok := c.Context().(*conn)
	if !ok {
		return gnet.None
	}
	cs.closed = true
	l := cs.loop
	last := l.conns[len(l.conns)-1]
	l.conns[cs.idx] = last
	last.idx = cs.idx
	l.conns[len(l.conns)-1] = nil
	l.conns = l.conns[:len(l.conns)-1]
	s.limit.Release()
	return gnet.None
}

// loopOf returns the state of event loop el, made on its first connection.
func (s *server) loopOf(el gnet.EventLoop) *loop {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.loops {
		if l.el == el {
			return l
		}
	}
	l := &loop{el: el, start: s.start}
	l.setClock(time.Now())
	s.loops = append(s.loops, l)
	return l
}

//go:build linux

package main

import (
	"context"
	"log"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"

	"hellobench/servers/internal/connlimit"
	"hellobench/servers/internal/http1"
	"hellobench/servers/internal/jsonreply"
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

func (s *server) OnTraffic(c gnet.Conn) gnet.Action {
	cs := c.Context().(*conn)
	switch {
	case cs.phase >= phaseFlush:
		_, _ = c.Discard(-1) // past the last request: dropped
		return gnet.None
	case cs.phase == phaseWait:
		// Kept unread until the answer is written (work.go), within
		// bounds.
		if c.InboundBuffered() > maxPending {
			return gnet.Close
		}
		return gnet.None
	case c.OutboundBuffered() >= pauseAt:
		// Its answers are not being read: its requests wait until they are.
		cs.paused = true
		if c.InboundBuffered() > maxUnread {
			return gnet.Close
		}
		return gnet.None
	}
	cs.paused = false
	l := cs.loop
	in, _ := c.Peek(-1)
	// The flag itself, not the loop's copy: a sweep queued by the
	// shutdown may run after this request, which must still say close.
	out, n, closing, served := cs.serve(l.out[:0], in, l.clock.date[:], s.draining.Load())
	l.out = out[:0]
	full := len(out) >= pauseAt // serve stopped at its budget
	rest := len(in) - n
	if closing {
		n = -1 // whatever follows the last request is dropped
	}
	if n != 0 { // Discard(0) would drop everything
		_, _ = c.Discard(n)
	}
	if len(out) > 0 {
		if c.OutboundBuffered() == 0 {
			out = out[send(c.Fd(), out):]
		}
		if len(out) > 0 {
			// What the socket refused: gnet queues it and writes it when
			// the socket drains, or closes the connection on an error.
			_, _ = c.Write(out)
		}
	}
	if cs.closed { // the write failed and gnet closed the connection
		return gnet.None
	}
	if cs.held {
		cs.held = false
		cs.phase = phaseWait
		cs.deadline = math.MaxInt64
		s.pool.Submit((&job{s: s, cs: cs, head: cs.head, connection: cs.connection}).run)
		return gnet.None
	}
	switch {
	case closing && rest == 0 && cs.p.Status == 0 && c.OutboundBuffered() == 0:
		// A request that asked to close, fully read, its response sent:
		// the client has nothing more to send, so closing now cannot reset
		// the connection under the response.
		return gnet.Close
	case closing:
		cs.phase = phaseFlush
		cs.deadline = l.now + s.idleTimeout // for a client that does not read
		s.flushed(cs)
	case cs.p.Idle() && n == len(in):
		cs.used = true
		cs.phase = phaseIdle
		cs.deadline = l.now + s.idleTimeout
	default:
		// A request's clock starts with its first byte and runs until it
		// is read whole, body included: a body dripped slowly does not
		// renew it.
		if (cs.phase != phaseRequest && cs.phase != phaseBody) || served > 0 {
			cs.deadline = l.now + s.headerTimeout
		}
		cs.phase = phaseRequest
		if cs.p.InBody() {
			cs.phase = phaseBody
		}
	}
	if full && rest > 0 && !closing {
		if c.OutboundBuffered() == 0 { // the socket took them all: go on
			return s.OnTraffic(c)
		}
		if rest > maxUnread {
			return gnet.Close
		}
		cs.paused = true
	}
	return gnet.None
}

// serve parses the requests at the start of in and appends their responses
// to dst. It returns out, dst with the responses appended; n, how many bytes
// of in it is done with; closing, whether the connection closes after out;
// and served, how many requests it answered.
func (cs *conn) serve(dst, in, date []byte, draining bool) (out []byte, n int, closing bool, served int) {
	out = dst
	for {
		k, ev := cs.p.Parse(in[n:])
		n += k
		switch ev {
		case http1.More:
			return out, n, false, served
		case http1.Header:
			r := &cs.p.Req
			cs.reply, cs.head = http1.Route(r.Method, r.Path)
			if cs.reply == http1.NotFound {
				cs.reply, cs.head = jsonreply.Route(r.Method, r.Path)
			}
			switch {
			case !r.KeepAlive || (draining && n == len(in)):
				// Draining, the last request that has arrived says
				// close; those pipelined before it are answered.
				cs.connection = http1.ConnClose
			case r.Minor == 0:
				cs.connection = http1.ConnKeepAlive
			default:
				cs.connection = http1.ConnNone
			}
			// Ask for the body only if none of it has come yet; a client
			// that sent it anyway does not wait.
			if r.Continue && n == len(in) {
				out = append(out, http1.Continue...)
			}
		case http1.Done:
			if work.On() && cs.reply == http1.OK {
				if work.Wait > 0 && !waitInline {
					// Answered off the loop (work.go); what follows
					// this request is parsed once that answer is out.
					cs.held = true
					return out, n, false, served
				}
				cs.workInline()
			}
			if cs.reply == jsonreply.Reply {
				out = jsonreply.Append(out, serverName, cs.head, cs.connection, date)
			} else {
				out = http1.AppendResponse(out, serverName, cs.reply, cs.head, cs.connection, date)
			}
			served++
			if cs.connection == http1.ConnClose {
				return out, n, true, served
			}
			if len(out) >= pauseAt { // the rest when these are sent
				return out, n, false, served
			}
		case http1.Fail:
			out = http1.AppendResponse(out, serverName, http1.ErrorReply(cs.p.Status), false, http1.ConnClose, date)
			return out, n, true, served
		}
	}
}

// flushed shuts the write side of a closing connection once its last
// response has left, and starts the linger: the client reads the response
// and EOF, and closing later does not reset data it has not read yet.
func (s *server) flushed(cs *conn) {
	if cs.c.OutboundBuffered() > 0 {
		return
	}
	_ = unix.Shutdown(cs.c.Fd(), unix.SHUT_WR)
	cs.phase = phaseLinger
	cs.deadline = cs.loop.now + linger
}

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

// setClock sets the loop's time and Date to now.
func (l *loop) setClock(now time.Time) {
	l.now = now.Sub(l.start)
	l.clock.update(now)
}

// send writes b to fd directly and returns how much the socket took (0 on
// any error, which c.Write then meets and handles). It is what c.Write does
// with nothing queued, less the scheduler's syscall bookkeeping (the socket
// is non-blocking, so the call cannot block) and the file layer of write(2)
// (sendto goes straight to the socket); at GOMAXPROCS=1 each was about 1 %
// of a request. MSG_NOSIGNAL: a peer gone is an error here, not a SIGPIPE.
func send(fd int, b []byte) int {
	n, _, errno := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), unix.MSG_NOSIGNAL, 0, 0)
	if errno != 0 {
		return 0
	}
	return int(n)
}

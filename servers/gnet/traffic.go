//go:build linux

package main

import (
	"unsafe"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// batch is what one pass over a connection's input did.
type batch struct {
	out     []byte // the answers, in the loop's buffer
	n       int    // bytes of input done with
	rest    int    // bytes of input after them
	closing bool   // the connection closes after out
	served  int    // requests answered
}

// OnTraffic serves the requests a connection has sent, in steps: wait if
// it must, parse and answer what has come, write the answers, then set
// what the connection does next.
func (s *server) OnTraffic(c gnet.Conn) gnet.Action {
	cs := c.Context().(*conn)
	if act, ok := cs.ready(); !ok {
		return act
	}
	in, _ := c.Peek(-1)
	b := s.answer(cs, in)
	cs.consume(b)
	cs.write(b.out)
	switch {
	case cs.closed: // the write failed and gnet closed the connection
		return gnet.None
	case cs.held: // its answer is worked on off the loop
		s.hold(cs) // work.go
		return gnet.None
	case b.closing:
		return s.finish(cs, b.rest)
	}
	s.next(cs, b)
	return s.more(cs, b)
}

// ready reports whether cs may be served now, and if not what OnTraffic
// returns. Past its last request, what comes is dropped. While its answer
// is worked on off the loop (work.go), its input is kept unread, within
// bounds. While its answers are not being read, it pauses: its requests
// wait until they are, within bounds; the sweep resumes it.
func (cs *conn) ready() (gnet.Action, bool) {
	c := cs.c
	switch {
	case cs.phase >= phaseFlush:
		_, _ = c.Discard(-1)
		return gnet.None, false
	case cs.phase == phaseWait:
		return closeIf(c.InboundBuffered() > maxPending), false
	case c.OutboundBuffered() >= pauseAt:
		cs.paused = true
		return closeIf(c.InboundBuffered() > maxUnread), false
	}
	cs.paused = false
	return gnet.None, true
}

// closeIf returns gnet.Close if cond, else gnet.None.
func closeIf(cond bool) gnet.Action {
	if cond {
		return gnet.Close
	}
	return gnet.None
}

// answer parses the requests at the start of in and answers them (serve,
// http.go), into the loop's buffer.
func (s *server) answer(cs *conn, in []byte) batch {
	l := cs.loop
	// The flag itself, not the loop's copy: a sweep queued by the
	// shutdown may run after this request, which must still say close.
	out, n, closing, served := cs.serve(l.out[:0], in, l.clock.date[:], s.draining.Load())
	l.out = out[:0]
	return batch{out: out, n: n, rest: len(in) - n, closing: closing, served: served}
}

// consume drops the input b is done with: all of it if the connection
// closes, since whatever follows the last request is dropped.
func (cs *conn) consume(b batch) {
	n := b.n
	if b.closing {
		n = -1
	}
	if n != 0 { // Discard(0) would drop everything
		_, _ = cs.c.Discard(n)
	}
}

// write sends out: straight to the socket when nothing is queued before
// it, and what the socket refused through gnet, which queues it and writes
// it when the socket drains, or closes the connection on an error.
func (cs *conn) write(out []byte) {
	c := cs.c
	if len(out) > 0 && c.OutboundBuffered() == 0 {
		out = out[send(c.Fd(), out):]
	}
	if len(out) > 0 {
		_, _ = c.Write(out)
	}
}

// finish ends a connection whose last answer is out, rest bytes of input
// after it. If the client has nothing more to send and the answer has left,
// closing now cannot reset the connection under it; otherwise the answer
// is flushed and the connection lingers (flushed).
func (s *server) finish(cs *conn, rest int) gnet.Action {
	if rest == 0 && cs.p.Status == 0 && cs.c.OutboundBuffered() == 0 {
		return gnet.Close
	}
	cs.phase = phaseFlush
	cs.deadline = cs.loop.now + s.idleTimeout // for a client that does not read
	s.flushed(cs)
	return gnet.None
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

// next sets the phase and deadline of a connection kept open: idle if its
// requests were all read whole, or in a request.
func (s *server) next(cs *conn, b batch) {
	if cs.p.Idle() && b.rest == 0 {
		s.setIdle(cs)
		return
	}
	// A request's clock starts with its first byte and runs until it is
	// read whole, body included: a body dripped slowly does not renew it.
	if (cs.phase != phaseRequest && cs.phase != phaseBody) || b.served > 0 {
		cs.deadline = cs.loop.now + s.headerTimeout
	}
	cs.phase = phaseRequest
	if cs.p.InBody() {
		cs.phase = phaseBody
	}
}

// setIdle puts cs between requests, on the idle timeout.
func (s *server) setIdle(cs *conn) {
	cs.used = true
	cs.phase = phaseIdle
	cs.deadline = cs.loop.now + s.idleTimeout
}

// more goes on with the requests left when answering stopped at pauseAt's
// budget: at once if the socket took every answer, else once they drain,
// when the sweep resumes the paused connection; past maxUnread waiting, it
// closes.
func (s *server) more(cs *conn, b batch) gnet.Action {
	if len(b.out) < pauseAt || b.rest == 0 {
		return gnet.None
	}
	if cs.c.OutboundBuffered() == 0 {
		return s.OnTraffic(cs.c)
	}
	if b.rest > maxUnread {
		return gnet.Close
	}
	cs.paused = true
	return gnet.None
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

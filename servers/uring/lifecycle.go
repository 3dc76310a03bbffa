//go:build linux

package main

import (
	"golang.org/x/sys/unix"

	"hellobench/internal/uring"
)

// A connection's lifetime, owned here and nowhere else. open takes a slot
// and a generation; close moves the connection to stateClosing, takes it
// off every timeout list and queues its cancel and close; complete, the
// one dispatch of every completion, hands a closing connection's
// completions to no handler, only counting them; settle frees the slot
// once the connection is closing and has no operation in flight. So a
// handler never sees a closing connection, and a slot, with its
// descriptor number, is never named by two connections' operations.

// state is where a connection is in its lifetime. The open states decide
// its deadline; a closing connection has none.
type state uint8

const (
	stateFree    state = iota // the slot is not in use
	stateIdle                 // between requests (or none yet): idle timeout
	stateRequest              // a request has started: header timeout, from its first byte
	stateBody                 // reading its body: the same timeout, not renewed
	stateWait                 // its answer is worked on off the ring (work.go): no timeout, nothing parsed
	stateFlush                // last response still being sent
	stateLinger               // last response sent, write side shut
	stateClosing              // cancel and close queued: its completions are only counted
)

// ref names a connection in one of the loop's queues (dirty, starved,
// hungry): the queue may outlive the connection, whose slot another may
// take by then.
type ref struct {
	c   *conn
	gen uint32
}

// open returns r's connection if it is still open.
func (r ref) open() *conn {
	if r.c.gen != r.gen || r.c.state == stateClosing {
		return nil
	}
	return r.c
}

// complete dispatches a completion: the loop's own, or a connection's to
// its handler, unless the connection is closing.
func (l *loop) complete(q uring.CQE) {
	op, slot, gen := uint8(q.UserData), int(q.UserData>>8&(maxSlots-1)), uint32(q.UserData>>32)
	switch op {
	case opAccept:
		l.accepted(q)
		return
	case opWake:
		l.woken()
		return
	case opListener:
		return
	}
	c := l.lookup(slot, gen)
	if c == nil {
		l.giveBack(q) // cannot happen: a slot outlives its operations
		return
	}
	if op != opRecv || q.Flags&uring.CQEMore == 0 {
		c.ops &^= 1 << op
	}
	if op == opClose {
		l.s.limit.Release() // its descriptor is free: the limit counts it no more
	}
	if c.state == stateClosing {
		l.giveBack(q)
		l.settle(c)
		return
	}
	switch op {
	case opRecv:
		l.received(c, q)
	case opSend:
		l.sent(c, q.Res)
	case opCancel:
		l.cancelled(c, q.Res)
	}
}

// lookup returns the connection of generation gen in slot, or nil.
func (l *loop) lookup(slot int, gen uint32) *conn {
	if slot < len(l.conns) && gen != 0 {
		if c := l.conns[slot]; c.gen == gen {
			return c
		}
	}
	return nil
}

// open starts serving connection fd: its slot, its generation (never 0,
// the mark of a free slot), its receive.
func (l *loop) open(fd int) {
	var c *conn
	if n := len(l.free); n > 0 {
		c, l.free = l.free[n-1], l.free[:n-1]
	} else {
		c = &conn{slot: len(l.conns)}
		l.conns = append(l.conns, c)
	}
	if l.gen++; l.gen == 0 {
		l.gen = 1
	}
	c.fd, c.gen = fd, l.gen
	c.state, c.opened = stateIdle, l.now
	// A new connection gets the header timeout for its first request, as
	// in net/http: it has not earned the longer idle timeout yet.
	l.arm(c, &l.request)
	c.idx = len(l.live)
	l.live = append(l.live, c)
	l.wantRecv(c)
}

// close closes c: its receive and any send are cancelled, then its
// descriptor closed, linked so that the descriptor cannot be reused before
// the cancel. c keeps its slot, and its buffers, until its last operation
// has completed (settle): a send the cancel could not stop (EALREADY) still
// reads its buffer. A send cut short makes the close a reset (SO_LINGER 0):
// the client must not take a cut response followed by a clean end for a
// whole one.
func (l *loop) close(c *conn) {
	l.disarm(c)
	unlink(c, &c.probe)
	if c.state == stateClosing {
		return
	}
	if c.ops.has(opSend) {
		_ = unix.SetsockoptLinger(c.fd, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1})
	}
	c.state = stateClosing
	last := l.live[len(l.live)-1]
	l.live[c.idx] = last
	last.idx = c.idx
	l.live[len(l.live)-1] = nil
	l.live = l.live[:len(l.live)-1]
	l.closing++
	l.kill(c)
}

// kill queues c's cancel and close, or puts the close in the backlog.
func (l *loop) kill(c *conn) {
	err := l.r.CancelAndClose(c.fd, userData(opKill, c.slot, c.gen), userData(opClose, c.slot, c.gen))
	if err != nil {
		c.ops |= 1 << opClose
		l.later(opClose, c)
		return
	}
	c.ops |= 1<<opKill | 1<<opClose
}

// settle frees c's slot and buffers once it is closing and its last
// operation has completed.
func (l *loop) settle(c *conn) {
	if c.state != stateClosing || c.ops != 0 {
		return
	}
	l.disarm(c)
	unlink(c, &c.probe)
	l.put(c.in)
	l.put(c.out)
	l.put(c.wire)
	c.in, c.out, c.wire = nil, nil, nil
	l.account(c)
	*c = conn{slot: c.slot} // generation 0: no lookup finds it
	l.free = append(l.free, c)
	l.closing--
}

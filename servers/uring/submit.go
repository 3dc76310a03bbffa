//go:build linux

package main

import "hellobench/internal/uring"

// Operations, in the low byte of an operation's user data; a connection's
// slot is in the next 24 bits and its generation in the top 32, so that
// the completions of a connection's operations find it, and only it, until
// the last one has completed and the slot is freed.
const (
	opAccept   = iota + 1
	opRecv     // a connection's multishot receive
	opSend     // a connection's send
	opCancel   // a pause's cancel of a connection's receive
	opKill     // the cancel before a connection's close
	opClose    // a connection's close
	opWake     // the eventfd's read
	opListener // the listener's cancel and close
)

func userData(op uint8, slot int, gen uint32) uint64 {
	return uint64(gen)<<32 | uint64(slot)<<8 | uint64(op)
}

// opSet is a connection's operations in flight, one bit per operation: a
// connection has at most one of each at a time.
type opSet uint16

func (s opSet) has(op uint8) bool { return s&(1<<op) != 0 }

// pending is an operation to queue again after the next reap.
type pending struct {
	op uint8
	c  *conn // nil for the loop's own
}

// sqe queues operation op of c (nil: the loop's own) and returns its entry
// to fill. When the submission queue cannot take it, it returns nil and
// the operation goes to the backlog, queued again after the next reap; for
// c it counts as in flight meanwhile.
func (l *loop) sqe(op uint8, c *conn) *uring.SQE {
	s, err := l.r.Get()
	if c != nil {
		c.ops |= 1 << op
	}
	if err != nil {
		l.later(op, c)
		return nil
	}
	if c != nil {
		s.UserData = userData(op, c.slot, c.gen)
	} else {
		s.UserData = userData(op, 0, 0)
	}
	return s
}

// later puts an operation the submission queue could not take in the
// backlog.
func (l *loop) later(op uint8, c *conn) {
	l.backlog = append(l.backlog, pending{op, c})
	l.delayed++
}

// retry queues the backlog again, each operation as its connection's
// state now wants it. As in the completion dispatch, a closing
// connection's operations are dropped, but for its close.
func (l *loop) retry() {
	todo := l.backlog
	l.backlog = nil
	for _, p := range todo {
		c := p.c
		if c == nil {
			switch p.op {
			case opAccept:
				l.accept()
			case opWake:
				l.readWake()
			case opListener:
				l.closeListener()
			}
			continue
		}
		c.ops &^= 1 << p.op
		switch {
		case p.op == opClose:
			l.kill(c)
		case c.state == stateClosing:
		case p.op == opRecv:
			l.wantRecv(c)
		case p.op == opSend:
			l.sendWire(c)
		case p.op == opCancel:
			if c.paused && c.ops.has(opRecv) {
				l.cancelRecv(c)
			}
		}
		l.settle(c)
	}
}

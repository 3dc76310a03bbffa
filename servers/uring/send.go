//go:build linux

package main

import "golang.org/x/sys/unix"

// markDirty queues c's answers for the send after this batch of
// completions: a client's pipelined requests, however many receives they
// came in, leave in one send.
func (l *loop) markDirty(c *conn) {
	if c.queued&inDirty == 0 {
		c.queued |= inDirty
		l.dirty = append(l.dirty, ref{c, c.gen})
	}
}

// flush sends the answers of the connections this batch made dirty, and
// lets the connections paused for the loop's budget go on once it has
// room again.
func (l *loop) flush() {
	for i, r := range l.dirty {
		if c := r.open(); c != nil {
			c.queued &^= inDirty
			l.send(c)
		}
		l.dirty[i] = ref{}
	}
	l.dirty = l.dirty[:0]
	if len(l.starved) > 0 && l.held < maxHeld/2 {
		starved := l.starved
		l.starved = nil
		for _, r := range starved {
			c := r.open()
			if c == nil {
				continue
			}
			c.queued &^= inStarved
			if c.paused && c.state != stateWait && c.unsent() < resumeAt {
				l.resume(c)
			}
		}
	}
}

// send starts sending c's answers, unless a send is in flight: they wait
// in c.out for its completion. MSG_WAITALL: the kernel sends them all
// before it completes.
func (l *loop) send(c *conn) {
	if c.ops.has(opSend) || len(c.out) == 0 {
		return
	}
	c.wire, c.out = c.out, nil
	l.sendWire(c)
}

func (l *loop) sendWire(c *conn) {
	if s := l.sqe(opSend, c); s != nil {
		s.PrepSend(c.fd, c.wire, unix.MSG_WAITALL|unix.MSG_NOSIGNAL)
	}
}

// sent takes the completion of c's send of res bytes. c is open: the
// completion dispatch drops a closing connection's.
func (l *loop) sent(c *conn, res int32) {
	if res < 0 {
		l.close(c) // the client has gone
		return
	}
	if int(res) < len(c.wire) { // a short send: the rest goes first
		c.wire = c.wire[:copy(c.wire, c.wire[res:])]
		l.account(c)
		l.sendWire(c)
		return
	}
	l.put(c.wire)
	c.wire = nil
	l.account(c)
	if c.paused && c.queued&inStarved == 0 && c.state != stateWait && c.unsent() < resumeAt {
		l.resume(c)
		if c.state == stateClosing {
			return
		}
	}
	switch {
	case len(c.out) > 0:
		l.send(c)
	case c.state == stateFlush:
		l.finish(c)
	case c.eof && c.state != stateWait:
		l.close(c) // answered all the client sent before it shut its side
	case l.drainFrom >= 0 && l.quiet(c):
		l.close(c) // draining: idle now, and nothing more is coming
	}
}

// finish ends a connection whose last response has left. A request read
// whole with nothing after it: the client has nothing more to send, so
// closing now cannot reset the connection under the response. Otherwise
// the write side is shut and the connection lingers: the client reads the
// response and EOF, and closing later does not reset data it has not read.
func (l *loop) finish(c *conn) {
	if c.clean || c.eof {
		l.close(c)
		return
	}
	_ = unix.Shutdown(c.fd, unix.SHUT_WR)
	c.state = stateLinger
	l.arm(c, &l.linger)
}

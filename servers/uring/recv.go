//go:build linux

package main

import (
	"golang.org/x/sys/unix"

	"hellobench/internal/uring"
)

// wantRecv queues c for a receive, armed by feed at the batch's end,
// unless one is armed, c is paused, or it is closing.
func (l *loop) wantRecv(c *conn) {
	if c.queued&inHungry != 0 || c.ops.has(opRecv) || c.paused || c.state == stateClosing {
		return
	}
	c.queued |= inHungry
	l.hungry = append(l.hungry, ref{c, c.gen})
}

// feed arms the queued receives, at most bufCount a batch (bufs.go), the
// first queued first; the rest wait for the next batch.
func (l *loop) feed() {
	armed, i := 0, 0
	for ; i < len(l.hungry) && armed < bufCount; i++ {
		c := l.hungry[i].open()
		l.hungry[i] = ref{}
		if c == nil {
			continue
		}
		c.queued &^= inHungry
		if !c.paused && !c.ops.has(opRecv) {
			l.recv(c)
			armed++
		}
	}
	l.hungry = l.hungry[:copy(l.hungry, l.hungry[i:])]
}

// recv arms c's multishot receive: it completes for each arrival of bytes,
// into a buffer the kernel takes from the ring.
func (l *loop) recv(c *conn) {
	if s := l.sqe(opRecv, c); s != nil {
		s.PrepRecvMultishot(c.fd, uring.BufGroup)
	}
}

// received takes a receive's completion: bytes, the end of the input, or
// the end of the multishot receive with its connection still open.
func (l *loop) received(c *conn, q uring.CQE) {
	if q.Flags&uring.CQEBuffer != 0 {
		bid := uint16(q.Flags >> uring.CQEBufferShift)
		if q.Res > 0 {
			l.input(c, l.br.Buf(bid)[:q.Res])
		}
		l.br.Put(bid) // published once the batch is handled
	}
	if c.state == stateClosing {
		return // input closed it
	}
	switch q.Res {
	case -int32(unix.ENOBUFS), -int32(unix.ECANCELED):
		// ENOBUFS: every buffer was lent; this batch returns them.
		// ECANCELED: paused, and maybe resumed since.
	default:
		if q.Res <= 0 {
			l.ended(c)
			return
		}
	}
	l.wantRecv(c)
}

// pause stops c's receive: what the client sends stays in the socket,
// and once its buffers fill, the client waits.
func (l *loop) pause(c *conn) {
	if c.paused || c.state == stateClosing {
		return
	}
	c.paused = true
	if c.ops.has(opRecv) {
		l.cancelRecv(c)
	}
}

func (l *loop) cancelRecv(c *conn) {
	if c.ops.has(opCancel) {
		return
	}
	if s := l.sqe(opCancel, c); s != nil {
		s.PrepCancel(userData(opRecv, c.slot, c.gen))
	}
}

// cancelled takes the result of a pause's cancel. 0: the receive ends
// (ECANCELED); ENOENT: it had ended already. Anything else (EALREADY) may
// leave it armed: while c is paused and its receive armed, the cancel is
// tried again, lest c stay paused with its input still arriving.
func (l *loop) cancelled(c *conn, res int32) {
	if res < 0 && res != -int32(unix.ENOENT) && c.paused && c.ops.has(opRecv) {
		l.cancelRecv(c)
	}
}

// resume serves what c received while paused, then arms its receive
// again, unless that paused it anew or the cancelled receive has not
// completed yet (received arms it then).
func (l *loop) resume(c *conn) {
	c.paused = false
	if len(c.in) > 0 {
		l.serve(c, c.in)
	}
	l.wantRecv(c)
}

// probe asks the connections stalled mid-request for probeEvery whether
// their client is still there: each once per stall, as it comes due, not
// every connection every second.
func (l *loop) probe() {
	t := &l.stalled
	for t.head != nil && t.head.probe.deadline <= l.now {
		c := t.head
		unlink(c, &c.probe)
		if l.stalledDead(c) {
			l.close(c)
		}
	}
}

// stalledDead reports whether c, stalled mid-request, has been reset or
// shut by its client, asking the socket's TCP state. The receive should
// say so itself, and nearly always does; but a reset that follows a
// connection's first bytes at once is now and then never reported to its
// multishot receive (the robustness suite's resets met about one in two
// thousand), and the connection would hold its descriptor until the
// header timeout. A later reset is reported: one look per stall is enough.
func (l *loop) stalledDead(c *conn) bool {
	if c.state != stateRequest && c.state != stateBody {
		return false
	}
	info, err := unix.GetsockoptTCPInfo(c.fd, unix.IPPROTO_TCP, unix.TCP_INFO)
	return err != nil || info.State == tcpClose || info.State == tcpCloseWait
}

// The TCP states of a connection its client has reset or shut, from the
// kernel's include/net/tcp_states.h.
const (
	tcpClose     = 7
	tcpCloseWait = 8
)

//go:build linux

package main

import "hellobench/internal/uring"

// The receive buffers the kernel picks from, lent to a connection only
// while its bytes are parsed: 2 MiB per loop however many connections. A
// request is far smaller; a larger one arrives in several. When every
// buffer is lent, a receive ends with ENOBUFS and waits in the loop's
// hungry queue; feed arms at most bufCount receives a batch, as many as
// the buffers the batch hands back can take, so however many connections
// ran dry, a batch does not flood the submission queue with receives that
// would find no buffer either. A variable so that a test can run short.
var bufCount = 512

const bufSize = 4 << 10

// giveBack hands the receive buffer of q, if it took one, back to the
// kernel, published once the batch is handled.
func (l *loop) giveBack(q uring.CQE) {
	if q.Flags&uring.CQEBuffer != 0 {
		l.br.Put(uint16(q.Flags >> uring.CQEBufferShift))
	}
}

// account updates the loop's count of bytes held with c's.
func (l *loop) account(c *conn) {
	n := len(c.in) + c.unsent()
	l.held += n - c.holds
	c.holds = n
}

// buf lends a buffer for a connection's input or output.
func (l *loop) buf() []byte {
	if n := len(l.bufs); n > 0 {
		b := l.bufs[n-1]
		l.bufs = l.bufs[:n-1]
		return b
	}
	return make([]byte, 0, 2<<10)
}

// put takes a lent buffer back. The pool keeps small ones only, and a
// busy moment's worth: a buffer grown by a large pipelined batch, and
// those beyond that, go to the collector.
func (l *loop) put(b []byte) {
	if b != nil && cap(b) <= 2*pauseAt && len(l.bufs) < 1024 {
		l.bufs = append(l.bufs, b[:0])
	}
}

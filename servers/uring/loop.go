//go:build linux

package main

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"hellobench/internal/uring"
	"hellobench/servers/internal/waitpool"
)

const (
	// tick is how often a loop sweeps its connections for deadlines: the
	// precision of the timeouts. The ring's wait ends by then at the latest.
	tick = 100 * time.Millisecond
	// ringSize is the submission queue's length; the completion queue is
	// twice it, and the kernel keeps completions beyond that (NODROP).
	ringSize = 4096
	// The receive buffers the kernel picks from, lent to a connection only
	// while its bytes are parsed: 2 MiB per loop however many connections.
	// A request is far smaller; a larger one arrives in several.
	bufCount = 512
	bufSize  = 4 << 10
)

// Operations, in the low byte of an operation's user data; the descriptor
// is in the next 24 bits and the connection's generation in the top 32, so
// that a completion for a closed connection is not taken for a later one
// on the same descriptor.
const (
	opAccept = iota + 1
	opRecv
	opSend
	opWake
	opClose
	opIgnore // cancels, the listener's close
)

func userData(op uint8, fd int, gen uint32) uint64 {
	return uint64(gen)<<32 | uint64(fd)<<8 | uint64(op)
}

// server is what the loops share.
type server struct {
	headerTimeout time.Duration
	idleTimeout   time.Duration
	start         time.Time // origin of the loops' monotonic clocks

	loops    []*loop
	draining atomic.Bool  // set on SIGINT or SIGTERM
	active   atomic.Int64 // open connections
	maxConns int64        // open connections allowed by the open-file limit (limit.go)
	refused  atomic.Int64 // connections closed at maxConns, not yet logged
	logged   atomic.Int64 // when refused was last logged, in ns since start

	pool waitpool.Pool // for handler waits off the rings (work.go)
}

func newServer(headerTimeout, idleTimeout time.Duration) *server {
	return &server{
		headerTimeout: headerTimeout + tick, // one tick: never early
		idleTimeout:   idleTimeout + tick,
		start:         time.Now(),
		pool:          waitpool.Pool{Size: poolSize},
	}
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

// loop is one ring on one thread, with its listening socket and its
// connections.
type loop struct {
	s     *server
	r     *uring.Ring
	br    *uring.BufRing
	lfd   int
	wake  int    // eventfd: answers from the pool, and the drain
	woke  []byte // its read's 8 bytes, on the heap, which the kernel writes
	now   time.Duration
	clock clock
	gen   uint32 // the last connection's generation, and a count of them

	conns []*conn  // by descriptor, from accept until the close completes
	live  []*conn  // open, for the sweep
	dirty []*conn  // with answers to send after this batch
	free  []*conn  // closed, for reuse: accepting allocates nothing
	gone  int      // closing: their closes not yet completed
	bufs  [][]byte // free input and output buffers, lent while in use

	sweepAt   time.Duration
	accepting bool          // the multishot accept is armed
	listening bool          // the listening socket is open
	drainFrom time.Duration // when the drain began; -1: not draining
	err       error         // the first failure to queue: it ends the loop

	mu      sync.Mutex
	answers []job // from the pool, for woken
}

func newLoop(s *server, lfd int) *loop {
	return &loop{s: s, lfd: lfd, listening: true, drainFrom: -1}
}

// setup makes the ring, its buffers and the wake-up eventfd, on the thread
// that will run the loop.
func (l *loop) setup() error {
	var err error
	if l.r, err = uring.New(ringSize); err != nil {
		return err
	}
	// A wait that runs off the ring needs the scheduler to run the pool's
	// goroutines while the loop sleeps, so the loop then waits through
	// it. Otherwise a raw system call keeps the thread's P: the
	// scheduler's bookkeeping around a blocking call is dearer than the
	// loop's own work per batch.
	l.r.Blocking = work.Wait > 0
	if l.br, err = uring.NewBufRing(l.r, bufCount, bufSize); err != nil {
		l.r.Close()
		return err
	}
	if l.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC); err != nil {
		l.r.Close()
		return fmt.Errorf("eventfd: %w", err)
	}
	l.woke = make([]byte, 8)
	l.setClock(time.Now())
	return nil
}

// run handles completions until the drain ends. Each turn waits for at
// least one, handles every one ready, then sends what they answered: one
// io_uring_enter per batch submits the sends and waits for the next.
func (l *loop) run() error {
	l.accept()
	l.readWake()
	l.sweepAt = l.now + tick
	for {
		wait := l.sweepAt - l.now
		if l.drainFrom >= 0 {
			wait = min(wait, 10*time.Millisecond)
		}
		if err := l.r.Enter(1, 0, max(wait, time.Microsecond)); err != nil &&
			!errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EBUSY) {
			return err // EAGAIN, EBUSY: nothing taken for now; reap, then again
		}
		l.setClock(time.Now())
		head, tail := l.r.Ready()
		for ; head != tail; head++ {
			l.complete(*l.r.Completion(head))
		}
		l.r.Done(tail)
		l.br.Publish()
		l.flush()
		if l.now >= l.sweepAt {
			l.sweep()
			l.sweepAt = l.now + tick
		}
		if l.s.draining.Load() && l.drain() {
			return l.err
		}
		if l.err != nil {
			return l.err
		}
	}
}

func (l *loop) setClock(now time.Time) {
	l.now = now.Sub(l.s.start)
	l.clock.update(now)
}

// get queues an operation and returns its entry to fill, or nil when the
// submission queue cannot take it, which ends the loop.
func (l *loop) get(op uint8, fd int, gen uint32) *uring.SQE {
	s, err := l.r.Get()
	if err != nil {
		if l.err == nil {
			l.err = err
		}
		return nil
	}
	s.Fd, s.UserData = int32(fd), userData(op, fd, gen)
	return s
}

func (l *loop) complete(q uring.CQE) {
	op, fd, gen := uint8(q.UserData), int(q.UserData>>8&(1<<24-1)), uint32(q.UserData>>32)
	switch op {
	case opAccept:
		l.accepted(q)
	case opRecv:
		l.received(l.lookup(fd, gen), q)
	case opSend:
		if c := l.lookup(fd, gen); c != nil && !c.gone {
			l.sent(c, q.Res)
		}
	case opWake:
		l.woken()
	case opClose:
		if c := l.lookup(fd, gen); c != nil {
			l.conns[fd] = nil
			l.gone--
			l.release(c)
		}
	}
}

// lookup returns the connection of generation gen on fd, or nil.
func (l *loop) lookup(fd int, gen uint32) *conn {
	if fd < len(l.conns) {
		if c := l.conns[fd]; c != nil && c.gen == gen {
			return c
		}
	}
	return nil
}

// accept arms the multishot accept: one entry for every connection to come.
func (l *loop) accept() {
	if s := l.get(opAccept, l.lfd, 0); s != nil {
		s.Opcode, s.Ioprio, s.OpFlags = uring.OpAccept, uring.AcceptMultishot, unix.SOCK_CLOEXEC
		l.accepting = true
	}
}

func (l *loop) accepted(q uring.CQE) {
	if q.Flags&uring.CQEMore == 0 {
		l.accepting = false
		// Ended after a connection: armed again now. Ended by an error
		// (out of descriptors): at the next sweep, so that a loop
		// without descriptors does not spin.
		if q.Res >= 0 && l.listening {
			l.accept()
		}
	}
	if q.Res < 0 {
		return
	}
	fd := int(q.Res)
	if l.s.maxConns > 0 && l.s.active.Load() >= l.s.maxConns {
		unix.Close(fd) // at the limit (limit.go)
		l.s.refused.Add(1)
		return
	}
	l.open(fd)
}

// open starts serving connection fd: its state, its multishot receive.
func (l *loop) open(fd int) {
	var c *conn
	if n := len(l.free); n > 0 {
		c, l.free = l.free[n-1], l.free[:n-1]
	} else {
		c = new(conn)
	}
	l.gen++
	c.fd, c.gen = fd, l.gen
	c.phase, c.opened = phaseIdle, l.now
	// A new connection gets the header timeout for its first request, as
	// in net/http: it has not earned the longer idle timeout yet.
	c.deadline = l.now + l.s.headerTimeout
	for fd >= len(l.conns) {
		l.conns = append(l.conns, nil)
	}
	l.conns[fd] = c
	c.idx = len(l.live)
	l.live = append(l.live, c)
	l.s.active.Add(1)
	l.recv(c)
}

// recv arms c's multishot receive: it completes for each arrival of bytes,
// into a buffer the kernel takes from the ring.
func (l *loop) recv(c *conn) {
	if s := l.get(opRecv, c.fd, c.gen); s != nil {
		s.Opcode, s.Flags, s.Ioprio, s.BufGroup = uring.OpRecv, uring.SQEBufferSelect, uring.RecvMultishot, uring.BufGroup
		c.recving = true
	}
}

func (l *loop) received(c *conn, q uring.CQE) {
	if q.Flags&uring.CQEBuffer != 0 {
		bid := uint16(q.Flags >> uring.CQEBufferShift)
		if c != nil && !c.gone && q.Res > 0 {
			l.input(c, l.br.Buf(bid)[:q.Res])
		}
		l.br.Put(bid) // published once the batch is handled
	}
	if c == nil || c.gone {
		return
	}
	if q.Flags&uring.CQEMore == 0 {
		c.recving = false
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
	if !c.recving && !c.paused && !c.gone {
		l.recv(c)
	}
}

// pause cancels c's receive: what the client sends stays in the socket,
// and once its buffers fill, the client waits.
func (l *loop) pause(c *conn) {
	if c.paused || c.gone {
		return
	}
	c.paused = true
	if s := l.get(opIgnore, c.fd, c.gen); s != nil {
		s.Opcode, s.Addr = uring.OpAsyncCancel, userData(opRecv, c.fd, c.gen)
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
	if !c.paused && !c.gone && !c.recving {
		l.recv(c)
	}
}

// stalledDead reports whether c, stalled mid-request for a second, has
// been reset or shut by its client, asking the socket's TCP state at most
// once a second. The receive should say so itself, and nearly always does;
// but a reset that follows a connection's first bytes at once is now and
// then never reported to its multishot receive (the robustness suite's
// resets met about one in two thousand), and the connection would hold
// its descriptor until the header timeout. A client mid-request for a
// second is rare but for a slowloris, whose connections this costs one
// system call each a second.
func (l *loop) stalledDead(c *conn) bool {
	if c.phase != phaseRequest && c.phase != phaseBody {
		return false
	}
	since := c.deadline - l.s.headerTimeout // its last progress
	if l.now-since < time.Second || l.now-c.probed < time.Second {
		return false
	}
	c.probed = l.now
	info, err := unix.GetsockoptTCPInfo(c.fd, unix.IPPROTO_TCP, unix.TCP_INFO)
	return err != nil || info.State == tcpClose || info.State == tcpCloseWait
}

// The TCP states of a connection its client has reset or shut, from the
// kernel's include/net/tcp_states.h.
const (
	tcpClose     = 7
	tcpCloseWait = 8
)

// flush sends the answers of the connections this batch made dirty.
func (l *loop) flush() {
	for i, c := range l.dirty {
		c.dirty = false
		if !c.gone {
			l.send(c)
		}
		l.dirty[i] = nil
	}
	l.dirty = l.dirty[:0]
}

// send starts sending c's answers, unless a send is in flight: they wait
// in c.out for its completion. MSG_WAITALL: the kernel sends them all
// before it completes.
func (l *loop) send(c *conn) {
	if c.sending || len(c.out) == 0 {
		return
	}
	c.wire, c.out = c.out, nil
	l.sendWire(c)
}

func (l *loop) sendWire(c *conn) {
	if s := l.get(opSend, c.fd, c.gen); s != nil {
		s.Opcode, s.Addr, s.Len = uring.OpSend, uint64(uintptr(unsafe.Pointer(&c.wire[0]))), uint32(len(c.wire))
		s.OpFlags = unix.MSG_WAITALL | unix.MSG_NOSIGNAL
		c.sending = true
	}
}

// close closes c: its receive and any send are cancelled, then its
// descriptor closed, linked so that the descriptor cannot be reused before
// the cancel. c stays in conns until the close completes: its send's
// buffer is the kernel's until then. A send cut short makes the close a
// reset (SO_LINGER 0): the client must not take a cut response followed
// by a clean end for a whole one.
func (l *loop) close(c *conn) {
	if c.gone {
		return
	}
	c.gone = true
	if c.sending {
		_ = unix.SetsockoptLinger(c.fd, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1})
	}
	last := l.live[len(l.live)-1]
	l.live[c.idx] = last
	last.idx = c.idx
	l.live[len(l.live)-1] = nil
	l.live = l.live[:len(l.live)-1]
	l.s.active.Add(-1)
	l.gone++
	if err := l.r.Room(2); err != nil {
		l.err = err
		return
	}
	if s := l.get(opIgnore, c.fd, c.gen); s != nil {
		s.Opcode, s.OpFlags, s.Flags = uring.OpAsyncCancel, uring.CancelFD|uring.CancelAll, uring.SQEHardLink
	}
	if s := l.get(opClose, c.fd, c.gen); s != nil {
		s.Opcode = uring.OpClose
	}
}

// release returns a closed connection's buffers and keeps it for reuse.
func (l *loop) release(c *conn) {
	l.put(c.in)
	l.put(c.out)
	l.put(c.wire)
	*c = conn{}
	if len(l.free) < 1024 {
		l.free = append(l.free, c)
	}
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

// put takes a lent buffer back; one grown past 64 KiB goes to the
// collector, and so do those beyond what a busy moment needed.
func (l *loop) put(b []byte) {
	if b != nil && cap(b) <= 64<<10 && len(l.bufs) < 4096 {
		l.bufs = append(l.bufs, b[:0])
	}
}

// sweep closes the connections past their deadline, or idle while the
// server drains, and arms the accept again if an error ended it.
func (l *loop) sweep() {
	draining := l.drainFrom >= 0
	// Backwards, since closing moves the last connection into the slot.
	for i := len(l.live) - 1; i >= 0; i-- {
		c := l.live[i]
		if l.now >= c.deadline || (draining && l.idle(c)) || l.stalledDead(c) {
			l.close(c)
		}
	}
	if !l.accepting && l.listening {
		l.accept()
	}
	l.s.reportRefused(l.now)
}

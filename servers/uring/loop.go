//go:build linux

package main

import (
	"errors"
	"fmt"
	"log"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"hellobench/internal/uring"
	"hellobench/servers/internal/connlimit"
	"hellobench/servers/internal/waitpool"
)

const (
	// The receive buffers the kernel picks from, lent to a connection only
	// while its bytes are parsed: 2 MiB per loop however many connections.
	// A request is far smaller; a larger one arrives in several.
	bufCount = 512
	bufSize  = 4 << 10
	// maxSlots is how many connections a loop can name: the slot index
	// has 24 bits of an operation's user data.
	maxSlots = 1 << 24
	// probeEvery is how often connections mid-request are asked whether
	// their client is still there (stalledDead).
	probeEvery = time.Second
)

// ringSize is the submission queue's length; the completion queue is twice
// it, and the kernel keeps completions beyond that (NODROP). A variable
// so that a test can make the queue fill.
var ringSize = 4096

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

// server is what the loops share.
type server struct {
	headerTimeout time.Duration
	idleTimeout   time.Duration
	minWait       time.Duration // io_uring's minimum wait for a batch; 0: none
	start         time.Time     // origin of the loops' monotonic clocks

	loops    []*loop
	draining atomic.Bool      // set on SIGINT or SIGTERM
	limit    *connlimit.Limit // open connections, against the open-file limit (limit.go)

	pool waitpool.Pool // for handler waits off the rings (work.go)
}

func newServer(headerTimeout, idleTimeout time.Duration) *server {
	return &server{
		headerTimeout: headerTimeout,
		idleTimeout:   idleTimeout,
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

	// parking: the loop waits for its eventfd in the Go scheduler, not in
	// the ring, and the ring signals the eventfd too (park); wakeFile is
	// the eventfd through the netpoller.
	parking  bool
	wakeFile *os.File

	conns   []*conn   // by slot; a conn keeps its slot for good
	free    []*conn   // slots not in use
	live    []*conn   // open, for the drain
	dirty   []*conn   // with answers to send after this batch
	starved []*conn   // paused for the loop's budget (maxHeld), not their own
	gone    int       // closing: their last operation not yet completed
	held    int       // bytes the connections hold: input kept, answers unsent
	bufs    [][]byte  // free input and output buffers, lent while in use
	backlog []pending // operations the submission queue could not take
	delayed int       // operations that went to the backlog, in all

	request, idle, linger tlist // the timeout classes (timer.go)
	probeAt               time.Duration

	accepting bool          // the multishot accept is armed
	listening bool          // the listening socket is open
	acceptAt  time.Duration // when to arm the accept again after an error
	backoff   time.Duration // the wait before that, doubled per error
	acceptErr unix.Errno    // the accept error last logged
	acceptLog time.Duration // when
	drainFrom time.Duration // when the drain began; -1: not draining
	drainIdle time.Duration // when the drain last closed idle connections

	mu      sync.Mutex
	answers []job // from the pool, for woken
}

// pending is an operation to queue again after the next reap.
type pending struct {
	op uint8
	c  *conn // nil for the loop's own
}

func newLoop(s *server, lfd int) *loop {
	l := &loop{s: s, lfd: lfd, listening: true, drainFrom: -1}
	l.request.d, l.idle.d, l.linger.d = s.headerTimeout, s.idleTimeout, linger
	return l
}

// setup makes the wake-up eventfd, the ring and its buffers, on the thread
// that will run the loop.
//
// With handler waits (work.go) the pool's goroutines and the timers that
// end the waits need the P whenever the loop has nothing to do, at once:
// the loop parks in the Go scheduler (park). A wait in the ring would
// keep the P until the runtime's monitor retook it, up to 10 ms on. The
// minimum wait is the ring's own, so -min-wait keeps the ring's wait.
func (l *loop) setup() error {
	l.parking = work.Wait > 0 && l.s.minWait == 0
	flags := unix.EFD_CLOEXEC
	if l.parking {
		flags |= unix.EFD_NONBLOCK // read through the netpoller, not by the ring
	}
	var err error
	if l.wake, err = unix.Eventfd(0, flags); err != nil {
		return fmt.Errorf("eventfd: %w", err)
	}
	if l.parking {
		l.r, err = uring.NewEventfd(ringSize, l.wake)
	} else {
		l.r, err = uring.New(ringSize)
	}
	if err != nil {
		unix.Close(l.wake)
		return err
	}
	if l.s.minWait > 0 && !l.r.MinWait() {
		l.r.Close()
		unix.Close(l.wake)
		return fmt.Errorf("-min-wait %v: this kernel has no minimum wait for io_uring (6.12 or later has)", l.s.minWait)
	}
	// Raw waits while completions keep coming; a wait that finds none
	// hands the P back, when the runtime's monitor next looks.
	l.r.Adaptive = true
	if l.br, err = uring.NewBufRing(l.r, bufCount, bufSize); err != nil {
		l.r.Close()
		unix.Close(l.wake)
		return err
	}
	if l.parking {
		l.wakeFile = os.NewFile(uintptr(l.wake), "eventfd")
	}
	l.woke = make([]byte, 8)
	l.setClock(time.Now())
	return nil
}

// run handles completions until the drain ends. Each turn waits for at
// least one, or the next deadline, handles every one ready, then sends
// what they answered: one io_uring_enter per batch submits the sends and
// waits for the next.
func (l *loop) run() error {
	l.accept()
	if !l.parking {
		l.readWake()
	}
	for {
		if err := l.wait(); err != nil &&
			!errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EBUSY) {
			return err // EAGAIN, EBUSY: nothing taken for now; reap, then again
		}
		l.setClock(time.Now())
		head, tail := l.r.Ready()
		for ; head != tail; head++ {
			q := *l.r.Completion(head)
			l.r.Done(head + 1) // its slot is free: handling it may submit
			l.complete(q)
		}
		if l.parking {
			l.answer() // the eventfd, not a completion, said so
		}
		l.br.Publish()
		l.retry()
		l.flush()
		l.timers()
		if l.s.draining.Load() && l.drain() {
			l.exit()
			return nil
		}
	}
}

// wait submits what is queued and waits for a completion, a wake-up or the
// next deadline.
func (l *loop) wait() error {
	d := max(l.wakeAt()-l.now, time.Microsecond)
	if l.parking {
		return l.park(d)
	}
	want := 1
	if l.s.minWait > 0 {
		want = l.r.CQSize() // as many as come within the minimum wait
	}
	return l.r.Enter(want, l.s.minWait, d)
}

// park submits what is queued and, when there is nothing to reap, parks
// the loop's goroutine on the wake-up eventfd through the netpoller, so
// the P runs the pool's goroutines and timers, until the ring posts a
// completion, the pool answers, the drain begins or d passes. The ring
// posts completions, and signals the eventfd, whenever the loop's thread
// leaves the kernel or wakes (uring.NewEventfd). A signal after the look
// at the completion queue stays in the eventfd's counter, and the read
// returns at once: no wake-up is lost. A signal for completions already
// reaped (a send that completed as it was submitted) only costs a look.
func (l *loop) park(d time.Duration) error {
	until := time.Now().Add(d)
	for {
		if err := l.r.Enter(0, 0, 0); err != nil {
			return err
		}
		if head, tail := l.r.Ready(); head != tail || l.waiting() {
			return nil
		}
		if err := l.wakeFile.SetReadDeadline(until); err != nil {
			return err
		}
		if _, err := l.wakeFile.Read(l.woke); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return nil
			}
			return err
		}
	}
}

// waiting reports whether answers from the pool, or the drain's start,
// wait for the loop. (Once begun, the drain sets wakeAt.)
func (l *loop) waiting() bool {
	if l.drainFrom < 0 && l.s.draining.Load() {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.answers) > 0
}

// timers closes the connections past their deadline, probes those
// stalled mid-request, and arms the accept again after an error.
func (l *loop) timers() {
	l.expire()
	if l.now >= l.probeAt {
		for c := l.request.head; c != nil; {
			next := c.next
			if l.stalledDead(c) {
				l.close(c)
			}
			c = next
		}
		l.probeAt = l.now + probeEvery
	}
	if !l.accepting && l.listening && l.now >= l.acceptAt {
		l.accept()
	}
	l.s.limit.Report(l.s.start.Add(l.now))
}

// exit logs the connections whose operations had not all completed when
// the drain ended: their slots were never released.
func (l *loop) exit() {
	if n := l.slotsHeld(); n > 0 {
		log.Printf("uring: exiting with %d connection slots held (%d closing)", n, l.gone)
	}
}

// slotsHeld is how many slots are in use: open or closing connections.
func (l *loop) slotsHeld() int { return len(l.conns) - len(l.free) }

func (l *loop) setClock(now time.Time) {
	l.now = now.Sub(l.s.start)
	l.clock.update(now)
}

// sqe queues operation op of c (nil: the loop's own) and returns its entry
// to fill. When the submission queue cannot take it, it returns nil and
// the operation goes to the backlog, queued again after the next reap; for
// c it counts as in flight meanwhile.
func (l *loop) sqe(op uint8, c *conn) *uring.SQE {
	s, err := l.r.Get()
	if c != nil {
		c.ops++
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
// state now wants it.
func (l *loop) retry() {
	todo := l.backlog
	l.backlog = nil
	for _, p := range todo {
		c := p.c
		if c != nil {
			c.ops--
		}
		switch p.op {
		case opAccept:
			l.accept()
		case opWake:
			l.readWake()
		case opListener:
			l.closeListener()
		case opRecv:
			c.recving = false
			if !c.gone && !c.paused {
				l.recv(c)
			}
		case opSend:
			c.sending = false
			if !c.gone {
				l.sendWire(c)
			}
		case opCancel:
			c.cancelling = false
			if !c.gone && c.paused && c.recving {
				l.cancelRecv(c)
			}
		case opClose:
			l.kill(c)
		}
		if c != nil {
			l.settle(c)
		}
	}
}

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
		// Every operation of a connection completes before its slot is
		// freed; a receive's buffer goes back whatever.
		if q.Flags&uring.CQEBuffer != 0 {
			l.br.Put(uint16(q.Flags >> uring.CQEBufferShift))
		}
		return
	}
	last := true
	switch op {
	case opRecv:
		last = q.Flags&uring.CQEMore == 0
		l.received(c, q)
	case opSend:
		l.sent(c, q.Res)
	case opCancel:
		l.cancelled(c, q.Res)
	}
	if last {
		c.ops--
	}
	l.settle(c)
}

// lookup returns the connection of generation gen in slot, or nil.
func (l *loop) lookup(slot int, gen uint32) *conn {
	if slot < len(l.conns) {
		if c := l.conns[slot]; c.gen == gen {
			return c
		}
	}
	return nil
}

// accept arms the multishot accept: one entry for every connection to come.
func (l *loop) accept() {
	l.accepting = true
	if s := l.sqe(opAccept, nil); s != nil {
		s.PrepAcceptMultishot(l.lfd, unix.SOCK_CLOEXEC)
	}
}

func (l *loop) accepted(q uring.CQE) {
	if q.Flags&uring.CQEMore == 0 {
		l.accepting = false
	}
	if q.Res < 0 {
		l.acceptFailed(unix.Errno(-q.Res))
		return
	}
	l.backoff = 0
	if !l.accepting && l.listening {
		l.accept()
	}
	fd := int(q.Res)
	if len(l.free) == 0 && len(l.conns) >= maxSlots || !l.s.limit.Acquire() {
		unix.Close(fd) // at the limit (limit.go)
		l.s.limit.Refuse()
		return
	}
	l.open(fd)
}

// acceptFailed arms the accept again after a wait that doubles with each
// error, from 10 ms to 1 s: a loop out of descriptors waits for some to
// close, it does not spin. An error is logged when it differs from the
// last one logged, or a minute after it: a loop at its open-file limit
// fails and recovers many times a second.
func (l *loop) acceptFailed(err unix.Errno) {
	if err == unix.ECANCELED || !l.listening {
		return
	}
	if err != l.acceptErr || l.now-l.acceptLog >= time.Minute {
		log.Printf("uring: accept: %v; armed again after 10 ms, doubling to 1 s while it fails", err)
		l.acceptErr, l.acceptLog = err, l.now
	}
	l.backoff = min(max(2*l.backoff, 10*time.Millisecond), time.Second)
	l.acceptAt = l.now + l.backoff
}

// open starts serving connection fd: its slot, its multishot receive.
func (l *loop) open(fd int) {
	var c *conn
	if n := len(l.free); n > 0 {
		c, l.free = l.free[n-1], l.free[:n-1]
	} else {
		c = &conn{slot: len(l.conns)}
		l.conns = append(l.conns, c)
	}
	l.gen++
	c.fd, c.gen = fd, l.gen
	c.phase, c.opened = phaseIdle, l.now
	// A new connection gets the header timeout for its first request, as
	// in net/http: it has not earned the longer idle timeout yet.
	l.arm(c, &l.request)
	c.idx = len(l.live)
	l.live = append(l.live, c)
	l.recv(c)
}

// recv arms c's multishot receive: it completes for each arrival of bytes,
// into a buffer the kernel takes from the ring.
func (l *loop) recv(c *conn) {
	c.recving = true
	if s := l.sqe(opRecv, c); s != nil {
		s.PrepRecvMultishot(c.fd, uring.BufGroup)
	}
}

func (l *loop) received(c *conn, q uring.CQE) {
	if q.Flags&uring.CQEBuffer != 0 {
		bid := uint16(q.Flags >> uring.CQEBufferShift)
		if !c.gone && q.Res > 0 {
			c.progress = l.now
			l.input(c, l.br.Buf(bid)[:q.Res])
		}
		l.br.Put(bid) // published once the batch is handled
	}
	if q.Flags&uring.CQEMore == 0 {
		c.recving = false
	}
	if c.gone {
		return
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

// pause stops c's receive: what the client sends stays in the socket,
// and once its buffers fill, the client waits.
func (l *loop) pause(c *conn) {
	if c.paused || c.gone {
		return
	}
	c.paused = true
	if c.recving {
		l.cancelRecv(c)
	}
}

func (l *loop) cancelRecv(c *conn) {
	if c.cancelling {
		return
	}
	c.cancelling = true
	if s := l.sqe(opCancel, c); s != nil {
		s.PrepCancel(userData(opRecv, c.slot, c.gen))
	}
}

// cancelled takes the result of a pause's cancel. 0: the receive ends
// (ECANCELED); ENOENT: it had ended already. Anything else (EALREADY) may
// leave it armed: while c is paused and its receive armed, the cancel is
// tried again, lest c stay paused with its input still arriving.
func (l *loop) cancelled(c *conn, res int32) {
	c.cancelling = false
	if res < 0 && res != -int32(unix.ENOENT) && c.paused && c.recving && !c.gone {
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
	if l.now-c.progress < time.Second {
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

// flush sends the answers of the connections this batch made dirty, and
// lets the connections paused for the loop's budget go on once it has
// room again.
func (l *loop) flush() {
	for i, c := range l.dirty {
		c.dirty = false
		if !c.gone {
			l.send(c)
		}
		l.dirty[i] = nil
	}
	l.dirty = l.dirty[:0]
	if len(l.starved) > 0 && l.held < maxHeld/2 {
		starved := l.starved
		l.starved = nil
		for _, c := range starved {
			c.starved = false
			if c.paused && !c.gone && c.phase != phaseWait && c.unsent() < resumeAt {
				l.resume(c)
			}
		}
	}
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
	c.sending = true
	if s := l.sqe(opSend, c); s != nil {
		s.PrepSend(c.fd, c.wire, unix.MSG_WAITALL|unix.MSG_NOSIGNAL)
	}
}

// close closes c: its receive and any send are cancelled, then its
// descriptor closed, linked so that the descriptor cannot be reused before
// the cancel. c keeps its slot, and its buffers, until its last operation
// has completed (settle): a send the cancel could not stop (EALREADY) still
// reads its buffer. A send cut short makes the close a reset (SO_LINGER 0):
// the client must not take a cut response followed by a clean end for a
// whole one.
func (l *loop) close(c *conn) {
	if c.gone {
		return
	}
	c.gone = true
	if c.sending {
		_ = unix.SetsockoptLinger(c.fd, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1})
	}
	l.disarm(c)
	last := l.live[len(l.live)-1]
	l.live[c.idx] = last
	last.idx = c.idx
	l.live[len(l.live)-1] = nil
	l.live = l.live[:len(l.live)-1]
	l.s.limit.Release()
	l.gone++
	l.kill(c)
}

// kill queues c's cancel and close, or puts them in the backlog.
func (l *loop) kill(c *conn) {
	err := l.r.CancelAndClose(c.fd, userData(opKill, c.slot, c.gen), userData(opClose, c.slot, c.gen))
	if err != nil {
		c.ops++
		l.later(opClose, c)
		return
	}
	c.ops += 2
}

// settle frees c's slot and buffers once it is closing and its last
// operation has completed.
func (l *loop) settle(c *conn) {
	if !c.gone || c.ops > 0 {
		return
	}
	l.put(c.in)
	l.put(c.out)
	l.put(c.wire)
	c.in, c.out, c.wire = nil, nil, nil
	l.account(c)
	*c = conn{slot: c.slot} // generation 0: no lookup finds it
	l.free = append(l.free, c)
	l.gone--
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

//go:build linux

package main

import (
	"errors"
	"log"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"hellobench/internal/uring"
)

// The io_uring engine (-engine io_uring): the same answers as the epoll
// loop's, with the system calls io_uring saves. One ring on this thread.
// The listening socket has one multishot accept; each connection one
// multishot receive, armed once, that completes for each arrival into a
// buffer the kernel picks from a ring the loop provides, and one send at a
// time of the answers the bytes complete. With -multishot=false, a receive
// into the connection's own buffer instead, the send of the answers
// linked before the next receive. The completions of a wait are handled
// together and what they queue is submitted by the next wait: one
// io_uring_enter per batch.
//
// A connection lives in a slot, not at its descriptor's index: the kernel
// does not order the completions of independent operations, so a new
// connection on a closed one's descriptor can be reaped before the old
// one's last completions. A slot counts the operations the kernel holds on
// its connection and is given back, with its buffers, when the last has
// completed; the operations' user data carry the slot and its generation.

// Operations, in the low byte of an operation's user data.
const (
	uAccept = iota + 1
	uRecv
	uSend
	uCancel
	uClose
	uStop
)

const (
	// recvSize is each connection's receive buffer with
	// -multishot=false: a request or a pipelined batch of them.
	recvSize = 16 << 10
	// idleWait bounds a wait with nothing to do: in effect for ever, so
	// that an idle floor does not wake.
	idleWait = time.Hour
	// drainWait bounds how long a stop waits for the kernel to finish the
	// operations it holds on the connections it closes.
	drainWait = 500 * time.Millisecond
)

// tag is an operation's user data: the slot, its generation (24 bits) and
// the operation.
func tag(slot int32, gen uint32, op uint8) uint64 {
	return uint64(uint32(slot))<<32 | uint64(gen&0xffffff)<<8 | uint64(op)
}

// A uslot is a connection's place in the loop.
type uslot struct {
	conn
	fd   int
	gen  uint32 // counts the connections the slot has held
	ops  int    // operations queued on the connection and not yet completed
	shut bool   // closing: nothing more is queued on it
	buf  []byte // -multishot=false: the receive buffer
}

func serveURing(addr string, lfd int, multishot bool) {
	r, err := uring.New(4096)
	if err != nil {
		log.Fatalf("floor: %v", err)
	}
	// Raw waits while completions keep coming (no scheduler bookkeeping,
	// which a floor should not pay); after a wait that found none, the
	// wait blocks through the scheduler and hands the P back, so that the
	// signal's goroutine runs and an idle floor costs nothing.
	r.Adaptive = true
	l := &uloop{r: r, lfd: lfd}
	if multishot {
		if l.br, err = uring.NewBufRing(r, 4096, 4<<10); err != nil {
			log.Fatalf("floor: %v", err)
		}
	}
	// A signal stops the loop through a pipe the ring reads.
	stop := make([]int, 2)
	if err := unix.Pipe2(stop, unix.O_CLOEXEC); err != nil {
		log.Fatalf("floor: %v", err)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		unix.Write(stop[1], []byte{1})
	}()
	l.accept()
	if s := l.get(tag(0, 0, uStop)); s != nil {
		// Memory the kernel writes to is on the heap, which the garbage
		// collector never moves; a goroutine's stack may move.
		l.stopByte = make([]byte, 1)
		s.Opcode, s.Fd, s.Addr, s.Len = uring.OpRead, int32(stop[0]), uint64(uintptr(unsafe.Pointer(&l.stopByte[0]))), 1
	}
	log.Printf("floor: listening on %s (io_uring, GOMAXPROCS=%d)", addr, runtime.GOMAXPROCS(0))
	if err := l.run(); err != nil {
		log.Fatalf("floor: %v", err)
	}
	log.Printf("floor: stopped: %d connection slots held", l.drain())
}

// uloop is the io_uring engine's state.
type uloop struct {
	r     *uring.Ring
	lfd   int
	slots []uslot
	free  []int32 // slots not held, for the next connections
	held  int     // slots held: a connection, or operations on one not completed
	resp  response
	err   error // the first failure to queue: it ends the loop
	pause backoff

	accepting bool // the multishot accept is armed
	stopping  bool // the stop pipe was read
	stopByte  []byte

	br *uring.BufRing // -multishot: the receive buffers the kernel picks from
}

// run waits for completions and handles them until the stop pipe is read.
func (l *uloop) run() error {
	for !l.stopping {
		if err := l.wait(); err != nil {
			return err
		}
		if l.pause.resume() && !l.accepting {
			l.accept()
		}
		if l.err != nil {
			return l.err
		}
	}
	return nil
}

// wait submits what is queued, waits for completions (while accepting is
// paused, for at most the pause), and handles them.
func (l *uloop) wait() error {
	d := l.pause.wait()
	if d < 0 {
		d = idleWait
	}
	if err := l.r.Enter(1, 0, d); err != nil &&
		!errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EBUSY) {
		return err // EAGAIN, EBUSY: nothing taken for now; reap, then again
	}
	l.resp.refresh()
	head, tail := l.r.Ready()
	for ; head != tail; head++ {
		l.complete(*l.r.Completion(head))
	}
	l.r.Done(tail)
	if l.br != nil {
		l.br.Publish()
	}
	return nil
}

// drain closes every connection, stops accepting, waits at most drainWait
// for the operations on them to complete, and returns the slots still
// held.
func (l *uloop) drain() int {
	if l.accepting {
		if s := l.get(tag(0, 0, uCancel)); s != nil {
			s.PrepCancel(tag(0, 0, uAccept))
		}
	}
	for i := range l.slots {
		if s := &l.slots[i]; s.fd >= 0 {
			l.shut(int32(i))
		}
	}
	for end := time.Now().Add(drainWait); l.held > 0 && l.err == nil; {
		d := time.Until(end)
		if d <= 0 {
			break
		}
		if l.r.Enter(1, 0, d) != nil {
			break
		}
		head, tail := l.r.Ready()
		for ; head != tail; head++ {
			l.complete(*l.r.Completion(head))
		}
		l.r.Done(tail)
	}
	return l.held
}

// get queues an operation with user data u and returns its entry to fill,
// or nil when the SQ cannot take it.
func (l *uloop) get(u uint64) *uring.SQE {
	s, err := l.r.Get()
	if err != nil {
		l.err = err
		return nil
	}
	s.UserData = u
	return s
}

// accept arms the multishot accept.
func (l *uloop) accept() {
	if s := l.get(tag(0, 0, uAccept)); s != nil {
		s.PrepAcceptMultishot(l.lfd, unix.SOCK_CLOEXEC)
		l.accepting = true
	}
}

// op queues operation op on the connection in slot i and counts it.
func (l *uloop) op(i int32, op uint8) *uring.SQE {
	c := &l.slots[i]
	s := l.get(tag(i, c.gen, op))
	if s != nil {
		c.ops++
	}
	return s
}

// recv queues the receive of slot i into its buffer, or arms its
// multishot receive.
func (l *uloop) recv(i int32) {
	c := &l.slots[i]
	if s := l.op(i, uRecv); s != nil {
		if l.br != nil {
			s.PrepRecvMultishot(c.fd, uring.BufGroup)
			return
		}
		s.Opcode, s.Fd, s.Addr, s.Len = uring.OpRecv, int32(c.fd), uint64(uintptr(unsafe.Pointer(&c.buf[0]))), uint32(len(c.buf))
	}
}

// complete handles one completion.
func (l *uloop) complete(q uring.CQE) {
	i, gen, op := int32(q.UserData>>32), uint32(q.UserData>>8)&0xffffff, uint8(q.UserData)
	switch op {
	case uStop:
		l.stopping = true
		return
	case uAccept:
		l.accepted(q)
		return
	}
	if gen == 0 {
		return // the accept's cancel: generation 0 is no connection's
	}
	if int(i) >= len(l.slots) || l.slots[i].gen&0xffffff != gen || l.slots[i].ops == 0 {
		// The slot is held until its last completion: never.
		log.Printf("floor: a completion (op %d, result %d) for slot %d generation %d, which holds none", op, q.Res, i, gen)
		return
	}
	c := &l.slots[i]
	// Every completion ends its operation, but a multishot receive's that
	// says more follow.
	if op != uRecv || q.Flags&uring.CQEMore == 0 {
		c.ops--
	}
	switch op {
	case uRecv:
		if l.br != nil {
			l.multishotDone(i, q)
		} else {
			l.recvDone(i, q)
		}
	case uSend:
		l.sent(i, q)
	}
	l.settle(i)
}

// accepted takes a connection from the multishot accept, or handles its
// failure: a pause for an error the next accept would repeat, rather than
// a re-armed accept that fails again at once.
func (l *uloop) accepted(q uring.CQE) {
	if q.Flags&uring.CQEMore == 0 {
		l.accepting = false
	}
	if q.Res < 0 {
		if q.Res == -int32(unix.ECANCELED) || l.pause.failed(unix.Errno(-q.Res)) {
			return
		}
	} else if l.stopping {
		closeFd(int(q.Res))
	} else {
		l.pause.accepted()
		l.open(int(q.Res))
	}
	if !l.accepting && !l.stopping {
		l.accept() // the kernel ended it: arm it again
	}
}

// open gives a new connection on fd a slot and starts receiving.
func (l *uloop) open(fd int) {
	var i int32
	if n := len(l.free); n > 0 {
		i, l.free = l.free[n-1], l.free[:n-1]
	} else {
		l.slots = append(l.slots, uslot{})
		i = int32(len(l.slots) - 1)
	}
	c := &l.slots[i]
	c.in, c.out, c.sent, c.polling, c.closing = c.in[:0], c.out[:0], 0, false, false
	c.wire, c.sending = c.wire[:0], false
	c.fd, c.ops, c.shut = fd, 0, false
	if c.gen++; c.gen&0xffffff == 0 {
		c.gen++ // 0 is no connection's
	}
	if l.br == nil && c.buf == nil {
		c.buf = make([]byte, recvSize)
	}
	l.held++
	l.recv(i)
}

// shut closes the connection in slot i: at once if the kernel holds no
// operation on it, else through the ring, after cancelling them (the
// kernel's hold on the socket would keep it open), and the slot is given
// back when the last has completed.
func (l *uloop) shut(i int32) {
	c := &l.slots[i]
	if c.shut {
		return
	}
	c.shut = true
	if c.ops == 0 {
		closeFd(c.fd)
		l.settle(i)
		return
	}
	if err := l.r.CancelAndClose(c.fd, tag(i, c.gen, uCancel), tag(i, c.gen, uClose)); err != nil {
		l.err = err
		return
	}
	c.ops += 2
}

// settle gives slot i back once its connection is shut and the last
// operation on it has completed: its descriptor is closed then.
func (l *uloop) settle(i int32) {
	c := &l.slots[i]
	if !c.shut || c.ops > 0 || c.fd < 0 {
		return
	}
	c.fd = -1
	l.free = append(l.free, i)
	l.held--
	l.pause.closed()
}

// recvDone handles the completion of a receive into slot i's buffer.
func (l *uloop) recvDone(i int32, q uring.CQE) {
	c := &l.slots[i]
	if c.shut {
		return
	}
	if q.Res <= 0 { // the peer has gone, or a linked send failed
		l.shut(i)
		return
	}
	answer(&c.conn, c.buf[:q.Res], &l.resp)
	l.respond(i)
}

// respond sends slot i's answers, if the bytes read completed requests,
// then receives again, after the send: the answers stay in c.out until it
// has completed. MSG_WAITALL: the kernel sends all of them before it
// completes.
func (l *uloop) respond(i int32) {
	c := &l.slots[i]
	if len(c.out) > 0 {
		if err := l.r.Room(2); err != nil {
			l.err = err
			return
		}
		s := l.op(i, uSend)
		s.PrepSend(c.fd, c.out, unix.MSG_WAITALL|unix.MSG_NOSIGNAL)
		if c.closing {
			return // closed once sent
		}
		s.Flags = uring.SQEIOLink
		c.out = c.out[:0] // not written again before the send completes: the receive waits for it
	}
	l.recv(i)
}

// With -multishot, each connection's receive stays armed and completes
// into a buffer of the ring for each arrival; the answers go out in one
// send at a time, while the next ones gather in c.out.

func (l *uloop) multishotDone(i int32, q uring.CQE) {
	c := &l.slots[i]
	if q.Flags&uring.CQEBuffer != 0 {
		bid := uint16(q.Flags >> uring.CQEBufferShift)
		if q.Res > 0 && !c.shut && !c.closing {
			answer(&c.conn, l.br.Buf(bid)[:q.Res], &l.resp)
		}
		l.br.Put(bid)
	}
	if c.shut {
		return
	}
	switch {
	case q.Flags&uring.CQEMore != 0:
		l.send(i)
	case q.Res == -int32(unix.ENOBUFS) || q.Res > 0:
		// Every buffer was in use, or the receive ended after bytes:
		// arm it again.
		l.recv(i)
		l.send(i)
	default:
		// The peer has gone. A send in flight completes (or fails) on
		// its own; the connection closes then.
		c.closing = true
		if !c.sending {
			l.shut(i)
		}
	}
}

// send starts sending slot i's answers, unless a send is in flight.
func (l *uloop) send(i int32) {
	c := &l.slots[i]
	if c.sending || len(c.out) == 0 {
		return
	}
	c.wire, c.out = c.out, c.wire[:0]
	if s := l.op(i, uSend); s != nil {
		s.PrepSend(c.fd, c.wire, unix.MSG_WAITALL|unix.MSG_NOSIGNAL)
		c.sending = true
	}
}

// sent handles the completion of slot i's send.
func (l *uloop) sent(i int32, q uring.CQE) {
	c := &l.slots[i]
	if l.br == nil {
		// A failed send's linked receive completes, cancelled, and
		// closes the connection.
		if c.closing {
			l.shut(i)
		}
		return
	}
	c.sending = false
	if c.shut {
		return
	}
	if int(q.Res) != len(c.wire) || c.closing {
		l.shut(i)
		return
	}
	l.send(i)
}

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

// Operations, in the low byte of an operation's user data; the file
// descriptor is above it.
const (
	uAccept = iota + 1
	uRecv
	uSend
	uStop
)

// recvSize is each connection's receive buffer: a request or a
// pipelined batch of them.
const recvSize = 16 << 10

func serveURing(addr string, lfd int, multishot bool) {
	r, err := uring.New(4096)
	if err != nil {
		log.Fatalf("floor: %v", err)
	}
	// Every call, the wait too, is a raw system call that keeps the
	// thread's P: a floor should not pay the scheduler's bookkeeping
	// around a blocking call, which measured dearer here. A signal still
	// ends the wait (EINTR), and the runtime preempts the loop for the
	// signal's goroutine.
	r.Blocking = false
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
	if s := l.get(uStop, stop[0]); s != nil {
		// Memory the kernel writes to is on the heap, which the garbage
		// collector never moves; a goroutine's stack may move.
		l.stopByte = make([]byte, 1)
		s.Opcode, s.Addr, s.Len = uring.OpRead, uint64(uintptr(unsafe.Pointer(&l.stopByte[0]))), 1
	}
	log.Printf("floor: listening on %s (io_uring, GOMAXPROCS=%d)", addr, runtime.GOMAXPROCS(0))
	if err := l.run(); err != nil {
		log.Fatalf("floor: %v", err)
	}
}

// uloop is the io_uring engine's state.
type uloop struct {
	r     *uring.Ring
	lfd   int
	conns table
	bufs  [][]byte // receive buffers by descriptor, kept for the next connection on it
	resp  response
	err   error // the first failure to queue: it ends the loop

	stopByte []byte // the stop pipe's read

	br *uring.BufRing // -multishot: the receive buffers the kernel picks from
}

// run waits for completions and handles them until the stop pipe is read.
func (l *uloop) run() error {
	for {
		if err := l.r.Enter(1, 0, time.Second); err != nil &&
			!errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EBUSY) {
			return err // EAGAIN, EBUSY: nothing taken for now; reap, then again
		}
		l.resp.refresh()
		head, tail := l.r.Ready()
		for ; head != tail; head++ {
			q := *l.r.Completion(head)
			if uint8(q.UserData) == uStop {
				return nil
			}
			l.complete(q)
		}
		l.r.Done(tail)
		if l.err != nil {
			return l.err
		}
	}
}

// get queues operation op on fd and returns its entry to fill, or nil when
// the SQ cannot take it.
func (l *uloop) get(op uint8, fd int) *uring.SQE {
	s, err := l.r.Get()
	if err != nil {
		l.err = err
		return nil
	}
	s.Fd, s.UserData = int32(fd), uint64(fd)<<8|uint64(op)
	return s
}

// accept arms the multishot accept.
func (l *uloop) accept() {
	if s := l.get(uAccept, l.lfd); s != nil {
		s.Opcode, s.Ioprio, s.OpFlags = uring.OpAccept, uring.AcceptMultishot, unix.SOCK_CLOEXEC
	}
}

// recv queues fd's receive into its buffer, or arms its multishot receive.
func (l *uloop) recv(fd int) {
	if l.br != nil {
		if s := l.get(uRecv, fd); s != nil {
			s.Opcode, s.Flags, s.Ioprio, s.BufGroup = uring.OpRecv, uring.SQEBufferSelect, uring.RecvMultishot, uring.BufGroup
		}
		return
	}
	if s := l.get(uRecv, fd); s != nil {
		b := l.bufs[fd]
		s.Opcode, s.Addr, s.Len = uring.OpRecv, uint64(uintptr(unsafe.Pointer(&b[0]))), uint32(len(b))
	}
}

func (l *uloop) complete(q uring.CQE) {
	fd := int(q.UserData >> 8)
	switch uint8(q.UserData) {
	case uAccept:
		if q.Flags&uring.CQEMore == 0 {
			l.accept() // the kernel ended it (an error): arm it again
		}
		if q.Res >= 0 {
			l.open(int(q.Res))
		}
	case uRecv:
		c := l.conns.get(fd)
		if l.br != nil {
			l.multishotDone(fd, c, q)
			return
		}
		if c == nil {
			return
		}
		if q.Res <= 0 { // the peer has gone, or a linked send failed
			closeConn(fd, &l.conns)
			return
		}
		answer(c, l.bufs[fd][:q.Res], &l.resp)
		l.respond(fd, c)
	case uSend:
		if l.br != nil {
			l.sent(fd, q)
			return
		}
		// A failed send's linked receive completes, cancelled, and closes
		// the connection: closed here, its descriptor could be a new
		// connection's by then.
		if c := l.conns.get(fd); c != nil && c.closing {
			closeConn(fd, &l.conns)
		}
	}
}

func (l *uloop) open(fd int) {
	for fd >= len(l.bufs) {
		l.bufs = append(l.bufs, nil)
	}
	if l.bufs[fd] == nil && l.br == nil {
		l.bufs[fd] = make([]byte, recvSize)
	}
	l.conns.open(fd)
	l.recv(fd)
}

// respond sends c's answers, if the bytes read completed requests, then
// receives again, after the send: the answers stay in c.out until it has
// completed. MSG_WAITALL: the kernel sends all of them before it completes.
func (l *uloop) respond(fd int, c *conn) {
	if len(c.out) > 0 {
		if err := l.r.Room(2); err != nil {
			l.err = err
			return
		}
		s := l.get(uSend, fd)
		s.Opcode, s.Addr, s.Len = uring.OpSend, uint64(uintptr(unsafe.Pointer(&c.out[0]))), uint32(len(c.out))
		s.OpFlags = unix.MSG_WAITALL | unix.MSG_NOSIGNAL
		if c.closing {
			return // closed once sent
		}
		s.Flags = uring.SQEIOLink
		c.out = c.out[:0] // not written again before the send completes: the receive waits for it
	}
	l.recv(fd)
}

// With -multishot, each connection's receive stays armed and completes
// into a buffer of the ring for each arrival; the answers go out in one
// send at a time, while the next ones gather in c.out.

func (l *uloop) multishotDone(fd int, c *conn, q uring.CQE) {
	if q.Flags&uring.CQEBuffer != 0 {
		bid := uint16(q.Flags >> uring.CQEBufferShift)
		if c != nil && q.Res > 0 && !c.closing {
			answer(c, l.br.Buf(bid)[:q.Res], &l.resp)
		}
		l.br.Put(bid)
		l.br.Publish()
	}
	if c == nil || q.Res == -int32(unix.ECANCELED) {
		return // a closed connection's, or cancelled by cancelClose
	}
	switch {
	case q.Flags&uring.CQEMore != 0:
		l.send(fd, c)
	case q.Res == -int32(unix.ENOBUFS):
		l.recv(fd) // every buffer was in use: arm it again
		l.send(fd, c)
	case q.Res > 0:
		l.recv(fd) // ended after bytes: arm it again
		l.send(fd, c)
	default:
		// The peer has gone. A send in flight completes (or fails) on
		// its own; the connection closes then.
		c.closing = true
		if !c.sending {
			closeConn(fd, &l.conns)
		}
	}
}

// send starts sending c's answers, unless a send is in flight.
func (l *uloop) send(fd int, c *conn) {
	if c.sending || len(c.out) == 0 {
		return
	}
	c.wire, c.out = c.out, c.wire[:0]
	if s := l.get(uSend, fd); s != nil {
		s.Opcode, s.Addr, s.Len = uring.OpSend, uint64(uintptr(unsafe.Pointer(&c.wire[0]))), uint32(len(c.wire))
		s.OpFlags = unix.MSG_WAITALL | unix.MSG_NOSIGNAL
		c.sending = true
	}
}

func (l *uloop) sent(fd int, q uring.CQE) {
	c := l.conns.get(fd)
	if c == nil {
		return
	}
	c.sending = false
	if q.Res < 0 || c.closing {
		l.cancelClose(fd)
		return
	}
	l.send(fd, c)
}

// cancelClose closes fd after cancelling its multishot receive: the
// kernel's hold on the socket would keep it open.
func (l *uloop) cancelClose(fd int) {
	if s := l.get(0, fd); s != nil {
		s.Opcode, s.OpFlags, s.Flags = uring.OpAsyncCancel, uring.CancelFD|uring.CancelAll, uring.SQEHardLink
		if s := l.get(0, fd); s != nil {
			s.Opcode = uring.OpClose
		}
	}
	l.conns.live[fd] = false
}

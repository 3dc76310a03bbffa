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
// receive into a buffer of its own, and when the bytes complete requests,
// the send of their answers linked before the next receive, so that the
// receive starts once the answers are out. The completions of a wait are
// handled together and what they queue is submitted by the next wait:
// one io_uring_enter per batch.

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

func serveURing(addr string, lfd int) {
	r, err := uring.New(4096)
	if err != nil {
		log.Fatalf("floor: %v", err)
	}
	// Every call, the wait too, is a raw system call that keeps the
	// thread's P: the scheduler's bookkeeping around a blocking call cost
	// the floor a tenth of its CPU per request here. A signal still ends
	// the wait (EINTR), and the runtime preempts the loop for the
	// signal's goroutine.
	r.Blocking = false
	l := &uloop{r: r, lfd: lfd}
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
	var b [1]byte
	if s := l.get(uStop, stop[0]); s != nil {
		s.Opcode, s.Addr, s.Len = uring.OpRead, uint64(uintptr(unsafe.Pointer(&b[0]))), 1
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
	s.Opcode, s.Fd, s.UserData = 0, int32(fd), uint64(fd)<<8|uint64(op)
	return s
}

// accept arms the multishot accept.
func (l *uloop) accept() {
	if s := l.get(uAccept, l.lfd); s != nil {
		s.Opcode, s.Ioprio, s.OpFlags = uring.OpAccept, uring.AcceptMultishot, unix.SOCK_CLOEXEC
	}
}

// recv queues fd's receive into its buffer.
func (l *uloop) recv(fd int) {
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
	if l.bufs[fd] == nil {
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

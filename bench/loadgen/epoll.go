//go:build linux

package loadgen

import (
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readSize is the epoll engine's one read buffer: large enough to take a
// whole pipeline batch of responses in one read(2).
const readSize = 256 << 10

// epoll is the engine over an epoll set of non-blocking sockets. Each
// socket is registered once, edge-triggered, for reading and writing, so a
// request costs no epoll_ctl: a write, a read and a share of an epoll_wait.
type epoll struct {
	l      *loop
	h      handler // the loop, or the TLS layer over this engine
	fd     int
	sa     unix.Sockaddr // the loop's own copy: Connect writes into it
	events []unix.EpollEvent
	buf    []byte
	socks  []esock // by connection
	ts     unix.Timespec
	ms     bool // no epoll_pwait2 (Linux before 5.11, or a seccomp filter): waits in whole ms
}

// esock is the epoll engine's state of a connection's socket.
type esock struct {
	connecting bool
	out        []byte // the part of a send the socket has not taken yet
}

func newEpoll(l *loop) (*epoll, error) {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	e := &epoll{
		l:      l,
		h:      l,
		fd:     fd,
		events: make([]unix.EpollEvent, len(l.conns)+1),
		buf:    make([]byte, readSize),
		socks:  make([]esock, len(l.conns)),
	}
	switch sa := l.t.sa.(type) {
	case *unix.SockaddrInet4:
		c := *sa
		e.sa = &c
	case *unix.SockaddrInet6:
		c := *sa
		e.sa = &c
	}
	return e, nil
}

func (e *epoll) connect(c *conn) error {
	fd, err := socket(e.l)
	if err != nil {
		return err
	}
	c.fd = fd
	e.socks[c.idx] = esock{connecting: true}
	// The event's data names the connection and its socket's generation:
	// an event of a socket closed since is told from one of its successor
	// on the same descriptor number.
	ev := unix.EpollEvent{
		Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET,
		Fd:     int32(c.gen),
		Pad:    c.idx,
	}
	if err := unix.EpollCtl(e.fd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	if err := unix.Connect(fd, e.sa); err != nil && err != unix.EINPROGRESS {
		return os.NewSyscallError("connect", err)
	}
	// Established or in progress: epoll reports it writable either way.
	return nil
}

func (e *epoll) send(c *conn, b []byte) (bool, error) {
	if len(e.l.pend) > 0 {
		e.l.issue(e.l.now()) // the write is issued now
	}
	n, errno := rawWrite(c.fd, b)
	if errno != 0 && errno != unix.EAGAIN {
		return false, os.NewSyscallError("write", errno)
	}
	n = max(n, 0)
	if n == len(b) {
		return true, nil
	}
	e.socks[c.idx].out = b[n:]
	return false, nil
}

// receive has nothing to do: the socket's registration reports every
// arrival.
func (e *epoll) receive(c *conn) {}

func (e *epoll) close(c *conn) {
	if c.fd >= 0 {
		unix.Close(c.fd) // also removes it from the set
	}
	e.socks[c.idx] = esock{}
}

func (e *epoll) wait(d time.Duration, awaiting int) error {
	n, errno := e.poll(d)
	if errno != 0 && errno != unix.EINTR {
		return os.NewSyscallError("epoll_wait", errno)
	}
	now := e.l.now()
	for _, ev := range e.events[:max(n, 0)] {
		c := &e.l.conns[ev.Pad]
		if c.state == closed || uint32(ev.Fd) != c.gen {
			continue // a socket closed earlier in this batch
		}
		e.event(c, ev.Events, now)
		if e.l.err != nil {
			break
		}
	}
	return nil
}

// event handles what epoll reported of c's socket.
func (e *epoll) event(c *conn, ev uint32, now time.Duration) {
	s := &e.socks[c.idx]
	if s.connecting {
		if ev&(unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			errno, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR)
			if err == nil && errno != 0 {
				err = unix.Errno(errno)
			} else if err == nil {
				err = unix.ECONNREFUSED
			}
			e.h.connectFailed(c, os.NewSyscallError("connect", err), now)
			return
		}
		if ev&unix.EPOLLOUT == 0 {
			return
		}
		s.connecting = false
		gen := c.gen
		e.h.established(c, now)
		if c.gen != gen || c.state != open {
			return
		}
	}
	if ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		gen := c.gen
		e.read(c, ev&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0, now)
		if c.gen != gen || c.state != open {
			return
		}
	}
	if len(s.out) > 0 && ev&unix.EPOLLOUT != 0 {
		e.flush(c, now)
	}
}

// read reads c's socket until it is empty and hands the bytes to the loop.
// With hup, the peer has closed or reset, and c is read to the end.
func (e *epoll) read(c *conn, hup bool, now time.Duration) {
	for {
		n, errno := rawRead(c.fd, e.buf)
		switch {
		case n > 0:
			if !e.h.received(c, e.buf[:n], e.l.now()) {
				return
			}
			if n < len(e.buf) && !hup {
				// A short read emptied the socket; edge-triggered epoll
				// reports the next arrival.
				return
			}
		case n == 0:
			e.h.lost(c, nil, now)
			return
		case errno == unix.EINTR:
		case errno == unix.EAGAIN:
			return
		default:
			e.h.lost(c, os.NewSyscallError("read", errno), now)
			return
		}
	}
}

// flush writes what the socket did not take of the last send.
func (e *epoll) flush(c *conn, now time.Duration) {
	s := &e.socks[c.idx]
	n, errno := rawWrite(c.fd, s.out)
	if errno == unix.EAGAIN {
		return
	}
	if errno != 0 {
		s.out = nil
		e.h.lost(c, os.NewSyscallError("write", errno), now)
		return
	}
	if s.out = s.out[n:]; len(s.out) == 0 {
		s.out = nil
		e.h.sent(c, now)
	}
}

func (e *epoll) shutdown() {
	for i := range e.l.conns {
		if c := &e.l.conns[i]; c.fd >= 0 {
			unix.Close(c.fd)
			c.fd = -1
		}
	}
	unix.Close(e.fd)
}

// millis is d in whole milliseconds, rounded up, for epoll_wait.
func millis(d time.Duration) int {
	return int((d + time.Millisecond - 1) / time.Millisecond)
}

// poll waits up to d for events. It first polls without blocking, directly:
// under load events are ready and the scheduler's syscall bookkeeping is
// saved. When none is ready and the run is solo (Config.Solo), it blocks
// directly too: blocking through the scheduler hands the P off and keeps
// sysmon waking every 20 µs, on the loop's own core when pinned, which
// measured 5-8% more CPU per request; the loop yields on its own instead
// (yieldEvery). Otherwise it blocks through the scheduler, and other
// goroutines (an in-process server) have the P meanwhile.
//
// It blocks in epoll_pwait2, whose timeout is in ns: with a rate, the loop
// sleeps until the next request is due, and epoll_wait's whole
// milliseconds sent it up to 1 ms late (at 2000 requests/s, half a ms on
// the median). Where epoll_pwait2 is refused, it falls back to them.
func (e *epoll) poll(d time.Duration) (int, unix.Errno) {
	r, errno := rawEpollWait(e.fd, e.events, 0)
	if errno != 0 || r > 0 || d <= 0 {
		return r, errno
	}
	if !e.ms {
		e.ts = unix.NsecToTimespec(int64(d))
		r, errno = epollWait2(e.fd, e.events, &e.ts, e.l.cfg.Solo)
		if errno != unix.ENOSYS && errno != unix.EPERM {
			return r, errno
		}
		e.ms = true
	}
	if e.l.cfg.Solo {
		return rawEpollWait(e.fd, e.events, millis(d))
	}
	n, err := unix.EpollWait(e.fd, e.events, millis(d))
	if err != nil {
		if errno, ok := err.(unix.Errno); ok {
			return 0, errno
		}
		return 0, unix.EINVAL
	}
	return n, 0
}

// epollWait2 calls epoll_pwait2, directly when raw, else through the
// scheduler.
func epollWait2(epfd int, events []unix.EpollEvent, ts *unix.Timespec, raw bool) (int, unix.Errno) {
	call := unix.Syscall6
	if raw {
		call = unix.RawSyscall6
	}
	r, _, e := call(unix.SYS_EPOLL_PWAIT2, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])),
		uintptr(len(events)), uintptr(unsafe.Pointer(ts)), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), 0
}

func rawEpollWait(epfd int, events []unix.EpollEvent, msec int) (int, unix.Errno) {
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])),
		uintptr(len(events)), uintptr(msec), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), 0
}

// rawRead and rawWrite call read(2) and write(2) directly: the sockets are
// non-blocking, so the scheduler's syscall bookkeeping buys nothing.
func rawRead(fd int, b []byte) (int, unix.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(r), 0
}

func rawWrite(fd int, b []byte) (int, unix.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(r), 0
}

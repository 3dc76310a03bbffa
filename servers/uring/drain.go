//go:build linux

package main

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"hellobench/internal/uring"
)

// Graceful shutdown, each loop on its own: the accept is cancelled and the
// listening socket closed once the connections already queued on it are
// accepted (closing would reset them, though their clients may have sent a
// request); idle connections are closed at once and each other one when
// its request is answered, with Connection: close; after grace, whatever
// is left is closed.

const (
	// grace is how long the drain waits for requests in flight: the
	// contract allows 5 s from the signal to exit.
	grace = 3 * time.Second
	// acceptWait bounds the wait for queued connections to be accepted.
	acceptWait = 200 * time.Millisecond
)

// drain runs after each batch while the server drains; it reports whether
// the loop is done: no listener, no connection, every close completed.
func (l *loop) drain() bool {
	if l.drainFrom < 0 {
		l.drainFrom = l.now
		// The idle, once; those that become idle from now on are closed
		// as they do (sent).
		for c := l.idle.head; c != nil; {
			next := c.timer.next
			if l.quiet(c) {
				l.close(c)
			}
			c = next
		}
	}
	if l.listening && (queued(l.lfd) == 0 || l.now-l.drainFrom >= acceptWait) {
		l.closeListener()
	}
	if l.now-l.drainFrom >= grace {
		for i := len(l.live) - 1; i >= 0; i-- {
			l.close(l.live[i])
		}
	}
	if !l.listening && len(l.live) == 0 && l.closing == 0 {
		return true
	}
	// The kernel closes each connection at once once asked; a loop
	// that is not told of it within a second more stops anyway.
	return l.now-l.drainFrom >= grace+time.Second
}

// queued returns the length of the listening socket's accept queue: for a
// listening socket, TCP_INFO's unacked field.
func queued(fd int) int {
	info, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
	if err != nil {
		return 0
	}
	return int(info.Unacked)
}

// closeListener cancels the multishot accept and closes the listening
// socket: new connections are refused.
func (l *loop) closeListener() {
	l.listening, l.accepting = false, false
	d := userData(opListener, 0, 0)
	if err := l.r.CancelAndClose(l.lfd, d, d); err != nil {
		l.later(opListener, nil)
	}
}

// wakeUp ends the loop's wait from another goroutine: the pool's answers
// and the drain.
func (l *loop) wakeUp() {
	one := uint64(1)
	_, _ = unix.Write(l.wake, (*[8]byte)(unsafe.Pointer(&one))[:])
}

// readWake queues the read of the wake-up eventfd.
func (l *loop) readWake() {
	if s := l.sqe(opWake, nil); s != nil {
		s.Opcode, s.Fd, s.Len = uring.OpRead, int32(l.wake), uint32(len(l.woke))
		s.Addr = uint64(uintptr(unsafe.Pointer(&l.woke[0])))
	}
}

// woken reads the eventfd again and takes the answers the pool has
// finished. (The drain needs nothing more: run checks the flag each turn.)
func (l *loop) woken() {
	l.readWake()
	l.answer()
}

// answer takes the answers the pool has finished.
func (l *loop) answer() {
	l.mu.Lock()
	answers := l.answers
	l.answers = nil
	l.mu.Unlock()
	for _, j := range answers {
		if c := l.lookup(j.slot, j.gen); c != nil && c.state == stateWait {
			l.answered(c, j)
		}
	}
}

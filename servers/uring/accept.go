//go:build linux

package main

import (
	"log"
	"time"

	"golang.org/x/sys/unix"

	"hellobench/internal/uring"
)

// accept arms the multishot accept: one entry for every connection to come.
func (l *loop) accept() {
	l.accepting = true
	if s := l.sqe(opAccept, nil); s != nil {
		s.PrepAcceptMultishot(l.lfd, unix.SOCK_CLOEXEC)
	}
}

// accepted takes a new connection, or closes it at once at the limit: the
// open-file limit counts every connection whose close has not completed
// (limit.go), the loop's slots those with an operation in flight.
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
	// Counted from here until its close completes (lifecycle.go).
	if len(l.free) == 0 && len(l.conns) >= maxSlots || !l.s.limit.Acquire() {
		unix.Close(fd)
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

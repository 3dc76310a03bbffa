//go:build linux

package loadgen

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// An engine does one loop's socket I/O, as the table of functions in wrk's
// net.h does for its loop: the loop asks it to connect, send, receive and
// close, and wait hands the outcomes back to the loop's handlers
// (established, connectFailed, received, sent, lost), on the loop's thread
// and never from inside another call. An engine knows sockets, not requests:
// it neither counts nor times. epoll.go and uring.go are the two engines.
//
// A connection's socket is named by conn.fd and conn.gen; gen changes with
// every connect, so an engine can tell an outcome of a socket since closed
// from one of the current socket, and drops the former.
type engine interface {
	// connect opens a socket for c, sets c.fd, and starts connecting it
	// to the target. The outcome comes to established or connectFailed;
	// an error is a failure known at once (the socket could not be made,
	// or the kernel refused the connect).
	connect(c *conn) error

	// send starts sending b on c's open socket. b stays unchanged until
	// the send is done. done reports that c may be given its next send
	// now; otherwise sent(c) follows when the kernel has taken all of b, or
	// lost(c) if it cannot. The loop has at most one send in flight per
	// connection, so that requests reach the server whole and in order.
	// An error is the send's failure, known at once.
	send(c *conn, b []byte) (done bool, err error)

	// receive asks for c's next bytes: they come to received, the
	// connection's end to lost.
	receive(c *conn)

	// close closes c's socket. Nothing more of it comes to the loop.
	close(c *conn)

	// wait waits up to d for outcomes and hands them to the loop.
	// awaiting is how many responses the loop awaits: an engine may gather
	// completions when it is large. An error is the engine's own failure
	// and ends the run.
	wait(d time.Duration, awaiting int) error

	// shutdown closes the engine and every socket still open, once the
	// kernel has finished every operation that points into the loop's
	// memory.
	shutdown()
}

// A handler takes an engine's outcomes: the loop, or the TLS layer
// (tls.go), which takes a socket's outcomes and hands the loop those of the
// connection inside it, as wrk's TLS sockets sit under its one loop.
type handler interface {
	established(c *conn, now time.Duration)
	connectFailed(c *conn, err error, now time.Duration)
	received(c *conn, b []byte, now time.Duration) bool
	sent(c *conn, now time.Duration)
	lost(c *conn, err error, now time.Duration)
}

// newEngine makes l's engine: io_uring unless epoll was chosen, falling
// back to epoll when io_uring was only preferred and the kernel lacks it.
// It runs on l's own thread (an io_uring ring accepts submissions only from
// the thread that made it).
func newEngine(l *loop) (engine, error) {
	if l.engine != EngineEpoll {
		u, err := newURing(l)
		if err == nil {
			if l.t.tls {
				return newTLS(l, u, &u.h)
			}
			return u, nil
		}
		if l.cfg.Engine == EngineURing {
			return nil, err
		}
		l.engine = EngineEpoll
	}
	e, err := newEpoll(l)
	if err != nil {
		return nil, err
	}
	if l.t.tls {
		return newTLS(l, e, &e.h)
	}
	return e, nil
}

// socket opens a non-blocking TCP socket for the target.
func socket(l *loop) (int, error) {
	fd, err := unix.Socket(l.t.domain, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	if l.cfg.KeepAlive {
		// Requests go out whole in one send; Nagle would only delay the
		// next batch behind an unacknowledged one.
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	}
	if l.cfg.sndBuf > 0 {
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, l.cfg.sndBuf)
	}
	return fd, nil
}

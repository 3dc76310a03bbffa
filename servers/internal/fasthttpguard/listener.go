package fasthttpguard

import (
	"errors"
	"log"
	"net"
	"syscall"
	"time"
)

// fasthttp.Server.Serve returns on any accept error but a timeout, so a
// process out of file descriptors (EMFILE, or ENFILE for the whole system)
// would stop serving at the first connection it could not take: a flood of
// connections would end the server. RetryListener turns those errors into a
// wait, as net/http's Server.Serve does: the connection stays queued in the
// kernel, and Accept tries again after a pause that doubles from 5 ms, up to
// 100 ms so that the server serves again within that once descriptors are
// freed. While exhausted it wakes ten times a second at most, and logs once
// a second at most, with a count, under Name.
type RetryListener struct {
	net.Listener
	Name string // the server's, which its log lines start with

	// Accept is called from one goroutine, Serve's loop.
	failed int       // failures not yet logged
	logged time.Time // last log line
}

const (
	minRetry = 5 * time.Millisecond
	maxRetry = 100 * time.Millisecond
)

func (l *RetryListener) Accept() (net.Conn, error) {
	wait := minRetry
	for {
		c, err := l.Listener.Accept()
		if err == nil || !exhausted(err) {
			return c, err
		}
		l.failed++
		if now := time.Now(); now.Sub(l.logged) >= time.Second {
			log.Printf("%s: accept: %v (%d times since the last report); retrying", l.Name, err, l.failed)
			l.failed, l.logged = 0, now
		}
		time.Sleep(wait)
		wait = min(2*wait, maxRetry)
	}
}

// exhausted reports whether an accept error means the process or the system
// is out of a resource that closing connections gives back.
func exhausted(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM)
}

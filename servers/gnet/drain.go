//go:build linux

package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// Graceful shutdown. gnet's Engine.Stop closes every connection at once, in
// flight or not, and keeps accepting until then; gnet has no call to stop
// accepting alone. So shutdown first closes the listening sockets under gnet,
// then lets each connection finish the request it is in, and only then
// stops the engine.

// listenerFDs finds the descriptors of the engine's listening sockets (one
// per event loop with SO_REUSEPORT): the listening sockets bound to the same
// address as the one the engine hands out a duplicate of.
func listenerFDs(eng interface{ Dup() (int, error) }) ([]int, error) {
	dup, err := eng.Dup()
	if err != nil {
		return nil, err
	}
	defer unix.Close(dup)
	want, err := unix.Getsockname(dup)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd == dup {
			continue
		}
		if on, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err != nil || on != 1 {
			continue
		}
		if sa, err := unix.Getsockname(fd); err == nil && sameAddr(sa, want) {
			fds = append(fds, fd)
		}
	}
	if len(fds) == 0 {
		return nil, fmt.Errorf("no listening socket on %v", want)
	}
	return fds, nil
}

func sameAddr(a, b unix.Sockaddr) bool {
	switch a := a.(type) {
	case *unix.SockaddrInet4:
		b, ok := b.(*unix.SockaddrInet4)
		return ok && a.Port == b.Port && a.Addr == b.Addr
	case *unix.SockaddrInet6:
		b, ok := b.(*unix.SockaddrInet6)
		return ok && a.Port == b.Port && a.Addr == b.Addr
	}
	return false
}

// waitAccepted waits, up to limit, until the loops have accepted the
// connections queued on the listening sockets: closing a socket resets the
// ones still queued, though their clients may have sent a request already.
// For a listening socket, TCP_INFO's unacked field is the queue's length.
func waitAccepted(fds []int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for _, fd := range fds {
		for time.Now().Before(deadline) {
			info, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
			if err != nil || info.Unacked == 0 {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// closeListener closes a listening socket so that new connections are
// refused, without touching the descriptor number gnet knows: it puts in its
// place an idle listening socket of our own (bound to a loopback port, never
// connected to), so an accept by gnet racing with this finds nothing to
// accept rather than an error that would stop the engine. Dropping the last
// reference to the real socket also takes it out of gnet's epoll set. gnet
// closes the stand-in when it stops.
func closeListener(fd int) error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("stand-in socket: %w", err)
	}
	defer unix.Close(s)
	if err := unix.Bind(s, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fmt.Errorf("stand-in bind: %w", err)
	}
	if err := unix.Listen(s, 1); err != nil {
		return fmt.Errorf("stand-in listen: %w", err)
	}
	if err := unix.Dup3(s, fd, unix.O_CLOEXEC); err != nil {
		return fmt.Errorf("replacing listener fd %d: %w", fd, err)
	}
	return nil
}

// shutdown stops accepting, closes idle connections, waits up to grace for
// the others to finish their request (each answered with Connection: close),
// then stops the engine.
func (s *server) shutdown(grace time.Duration) {
	s.draining.Store(true)
	// Found now, not at boot: gnet opens the sockets of all loops but the
	// first after OnBoot.
	fds, err := listenerFDs(s.eng)
	if err != nil {
		log.Printf("gnet: finding the listening sockets: %v; new connections are closed, not refused", err)
	}
	waitAccepted(fds, 200*time.Millisecond)
	for _, fd := range fds {
		if err := closeListener(fd); err != nil {
			log.Printf("gnet: closing the listener: %v", err)
		}
	}
	s.sweepAll() // close idle connections now, not at the next tick
	deadline := time.Now().Add(grace)
	// Waits off the loop too, even for connections gone: their goroutines
	// write back through the engine, which must still run.
	for (s.limit.Open() > 0 || s.pool.Busy()) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.eng.Stop(ctx); err != nil {
		log.Printf("gnet: stopping the engine: %v", err)
	}
}

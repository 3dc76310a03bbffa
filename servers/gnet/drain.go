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
// accepting alone. So shutdown first closes the listening socket under gnet,
// then lets each connection finish the request it is in, and only then
// stops the engine.

// listenerFD finds the descriptor of the engine's listening socket: the one
// open on the same socket as a duplicate that the engine hands out. It
// returns -1 if there is none; shutdown then refuses new connections by
// closing them as they open, instead of leaving them unanswered.
func listenerFD(eng interface{ Dup() (int, error) }) int {
	dup, err := eng.Dup()
	if err != nil {
		log.Printf("gnet: finding the listener: %v", err)
		return -1
	}
	defer unix.Close(dup)
	var want unix.Stat_t
	if err := unix.Fstat(dup, &want); err != nil {
		log.Printf("gnet: finding the listener: %v", err)
		return -1
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		log.Printf("gnet: finding the listener: %v", err)
		return -1
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd == dup {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Dev == want.Dev && st.Ino == want.Ino {
			return fd
		}
	}
	log.Printf("gnet: finding the listener: no descriptor shares socket inode %d", want.Ino)
	return -1
}

// closeListener closes the listening socket so that new connections are
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
	if s.lnfd >= 0 {
		if err := closeListener(s.lnfd); err != nil {
			log.Printf("gnet: closing the listener: %v", err)
		}
	}
	s.sweepAll() // close idle connections now, not at the next tick
	deadline := time.Now().Add(grace)
	for s.active.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.eng.Stop(ctx); err != nil {
		log.Printf("gnet: stopping the engine: %v", err)
	}
}

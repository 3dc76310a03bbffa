//go:build linux

package main

import (
	"log"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Descriptor exhaustion. When accept(2) fails with EMFILE, gnet's event loop
// takes it as fatal: the loop exits and the whole engine stops, so a flood of
// connections under a low open-file limit would end the server. The error
// comes from inside gnet, where no handler can catch it or keep a spare
// descriptor to accept-and-close with, so the server makes sure accept never
// runs out: past maxConns open connections, OnOpen closes each new one at
// once, which frees its descriptor before the loop accepts again. Each
// connection of a flood then costs one accept and one close, with no busy
// loop, and the server serves again as soon as connections close. (ENFILE, the
// whole system out of descriptors, cannot be prevented this way.)

// connLimit returns how many connections the server keeps open: the
// open-file limit less the descriptors already open at boot, those each
// event loop opens after boot (its epoll, its wake-up eventfd and its
// SO_REUSEPORT listening socket), one per loop for a descriptor accepted but
// not yet counted (the loops accept concurrently), and a few for shutdown's
// own. 0 means no limit.
func connLimit(loops int) int64 {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == unix.RLIM_INFINITY {
		return 0
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	n := int64(rl.Cur) - int64(len(ents)) - 4*int64(loops) - 8
	return max(n, 1)
}

// reportRefused logs, at most once a second, how many connections were
// closed at the limit since the last report: one line per connection would
// flood the log as fast as the attacker connects.
func (s *server) reportRefused(now time.Time) {
	if now.Sub(s.refusedLogged) < time.Second {
		return
	}
	if n := s.refused.Swap(0); n > 0 {
		log.Printf("gnet: at the open-file limit (%d connections): closed %d new connections on arrival", s.maxConns, n)
		s.refusedLogged = now
	}
}

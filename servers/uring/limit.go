//go:build linux

package main

import (
	"log"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Descriptor exhaustion. Past maxConns open connections, a loop closes each
// new one as it is accepted, so that the descriptors the server needs are
// never all taken. When accept itself runs out (a burst the kernel accepts
// before the loop closes any of it), the multishot accept ends with EMFILE
// and is armed again at the next sweep, not at once: a loop out of
// descriptors waits, it does not spin. The server serves again as soon as
// connections close.

// connLimit returns how many connections the server keeps open: the
// open-file limit less the descriptors already open, those each loop opens
// (its ring, its eventfd, its listening socket), some for the accepts in
// flight, and a few to spare. 0 means no limit.
func connLimit(loops int) int64 {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == unix.RLIM_INFINITY {
		return 0
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	n := int64(rl.Cur) - int64(len(ents)) - 4*int64(loops) - 16
	return max(n, 1)
}

// reportRefused logs, at most once a second, how many connections were
// closed at the limit since the last report: one line per connection would
// flood the log as fast as the attacker connects.
func (s *server) reportRefused(now time.Duration) {
	last := s.logged.Load()
	if int64(now)-last < int64(time.Second) || s.refused.Load() == 0 || !s.logged.CompareAndSwap(last, int64(now)) {
		return
	}
	log.Printf("uring: at the open-file limit (%d connections): closed %d new connections on arrival", s.maxConns, s.refused.Swap(0))
}

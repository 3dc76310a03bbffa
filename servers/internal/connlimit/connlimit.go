// Package connlimit keeps a server that accepts on its own (gnet, uring)
// serving when connections outnumber its open-file limit.
//
// Past Max open connections, the server closes each new one as soon as it
// is accepted, so the descriptors it needs are never all taken: a flood of
// connections costs one accept and one close each, with no busy loop, and
// the server serves again as soon as connections close. The closes are
// logged at most once a second, not one line per connection, which would
// flood the log as fast as the attacker connects. (ENFILE, the whole system
// out of descriptors, cannot be prevented this way.)
package connlimit

import (
	"log"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Limit counts a server's open connections against a maximum. Its methods
// may be called from any goroutine.
type Limit struct {
	name    string // the server, in the log
	max     int64  // 0: no limit
	open    atomic.Int64
	refused atomic.Int64 // closed at the limit, not yet logged
	logged  atomic.Int64 // when refused was last logged, in Unix ns
}

// New returns the limit of server name: its open-file limit less the
// descriptors open now and spare more, those the server opens later or
// needs to keep (listeners, polls, accepts in flight, shutdown's own).
// Past an unlimited or unreadable open-file limit it has no maximum.
func New(name string, spare int) *Limit {
	return &Limit{name: name, max: fileLimit(spare)}
}

// fileLimit returns the open-file limit less the descriptors open and
// spare, at least 1; 0 if the limit is infinite or unknown.
func fileLimit(spare int) int64 {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == unix.RLIM_INFINITY {
		return 0
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return max(int64(rl.Cur)-int64(len(ents))-int64(spare), 1)
}

// Acquire counts one connection open and reports true, or reports false at
// the maximum: the caller then closes the connection and calls Refuse.
func (l *Limit) Acquire() bool {
	if l.max > 0 && l.open.Load() >= l.max {
		return false
	}
	l.open.Add(1)
	return true
}

// Release counts one connection Acquire counted as closed.
func (l *Limit) Release() { l.open.Add(-1) }

// Refuse counts one connection closed on arrival, for Report.
func (l *Limit) Refuse() { l.refused.Add(1) }

// Open returns how many connections are open.
func (l *Limit) Open() int64 { return l.open.Load() }

// Max returns the maximum; 0 means none.
func (l *Limit) Max() int64 { return l.max }

// Refused returns how many connections were refused since the last report.
func (l *Limit) Refused() int64 { return l.refused.Load() }

// Report logs how many connections were refused since the last report,
// if any were and the last report is a second old: a server calls it on
// every tick of its clock.
func (l *Limit) Report(now time.Time) {
	last := l.logged.Load()
	if now.UnixNano()-last < int64(time.Second) || l.refused.Load() == 0 || !l.logged.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	log.Printf("%s: at the open-file limit (%d connections): closed %d new connections on arrival", l.name, l.max, l.refused.Swap(0))
}

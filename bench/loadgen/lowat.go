//go:build linux

package loadgen

import (
	"time"

	"golang.org/x/sys/unix"
)

// Reading a pipelined batch's answers at once. A server writes each answer
// as it is ready, so a client is woken, and reads, once per response: with
// 16 requests pipelined, those reads and wake-ups were most of loadgen's
// CPU beyond sending. SO_RCVLOWAT (socket(7)) asks the kernel to report a
// socket readable, and wake its reader, only once that many bytes are
// queued. A closed pipelined loop sets it, per connection, to the least the
// answers it awaits can amount to: their number times the smallest whole
// response seen, less what it has read of the first. With answers of one
// size (a benchmark's), a batch is then read in one receive, and never
// later than its last byte arrives. A request's latency is its batch's
// (the last answer's), as when the answers are read together anyway.
//
// An answer smaller than any seen could leave fewer bytes than the mark:
// the marks then follow the smaller size, and should a connection awaiting
// answers stay silent for much longer than batches take, with bytes
// queued, the loop drops the marks for the rest of the run.

const (
	// markMax caps a mark at one receive buffer.
	markMax = recvSize
	// stallMin and stallBatches: a connection silent for stallBatches
	// times the batches' recent time, and at least stallMin, is stalled.
	// Long enough that a server paused by the scheduler with part of a
	// batch sent is not taken for one (a true stall costs it once a run).
	stallMin     = 50 * time.Millisecond
	stallBatches = 8
)

// marking reports whether l sets marks: a closed loop pipelining over
// kept-alive connections, whose answers have one length.
func (l *loop) marking() bool {
	return l.pace == nil && l.cfg.Pipeline > 1 && l.cfg.KeepAlive && !l.cfg.AnyLength
}

// mark sets c's mark to the least its awaited answers can amount to.
func (l *loop) mark(c *conn) {
	if !l.marks || l.minResp == 0 || c.state != open {
		return
	}
	want := 1
	if sent := c.inflight - c.unsent; sent > 0 {
		want = int(int64(sent)*l.minResp - c.p.size)
	}
	want = min(max(want, 1), markMax)
	if want == max(c.mark, 1) {
		return
	}
	if unix.SetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT, want) == nil {
		c.mark = want
		l.marked++
	}
}

// answered notes a whole response of size bytes; keep says the connection
// stays open after it; batch is how long its batch took, when it ended one.
// The last answer on a connection (Connection: close, as a server's
// keep-alive limit sends, a few bytes shorter) sets no mark: the close
// wakes the reader anyway.
func (l *loop) answered(size int64, keep bool, batch time.Duration) {
	if keep && (l.minResp == 0 || size < l.minResp) {
		l.minResp = size
	}
	if batch > 0 {
		l.batchTime += (batch - l.batchTime) / 8
	}
}

// unstall drops the marks when a connection awaiting answers has been
// silent for much longer than batches take with bytes queued: bytes the
// mark holds back. (Silent with none queued, the server is slow.)
func (l *loop) unstall(now time.Duration) {
	limit := max(stallMin, stallBatches*l.batchTime)
	for i := range l.conns {
		c := &l.conns[i]
		if c.mark > 1 && c.state == open && c.inflight > c.unsent && now-c.active > limit {
			if n, err := unix.IoctlGetInt(c.fd, unix.SIOCINQ); err == nil && n > 0 {
				l.unmark()
				return
			}
		}
	}
}

// unmark sets every connection's mark back to one byte, for good.
func (l *loop) unmark() {
	l.marks = false
	for i := range l.conns {
		if c := &l.conns[i]; c.mark > 1 && c.fd >= 0 {
			unix.SetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT, 1)
			c.mark = 0
		}
	}
}

//go:build linux

package loadgen

import "time"

// issue records, for each first send given to the engine since the last
// issue, its lateness: now, when the engine issues the system call that
// sends it, less the time it could first have gone (request.ready).
func (l *loop) issue(now time.Duration) {
	for _, ready := range l.pend {
		record(l.s.late, int64(now-ready))
	}
	l.pend = l.pend[:0]
}

// MinClientBound is the least send lateness that ClientLimited holds
// against a point: below it, a client's lateness is the noise of any
// client (a wake-up, a cache miss), whatever the latency.
const MinClientBound = 50 * time.Microsecond

// ClientLimited is issue 22's rule for a point measured at a fixed rate:
// the point is client-limited, and its latencies are not the server's,
// when the client's own send lateness at the 99.9th percentile (late)
// exceeds bound, the larger of 10 % of the measured latency's 99.9th
// percentile (p999) and MinClientBound.
//
// The lateness percentile, not its maximum, is held against the bound:
// the bound is a share of the latency's p99.9, and each request's lateness
// is part of its latency (latency runs from the due time), so at most one
// request in a thousand can owe more than the bound to the client. One late
// send (a page fault, a preemption) moves the maximum alone; the maximum is
// reported beside it for that reason.
func ClientLimited(late, p999 time.Duration) (limited bool, bound time.Duration) {
	bound = max(p999/10, MinClientBound)
	return late > bound, bound
}

// ClientLimited applies ClientLimited to r's send lateness and latency.
// Without a rate there is no lateness, and it reports false and bound 0.
func (r *Result) ClientLimited() (limited bool, bound time.Duration) {
	if r.SendLateness == nil || r.SendLateness.TotalCount() == 0 {
		return false, 0
	}
	return ClientLimited(time.Duration(r.SendLateness.ValueAtQuantile(99.9)), time.Duration(r.Latency.ValueAtQuantile(99.9)))
}

//go:build linux

package loadgen

import "time"

// A pacer is a loop's open-loop schedule (Config.Rate): a request is due
// every interval from the first, whether or not the earlier ones have been
// answered, and each keeps its due time as its start, so the latency of a
// request a stalled server held back counts from when it should have gone.
// Times are from the run's start.
type pacer struct {
	interval time.Duration
	next     time.Duration // when the next request is due
}

// newPacer returns the schedule of rate requests per second from first.
func newPacer(rate float64, first time.Duration) *pacer {
	return &pacer{interval: max(time.Duration(float64(time.Second)/rate), 1), next: first}
}

// due reports how many requests are due at now.
func (p *pacer) due(now time.Duration) int {
	if p.next > now {
		return 0
	}
	return int((now-p.next)/p.interval) + 1
}

// take returns the next request's due time and moves the schedule past it.
func (p *pacer) take() time.Duration {
	t := p.next
	p.next += p.interval
	return t
}

// until is how long from now until the next request is due, 0 if it is.
func (p *pacer) until(now time.Duration) time.Duration {
	return max(p.next-now, 0)
}

package bench

import (
	"time"
)

// A usageLog samples a server's CPU time every period while a run goes on,
// so that the CPU of one part of the run (loadgen's measured span, after
// its warm-up on the same connections) can be told from the rest.
type usageLog struct {
	stop chan struct{}
	done chan struct{}
	at   []time.Time
	cpu  []time.Duration
	// user and sys are the samples' split of cpu, where split.
	user, sys []time.Duration
	split     bool
	err       error
}

// logUsage starts sampling s every period, from now until Stop.
func logUsage(s *Server, period time.Duration) *usageLog {
	u := &usageLog{stop: make(chan struct{}), done: make(chan struct{}), split: true}
	sample := func() bool {
		us, err := s.Usage()
		if err != nil {
			u.err = err
			return false
		}
		u.at, u.cpu = append(u.at, time.Now()), append(u.cpu, us.CPU)
		u.user, u.sys = append(u.user, us.User), append(u.sys, us.Sys)
		u.split = u.split && us.Split
		return true
	}
	sample()
	go func() {
		defer close(u.done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-u.stop:
				sample()
				return
			case <-t.C:
				if !sample() {
					return
				}
			}
		}
	}()
	return u
}

// Stop ends the sampling and returns its first error, if any.
func (u *usageLog) Stop() error {
	close(u.stop)
	<-u.done
	return u.err
}

// over is the server's CPU time and the wall time between the first sample
// at or after from and the last at or before to; ok is false when the span
// holds fewer than two samples.
func (u *usageLog) over(from, to time.Time) (cpu, wall time.Duration, ok bool) {
	i, j, ok := u.span(from, to)
	if !ok {
		return 0, 0, false
	}
	return u.cpu[j] - u.cpu[i], u.at[j].Sub(u.at[i]), true
}

// span is the indices of the first sample at or after from and the last at
// or before to.
func (u *usageLog) span(from, to time.Time) (i, j int, ok bool) {
	i, j = -1, -1
	for k, t := range u.at {
		if i < 0 && !t.Before(from) {
			i = k
		}
		if !t.After(to) {
			j = k
		}
	}
	return i, j, i >= 0 && j > i
}

// perRequest is the server's CPU µs per request and its core's busy
// share, in percent, over the client's measured span of st (at its rate
// achieved); ok is false when the span holds too few samples or no
// requests.
func (u *usageLog) perRequest(st Stats) (cpuUS, busy float64, ok bool) {
	cpu, wall, ok := u.over(st.Start, st.Start.Add(st.Elapsed))
	if !ok || st.ReqPerSec <= 0 {
		return 0, 0, false
	}
	return float64(cpu) / float64(time.Microsecond) / (st.ReqPerSec * wall.Seconds()), 100 * cpu.Seconds() / wall.Seconds(), true
}

// A Split is the server's CPU per request in user mode and in the kernel,
// in µs; OK is false where the CPU source does not split it.
type Split struct {
	User, Sys float64
	OK        bool
}

// perRequestSplit is perRequest's user and kernel parts, over the same
// span.
func (u *usageLog) perRequestSplit(st Stats) Split {
	i, j, ok := u.span(st.Start, st.Start.Add(st.Elapsed))
	if !ok || !u.split || st.ReqPerSec <= 0 {
		return Split{}
	}
	n := st.ReqPerSec * u.at[j].Sub(u.at[i]).Seconds()
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) / n }
	return Split{User: us(u.user[j] - u.user[i]), Sys: us(u.sys[j] - u.sys[i]), OK: true}
}

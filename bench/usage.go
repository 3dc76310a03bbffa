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
	err  error
}

// logUsage starts sampling s every period, from now until Stop.
func logUsage(s *Server, period time.Duration) *usageLog {
	u := &usageLog{stop: make(chan struct{}), done: make(chan struct{})}
	sample := func() bool {
		us, err := s.Usage()
		if err != nil {
			u.err = err
			return false
		}
		u.at, u.cpu = append(u.at, time.Now()), append(u.cpu, us.CPU)
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
	i, j := -1, -1
	for k, t := range u.at {
		if i < 0 && !t.Before(from) {
			i = k
		}
		if !t.After(to) {
			j = k
		}
	}
	if i < 0 || j <= i {
		return 0, 0, false
	}
	return u.cpu[j] - u.cpu[i], u.at[j].Sub(u.at[i]), true
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

package bench

import (
	"fmt"
	"slices"
	"time"

	"hellobench/bench/proc"
)

// Saturated is the server core's busy share below which a result is
// client-bound: the server waited for the client, so its req/s is not its
// ceiling.
const Saturated = 90.0

// A Result is one measured run.
type Result struct {
	Server string
	Mode   Mode
	Stats
	Wall      time.Duration // the client process's run, over which CPU is sampled
	ServerCPU time.Duration // the server's utime+stime during the run
	AppCPU    time.Duration // the FastCGI application's, for fcgi (not in ServerCPU)
	PeakRSS   int64         // VmHWM of the server (plus the application), bytes
}

// Busy is the server core's busy share in percent: the CPU time of
// everything on it over the run's wall time.
func (r Result) Busy() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return 100 * float64(r.ServerCPU+r.AppCPU) / float64(r.Wall)
}

// CPUPerRequest is the server's (and application's) CPU time per request in
// µs: the steadiest figure, since it does not depend on how busy the core
// was kept.
func (r Result) CPUPerRequest() float64 {
	if r.Requests == 0 {
		return 0
	}
	return float64(r.ServerCPU+r.AppCPU) / float64(time.Microsecond) / float64(r.Requests)
}

// Ceiling is the implied one-core ceiling in requests per second:
// 1e6 / CPUPerRequest.
func (r Result) Ceiling() float64 {
	if c := r.CPUPerRequest(); c > 0 {
		return 1e6 / c
	}
	return 0
}

// ClientBound reports whether the server's core was under Saturated busy.
func (r Result) ClientBound() bool { return r.Busy() < Saturated }

// Measure runs l against s with client c, sampling the server's CPU time
// from /proc before and after and its peak RSS at the end.
func Measure(s *Server, c Client, l Load) (Result, error) {
	r := Result{Server: s.Name, Mode: l.Mode}
	cpu0, app0, err := s.cpu()
	if err != nil {
		return r, err
	}
	t0 := time.Now()
	st, err := c.Run(l)
	r.Wall = time.Since(t0)
	if err != nil {
		if !Alive(s.PID()) {
			return r, fmt.Errorf("%v (and %s has exited; its output:\n%s)", err, s.Name, s.Stderr())
		}
		return r, err
	}
	cpu1, app1, err := s.cpu()
	if err != nil {
		return r, err
	}
	r.Stats = st
	r.ServerCPU = cpu1 - cpu0
	r.AppCPU = app1 - app0
	r.PeakRSS, err = proc.PeakRSS(s.PID())
	if err != nil {
		return r, fmt.Errorf("bench: %s: %v", s.Name, err)
	}
	if s.app != 0 {
		rss, err := proc.PeakRSS(s.app)
		if err != nil {
			return r, fmt.Errorf("bench: fcgi application: %v", err)
		}
		r.PeakRSS += rss
	}
	return r, nil
}

// cpu returns the CPU time of the server and of its application so far.
func (s *Server) cpu() (server, app time.Duration, err error) {
	server, err = proc.TotalCPU(s.PID())
	if err != nil {
		return 0, 0, fmt.Errorf("bench: %s: CPU time: %v (output:\n%s)", s.Name, err, s.Stderr())
	}
	if s.app != 0 {
		app, err = proc.TotalCPU(s.app)
		if err != nil {
			return 0, 0, fmt.Errorf("bench: fcgi application: CPU time: %v", err)
		}
	}
	return server, app, nil
}

// Median returns the median of f over rs: the middle value, or the mean of
// the two middle ones for an even count.
func Median(rs []Result, f func(Result) float64) float64 {
	if len(rs) == 0 {
		return 0
	}
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

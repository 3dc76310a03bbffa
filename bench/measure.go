package bench

import (
	"fmt"
	"time"

	"hellobench/internal/proc"
)

// Saturated is the server core's busy share below which a result is
// labelled: the server waited for something (the client, round trips), so
// its req/s is not its ceiling.
const Saturated = 90.0

// SaturatedCeiling is the busy share a ceiling run must reach to count:
// below it, the server's CPU per request includes the wake-ups of a server
// that was waiting, which a server at its ceiling does not pay.
const SaturatedCeiling = 97.0

// A Result is one measured run.
type Result struct {
	Server string
	Mode   Mode
	Stats
	Wall      time.Duration // the client process's run, over which CPU is sampled
	ServerCPU time.Duration // the server's utime+stime during the run
	AppCPU    time.Duration // the FastCGI application's, for fcgi (not in ServerCPU)
	// ServerUser and ServerSys split the group's CPU (ServerCPU+AppCPU)
	// between user mode and the kernel, where Split (cgroup v1).
	ServerUser, ServerSys time.Duration
	Split                 bool
	PeakRSS               int64 // VmHWM of the server (plus the application), bytes
	Segments              int64 // TCP segments the machine sent during the run
}

// span is the time the load ran: the client's own measure, which leaves
// out its start-up and connecting (when the server has nothing to do), or
// else the client process's wall time.
func (r Result) span() time.Duration {
	if r.Elapsed > 0 {
		return r.Elapsed
	}
	return r.Wall
}

// Busy is the server's busy share in percent: the CPU time of everything
// counted for it over the time the load ran.
func (r Result) Busy() float64 {
	if r.span() <= 0 {
		return 0
	}
	return 100 * float64(r.ServerCPU+r.AppCPU) / float64(r.span())
}

// CPUPerRequest is the server's (and application's) CPU time per request in
// µs: the steadiest figure, since it does not depend on how busy the core
// was kept.
func (r Result) CPUPerRequest() float64 { return r.perRequest(r.ServerCPU + r.AppCPU) }

// perRequest is d over the run's requests, in µs.
func (r Result) perRequest(d time.Duration) float64 {
	if r.Requests == 0 {
		return 0
	}
	return float64(d) / float64(time.Microsecond) / float64(r.Requests)
}

// CPUSplit is CPUPerRequest's user and kernel parts.
func (r Result) CPUSplit() Split {
	return Split{User: r.perRequest(r.ServerUser), Sys: r.perRequest(r.ServerSys), OK: r.Split && r.Requests > 0}
}

// ServerCPUPerRequest is the CPU time per request, in µs, of the process
// that speaks HTTP alone (lighttpd, for fcgi).
func (r Result) ServerCPUPerRequest() float64 { return r.perRequest(r.ServerCPU) }

// AppCPUPerRequest is the FastCGI application's CPU time per request in µs
// (0 for every other target).
func (r Result) AppCPUPerRequest() float64 { return r.perRequest(r.AppCPU) }

// ClientCPUPerRequest is the load generator's CPU time per request in µs.
func (r Result) ClientCPUPerRequest() float64 { return r.perRequest(r.ClientCPU) }

// ClientUserPerRequest is the part of ClientCPUPerRequest spent in user
// mode: the client's own code, not the kernel's work on its behalf.
func (r Result) ClientUserPerRequest() float64 { return r.perRequest(r.ClientUser) }

// SegmentsPerRequest is the TCP segments sent per request, both ways (over
// loopback every segment is sent by one end and received by the other).
// The counter is the machine's: on a quiet machine, the run's own.
func (r Result) SegmentsPerRequest() float64 {
	if r.Requests == 0 {
		return 0
	}
	return float64(r.Segments) / float64(r.Requests)
}

// Ceiling is the implied one-core ceiling in requests per second:
// 1e6 / CPUPerRequest.
func (r Result) Ceiling() float64 {
	if c := r.CPUPerRequest(); c > 0 {
		return 1e6 / c
	}
	return 0
}

// ClientBusy is the client's busy share in percent: its CPU time over the
// run's wall time (per core it runs on).
func (r Result) ClientBusy() float64 {
	if r.span() <= 0 {
		return 0
	}
	return 100 * float64(r.ClientCPU) / float64(r.span())
}

// ClientBound reports whether the client's core was saturated while the
// server's was not: the client, not the server, set the pace.
func (r Result) ClientBound() bool { return r.Busy() < Saturated && r.ClientBusy() >= Saturated }

// Measure runs l against s with client c, sampling the CPU time of the
// target's counted processes from /proc before and after and their peak
// RSS at the end.
func Measure(s *Server, c Client, l Load) (Result, error) {
	r := Result{Server: s.Name, Mode: l.Mode}
	u0, err := s.Usage()
	if err != nil {
		return r, fmt.Errorf("bench: %v", err)
	}
	seg0, err := proc.TCPSegments()
	if err != nil {
		return r, fmt.Errorf("bench: %v", err)
	}
	t0 := time.Now()
	st, err := c.Run(l)
	r.Wall = time.Since(t0)
	seg1, segErr := proc.TCPSegments()
	if err != nil {
		select {
		case <-s.Proc.Exited():
			return r, fmt.Errorf("%v (and %s has exited; its output:\n%s)", err, s.Name, s.Stderr())
		default:
		}
		return r, err
	}
	u1, err := s.Usage()
	if err != nil {
		return r, fmt.Errorf("bench: %v", err)
	}
	if segErr != nil {
		return r, fmt.Errorf("bench: %v", segErr)
	}
	r.Stats = st
	r.Segments = seg1 - seg0
	// The first counted process speaks HTTP; the rest (fcgi's
	// application) are shown apart. A target of one process is all server.
	r.ServerCPU = u1.CPU - u0.CPU
	if len(s.Counted) > 1 {
		front := s.Counted[0]
		r.ServerCPU = u1.ByComm[front] - u0.ByComm[front]
		r.AppCPU = (u1.CPU - u1.ByComm[front]) - (u0.CPU - u0.ByComm[front])
	}
	if r.Split = u0.Split && u1.Split; r.Split {
		r.ServerUser, r.ServerSys = u1.User-u0.User, u1.Sys-u0.Sys
	}
	r.PeakRSS = u1.Peak
	return r, nil
}

// Median returns the median of f over rs.
func Median(rs []Result, f func(Result) float64) float64 { return Of(rs, f).Median }

package report

import (
	"strconv"
	"strings"
)

// A Capacity is make bench-load's search for one server: the highest rate
// one core held, open loop, with its p99 within the SLO.
type Capacity struct {
	Server string  `json:"server"`
	SLO    float64 `json:"slo_p99_us"`
	// Rate is the rate held in each round (0: none from the search's
	// lowest up), and Share that rate as a share of the server's
	// keep-alive ceiling, in percent.
	Rate  Figure `json:"req_per_sec"`
	Share Figure `json:"share_of_ceiling_pct"`
	// HostP99 is the host's own stall p99 (package stall) at the last
	// rate held: the SLO should lie well above it.
	HostP99 Figure `json:"host_stall_p99_us"`
}

// capacityPoint reads a BenchmarkCapacity name, "server/p99=5000us".
func capacityPoint(name string, s Samples) (Capacity, bool) {
	server, slo, ok := cutLast(name, "/p99=")
	us, err := strconv.ParseFloat(strings.TrimSuffix(slo, "us"), 64)
	if !ok || err != nil || !strings.HasSuffix(slo, "us") || len(s["slo-req/s"]) == 0 {
		return Capacity{}, false
	}
	return Capacity{Server: server, SLO: us, Rate: s.figure("slo-req/s"), Share: s.figure("slo-share-%"), HostP99: s.figure("host-p99-us")}, true
}

// FindCapacity returns a server's capacity, if searched.
func FindCapacity(cs []Capacity, server string) (Capacity, bool) {
	for _, c := range cs {
		if c.Server == server {
			return c, true
		}
	}
	return Capacity{}, false
}

// A Why is make bench-load's count of what one server asks of the kernel
// per request at one load: a quarter of its ceiling, or saturated.
type Why struct {
	Server string `json:"server"`
	Load   string `json:"load"` // "of=25%" or "saturated"
	// ReqPerSec and Busy say what the load was: the rate achieved and the
	// server's core's busy share, in percent.
	ReqPerSec Figure `json:"req_per_sec"`
	Busy      Figure `json:"server_cpu_pct"`
	// Per request: system calls, epoll_wait calls (any of its forms), and
	// context switches, voluntary (the server slept) and involuntary;
	// EventsPerWait is the events an epoll_wait returned on average.
	Syscalls      Figure `json:"syscalls_per_req"`
	EpollWaits    Figure `json:"epoll_waits_per_req"`
	EventsPerWait Figure `json:"events_per_epoll_wait"`
	Voluntary     Figure `json:"voluntary_switches_per_req"`
	Involuntary   Figure `json:"involuntary_switches_per_req"`
	// URingEnters is the io_uring_enter calls per request; User and Sys
	// split the server's CPU per request, in µs, into its own code and the
	// kernel's (counted in the clock's ticks). Only where counted.
	URingEnters Figure `json:"io_uring_enters_per_req,omitzero"`
	User        Figure `json:"user_us_per_req,omitzero"`
	Sys         Figure `json:"sys_us_per_req,omitzero"`
	// The system calls by kind, per request, where counted: reads and
	// writes of every form, futex, epoll_ctl, and the rest.
	Reads    Figure `json:"reads_per_req,omitzero"`
	Writes   Figure `json:"writes_per_req,omitzero"`
	Futex    Figure `json:"futex_per_req,omitzero"`
	EpollCtl Figure `json:"epoll_ctl_per_req,omitzero"`
	Other    Figure `json:"other_calls_per_req,omitzero"`
}

// whyPoint reads a BenchmarkWhy name, "server/of=25%" or
// "server/saturated", or a BenchmarkProtoCalls one, "row/rate=5000".
func whyPoint(name string, s Samples) (Why, bool) {
	server, load, ok := cutLast(name, "/")
	known := load == "saturated" || strings.HasPrefix(load, "of=") || strings.HasPrefix(load, "rate=")
	if !ok || !known || len(s["syscalls/req"]) == 0 {
		return Why{}, false
	}
	return Why{Server: server, Load: load, ReqPerSec: s.figure("req/s"), Busy: s.figure("cpu-%"),
		Syscalls: s.figure("syscalls/req"), EpollWaits: s.figure("epoll-waits/req"), EventsPerWait: s.figure("events/wait"),
		Voluntary: s.figure("vcsw/req"), Involuntary: s.figure("ivcsw/req"),
		URingEnters: s.figure("uring-enters/req"), User: s.figure("user-us/req"), Sys: s.figure("sys-us/req"),
		Reads: s.figure("reads/req"), Writes: s.figure("writes/req"), Futex: s.figure("futex/req"), EpollCtl: s.figure("epoll-ctl/req"),
		Other: s.figure("other-calls/req")}, true
}

// FindWhy returns a server's counts at one load, if counted.
func FindWhy(ws []Why, server, load string) (Why, bool) {
	for _, w := range ws {
		if w.Server == server && w.Load == load {
			return w, true
		}
	}
	return Why{}, false
}

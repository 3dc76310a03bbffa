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

package render

import (
	"fmt"
	"strings"

	"hellobench/bench/report"
)

// NewConnTable is bin/report -newconn's table: each server's CPU per
// request on a new connection per request at one fixed rate, and its
// ratio to the reference nginx held at the same rate beside it. Empty
// without them.
func NewConnTable(rep report.Report) string {
	if len(rep.NewConn) == 0 {
		return ""
	}
	rate := report.ConnRate(rep.NewConn[0].Mode)
	var b strings.Builder
	fmt.Fprintf(&b, "A new connection per request (`Connection: close`) at %s new connections a second, the same for every server: open loop, a rate every server and nginx hold on one core, "+
		"so that, unlike a closed loop at one client core, every server is priced. Measured as the ceilings are: in blocks, the servers in an order that changes from block to block, "+
		"with a reference nginx, kept running, held at the same rate right before and after each. "+
		"A block counts where the server held the rate (within 1 %%). The host's speed is not judged, unlike the ceilings': a new connection's CPU moves from block to block by more than the ±%.0f %% that rule allows, "+
		"so the ratio to nginx, taken block by block against the reference beside the server, is what cancels the host's level.\n\n", num(atof(rate), 0), 100*report.HostTol)
	b.WriteString("| server | CPU µs/request | vs nginx beside it | server busy | blocks kept | note |\n|---|--:|--:|--:|--:|---|\n")
	for _, p := range rep.NewConn {
		vs := "–"
		if p.Server != "nginx" {
			vs = versus(p.CPUVsNginx)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d of %d | %s |\n", p.Server, spread(p.CPU, 2), vs, pct(p.Busy), p.CPU.N, len(p.Blocks), atLoadNote(p))
	}
	return b.String() + "\n" + source(rep, report.NewConnSection) + "\n"
}

// atof reads a rate written by the bench ("5000"), 0 if unreadable.
func atof(s string) float64 {
	var v float64
	fmt.Sscan(s, &v)
	return v
}

package render

import (
	"fmt"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
)

// ClientsTable is make compare-clients' run: each client's CPU per request
// against wrk's, by mode.
func ClientsTable(rep report.Report) string {
	run := rep.Clients
	if run == nil || len(run.Rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| mode | client | client CPU µs/request | of it in user space | vs wrk, round by round | TCP segments/request | req/s | vs wrk | server CPU µs/request | server busy | server CPU vs under loadgen | note |\n|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for _, r := range run.Rows {
		if r.Skipped != "" {
			fmt.Fprintf(&b, "| %s | %s | – | – | – | – | – | – | – | – | – | not run: %s |\n", r.Mode, r.Client, r.Skipped)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Mode, r.Client, spread(r.ClientCPU, 2), spread(r.ClientUser, 2),
			versus(r.CPUVsWrk), spread(r.Segments, 2), spread(r.ReqPerSec, 0), versus(r.RateVsWrk), spread(r.ServerCPU, 2), pct(r.Busy),
			versusSaturated(r.ServerVsLoadgen), bench.Label(run.Connections, r.Busy.Median, r.ClientBusy.Median))
	}
	fmt.Fprintf(&b, "\n_`make compare-clients`, %s, against %s with %d connections, %d rounds of %.0f s per mode in changing orders; %s; the server's CPU against loadgen's rounds only where the server was 97 %% busy under both._\n",
		run.Date, run.Server, run.Connections, run.Rounds, run.Duration, interval(run.Rounds))
	return b.String()
}

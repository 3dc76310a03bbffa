package render

import (
	"fmt"
	"slices"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
)

// ClientsTable is make compare WHAT=clients' run: each client's CPU per request
// against wrk's, by mode. The check of the server's CPU under each client
// against under loadgen is a column only where the run recorded it.
func ClientsTable(rep report.Report) string {
	run := rep.Clients
	if run == nil || len(run.Rows) == 0 {
		return ""
	}
	check := slices.ContainsFunc(run.Rows, func(r bench.ClientsRow) bool { return r.ServerVsLoadgen != nil })
	head := "| mode | client | client CPU µs/request | of it in user space | vs wrk, round by round | TCP segments/request | req/s | vs wrk | server CPU µs/request | server busy |"
	if check {
		head += " server CPU vs under loadgen |"
	}
	var b strings.Builder
	b.WriteString(head + " note |\n|---|---|--:|--:|--:|--:|--:|--:|--:|--:|" + strings.Repeat("--:|", b2i(check)) + "---|\n")
	for _, r := range run.Rows {
		if r.Skipped != "" {
			fmt.Fprintf(&b, "| %s | %s |%s not run: %s |\n", r.Mode, r.Client, strings.Repeat(" – |", 8+b2i(check)), r.Skipped)
			continue
		}
		vsLoadgen := ""
		if check {
			vsLoadgen = " " + versusSaturated(r.ServerVsLoadgen) + " |"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%s %s |\n", r.Mode, r.Client, spread(r.ClientCPU, 2), spread(r.ClientUser, 2),
			versus(r.CPUVsWrk), spread(r.Segments, 2), spread(r.ReqPerSec, 0), versus(r.RateVsWrk), spread(r.ServerCPU, 2), pct(r.Busy),
			vsLoadgen, bench.Label(run.Connections, r.Busy.Median, r.ClientBusy.Median))
	}
	fmt.Fprintf(&b, "\n_`make compare WHAT=clients`, %s, against %s with %d connections, %d rounds of %.0f s per mode in changing orders; %s",
		run.Date, run.Server, run.Connections, run.Rounds, run.Duration, interval(run.Rounds))
	if check {
		b.WriteString("; the server's CPU against loadgen's rounds only where the server was 97 % busy under both._\n")
	} else {
		b.WriteString(". This run predates the check of the server's CPU under each client against under loadgen: the next run adds its column._\n")
	}
	return b.String()
}

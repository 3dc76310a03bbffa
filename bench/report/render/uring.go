package render

import (
	"fmt"
	"slices"
	"strings"

	"hellobench/bench/report"
)

// uringRun is the invocation that writes report.UringSection.
const uringRun = "`make bench-work PART=uring` (`bin/report -uring`)"

// uringNote says which rows of a table came from make bench-work
// PART=uring's run instead of the table's whole run (servers, in table
// order), when and in how many blocks it ran, and what their cells are:
// its block count is its own, so their intervals may be of another kind.
// "" when no row did.
func uringNote(rep report.Report, servers []string) string {
	s, ok := rep.Sections[report.UringSection]
	if !ok || len(servers) == 0 {
		return ""
	}
	return fmt.Sprintf("_%s rows: %s, %s, %s%s; each of their cells is %s. The other rows are the whole run's._\n",
		strings.Join(servers, "'s and ")+"'s", uringRun, s.Date, plural(s.Rounds, "block"), runHost(rep, s), interval(s.Rounds))
}

// uringServers are the servers, each once in order of first appearance,
// of the rows whose source is report.UringSection.
func uringServers[T any](rows []T, server, source func(T) string) []string {
	var names []string
	for _, r := range rows {
		if source(r) == report.UringSection && !slices.Contains(names, server(r)) {
			names = append(names, server(r))
		}
	}
	return names
}

// waitUringNote is uringNote for the wait rows.
func waitUringNote(rep report.Report) string {
	return uringNote(rep, uringServers(rep.Wait, func(p report.Point) string { return p.Server }, func(p report.Point) string { return p.Source }))
}

// idleUringNote is uringNote for the idle rows.
func idleUringNote(rep report.Report) string {
	return uringNote(rep, uringServers(rep.Idle, func(i report.Idle) string { return i.Server }, func(i report.Idle) string { return i.Source }))
}

package render

import (
	"fmt"
	"strings"

	"hellobench/bench/report"
)

// versionsLine is the report header's line of the versions measured: each
// Go stack's modules as its run's build resolved them, and nginx's and
// lighttpd's as they said.
func versionsLine(rep report.Report) string {
	m := rep.Sections[report.CeilingsSection].Machine
	if m.CPU == "" {
		m = rep.Machine
	}
	refs := fmt.Sprintf("nginx %s, lighttpd %s", orNone(m.Nginx), orNone(m.Lighttpd))
	if len(m.Versions) == 0 {
		return fmt.Sprintf("- Versions: %s, %s; the Go stacks' modules were not recorded by this run.\n", m.Go, refs)
	}
	var stacks, std []string
	for _, s := range report.Order() {
		mods, ok := m.Versions[s]
		switch {
		case !ok:
		case len(mods) == 0:
			std = append(std, s)
		default:
			stacks = append(stacks, s+" "+strings.Join(mods, ", "))
		}
	}
	line := "- Versions, as the run's build resolved them: " + strings.Join(stacks, "; ")
	if len(std) > 0 {
		line += "; " + strings.Join(std, ", ") + " on " + m.Go + " alone"
	}
	return line + "; " + refs + ".\n"
}

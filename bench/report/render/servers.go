package render

import (
	"bytes"
	"fmt"
	"strings"

	"hellobench/bench/report"
	"hellobench/internal/targets"
	"hellobench/servers"
)

// ServersCode renders each server's main.go whole, as a Go block under a
// heading naming its folder and length, in the servers table's order: the
// minimal server as the source has it.
func ServersCode(report.Report) string {
	var b strings.Builder
	for _, t := range targets.Servers() {
		src, err := servers.Mains.ReadFile(t.Name + "/main.go")
		if err != nil {
			fmt.Fprintf(&b, "### servers/%s\n\nservers/%s has no main.go.\n\n", t.Name, t.Name)
			continue
		}
		fmt.Fprintf(&b, "### servers/%s/main.go (%d lines)\n\n```go\n%s```\n\n", t.Name, bytes.Count(src, []byte("\n")), src)
	}
	return b.String()
}

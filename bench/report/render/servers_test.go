package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hellobench/bench/report"
	"hellobench/internal/targets"
)

// TestServersCode checks that every server's main.go is shown whole, as it
// is on disk, in a Go block under its heading.
func TestServersCode(t *testing.T) {
	out := ServersCode(report.Report{})
	for _, tg := range targets.Servers() {
		src, err := os.ReadFile(filepath.Join("..", "..", "..", "servers", tg.Name, "main.go"))
		if err != nil {
			t.Fatal(err)
		}
		block := "### servers/" + tg.Name + "/main.go ("
		i := strings.Index(out, block)
		if i < 0 {
			t.Errorf("no heading %q", block)
			continue
		}
		if !strings.Contains(out[i:], " lines)\n\n```go\n"+string(src)+"```\n") {
			t.Errorf("servers/%s/main.go not shown whole under its heading", tg.Name)
		}
	}
}

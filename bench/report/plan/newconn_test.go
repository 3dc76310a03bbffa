package plan

import (
	"strings"
	"testing"
)

// TestNewConnCommands checks bin/report -newconn's commands: a block a
// command, each with the rate and its block, and -quick's one short block
// of nethttp and nginx.
func TestNewConnCommands(t *testing.T) {
	cmds := NewConn(false, 26, 5000)
	if len(cmds) != 26 {
		t.Fatalf("%d commands, want 26", len(cmds))
	}
	last := strings.Join(cmds[25], " ")
	if !strings.Contains(last, "-bench ^BenchmarkNewConn$") || !strings.Contains(last, "-conn-rate 5000 -for 500ms -lat-warmup 200ms -block 25") {
		t.Errorf("the last block's command: %s", last)
	}
	q := NewConn(true, 1, 5000)
	if len(q) != 1 || !strings.HasSuffix(strings.Join(q[0], " "), "-conn-rate 5000 -lat-servers nethttp,nginx -for 300ms -lat-warmup 100ms -block 0") {
		t.Errorf("-quick's commands: %q", q)
	}
}

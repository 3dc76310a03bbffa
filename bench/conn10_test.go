package bench

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestConn10Clients: loadgen runs conn10 as keep-alive connections that
// each carry ConnRequests requests (loadgen's TestPerConn counts them),
// and every other client refuses it, having no such limit, before it runs.
func TestConn10Clients(t *testing.T) {
	l := Load{URL: "http://127.0.0.1:1/hello/world", Mode: Conn10, Connections: 50, Duration: time.Second}
	args := Loadgen{}.Args(l)
	if i := slices.Index(args, "-per-conn"); i < 0 || i+1 >= len(args) || args[i+1] != "10" || !slices.Contains(args, "-k") {
		t.Errorf("loadgen's arguments for conn10: %q, want -k and -per-conn 10", args)
	}
	for _, c := range []Client{Wrk{Bin: "wrk"}, H2load{Bin: "h2load"}, Hey{Bin: "hey"}, Bombardier{Bin: "bombardier"}} {
		_, err := c.Run(l)
		if err == nil || !strings.Contains(err.Error(), "cannot run conn10: "+noPerConn) {
			t.Errorf("%s runs conn10: %v, want a refusal", c.Name(), err)
		}
	}
}

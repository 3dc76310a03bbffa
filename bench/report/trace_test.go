package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTrace reads the recorded traces under testdata/trace (strace of
// ten requests at 20 req/s on one connection) and checks net/http's
// request, call by call.
func TestTrace(t *testing.T) {
	var rep Report
	if err := AddTrace(&rep, "testdata/trace/trace.txt", "testdata/trace/traces"); err != nil {
		t.Fatal(err)
	}
	var servers []string
	for _, tr := range rep.Traces {
		servers = append(servers, tr.Server)
	}
	if want := []string{"nethttp", "fasthttp", "gnet", "uring"}; !slices.Equal(servers, want) {
		t.Fatalf("traces of %q, want %q", servers, want)
	}
	n := rep.Traces[0]
	// Ten requests, and the connection's first read and the warm-up's.
	if n.Bursts != 12 || n.Requests != 11 || n.File != "nethttp.strace" {
		t.Errorf("nethttp: %d bursts, %d requests, file %q; want 12, 11, nethttp.strace", n.Bursts, n.Requests, n.File)
	}
	var calls []string
	for _, c := range n.Calls {
		calls = append(calls, c.Thread+" "+c.Name+" "+c.Result)
	}
	want := []string{"A epoll_pwait 1", "A futex 1", "B futex 0", "A read 110", "B nanosleep 0", "A write 415", "B nanosleep 0",
		"A read -1 EAGAIN (Resource temporarily unavailable)", "A epoll_pwait 0", "B nanosleep 0"}
	if !slices.Equal(calls, want) {
		t.Errorf("nethttp's request:\n%q\nwant\n%q", calls, want)
	}
	if c := n.Calls[3]; c.AtUS != 189 || c.TookUS != 44 || c.What != "reads the request (110 bytes)" {
		t.Errorf("nethttp's read of the request: %+v", c)
	}
	if c := n.Calls[0]; c.AtUS != 0 || c.TookUS != 47934 || !strings.HasPrefix(c.What, "wakes from a wait for readiness") {
		t.Errorf("nethttp's wake-up: %+v", c)
	}
	if got := n.PerRequest["read"]; got < 2.18 || got > 2.19 { // 24 reads over 11 requests
		t.Errorf("nethttp: %g reads per request, want 24/11", got)
	}
	// uring reads in the kernel: its requests are the completions that
	// woke it.
	if u := rep.Traces[3]; u.Requests != 11 || u.Calls[0].Name != "io_uring_enter" {
		t.Errorf("uring: %d requests, first call %+v", u.Requests, u.Calls[0])
	}
}

// TestTraceBadLine checks that a line strace did not write is an error
// that names it.
func TestTraceBadLine(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.strace")
	os.WriteFile(file, []byte("13156 00:18:38.782602 read(8, \"GET /\"..., 4096) = 110 <0.000014>\nnot strace\n"), 0o644)
	_, err := ReadTrace("x", file)
	if err == nil || !strings.Contains(err.Error(), `x.strace:2: "not strace" is not a line of strace -f -tt -T`) {
		t.Fatalf("error %v", err)
	}
}

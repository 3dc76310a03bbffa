package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestQuickServers(t *testing.T) {
	for _, c := range []struct{ ceilings, want string }{
		{"nethttp=49652,nginx=98000,fasthttp=76628", "nethttp,nginx"},
		{"nginx=98000,fasthttp=76628,nethttp=49652", "nethttp,nginx"},
		// nginx unsaturated in the quick block: the next one with a ceiling.
		{"nethttp=49652,fasthttp=76628,floor=113443", "nethttp,fasthttp"},
		{"floor=113443,gin=48123", "gin"},
	} {
		if got := quickServers(c.ceilings); got != c.want {
			t.Errorf("quickServers(%q) = %q, want %q", c.ceilings, got, c.want)
		}
	}
}

// TestLatencyCommands checks make bench-latency's rounds: one a block,
// each keeping the HdrHistogram logs of the chart's point alone; -quick's
// keep every point's.
func TestLatencyCommands(t *testing.T) {
	cmds := Latency(false, 3, "nethttp=50000,nginx=100000", "../results/latency.partial")
	if len(cmds) != 3 {
		t.Fatalf("%d commands, want 3", len(cmds))
	}
	for k, c := range cmds {
		line := strings.Join(c, " ")
		want := fmt.Sprintf(" -lat-logs ../results/latency.partial -lat-logs-of r=25000/c=50 -block %d", k)
		if !strings.HasSuffix(line, want) {
			t.Errorf("round %d: %s\nwant it to end in %q", k, line, want)
		}
	}
	for _, c := range Latency(true, 1, "nethttp=50000,nginx=100000", "logs") {
		if line := strings.Join(c, " "); !strings.Contains(line, " -lat-logs logs ") || strings.Contains(line, "-lat-logs-of") {
			t.Errorf("-quick: %s\nwant every point's logs", line)
		}
	}
}

// TestLoadCommands checks make bench-load's rounds: every round holds the
// servers at their points in its own block's order, and only the first
// rounds search for the rate within the bound.
func TestLoadCommands(t *testing.T) {
	cmds := Load(false, 6, 3, "nethttp=50000,nginx=100000")
	var load, search, why []string
	for _, c := range cmds {
		line := strings.Join(c, " ")
		switch {
		case strings.Contains(line, "^BenchmarkLoad$"):
			load = append(load, line)
		case strings.Contains(line, "^BenchmarkCapacity$"):
			search = append(search, line)
		case strings.Contains(line, "^BenchmarkWhy$"):
			why = append(why, line)
		default:
			t.Errorf("a command that is neither: %s", line)
		}
	}
	if len(load) != 6 || len(search) != 3 || len(why) != 3 {
		t.Fatalf("%d rounds of points, %d of the search and %d of the counts; want 6, 3 and 3", len(load), len(search), len(why))
	}
	for k, line := range load {
		if !strings.HasSuffix(line, "-block "+strconv.Itoa(k)) || !strings.Contains(line, "-of 0.1,0.25,0.5,0.75,0.9") || !strings.Contains(line, "-ceilings nethttp=50000,nginx=100000") {
			t.Errorf("round %d: %s", k, line)
		}
	}
	quick := Load(true, 1, 1, "nethttp=50000,nginx=100000")
	if len(quick) != 3 || !strings.Contains(strings.Join(quick[0], " "), "-lat-servers nethttp,nginx") || !strings.Contains(strings.Join(quick[1], " "), "-slo-steps 2") {
		t.Errorf("quick: %q", quick)
	}
}

// TestTLSCommands checks make bench-tls's blocks: each runs every mode but
// keep-alive with an ECDSA certificate and TLS 1.2's rows, then the full
// handshakes with an RSA one, in the block's order; -quick one short block.
func TestTLSCommands(t *testing.T) {
	cmds := TLS(false, 3, time.Second)
	if len(cmds) != 6 {
		t.Fatalf("%d commands for 3 blocks, want 6", len(cmds))
	}
	for i, c := range cmds {
		line := strings.Join(c, " ")
		k := strconv.Itoa(i / 2)
		if !strings.Contains(line, "^BenchmarkTLS$") || !strings.Contains(line, "-for 1s -block "+k) {
			t.Errorf("command %d: %s", i, line)
		}
		ecdsa := strings.HasSuffix(line, "-tls-modes tls-pipeline,tls-resumed,tls-full,h2-1,h2-16,h2c-1,h2c-16 -tls12")
		if rsa := strings.HasSuffix(line, "-tls-key-type rsa -tls-modes tls-full"); rsa != (i%2 == 1) || ecdsa != (i%2 == 0) {
			t.Errorf("command %d: %s", i, line)
		}
	}
	quick := TLS(true, 1, time.Second)
	if len(quick) != 1 || !strings.Contains(strings.Join(quick[0], " "), "-tls-modes tls-resumed,h2-16 -warmup 2000 -for 200ms -block 0") {
		t.Errorf("quick: %q", quick)
	}
}

// TestTLSKeepAliveCommands checks make bench-tls's keep-alive blocks:
// keep-alive alone, with the ceilings' short runs, one command a block.
func TestTLSKeepAliveCommands(t *testing.T) {
	cmds := TLSKeepAlive(false, 3, 300*time.Millisecond)
	if len(cmds) != 3 {
		t.Fatalf("%d commands for 3 blocks, want 3", len(cmds))
	}
	for i, c := range cmds {
		line := strings.Join(c, " ")
		if !strings.Contains(line, "^BenchmarkTLS$") || !strings.HasSuffix(line, "-tls-modes tls-keepalive -for 300ms -block "+strconv.Itoa(i)) {
			t.Errorf("command %d: %s", i, line)
		}
	}
	quick := TLSKeepAlive(true, 1, time.Second)
	if len(quick) != 1 || !strings.HasSuffix(strings.Join(quick[0], " "), "-servers nethttp -tls-modes tls-keepalive -warmup 2000 -for 200ms -block 0") {
		t.Errorf("quick: %q", quick)
	}
	some := strings.Join(tlsKeepAliveBlock(false, 300*time.Millisecond, 40, []string{"chi", "nginx/aa"}), " ")
	if !strings.HasSuffix(some, "-servers chi,nginx/aa -tls-modes tls-keepalive -for 300ms -block 40") {
		t.Errorf("a block of two rows: %s", some)
	}
}

// TestKeptRule checks make bench-tls's keep-alive stopping rule on
// testdata's three blocks: a further block runs the rows that keep fewer
// blocks than asked, none when every row keeps enough, none at the cap.
func TestKeptRule(t *testing.T) {
	file := filepath.Join("..", "testdata", "tls-keepalive.txt")
	each := 300 * time.Millisecond
	c, err := KeepAliveRule(false, 4, 10, each).Next(file, 3)
	if err != nil {
		t.Fatal(err)
	}
	// nethttp and nginx/aa kept 3 blocks each; nginx is the reference.
	if len(c) != 1 || !strings.HasSuffix(strings.Join(c[0], " "), "-servers nethttp,nginx/aa -tls-modes tls-keepalive -for 300ms -block 3") {
		t.Errorf("block 3 with 4 kept asked: %q", c)
	}
	if c, err := KeepAliveRule(false, 3, 10, each).Next(file, 3); err != nil || c != nil {
		t.Errorf("every row keeps 3: %q, %v; want no block", c, err)
	}
	if c, err := KeepAliveRule(false, 4, 3, each).Next(file, 3); err != nil || c != nil {
		t.Errorf("at the cap: %q, %v; want no block", c, err)
	}
	if _, err := KeepAliveRule(false, 4, 10, each).Next(filepath.Join(t.TempDir(), "none.txt"), 3); err == nil {
		t.Error("no output so far: no error")
	}
	if h := KeepAliveRule(false, 4, 10, each).Header(); h != "# until: 4 kept, at most 10 blocks" {
		t.Errorf("header %q", h)
	}
}

// TestHandshakeCommands checks the handshake blocks: nethttp and nginx in
// both modes, one command a block on loadgen; a further block one command
// a mode when the modes' short servers differ; the rule counting nginx's
// own row, whose CPU per request is wanted.
func TestHandshakeCommands(t *testing.T) {
	each := 300 * time.Millisecond
	cmds := TLSHandshakes(false, 2, each)
	if len(cmds) != 2 || !strings.HasSuffix(strings.Join(cmds[1], " "), "-servers nethttp,nginx -tls-modes tls-full,tls-resumed -tls-client loadgen -for 300ms -block 1") {
		t.Errorf("whole blocks: %q", cmds)
	}
	some := tlsHandshakeBlock(false, each, 5, map[string][]string{"tls-full": {"nginx"}, "tls-resumed": {"nethttp", "nginx"}})
	if len(some) != 2 || !strings.HasSuffix(strings.Join(some[0], " "), "-servers nginx -tls-modes tls-full -tls-client loadgen -for 300ms -block 5") ||
		!strings.HasSuffix(strings.Join(some[1], " "), "-servers nethttp,nginx -tls-modes tls-resumed -tls-client loadgen -for 300ms -block 5") {
		t.Errorf("block 5, the modes short of different servers: %q", some)
	}
	file := filepath.Join(t.TempDir(), "tls-handshake.txt")
	var text strings.Builder
	text.WriteString("# rounds: 1\npkg: hellobench/bench\n")
	for _, server := range []string{"nethttp", "nginx"} {
		fmt.Fprintf(&text, "BenchmarkTLS/%s/tls-full-2 \t 1\t 50.00 conns\t 99.0 cpu-%%\t 150.0 cpu-us/req\t 0 ns/op\t 1.000 ref-drift\t 170.0 ref-us/req\t 6000 req/s\t 1 saturated\n", server)
	}
	if err := os.WriteFile(file, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := HandshakeRule(false, 2, 10, each).Next(file, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(c) != 1 || !strings.HasSuffix(strings.Join(c[0], " "), "-servers nethttp,nginx -tls-modes tls-full -tls-client loadgen -for 300ms -block 1") {
		t.Errorf("block 1, both servers short of 2 in tls-full: %q", c)
	}
}

// TestAtLoadCommands checks make bench-load's blocks at a quarter of each
// ceiling: one command a block, in the block's order, short runs; -quick
// one block of two servers.
func TestAtLoadCommands(t *testing.T) {
	cmds := AtLoad(false, 3, "nethttp=90000,nginx=170000")
	if len(cmds) != 3 {
		t.Fatalf("%d commands for 3 blocks, want 3", len(cmds))
	}
	for i, c := range cmds {
		line := strings.Join(c, " ")
		if !strings.Contains(line, "^BenchmarkAtLoad$") || !strings.HasSuffix(line, "-ceilings nethttp=90000,nginx=170000 -at 0.25 -for 500ms -lat-warmup 200ms -block "+strconv.Itoa(i)) {
			t.Errorf("command %d: %s", i, line)
		}
	}
	quick := AtLoad(true, 1, "nethttp=90000,nginx=170000")
	if len(quick) != 1 || !strings.HasSuffix(strings.Join(quick[0], " "), "-lat-servers nethttp,nginx -for 300ms -lat-warmup 100ms -block 0") {
		t.Errorf("quick: %q", quick)
	}
}

// TestKeepAliveCeilingsQuick: a full run's shares come from saturated
// ceilings alone; a smoke run lets a server left short of saturated stand
// in at the rate it reached, so that nginx, the reference of the benches
// after it, is not missing.
func TestKeepAliveCeilingsQuick(t *testing.T) {
	body := "# date: 2026-12-06 23:51 UTC\n# rounds: 1\n%spkg: hellobench/bench\n" +
		"BenchmarkCeiling/nginx/keepalive-2 \t 1\t 96.6 cpu-%%\t 72 client-cpu-%%\t 11.29 cpu-us/req\t 85620 req/s\t 0 saturated\n" +
		"BenchmarkCeiling/gnet/keepalive-2 \t 1\t 99.5 cpu-%%\t 60 client-cpu-%%\t 8.00 cpu-us/req\t 120000 req/s\t 1 saturated\n"
	dir := t.TempDir()
	for _, c := range []struct{ header, want string }{
		{"", "gnet=125000"},
		{"# quick: a smoke run, not for publishing\n", "gnet=125000,nginx=85620"},
	} {
		file := filepath.Join(dir, "bench.txt")
		if err := os.WriteFile(file, fmt.Appendf(nil, body, c.header), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := KeepAliveCeilings(file)
		if err != nil || got != c.want {
			t.Errorf("ceilings with header %q: %q, %v; want %q", c.header, got, err, c.want)
		}
	}
}

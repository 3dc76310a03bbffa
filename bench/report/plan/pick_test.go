package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPick checks make bench's run: the ceilings' blocks first, then,
// once, the runs that take this run's own ceilings (read from its
// output), at its rate and idle connections, and nothing more.
func TestPick(t *testing.T) {
	p := Pick{Blocks: 2, Rounds: 3, Searches: 2, TLSBlocks: 2, Rate: 30000, Each: 300 * time.Millisecond}
	first := p.First()
	if len(first) != 2 || !strings.Contains(strings.Join(first[1], " "), "-bench Ceiling -benchtime 1x -timeout 0 ./bench -args -modes keepalive -for 300ms -block 1") {
		t.Fatalf("first: %q", first)
	}
	file := filepath.Join(t.TempDir(), "pick.txt")
	out := "# date: 2026-12-08 01:00 UTC\n# rounds: 2\npkg: hellobench/bench\n" +
		"BenchmarkCeiling/nethttp/keepalive-2 \t 1\t 19.0 cpu-us/req\t 1.0 saturated\t 52000 req/s\t 52600 implied-req/s\n" +
		"BenchmarkCeiling/nginx/keepalive-2 \t 1\t 7.9 cpu-us/req\t 1.0 saturated\t 126000 req/s\t 126582 implied-req/s\n"
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	rest, err := p.Next(file, 2)
	if err != nil {
		t.Fatal(err)
	}
	var load, search, idle, tls int
	for _, c := range rest {
		line := strings.Join(c, " ")
		switch {
		case strings.Contains(line, "^BenchmarkLoad$"):
			load++
			if !strings.Contains(line, "-ceilings nethttp=52632,nginx=126582 -rates 30000 -of  -many-conns 0") {
				t.Errorf("load: %s", line)
			}
		case strings.Contains(line, "^BenchmarkCapacity$"):
			search++
		case strings.Contains(line, "^BenchmarkIdle$"):
			idle++
			if !strings.HasSuffix(line, "-args -idle 10000") {
				t.Errorf("idle: %s", line)
			}
		case strings.Contains(line, "^BenchmarkTLS$"):
			tls++
		default:
			t.Errorf("a command of no part: %s", line)
		}
	}
	if load != 3 || search != 2 || idle != 2 || tls != 4 {
		t.Errorf("%d load, %d search, %d idle, %d TLS commands; want 3, 2, 2, 4", load, search, idle, tls)
	}
	if more, err := p.Next(file, 3); more != nil || err != nil {
		t.Errorf("a second Next: %q, %v", more, err)
	}
	if h := p.Header(); h != "# pick: rate 30000 idle 10000" {
		t.Errorf("header %q", h)
	}
}

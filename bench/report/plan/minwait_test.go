package plan

import (
	"slices"
	"strings"
	"testing"
)

// TestMinWaitCommands: the full run is one go test of BenchmarkMinWait a
// block, each with its own -block and the same waits and ceilings; -quick
// is one short block at a fixed rate, needing no ceiling.
func TestMinWaitCommands(t *testing.T) {
	full := MinWait(false, 3, "uring=200000,nginx=150000", "0,25us,50us")
	if len(full) != 3 {
		t.Fatalf("%d commands for 3 blocks", len(full))
	}
	for k, c := range full {
		want := "go test -run ^$ -bench ^BenchmarkMinWait$ -benchtime 1x -timeout 0 ./bench -args -ceilings uring=200000,nginx=150000 -at 0.25 -min-waits 0,25us,50us -for 1s -lat-warmup 300ms -block " + string(rune('0'+k))
		if got := strings.Join(c, " "); got != want {
			t.Errorf("block %d:\n got %s\nwant %s", k, got, want)
		}
	}
	quick := MinWait(true, 1, "", "0,25us")
	want := []string{"go", "test", "-run", "^$", "-bench", "^BenchmarkMinWait$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args",
		"-min-wait-rate", "10000", "-min-waits", "0,100us", "-for", "300ms", "-lat-warmup", "100ms", "-block", "0"}
	if len(quick) != 1 || !slices.Equal(quick[0], want) {
		t.Errorf("-quick: %q, want %q", quick, want)
	}
}

package plan

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestUringCommands checks make bench-work PART=uring's blocks: each runs
// make bench-work's waits of uring alone, in the block's order, then make
// bench-sweep's idle connections of uring and the io_uring floor; -quick
// one short block.
func TestUringCommands(t *testing.T) {
	work, sweep := Work(false, 3, 500*time.Millisecond), Sweep(3, 50000)
	cmds := Uring(false, 3)
	if len(cmds) != 6 {
		t.Fatalf("%d commands for 3 blocks, want 6", len(cmds))
	}
	for i, c := range cmds {
		k := strconv.Itoa(i / 2)
		want := "go test -run ^$ -bench ^BenchmarkWait$ -benchtime 1x -timeout 0 ./bench -args -servers uring -block " + k
		// The same command as make bench-work's block k, of uring alone.
		same := strings.Replace(strings.Join(work[i/2*2+1], " "), " -args ", " -args -servers uring ", 1)
		if i%2 == 1 {
			want = "go test -run ^$ -bench ^BenchmarkIdle$ -benchtime 1x -timeout 0 ./bench -args -servers uring,floor-uring"
			same = strings.Join(sweep[1], " ") + " -args -servers uring,floor-uring"
		}
		if got := strings.Join(c, " "); got != want || got != same {
			t.Errorf("command %d:\n%s\nwant\n%s\nand make bench-work's or make bench-sweep's\n%s", i, got, want, same)
		}
	}
	quick := Uring(true, 3)
	want := []string{
		"go test -run ^$ -bench ^BenchmarkWait$ -benchtime 1x -timeout 0 ./bench -args -servers uring -block 0 -wait 10ms -wait-for 400ms",
		"go test -run ^$ -bench ^BenchmarkIdle$ -benchtime 1x -timeout 0 ./bench -args -servers uring,floor-uring -idle 1000 -quiet 500ms",
	}
	if len(quick) != 2 || strings.Join(quick[0], " ") != want[0] || strings.Join(quick[1], " ") != want[1] {
		t.Errorf("quick: %q, want %q", quick, want)
	}
}

package proc

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestCPUTimeGrows(t *testing.T) {
	before, err := TotalCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Burn about 100 ms of CPU: at least several clock ticks.
	end := time.Now().Add(100 * time.Millisecond)
	x := 0
	for time.Now().Before(end) {
		x++
	}
	after, err := TotalCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d := after - before; d < 50*time.Millisecond || d > 5*time.Second {
		t.Fatalf("CPU time grew by %v over a 100 ms busy loop (x=%d)", d, x)
	}
}

func TestPeakRSS(t *testing.T) {
	rss, err := PeakRSS(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if rss < 1<<20 || rss > 1<<34 {
		t.Fatalf("PeakRSS = %d bytes, not a plausible size for a Go test binary", rss)
	}
}

func TestMissingProcess(t *testing.T) {
	if _, err := TotalCPU(1 << 30); err == nil {
		t.Fatal("TotalCPU of a PID that cannot exist: no error")
	}
}

func TestPinned(t *testing.T) {
	if !HasTaskset() {
		t.Skip("taskset not installed")
	}
	out, err := Pinned(0, "grep", "Cpus_allowed_list", "/proc/self/status").Output()
	if err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(string(out)); len(f) != 2 || f[1] != "0" {
		t.Fatalf("pinned to CPU 0, the process reports %q", out)
	}
}

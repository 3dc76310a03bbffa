package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hellobench/bench/report"
)

// TestCostsKeepAlive checks the keep-alive split re-based on the io_uring
// floor: a stack on epoll gets the readiness model's share, one on
// io_uring its loop beyond the io_uring floor; without the io_uring floor
// in the run, the epoll floor is the lowest and rows on io_uring are left
// out.
func TestCostsKeepAlive(t *testing.T) {
	old := CostsKeepAlive(parsed(t))
	if !strings.Contains(old, "| stack | total CPU µs/req | syscall floor |") || strings.Contains(old, "io_uring") {
		t.Errorf("without the io_uring floor:\n%s", old)
	}
	data, err := os.ReadFile("../testdata/ceilings.txt")
	if err != nil {
		t.Fatal(err)
	}
	var extra strings.Builder
	for range 3 {
		extra.WriteString("BenchmarkCeiling/floor-uring/keepalive-2 \t 20000\t 97.0 cpu-%\t 60 client-cpu-%\t 8.00 cpu-us/req\t 60000 req/s\n")
		extra.WriteString("BenchmarkCeiling/uring/keepalive-2 \t 20000\t 97.0 cpu-%\t 60 client-cpu-%\t 8.50 cpu-us/req\t 60000 req/s\n")
	}
	// Among the ceilings, after the keep-alive ones.
	i := strings.Index(string(data), "BenchmarkCeiling/fcgi/")
	if i < 0 {
		t.Fatal("no fcgi ceiling in the test data to put the io_uring rows before")
	}
	text := string(data[:i]) + extra.String() + string(data[i:])
	path := filepath.Join(t.TempDir(), "bench.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := report.Read(map[string]string{"ceilings": path})
	if err != nil {
		t.Fatal(err)
	}
	got := CostsKeepAlive(rep)
	for _, want := range []string{
		"| stack | total CPU µs/req | io_uring floor | readiness model over it | server loop beyond its floor |",
		"| uring | 8.50 (8.50–8.50) | 94 % | – (on io_uring) | 0.50 (0.50–0.50) (6 %) | – |",
		"| floor-uring | 8.00 (8.00–8.00) | 100 % | – | – | – |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the table lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(got, "| nethttp | ") || !strings.Contains(got, "| floor | ") {
		t.Errorf("a stack on epoll or the epoll floor is missing:\n%s", got)
	}
}

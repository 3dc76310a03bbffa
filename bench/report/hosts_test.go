package report

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"hellobench/bench"
)

// TestHostKey: the processor's identity where recorded, else its name; the
// kernel; the mitigations' digest, or that they were not recorded.
func TestHostKey(t *testing.T) {
	for _, c := range []struct {
		m    Machine
		want string
	}{
		{Machine{CPU: "AMD EPYC", Kernel: "Linux 6.18.44-fc-v1252"}, "amd-epyc_linux-6.18.44-fc-v1252_mitigations-not-recorded"},
		{Machine{CPU: "AMD EPYC", Kernel: "Linux 6.18.44-fc-v1272", SyscallNS: 148, Mitigations: []string{"spec_store_bypass: Vulnerable"}},
			"amd-epyc_linux-6.18.44-fc-v1272_mit-7f026e5c"},
		{Machine{CPU: "AMD EPYC", Vendor: "AuthenticAMD", Family: "26", Model: "2", Stepping: "1", Kernel: "Linux 6.18.44-fc-v1272", SyscallNS: 150},
			"authenticamd-26-2-1_linux-6.18.44-fc-v1272_mit-e3b0c442"},
	} {
		if got := HostKey(c.m); got != c.want {
			t.Errorf("HostKey(%+v) = %s, want %s", c.m, got, c.want)
		}
	}
	// The syscall cost, measured anew each run, does not move the key.
	a := Machine{CPU: "x", Kernel: "k", SyscallNS: 140, Mitigations: []string{"m"}}
	b := a
	b.SyscallNS = 155
	if HostKey(a) != HostKey(b) {
		t.Errorf("the key moved with the system-call cost: %s, %s", HostKey(a), HostKey(b))
	}
}

// TestReadHosts reads the recorded hosts: each directory is named by the
// key of the machine its first run recorded, and every run has nginx's
// yardstick and the stacks' ratios.
func TestReadHosts(t *testing.T) {
	dir := filepath.Join("..", "..", "results")
	hosts, err := ReadHosts(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(hosts) < 2 {
		t.Fatalf("%d hosts recorded, want the 12-04 and 12-05 ones at least", len(hosts))
	}
	for _, h := range hosts {
		if k := HostKey(h.Machine); k != h.Key {
			t.Errorf("host %s: its machine's key is %s", h.Key, k)
		}
		for _, r := range h.Runs {
			if r.Nginx.N == 0 || len(r.Ratios) < 10 {
				t.Errorf("host %s, run %s: nginx %+v, %d ratios", h.Key, r.Date, r.Nginx.Spread, len(r.Ratios))
			}
		}
	}
	if n := len(hosts[0].Runs); n != 3 {
		t.Errorf("the 12-04 host has %d runs, want 3 (make bench and two again)", n)
	}
	if _, err := ReadHosts(t.TempDir()); err != nil {
		t.Errorf("no index: %v, want no hosts and no error", err)
	}
	bad := t.TempDir()
	os.MkdirAll(filepath.Join(bad, "hosts"), 0o755)
	os.WriteFile(filepath.Join(bad, HostsIndex), []byte(`{"hosts":[{"key":"k","runs":["bench.txt"]}]}`), 0o644)
	if _, err := ReadHosts(bad); err == nil {
		t.Error("an index naming a missing run read without error")
	}
}

// host is a host of one run with these ratios.
func host(key string, ratios map[string]float64) Host {
	run := HostRun{Ratios: map[string]Figure{}}
	for s, v := range ratios {
		run.Ratios[s] = Figure{Spread: bench.Spread{Median: v, Lo: v - 0.01, Hi: v + 0.01, N: 1}}
	}
	return Host{Key: key, Runs: []HostRun{run}}
}

// TestOrderings: groups whose intervals on every host do not overlap
// are ordered (gnet 0.90-0.93 against fasthttp 1.15-1.30); a pair whose order differs between hosts is a flip, one in
// the same order on both but within the spread (fasthttp, fiber) is
// neither ranked nor a flip.
func TestOrderings(t *testing.T) {
	hosts := []Host{
		host("a", map[string]float64{"nethttp": 1.95, "fasthttp": 1.29, "fiber": 1.32, "gnet": 0.91, "floor": 0.87}),
		host("b", map[string]float64{"nethttp": 1.91, "fasthttp": 1.16, "fiber": 1.18, "gnet": 0.92, "floor": 0.93, "uring": 0.79}),
	}
	groups, flips := Orderings(hosts)
	want := [][]string{{"floor", "gnet"}, {"fasthttp", "fiber"}, {"nethttp"}}
	if !reflect.DeepEqual(groups, want) {
		t.Errorf("groups %v, want %v", groups, want)
	}
	if want := [][2]string{{"floor", "gnet"}}; !reflect.DeepEqual(flips, want) {
		t.Errorf("flips %v, want %v", flips, want)
	}
	r := HostRanges(hosts)
	var u HostRange
	for _, x := range r {
		if x.Stack == "uring" {
			u = x
		}
	}
	if u.Hosts != 1 || u.Lo != 0.79 || u.Hi != 0.79 || u.Bottom != 0.78 || u.Top != 0.80 {
		t.Errorf("uring's range %+v, want 0.79 on 1 host", u)
	}
}

// TestHostRangeRuns: a host's range spans every invocation's median, so
// that one invocation shown beside it (the pick table's) lies within it,
// though the host's own figure is the median of its invocations.
func TestHostRangeRuns(t *testing.T) {
	d := host("d", map[string]float64{"nethttp": 2.35})
	d.Runs = append(d.Runs, host("", map[string]float64{"nethttp": 2.30}).Runs[0], host("", map[string]float64{"nethttp": 2.33}).Runs[0])
	hosts := []Host{host("a", map[string]float64{"nethttp": 1.91}), d}
	if f, _ := d.Ratio("nethttp"); f.Median != 2.33 {
		t.Errorf("host d's median %v, want 2.33", f.Median)
	}
	r := HostRanges(hosts)
	if len(r) != 1 || r[0].Lo != 1.91 || r[0].Hi != 2.35 || r[0].Hosts != 2 {
		t.Errorf("range %+v, want 1.91-2.35 on 2 hosts", r)
	}
}

// TestCheckSplit flags a benchmark whose user+sys is over 2 % from its
// total, and counts only those that report the split.
func TestCheckSplit(t *testing.T) {
	c := checkSplit(map[string]Samples{
		"BenchmarkCeiling/nginx/keepalive":   {"cpu-us/req": {10, 10}, "user-us/req": {4, 4.1}, "sys-us/req": {6, 5.9}},
		"BenchmarkCeiling/nethttp/keepalive": {"cpu-us/req": {20, 20}, "user-us/req": {12, 12}, "sys-us/req": {7, 7}},
		"BenchmarkCeiling/gnet/keepalive":    {"cpu-us/req": {9, 9}},
	})
	if c.Rows != 2 || len(c.Off) != 1 || c.Off["BenchmarkCeiling/nethttp/keepalive"] != 5 {
		t.Errorf("split check %+v, want 2 rows, nethttp 5 %% off", c)
	}
}

// TestOrderingsWithinInterval: medians apart on every host are not a
// ranking where one host's own interval covers the difference.
func TestOrderingsWithinInterval(t *testing.T) {
	wide := func(v, half float64) Figure {
		return Figure{Spread: bench.Spread{Median: v, Lo: v - half, Hi: v + half, N: 6}}
	}
	hosts := []Host{
		{Runs: []HostRun{{Ratios: map[string]Figure{"fasthttp": wide(1.00, 0.10), "fiber": wide(1.05, 0.01)}}}},
		{Runs: []HostRun{{Ratios: map[string]Figure{"fasthttp": wide(1.01, 0.01), "fiber": wide(1.06, 0.01)}}}},
	}
	groups, flips := Orderings(hosts)
	if want := [][]string{{"fasthttp", "fiber"}}; !reflect.DeepEqual(groups, want) || len(flips) != 0 {
		t.Errorf("groups %v flips %v, want %v and none", groups, flips, want)
	}
}

// TestFileHostRun files a recorded run (12-04 22:43, from git show
// 3e36f20:results/bench.txt) under its host's key, reads it back, and
// files it again without a second entry.
func TestFileHostRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join("render", "testdata", "compare-1204", "bench.txt")
	for range 2 {
		key, err := FileHostRun(dir, file)
		if err != nil {
			t.Fatal(err)
		}
		if key != "amd-epyc_linux-6.18.44-fc-v1272_mitigations-not-recorded" {
			t.Errorf("key %s", key)
		}
	}
	hosts, err := ReadHosts(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(hosts) != 1 || len(hosts[0].Runs) != 1 || hosts[0].Runs[0].Date != "2026-12-04 22:43 UTC" {
		t.Fatalf("hosts %+v, want one host of one run, 2026-12-04 22:43 UTC", hosts)
	}
	want, _ := os.ReadFile(file)
	filed := filepath.Join(dir, "hosts", hosts[0].Key, "2026-12-04-22-43-utc", "bench.txt")
	if _, err := os.Stat(filed); !os.IsNotExist(err) {
		t.Errorf("a plain copy filed: %v", err)
	}
	z, err := os.Open(filed + ".gz")
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	zr, err := gzip.NewReader(z)
	if err != nil {
		t.Fatalf("the filed copy is not gzip: %v", err)
	}
	if got, err := io.ReadAll(zr); err != nil || string(got) != string(want) {
		t.Errorf("the filed copy differs from the run (%v)", err)
	}
	if _, err := FileHostRun(dir, filepath.Join(dir, "none", "bench.txt")); err == nil {
		t.Error("filing a missing run succeeded")
	}
}
